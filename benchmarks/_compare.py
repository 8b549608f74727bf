"""Shared helpers of the benchmarks: the machine they ran on, durations, the ratio table."""

from __future__ import annotations

import gc
import os
import platform
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True, slots=True)
class Comparison:
    """One scenario measured on both engines.

    Times are in seconds, per ``unit`` (a node step, a loop step, an invoke, an import).
    ``target`` is the ratio graphnb has to reach: LangGraph's time over graphnb's.
    """

    key: str
    scenario: str
    unit: str
    langgraph: float
    graphnb: float
    target: float

    @property
    def ratio(self) -> float:
        return self.langgraph / self.graphnb

    @property
    def met(self) -> bool:
        return self.ratio >= self.target

    def as_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "scenario": self.scenario,
            "unit": self.unit,
            "langgraph_seconds": self.langgraph,
            "graphnb_seconds": self.graphnb,
            "ratio": round(self.ratio, 2),
            "target": self.target,
            "met": self.met,
        }


def cpu_model() -> str:
    """The CPU's model name, from /proc/cpuinfo where there is one."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def version(distribution: str) -> str:
    """The installed version of a distribution, or ``"not installed"``."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def git_revision() -> str | None:
    """The working tree's short commit (with ``+dirty`` when it has changes), if in git."""
    try:
        revision = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", "graphnb"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return f"{revision}+dirty" if dirty else revision


def machine(*distributions: str) -> dict[str, str]:
    """What the numbers depend on: CPU, cores, Python, load, and the packages' versions."""
    info = {
        "cpu": cpu_model(),
        "cores": str(os.cpu_count()),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "os": platform.system() + " " + platform.release(),
    }
    if hasattr(os, "getloadavg"):  # a busy machine makes every number noisier
        info["load"] = f"{os.getloadavg()[0]:.1f}"
    for distribution in distributions:
        info[distribution] = version(distribution)
    revision = git_revision()
    if revision is not None:
        info["commit"] = revision
    return info


def machine_line(info: dict[str, str]) -> str:
    """``info`` as one line, for the header of a table."""
    parts = [f"{v} cores" if k == "cores" else f"{k} {v}" for k, v in info.items()]
    return ", ".join(parts)


def duration(seconds: float) -> str:
    """A duration with a unit that keeps three significant digits readable."""
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.2f} µs"


def table(rows: list[Comparison]) -> str:
    """The comparisons as a Markdown table (ratio = LangGraph time / graphnb time)."""
    header = ["scenario", "LangGraph", "graphnb", "ratio", "target", "met?"]
    body = [
        [
            f"{row.scenario} ({row.unit})",
            duration(row.langgraph),
            duration(row.graphnb),
            f"{row.ratio:.1f}x",
            f">= {row.target:g}x",
            "yes" if row.met else "NO",
        ]
        for row in rows
    ]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    right = {1, 2, 3}

    def line(cells: list[str]) -> str:
        padded = [
            cell.rjust(width) if i in right else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "| " + " | ".join(padded) + " |"

    rule = [("-" * (w + 1) + ":") if i in right else "-" * (w + 2) for i, w in enumerate(widths)]
    return "\n".join([line(header), "|" + "|".join(rule) + "|", *(line(cells) for cells in body)])


def cpu_per_call(call: Callable[[], object], calls: int) -> float:
    """CPU seconds per call over ``calls`` calls, the garbage collector off meanwhile."""
    gc.collect()
    gc.disable()
    try:
        started = time.process_time()
        for _ in range(calls):
            call()
        return (time.process_time() - started) / calls
    finally:
        gc.enable()
