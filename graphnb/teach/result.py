"""What a check found: one point per requirement met or missed, shown to the learner."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape

__all__ = ["CheckResult", "Point"]


@dataclass(frozen=True, slots=True)
class Point:
    """One thing the exercise asks, and whether the learner's graph does it.

    Attributes:
        requirement: what the exercise asks, as the teacher wrote it.
        passed: whether the graph does it.
        message: for a missed point, what is missing and where, and how to fix it.
        nodes: the nodes the point is about, to pin it on the canvas.
    """

    requirement: str
    passed: bool
    message: str = ""
    nodes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The outcome of :meth:`Exercise.check`: truthy when every point passed.

    Use :meth:`assert_passed` (or ``assert result``) in an nbgrader or otter-grader test:
    a missed point raises ``AssertionError`` carrying the friendly message.
    """

    title: str
    points: tuple[Point, ...]
    met: tuple[bool, ...] = ()
    """Per requirement of the exercise, whether all of its points passed.

    The summary counts requirements, so one requirement that misses two things (two dead
    ends) still counts once: "3 of 6" before and "all 6" after. Empty: count points.
    """
    sizes: tuple[int, ...] = ()
    """Per requirement, how many of ``points`` it gave (in order), so a view can show one
    line per requirement and never tick a point of a requirement that was missed."""
    asked: tuple[str, ...] = ()
    """Per requirement, what it asks (its description), shown for a requirement met."""

    def _counts(self) -> tuple[int, int]:
        """How many requirements (or points) passed, out of how many."""
        if self.met:
            return sum(self.met), len(self.met)
        return sum(p.passed for p in self.points), len(self.points)

    @property
    def passed(self) -> bool:
        """Whether every point passed."""
        return all(point.passed for point in self.points)

    @property
    def failures(self) -> tuple[Point, ...]:
        """The points missed, in the order the exercise lists them."""
        return tuple(point for point in self.points if not point.passed)

    def __bool__(self) -> bool:
        return self.passed

    def assert_passed(self) -> None:
        """Raise ``AssertionError`` with every missed point's message unless all passed."""
        if not self.passed:
            raise AssertionError(str(self))

    def problems(self) -> list[dict[str, object]]:
        """The missed points as the builder's problems, pinned on the nodes they name."""
        return [
            {"code": "exercise", "message": point.message, "nodes": list(point.nodes)}
            for point in self.failures
        ]

    def __str__(self) -> str:
        done, total = self._counts()
        if self.passed:
            return f"{self.title}: all {total} checks passed."
        missed = self.failures
        lines = [f"{self.title}: {done} of {total} checks passed."]
        lines += [f"- {message}" for message in dict.fromkeys(p.message for p in missed)]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_pretty_(self, printer: object, cycle: bool) -> None:
        printer.text(str(self))  # type: ignore[attr-defined]

    def _groups(self) -> list[tuple[str, bool, tuple[Point, ...]]]:
        """Per requirement: what it asks, whether it was met, and its points."""
        if not (self.met and len(self.sizes) == len(self.met) == len(self.asked)):
            return [(p.requirement, p.passed, (p,)) for p in self.points]
        groups, start = [], 0
        for asked, met, size in zip(self.asked, self.met, self.sizes, strict=True):
            groups.append((asked, met, self.points[start : start + size]))
            start += size
        return groups

    def _repr_html_(self) -> str:
        done, total = self._counts()
        if self.passed:
            colour, head = "#1a7f37", f"&#10004; {_html(self.title)}: all {total} checks passed."
        else:
            colour = "#b35900"
            head = f"{_html(self.title)}: {done} of {total} checks passed."
        # One line per requirement met, one per point missed: a tick stands only for a
        # requirement the summary counts as passed (a requirement with one point missed
        # and one met is not half ticked).
        items, shown = [], set()
        for asked, met, points in self._groups():
            if met:
                items.append(_item("#1a7f37", "&#10004;", asked))
                continue
            for p in points:
                if p.passed or p.message in shown:
                    continue  # one cause (a graph that is not there) is said once
                shown.add(p.message)
                items.append(_item("#b35900", "&#10008;", p.message))
        return (
            f'<div class="graphnb-check-result" style="border-left:4px solid {colour};'
            f'padding:4px 10px;font-family:sans-serif;font-size:13px">'
            f'<div style="color:{colour};font-weight:600">{head}</div>'
            f'<ul style="list-style:none;padding-left:4px;margin:4px 0">{"".join(items)}</ul></div>'
        )


_CODE = re.compile(r"`([^`\n]+)`")


def _html(text: str) -> str:
    """``text`` escaped for HTML, its `backticked` names shown as code, as the text reads."""
    return _CODE.sub(r"<code>\1</code>", escape(text))


def _item(colour: str, mark: str, text: str) -> str:
    return f'<li style="margin:2px 0"><span style="color:{colour}">{mark}</span> {_html(text)}</li>'
