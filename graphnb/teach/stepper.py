"""Step through a run super-step by super-step, and replay it without a kernel.

:class:`Stepper` runs a graph once, keeping every event, and cuts the run into frames:
the input, then one frame per super-step (which nodes ran, what each wrote, the state
before and after with the changed fields marked), drawn on the graph's diagram with
:mod:`graphnb.diagram`'s trace overlay. In a kernel, :meth:`Stepper.forward` and
:meth:`Stepper.back` move through it; its HTML (``_repr_html_``, :meth:`Stepper.to_html`)
holds an inline SVG per frame and a few lines of plain JavaScript for the Back and Next
buttons, so a saved notebook or its ``nbconvert --to html`` page replays the run with no
kernel. Without JavaScript (an untrusted notebook) every frame shows, one under another.
"""

from __future__ import annotations

import itertools
import json
import uuid
from dataclasses import dataclass, field
from html import escape
from typing import Any

from ..diagram import Trace, to_svg
from .subject import Subject, as_map, describe_error

__all__ = ["Frame", "NodeWrite", "Stepper"]

_threads = itertools.count()


@dataclass(frozen=True, slots=True)
class NodeWrite:
    """One node's part in a super-step.

    Attributes:
        node: the node.
        writes: the update it returned (field -> value), empty when it failed.
        error: why it failed, as one line, if it did.
    """

    node: str
    writes: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Frame:
    """One stop of the stepper: the input, a super-step, or where the run stopped.

    Attributes:
        step: the engine's step number (``-1`` is the input).
        title: a line saying what happened.
        nodes: the nodes that ran, with what they wrote; each read ``before``.
        before: the state the step's nodes were handed.
        after: the state once their writes were merged.
        next: the nodes scheduled next.
        svg: the diagram with the run so far drawn on it.
    """

    step: int
    title: str
    nodes: tuple[NodeWrite, ...]
    before: dict[str, Any]
    after: dict[str, Any]
    next: tuple[str, ...]
    svg: str = field(repr=False)

    @property
    def changed(self) -> tuple[str, ...]:
        """The fields whose value differs between ``before`` and ``after``."""
        names = dict.fromkeys([*self.before, *self.after])
        return tuple(n for n in names if self.before.get(n, _MISSING) != self.after.get(n))

    def _repr_html_(self) -> str:
        return _frame_html(self)


_MISSING = object()


class Stepper:
    """A recorded run of ``graph`` on ``input``, to step through forward and back.

    Args:
        graph: a ``StateGraph``, compiled graph or the builder.
        input: the run's input.
        context: the run's context, as ``invoke(context=...)``.

    Raises:
        TypeError: ``graph`` is not something that runs.

    Example:
        >>> from graphnb import END, START, StateGraph
        >>> graph = StateGraph(dict).add_node("hi", lambda s: {"said": "hi " + s["name"]})
        >>> stepper = Stepper(graph.add_edge(START, "hi").add_edge("hi", END), {"name": "Ada"})
        >>> [frame.title for frame in stepper.frames]
        ['Input: the run starts with the input merged into the defaults', 'Step 0: `hi` ran']
        >>> stepper.forward().changed
        ('said',)
    """

    def __init__(self, graph: Any, input: Any, *, context: dict[str, Any] | None = None) -> None:
        subject = Subject(graph)
        app = subject.compiled()
        if app is None:
            raise TypeError(f"cannot step through this graph: {subject.why_not}")
        self.spec = app.spec
        self.events: list[Any] = []
        self.error: str | None = None
        try:
            stream = app.stream(input, context=context, thread_id=f"stepper-{next(_threads)}")
            for event in stream:
                self.events.append(event)
        except Exception as error:  # a run that fails is still worth stepping through
            self.error = describe_error(error.__cause__ or error)
        self.frames: tuple[Frame, ...] = tuple(self._frames())
        self.position = 0

    def __repr__(self) -> str:
        return f"<Stepper {self.spec.name!r}: frame {self.position + 1} of {len(self.frames)}>"

    @property
    def current(self) -> Frame:
        """The frame the stepper is at."""
        return self.frames[self.position]

    def go(self, position: int) -> Frame:
        """Move to frame ``position`` (counted from 0; negative counts from the end)."""
        if not -len(self.frames) <= position < len(self.frames):
            raise IndexError(f"there are {len(self.frames)} frames; {position} is not one")
        self.position = position % len(self.frames)
        return self.current

    def forward(self) -> Frame:
        """Move one frame on (staying at the last) and return it."""
        return self.go(min(self.position + 1, len(self.frames) - 1))

    def back(self) -> Frame:
        """Move one frame back (staying at the first) and return it."""
        return self.go(max(self.position - 1, 0))

    def _frames(self) -> list[Frame]:
        frames: list[Frame] = []
        before: dict[str, Any] = {}
        writes: list[NodeWrite] = []
        for index, event in enumerate(self.events):
            kind = getattr(event, "kind", "")
            if kind == "node_finished":
                writes.append(NodeWrite(event.node, dict(event.update)))
            elif kind == "node_failed":
                cause = event.error.__cause__ or event.error
                writes.append(NodeWrite(event.node, error=describe_error(cause)))
            elif kind == "step_finished":
                after = as_map(event.state)
                if event.step < 0:
                    title = "Input: the run starts with the input merged into the defaults"
                else:
                    ran = ", ".join(f"`{node}`" for node in event.nodes)
                    title = f"Step {event.step}: {ran} ran"
                svg = to_svg(self.spec, trace=Trace.from_events(self.events[: index + 1]))
                frames.append(
                    Frame(event.step, title, tuple(writes), before, after, tuple(event.next), svg)
                )
                before, writes = after, []
            elif kind == "interrupted":
                waiting = ", ".join(f"`{stop.node}`" for stop in event.interrupts)
                frames.append(self._stop(f"Stopped at {waiting} for a human", before, ()))
        if self.error is not None:
            frames.append(self._stop(f"The run failed: {self.error}", before, tuple(writes)))
        return frames

    def _stop(self, title: str, state: dict[str, Any], writes: tuple[NodeWrite, ...]) -> Frame:
        svg = to_svg(self.spec, trace=Trace.from_events(self.events))
        step = getattr(self.events[-1], "step", 0) if self.events else 0
        return Frame(step, title, writes, state, state, (), svg)

    def to_html(self) -> str:
        """The replay as an HTML fragment: every frame, and Back/Next buttons in plain JS."""
        root = f"graphnb-stepper-{uuid.uuid4().hex[:12]}"
        frames = "".join(
            f'<section class="graphnb-frame" data-index="{i}">{_frame_html(frame)}</section>'
            for i, frame in enumerate(self.frames)
        )
        return (
            f'<div id="{root}" class="graphnb-stepper" data-position="{self.position}" '
            'style="font-family:sans-serif;font-size:13px">'
            '<div class="graphnb-stepper-bar" style="display:none;gap:8px;align-items:center;'
            'margin:4px 0"><button type="button" class="graphnb-back">&#9664; Back</button>'
            '<span class="graphnb-where"></span>'
            '<button type="button" class="graphnb-next">Next &#9654;</button></div>'
            f"{frames}</div><script>{_SCRIPT.replace('ROOT', json.dumps(root))}</script>"
        )

    def _repr_html_(self) -> str:
        return self.to_html()

    def save(self, path: str) -> None:
        """Write the replay as a standalone HTML page at ``path``."""
        page = (
            '<!doctype html><html><head><meta charset="utf-8">'
            f"<title>{escape(self.spec.name)}: a run step by step</title></head>"
            f"<body>{self.to_html()}</body></html>"
        )
        with open(path, "w", encoding="utf-8") as file:
            file.write(page)


# Shows one frame at a time once JavaScript runs; without it every frame stays visible.
# The script drives the stepper just before it, not the first element with its id: a front
# end may hold two copies of one output at once (a second view of it, or a re-render that
# mounts the new copy before the old one is gone), and both copies carry the same id.
_SCRIPT = """(function () {
  var script = document.currentScript;
  var root = script && script.previousElementSibling;
  if (!root || root.id !== ROOT) { root = document.getElementById(ROOT); }
  if (!root) { return; }
  var frames = root.querySelectorAll(".graphnb-frame");
  var where = root.querySelector(".graphnb-where");
  var back = root.querySelector(".graphnb-back");
  var next = root.querySelector(".graphnb-next");
  var at = Number(root.getAttribute("data-position")) || 0;
  function show(i) {
    at = Math.max(0, Math.min(frames.length - 1, i));
    for (var k = 0; k < frames.length; k++) {
      frames[k].style.display = k === at ? "block" : "none";
    }
    root.setAttribute("data-position", String(at));
    where.textContent = "Frame " + (at + 1) + " of " + frames.length;
    back.disabled = at === 0;
    next.disabled = at === frames.length - 1;
  }
  back.addEventListener("click", function () { show(at - 1); });
  next.addEventListener("click", function () { show(at + 1); });
  root.querySelector(".graphnb-stepper-bar").style.display = "flex";
  show(at);
})();"""

_CHANGED = "background:#fff3c4"


def _value(value: Any) -> str:
    text = repr(value)
    return escape(text if len(text) <= 120 else text[:117] + "...")


def _frame_html(frame: Frame) -> str:
    changed = set(frame.changed)
    rows = "".join(
        f'<tr class="{"graphnb-changed" if name in changed else ""}"'
        f"{f' style={chr(34)}{_CHANGED}{chr(34)}' if name in changed else ''}>"
        f"<td><code>{escape(name)}</code></td>"
        f"<td><code>{_value(frame.before[name]) if name in frame.before else ''}</code></td>"
        f"<td><code>{_value(frame.after.get(name))}</code></td></tr>"
        for name in dict.fromkeys([*frame.before, *frame.after])
    )
    writes = "".join(
        f"<li><b>{escape(w.node)}</b> "
        + (
            f'<span style="color:#b00020">failed: {escape(w.error)}</span>'
            if w.error
            else "wrote "
            + (
                ", ".join(f"<code>{escape(k)}</code> = {_value(v)}" for k, v in w.writes.items())
                or "nothing"
            )
        )
        + "</li>"
        for w in frame.nodes
    )
    upcoming = ", ".join(escape(n) for n in frame.next) or "nothing: the run ends"
    return (
        f'<h4 class="graphnb-frame-title" style="margin:4px 0">{escape(frame.title)}</h4>'
        f'<div style="display:flex;gap:16px;flex-wrap:wrap;align-items:flex-start">'
        f'<div style="max-width:420px">{frame.svg}</div><div>'
        + (
            f"<p>Each node read the state before the step, then:</p><ul>{writes}</ul>"
            if writes
            else ""
        )
        + '<table style="border-collapse:collapse"><tr><th>field</th><th>before</th>'
        f"<th>after</th></tr>{rows}</table>"
        f"<p>Next: {upcoming}</p></div></div>"
    )
