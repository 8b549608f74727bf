r"""How a batch shows its progress: a widget in a notebook, a text bar in a terminal.

``graph.batch(inputs, progress=True)`` asks the engine for a display; the engine knows
only the :class:`~graphnb.engine.batch.OnProgress` callback protocol, and the package
façade installs :func:`display_for` here to make one. In a running Jupyter kernel with
ipywidgets installed the display is a :class:`ProgressWidget`; anywhere else it is a
:class:`TextProgress` on standard error, redrawn in place with ``\r`` on a terminal and
written as a few whole lines when standard error is a file or a pipe.

>>> import io
>>> from graphnb.engine.batch import BatchProgress
>>> out = io.StringIO()
>>> bar = TextProgress(out, width=10, live=False)
>>> bar(BatchProgress(total=4, done=3, failed=1, running=0, elapsed=2.0, finished=True))
>>> print(out.getvalue(), end="")
batch [##########] 4/4 done 3 failed 1 running 0 2.0/s 2s
"""

from __future__ import annotations

import importlib
import sys
import time
from typing import Any, TextIO

from .engine.batch import BatchProgress, OnProgress

__all__ = ["ProgressWidget", "TextProgress", "describe", "display_for", "in_notebook"]


def describe(progress: BatchProgress) -> str:
    """The counts, rate and time of ``progress`` in one line.

    >>> describe(BatchProgress(total=10, done=4, failed=1, running=2, elapsed=2.5))
    '5/10 done 4 failed 1 running 2 2.0/s ETA 2s'
    """
    counts = (
        f"{progress.completed}/{progress.total} done {progress.done} "
        f"failed {progress.failed} running {progress.running}"
    )
    rate = f"{progress.rate:.1f}/s"
    if progress.finished:
        return f"{counts} {rate} {_duration(progress.elapsed)}"
    eta = progress.eta
    return f"{counts} {rate} ETA {'?' if eta is None else _duration(eta)}"


def _duration(seconds: float) -> str:
    """``seconds`` as ``12s``, ``3m05s`` or ``1h02m``."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"


class TextProgress:
    r"""A text progress bar.

    Args:
        stream: where to write (standard error by default).
        width: the bar's width in characters.
        live: redraw one line in place with ``\r`` (a terminal); otherwise write a whole
            line at most every ``every`` seconds and at the end. By default, whether
            ``stream`` is a terminal.
        every: seconds between lines when not ``live``.
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        width: int = 30,
        live: bool | None = None,
        every: float = 10.0,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.live = _is_terminal(self.stream) if live is None else live
        self.every = every
        self._last_line: float | None = None

    def line(self, progress: BatchProgress) -> str:
        """The bar and the counts of ``progress``, without a line end."""
        filled = self.width * progress.completed // max(progress.total, 1)
        bar = "#" * filled + "." * (self.width - filled)
        return f"batch [{bar}] {describe(progress)}"

    def __call__(self, progress: BatchProgress, /) -> None:
        """Draw ``progress``; the last update ends the line."""
        if self.live:
            end = "\n" if progress.finished else ""
            self.stream.write(f"\r{self.line(progress)}\x1b[K{end}")
        else:
            now = time.monotonic()
            due = self._last_line is None or now - self._last_line >= self.every
            if not (progress.finished or due):
                return
            self._last_line = now
            self.stream.write(self.line(progress) + "\n")
        self.stream.flush()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class ProgressWidget:
    """A batch's progress as ipywidgets: a bar and a line of counts, rate and ETA.

    Attributes:
        bar: an ``IntProgress`` whose ``value`` is the inputs finished and ``max`` all of
            them; its style turns red (``danger``) once an input failed, green
            (``success``) when all finished without error.
        label: an ``HTML`` widget with :func:`describe`'s line.
        box: both in a row, the widget that is displayed.
    """

    def __init__(self, total: int) -> None:
        import ipywidgets

        self.bar = ipywidgets.IntProgress(value=0, min=0, max=max(total, 1), description="batch")
        self.label = ipywidgets.HTML(value=f"0/{total}")
        self.box = ipywidgets.HBox([self.bar, self.label])

    def __call__(self, progress: BatchProgress, /) -> None:
        """Show ``progress``."""
        import html

        self.bar.value = progress.completed
        if progress.failed:
            self.bar.bar_style = "danger"
        elif progress.finished:
            self.bar.bar_style = "success"
        self.label.value = html.escape(describe(progress))

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.box._repr_mimebundle_(**kwargs)


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel that can show ipywidgets."""
    if "ipykernel" not in sys.modules:
        return False
    try:
        ipython = importlib.import_module("IPython")
        importlib.import_module("ipywidgets")
    except ImportError:
        return False
    shell = ipython.get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def display_for(total: int) -> OnProgress:
    """The display of a batch of ``total`` inputs, chosen by where this process runs."""
    if in_notebook():
        widget = ProgressWidget(total)
        importlib.import_module("IPython.display").display(widget.box)
        return widget
    return TextProgress()
