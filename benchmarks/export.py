"""Notebook export in a fresh process: the CPU time of ``graphnb export x.py -o x.ipynb``.

    python benchmarks/export.py            # 5 fresh processes (target: under 1 s of CPU)
    python benchmarks/export.py --runs 9

Each run is a new ``python -m graphnb export`` process writing a notebook from a small
graph module; its CPU time (user + system, from ``getrusage``) is what a user pays at the
command line, imports included. ``python -c pass`` is timed alongside for reference. The
written notebook is checked with ``nbformat.validate`` once, outside the timings.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _compare import REPO, duration, machine, machine_line

TARGET_SECONDS = 1.0
GRAPH = """\
import graphnb


def greet(state: dict) -> dict:
    return {"greeting": f"hello {state.get('name', 'world')}"}


def shout(state: dict) -> dict:
    return {"greeting": state["greeting"].upper()}


graph = (
    graphnb.StateGraph(dict, name="hello")
    .add_node("greet", greet)
    .add_node("shout", shout)
    .add_edge(graphnb.START, "greet")
    .add_edge("greet", "shout")
    .add_edge("shout", graphnb.END)
)
"""


def child_cpu(arguments: list[str], cwd: Path) -> float:
    """CPU seconds (user + system) of one child process."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, *arguments], cwd=cwd, env=env, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh processes of each")
    args = parser.parse_args(argv)
    print(f"Machine: {machine_line(machine('graphnb', 'nbformat', 'jsonschema'))}")
    with tempfile.TemporaryDirectory(prefix="graphnb-export-") as folder:
        cwd = Path(folder)
        (cwd / "hello.py").write_text(GRAPH)
        export = ["-m", "graphnb", "export", "hello.py", "-o", "hello.ipynb"]
        child_cpu(export, cwd)  # compile .pyc files and warm the file cache
        import nbformat

        nbformat.validate(nbformat.read(cwd / "hello.ipynb", as_version=4))
        export_times, pass_times = [], []
        for _ in range(args.runs):
            export_times.append(child_cpu(export, cwd))
            pass_times.append(child_cpu(["-c", "pass"], cwd))
    median = statistics.median(export_times)
    print(f"python -c pass: median {duration(statistics.median(pass_times))}")
    print(
        f"graphnb export hello.py -o hello.ipynb: median {duration(median)} of CPU "
        f"({duration(min(export_times))}-{duration(max(export_times))}, {args.runs} runs)"
    )
    verdict = "OK" if median < TARGET_SECONDS else "MISSED"
    print(f"target < {duration(TARGET_SECONDS)}: {verdict}")
    return 0 if median < TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
