"""The trace log of an agent run: transitions, phases, model calls, tool calls, retries.

Every record has a start (seconds since the run began) and a duration, so the log answers
"what happened, in which order, and what was slow", exports as JSON, and shows in a
notebook as a table and a timeline.

Example:
    >>> log = TraceLog()
    >>> for ok in (False, False, False, True):
    ...     _ = log.add("tool_call", "weather", start=0.0, duration=0.01, ok=ok)
    >>> _ = log.add("phase", "THINKING", start=0.0, duration=0.2)
    >>> _ = log.add("phase", "THINKING", start=0.3, duration=0.4)
    >>> log.failing_tools(3)
    {'weather': 3}
    >>> round(log.phase_stats()["THINKING"].mean, 3), log.slowest_phase()
    (0.3, 'THINKING')
"""

from __future__ import annotations

import html
import json
import math
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from ..diagram import Trace

__all__ = ["PhaseStats", "TraceKind", "TraceLog", "TraceRecord"]

TraceKind = Literal["transition", "phase", "model_call", "tool_call", "retry"]
"""What a record is about."""

_COLOURS = {
    "phase": "#9ecae1",
    "model_call": "#fdae6b",
    "tool_call": "#a1d99b",
    "retry": "#fc9272",
    "transition": "#bcbddc",
}


@dataclass(frozen=True, slots=True)
class TraceRecord:
    """One thing that happened during a run.

    Attributes:
        kind: what it is about.
        name: a transition's ``"SOURCE -> TARGET"``, a phase's state, the model's or the
            tool's name, or the retried phase.
        start: seconds from the start of the log.
        duration: seconds it took (0 for instant records such as transitions).
        ok: false when it failed.
        detail: JSON-able details (event, call id, error kind, delay...).
    """

    kind: TraceKind
    name: str
    start: float
    duration: float
    ok: bool = True
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PhaseStats:
    """Durations of one phase over a run, in seconds."""

    count: int
    total: float
    mean: float
    p95: float


def _p95(values: list[float]) -> float:
    """The nearest-rank 95th percentile (a value that occurred, defined for one value)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


class TraceLog:
    """An append-only log of :class:`TraceRecord` with aggregations."""

    def __init__(self) -> None:
        self.records: list[TraceRecord] = []
        self._origin = time.perf_counter()

    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self) -> Iterator[TraceRecord]:
        return iter(self.records)

    def now(self) -> float:
        """Seconds since the log began."""
        return time.perf_counter() - self._origin

    def add(
        self,
        kind: TraceKind,
        name: str,
        /,
        *,
        start: float | None = None,
        duration: float = 0.0,
        ok: bool = True,
        **detail: Any,
    ) -> TraceRecord:
        """Append a record; ``start`` defaults to now."""
        record = TraceRecord(
            kind, name, self.now() if start is None else start, duration, ok, detail
        )
        self.records.append(record)
        return record

    @contextmanager
    def span(self, kind: TraceKind, name: str, /, **detail: Any) -> Iterator[dict[str, Any]]:
        """Time a block; the yielded dict collects details. A raising block is not ok."""
        start = self.now()
        extra: dict[str, Any] = dict(detail)
        ok = True
        try:
            yield extra
        except BaseException as error:
            ok = False
            extra.setdefault("error", type(error).__name__)
            raise
        finally:
            ok = ok and extra.pop("ok", True)
            self.add(kind, name, start=start, duration=self.now() - start, ok=ok, **extra)

    def of(self, kind: TraceKind) -> list[TraceRecord]:
        """The records of one kind, in order."""
        return [record for record in self.records if record.kind == kind]

    # -- aggregations ----------------------------------------------------------------------

    def failing_tools(self, threshold: int = 3) -> dict[str, int]:
        """Tools with ``threshold`` or more consecutive failed calls.

        Returns:
            each such tool's longest run of consecutive failures.
        """
        streak: dict[str, int] = defaultdict(int)
        longest: dict[str, int] = defaultdict(int)
        for record in self.of("tool_call"):
            streak[record.name] = 0 if record.ok else streak[record.name] + 1
            longest[record.name] = max(longest[record.name], streak[record.name])
        return {name: count for name, count in longest.items() if count >= threshold}

    def phase_stats(self) -> dict[str, PhaseStats]:
        """Count, total, mean and p95 duration of each phase."""
        durations: dict[str, list[float]] = defaultdict(list)
        for record in self.of("phase"):
            durations[record.name].append(record.duration)
        return {
            name: PhaseStats(len(values), sum(values), sum(values) / len(values), _p95(values))
            for name, values in durations.items()
        }

    def slowest_phase(self) -> str | None:
        """The phase with the highest mean duration, or ``None`` for an empty log."""
        stats = self.phase_stats()
        return max(stats, key=lambda name: stats[name].mean) if stats else None

    def path(self) -> list[tuple[str, str]]:
        """The ``(source, target)`` states of each transition, in order."""
        pairs = []
        for record in self.of("transition"):
            source, _, target = record.name.partition(" -> ")
            pairs.append((source, target))
        return pairs

    def diagram_trace(self) -> Trace:
        """The path through the machine, to draw on its diagram.

        Example: ``graphnb.diagram.to_svg(REACT_MACHINE, trace=result.trace.diagram_trace())``.
        """
        from ..diagram import Trace

        path = self.path()
        steps: dict[str, list[int]] = {}
        if path:
            steps[path[0][0]] = [0]
        for index, (_, target) in enumerate(path, start=1):
            steps.setdefault(target, []).append(index)
        return Trace(
            {state: tuple(entered) for state, entered in steps.items()},
            edges=tuple(dict.fromkeys(path)),
        )

    # -- export and display ----------------------------------------------------------------

    def to_dicts(self) -> list[dict[str, Any]]:
        """The records as JSON-able dicts."""
        return [asdict(record) for record in self.records]

    def to_json(self, *, indent: int | None = 2) -> str:
        """The records as JSON text."""
        return json.dumps(self.to_dicts(), indent=indent, default=str)

    def _table_html(self) -> str:
        rows = "".join(
            "<tr>"
            f"<td>{html.escape(r.kind)}</td><td>{html.escape(r.name)}</td>"
            f"<td style='text-align:right'>{r.start * 1000:.1f}</td>"
            f"<td style='text-align:right'>{r.duration * 1000:.1f}</td>"
            f"<td>{'ok' if r.ok else 'failed'}</td>"
            f"<td><code>{html.escape(json.dumps(r.detail, default=str))}</code></td>"
            "</tr>"
            for r in self.records
        )
        return (
            "<table class='graphnb-trace'><thead><tr><th>kind</th><th>name</th>"
            "<th>start (ms)</th><th>duration (ms)</th><th>status</th><th>detail</th>"
            f"</tr></thead><tbody>{rows}</tbody></table>"
        )

    def _timeline_html(self) -> str:
        spans = [r for r in self.records if r.kind != "transition"]
        end = max((r.start + r.duration for r in spans), default=0.0) or 1e-9
        bars = []
        for r in spans:
            left = 100 * r.start / end
            width = max(0.5, 100 * r.duration / end)
            border = "" if r.ok else "border:2px solid #cb181d;"
            title = html.escape(f"{r.kind} {r.name}: {r.duration * 1000:.1f} ms")
            bars.append(
                "<div style='position:relative;height:18px;margin:2px 0'>"
                f"<div title='{title}' style='position:absolute;left:{left:.2f}%;"
                f"width:{width:.2f}%;height:16px;background:{_COLOURS[r.kind]};{border}"
                "font:11px sans-serif;white-space:nowrap;overflow:visible'>"
                f"{html.escape(r.name)}</div></div>"
            )
        return (
            f"<div class='graphnb-timeline' style='width:100%'>{''.join(bars)}</div>"
            f"<div style='font:11px sans-serif'>0 to {end * 1000:.1f} ms</div>"
        )

    def _repr_html_(self) -> str:
        return (
            f"<div><b>Trace</b>: {len(self.records)} records"
            f"{self._timeline_html()}{self._table_html()}</div>"
        )
