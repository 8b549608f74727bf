"""Benchmark: graphnb's drawings against Graphviz ``dot`` on the same graphs.

Run with ``python benchmarks/diagram_quality.py``. Needs Graphviz's ``dot`` on the PATH
(Debian: ``apt-get install -y graphviz``); without it, the dot columns are skipped and the
script says so.

Both layouts are measured the same way (:mod:`graphnb.diagram.quality`), on the drawn
curves: crossings (points where two edges cross), the most arrow tips meeting at one point
(closer than an arrowhead's width, 9 px), the total length of the edges, and the area of
the drawing. To compare like with like, dot is given graphnb's own box sizes (``fixedsize``
nodes, 1 px = 1 pt), its gaps between nodes and between ranks, and the same edge labels;
its positions come from ``dot -Tjson``.

The verdict (issue 16): on the ReAct machine and the habit-plan machine graphnb must be
no worse than dot on crossings, length and area, have at most 1 crossing on the ReAct
machine, and no more than 2 arrowheads meeting at a point. Small random graphs are shown
for information.
"""

from __future__ import annotations

import itertools
import json
import random
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

from graphnb import END, START, EdgeSpec, GraphSpec, NodeSpec
from graphnb.agent.react import REACT_MACHINE
from graphnb.diagram import extract
from graphnb.diagram.geometry import Point
from graphnb.diagram.layered import compute_layout
from graphnb.diagram.model import Diagram
from graphnb.diagram.quality import Quality, arrowhead_crowding, crossings, measure
from graphnb.diagram.svg import LABEL_FONT, svg_sizes

REPO = Path(__file__).resolve().parents[1]


def habit_plan() -> object:
    """The habit-plan machine of ``examples/habit_plan.py``."""
    path = REPO / "examples" / "habit_plan.py"
    return runpy.run_path(str(path), run_name="habit_plan_example")["FLOW"]


def random_graph(nodes: int, seed: int) -> GraphSpec:
    """A small reachable graph with labelled edges and some cycles."""
    rng = random.Random(seed)
    names = [f"step_{i}" for i in range(nodes)]
    edges = [EdgeSpec(source=START, target=names[0]), EdgeSpec(source=names[-1], target=END)]
    edges += [EdgeSpec(source=names[rng.randrange(i)], target=names[i]) for i in range(1, nodes)]
    while len(edges) < int(nodes * 1.6):
        label = rng.choice([None, None, "retry", "done"])
        edges.append(EdgeSpec(source=rng.choice(names), target=rng.choice(names), label=label))
    return GraphSpec(name=f"random_{nodes}", nodes=[NodeSpec(id=n) for n in names], edges=edges)


def ours(diagram: Diagram) -> Quality:
    """graphnb's layout of ``diagram``, measured."""
    return measure(compute_layout(diagram, svg_sizes(diagram)))


def to_sized_dot(diagram: Diagram) -> str:
    """DOT for ``diagram`` with graphnb's box sizes and gaps, so dot lays out the same boxes."""
    sizes = svg_sizes(diagram)
    lines = [
        "digraph G {",
        f"  graph [rankdir=TB, nodesep={sizes.node_gap / 72:.3f}, "
        f"ranksep={sizes.rank_gap / 72:.3f}];",
        '  node [shape=box, fixedsize=true, fontname="Helvetica", fontsize=13];',
        f'  edge [fontname="Helvetica", fontsize={LABEL_FONT:g}];',
    ]
    ids = {node.id: f"n{i}" for i, node in enumerate(diagram.nodes)}
    for node in diagram.nodes:
        width, height = sizes.node(node)
        lines.append(
            f"  {ids[node.id]} [width={width / 72:.3f}, height={height / 72:.3f}, "
            f"label={json.dumps(node.label.splitlines()[0] if node.label else '')}];"
        )
    for edge in diagram.edges:
        label = f" [label={json.dumps(edge.label)}]" if edge.label else ""
        lines.append(f"  {ids[edge.source]} -> {ids[edge.target]}{label};")
    lines.append("}")
    return "\n".join(lines)


def dots(diagram: Diagram, dot: str) -> Quality:
    """dot's layout of ``diagram`` (with graphnb's sizes), measured the same way."""
    out = subprocess.run(
        [dot, "-Tjson"], input=to_sized_dot(diagram), capture_output=True, text=True, check=True
    ).stdout
    drawing = json.loads(out)
    _, _, width, height = (float(v) for v in drawing["bb"].split(","))
    lines: list[list[Point]] = []
    tips: list[Point] = []
    for edge in drawing.get("edges", []):
        points: list[Point] = []
        tip: Point | None = None
        for part in edge["pos"].split():
            if part.startswith("e,"):
                x, y = part[2:].split(",")
                tip = (float(x), float(y))
            elif part.startswith("s,"):
                continue
            else:
                x, y = part.split(",")
                points.append((float(x), float(y)))
        line = _bspline(points)
        if tip is not None:
            line.append(tip)
            tips.append(tip)
        lines.append(line)
    length = sum(
        ((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2) ** 0.5
        for line in lines
        for a, b in itertools.pairwise(line)
    )
    return Quality(
        crossings(lines),
        arrowhead_crowding(tips),
        round(length, 1),
        round(width * height, 1),
        width,
        height,
    )


def _bspline(points: list[Point]) -> list[Point]:
    """dot's edge: cubic Bezier pieces through ``points`` (1 + 3n of them), flattened."""
    out = [points[0]]
    for i in range(0, len(points) - 3, 3):
        a, b, c, d = points[i : i + 4]
        for step in range(1, 13):
            t = step / 12
            s = 1 - t
            out.append(
                (
                    s**3 * a[0] + 3 * s * s * t * b[0] + 3 * s * t * t * c[0] + t**3 * d[0],
                    s**3 * a[1] + 3 * s * s * t * b[1] + 3 * s * t * t * c[1] + t**3 * d[1],
                )
            )
    return out


def main() -> int:
    dot = shutil.which("dot")
    if dot is None:
        print("Graphviz `dot` is not installed: the comparison with dot is SKIPPED")
        print("(Debian: apt-get install -y graphviz). graphnb's own figures follow.\n")
    else:
        version = subprocess.run([dot, "-V"], capture_output=True, text=True).stderr.strip()
        print(f"comparing with {version}\n")
    graphs = {
        "ReAct machine": REACT_MACHINE,
        "habit-plan machine": habit_plan(),
        "random 12 nodes": random_graph(12, 1),
        "random 20 nodes": random_graph(20, 2),
        "random 30 nodes": random_graph(30, 3),
    }
    print(
        f"{'graph':<20} {'layout':<8} {'crossings':>9} {'arrows':>6} {'length px':>10} "
        f"{'area px2':>10} {'width':>6} {'height':>6}"
    )
    ok = True
    for name, graph in graphs.items():
        diagram = extract(graph)
        mine = ours(diagram)
        rows = [("graphnb", mine)]
        theirs = dots(diagram, dot) if dot is not None else None
        if theirs is not None:
            rows.append(("dot", theirs))
        for who, q in rows:
            print(
                f"{name:<20} {who:<8} {q.crossings:>9} {q.arrowheads:>6} {q.length:>10.0f} "
                f"{q.area:>10.0f} {q.width:>6.0f} {q.height:>6.0f}"
            )
        if name in ("ReAct machine", "habit-plan machine"):
            verdict = mine.arrowheads <= 2 and (name != "ReAct machine" or mine.crossings <= 1)
            if theirs is not None:
                verdict = verdict and (
                    mine.crossings <= theirs.crossings
                    and mine.length <= theirs.length
                    and mine.area <= theirs.area
                )
            ok = ok and verdict
            print(f"{'':<20} {'verdict':<8} {'OK' if verdict else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
