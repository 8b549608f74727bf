"""What a run records for inspecting a node: its step and writes, and each chunk's size."""

from __future__ import annotations

from typing import Any

from graphnb.widget import Builder

from .conftest import run_async  # type: ignore[import-not-found]


def test_a_finished_node_records_its_step_and_writes_and_chunks_their_sizes(comm, notebook):
    notebook["WORDS"] = 5
    builder = Builder(notebook["graph"], namespace=notebook)
    comm.clear()

    async def main() -> Any:
        comm.receive({"type": "run", "input": {"topic": "otter"}, "thread_id": None})
        task = builder._runner.task
        assert task is not None
        return await task

    run_async(main())
    nodes = builder.run_state["nodes"]
    assert nodes["research"]["writes"] == {"notes": ["facts about otter"]}
    assert nodes["draft"]["writes"] == {"text": "".join(f"otter-{i} " for i in range(5))}
    steps = [s["step"] for s in builder.run_state["steps"]]
    assert nodes["research"]["step"] in steps
    assert nodes["research"]["step"] < nodes["draft"]["step"]
    chunks = comm.custom("chunks")
    sizes = [size for c in chunks for size in c["sizes"]]
    assert sizes == [len(f"otter-{i} ") for i in range(5)]
    assert all(sum(c["sizes"]) == len(c["text"]) for c in chunks)
