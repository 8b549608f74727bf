"""Run a server (JupyterLab) as a child, and end it and everything it started with us.

``subprocess.call`` leaves a server running when its parent is stopped: SIGTERM or SIGHUP
ends the parent alone, and the server and its kernels go on serving. :func:`run_tree`
starts the command in a process group of its own and, when this process gets SIGINT
(Ctrl-C), SIGTERM or SIGHUP, asks the whole tree to stop: SIGTERM to the group (a
Jupyter server then shuts its kernels down itself), a grace period, then SIGKILL to
whatever of the tree is left, kernels included (Jupyter starts each kernel in a session
of its own, so they are found as the server's descendants, not by its group). A second
signal while the tree stops skips the rest of the grace period.

The group of its own also keeps the terminal's Ctrl-C from reaching the server directly:
JupyterLab would ask "Shutdown this Jupyter server (y/[n])?" and keep serving.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from types import FrameType
from typing import Any

__all__ = ["GRACE", "run_tree"]

GRACE = 10.0
"""Seconds the tree gets to stop after SIGTERM before the rest is killed."""


class _Stop(Exception):
    """Raised by the signal handler to leave the wait for the child."""


def _stop_signals() -> list[signal.Signals]:
    names = ("SIGINT", "SIGTERM", "SIGHUP")
    return [getattr(signal, name) for name in names if hasattr(signal, name)]


def run_tree(command: Sequence[str], *, what: str, grace: float = GRACE) -> int:
    """Run ``command`` until it ends, or until this process is told to stop.

    Args:
        command: the command line.
        what: what it runs, as the line said on stopping names it.
        grace: seconds the tree gets to stop before the rest is killed.

    Returns:
        The command's exit code; ``128 + signal`` when a signal stopped it (130 for
        Ctrl-C), as a shell reports it.
    """
    process = subprocess.Popen(list(command), start_new_session=sys.platform != "win32")
    received: list[int] = []

    def stop(signum: int, frame: FrameType | None) -> None:
        received.append(signum)
        if len(received) == 1:
            raise _Stop

    # Only the main thread may set signal handlers; elsewhere the caller's own apply.
    numbers = _stop_signals() if threading.current_thread() is threading.main_thread() else []
    previous = {number: signal.signal(number, stop) for number in numbers}
    try:
        try:
            return process.wait()
        except _Stop:
            name = signal.Signals(received[0]).name
            print(f"{name}: stopping {what}", file=sys.stderr, flush=True)
            _end_tree(process, grace, received)
            return 128 + received[0]
    finally:
        if process.poll() is None:  # an error of our own: never leave the server behind
            _end_tree(process, grace, received)
        for number, handler in previous.items():
            signal.signal(number, handler)


def _end_tree(process: subprocess.Popen[Any], grace: float, received: list[int]) -> None:
    """SIGTERM to ``process``'s group, up to ``grace`` seconds, then SIGKILL to the rest."""
    tree = _descendants(process.pid)  # before the server exits and its kernels lose it
    _signal_group(process, signal.SIGTERM)
    hurried = len(received)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and len(received) == hurried:
        if process.poll() is not None and not any(_alive(child) for child in tree):
            break
        time.sleep(0.05)
    _signal_group(process, getattr(signal, "SIGKILL", signal.SIGTERM))
    for child in tree:
        _kill(child)
    process.wait()


def _signal_group(process: subprocess.Popen[Any], number: int) -> None:
    try:
        if sys.platform == "win32":
            process.send_signal(number)
        else:
            os.killpg(process.pid, number)
    except (ProcessLookupError, PermissionError):  # the group has ended already
        pass


def _psutil() -> Any:
    """psutil, which comes with ipykernel (JupyterLab needs it); ``None`` without it."""
    try:
        import psutil  # type: ignore[import-untyped]
    except ImportError:
        return None
    return psutil


def _descendants(pid: int) -> list[Any]:
    """The processes ``pid`` started (and theirs), as psutil processes; [] without psutil."""
    psutil = _psutil()
    if psutil is None:
        return []
    try:
        return list(psutil.Process(pid).children(recursive=True))
    except psutil.Error:
        return []


def _alive(child: Any) -> bool:
    psutil = _psutil()  # a child was found by psutil, so it is there
    try:
        return bool(child.is_running()) and child.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:  # NoSuchProcess and kin: it has ended
        return False


def _kill(child: Any) -> None:
    psutil = _psutil()
    try:
        if _alive(child):
            child.kill()
    except psutil.Error:  # ended between the check and the kill
        pass
