"""Pruning on every saver: kept checkpoints load exactly as before, the others are gone."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import pytest

from graphnb import END, START, StateGraph, append
from graphnb.checkpoint import BaseSaver
from graphnb.checkpoint.prune import plan_prune, plan_rebuild
from graphnb.records import StoredCheckpoint


def step(state: dict[str, Any]) -> dict[str, Any]:
    return {"n": state["n"] + 1, "log": [state["n"]]}


def again(state: dict[str, Any]) -> str:
    return "step" if state["n"] < state["stop"] else "end"


def looping(saver: BaseSaver) -> Any:
    graph = StateGraph(dict, reducers={"log": append}).add_node("step", step)
    graph.add_edge(START, "step").add_conditional_edges("step", again, {"step": "step", "end": END})
    return graph.compile(checkpointer=saver)


def fill(saver: BaseSaver) -> Any:
    """Two threads with long delta chains (80 steps: a snapshot at 50) and a fork."""
    app = looping(saver)
    for thread in ("a", "b"):
        app.invoke({"n": 0, "stop": 40, "log": []}, thread_id=thread)
        app.invoke({"stop": 80}, thread_id=thread)
    # a fork from an old checkpoint of "a": rows of another branch inside kept ranges
    old = app.get_state_history("a")[-20]
    app.invoke({"stop": old.values["n"] + 3}, thread_id="a", checkpoint_id=old.checkpoint_id)
    return app


def every_state(app: Any) -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (thread, snap.checkpoint_id): app.get_state(thread, snap.checkpoint_id).values
        for thread in app.list_threads()
        for snap in app.get_state_history(thread)
    }


def test_keep_last_keeps_loadable_checkpoints_equal_to_before(saver: BaseSaver) -> None:
    app = fill(saver)
    before = every_state(app)
    newest = {t: [s.checkpoint_id for s in app.get_state_history(t)[:5]] for t in ("a", "b")}
    removed = saver.prune(keep_last=5, batch_size=7)
    after = every_state(app)
    assert removed == len(before) - len(after)
    assert removed > 100  # most of 2 x ~165 rows go
    for thread, ids in newest.items():
        assert all((thread, cid) in after for cid in ids)
    for key, values in after.items():
        assert values == before[key]  # every kept checkpoint loads as before
    # the threads go on from where they were
    assert app.invoke({"stop": 82}, thread_id="b")["log"] == list(range(82))


def test_prune_by_age_and_thread_selection(saver: BaseSaver) -> None:
    app = fill(saver)
    count = len(every_state(app))
    assert saver.prune(older_than=3600) == 0  # nothing is an hour old
    removed = saver.prune(older_than=0, thread_ids=["b"])
    assert removed > 0
    assert len(app.get_state_history("a")) + len(app.get_state_history("b")) == count - removed
    assert app.get_state("b").values["n"] == 80


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "needs older_than"),
        ({"keep_last": 0}, "keep_last must be"),
        ({"older_than": -1}, "older_than must be"),
        ({"keep_last": 1, "batch_size": 0}, "batch_size must be"),
    ],
)
def test_bad_options_name_themselves(
    saver: BaseSaver, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        saver.prune(**options)


def _row(seq: int, parent: int | None, base: int, created: float) -> StoredCheckpoint:
    return StoredCheckpoint(
        thread_id="t",
        seq=seq,
        checkpoint_id=f"c{seq}",
        parent_id=None if parent is None else f"c{parent}",
        parent_seq=parent,
        base_seq=base,
        step=seq,
        source="loop",
        created_at=created,
        meta={},
        writes=[],
    )


def test_plan_keeps_the_chain_back_to_the_snapshot_only() -> None:
    # 0 <- 1 <- 2 <- 3 (snapshot at 0); 4 forks from 1; 5 continues 3
    rows = [_row(0, None, 0, 0), _row(1, 0, 0, 1), _row(2, 1, 0, 2), _row(3, 2, 0, 3)]
    rows += [_row(4, 1, 0, 4), _row(5, 3, 0, 5)]
    assert plan_prune(rows, keep_last=1) == [4]  # 5 is rebuilt from 0..3
    snap = [*rows[:5], replace(_row(5, 3, 5, 5), snapshot={"n": 1})]
    assert plan_prune(snap, keep_last=1) == [0, 1, 2, 3, 4]
    assert plan_prune(snap, older_than=1.5, now=5) == [2, 3]  # young 4 keeps 1 and 0


def test_rebuilding_snapshots_keeps_only_what_was_asked_and_loads_it_as_before(
    saver: BaseSaver,
) -> None:
    app = fill(saver)
    before = every_state(app)
    newest = {t: [s.checkpoint_id for s in app.get_state_history(t)[:5]] for t in ("a", "b")}
    removed = app.threads.prune(keep_last=5, batch_size=3)
    after = every_state(app)
    assert removed == len(before) - len(after)
    # only the five newest of each thread stay: no ancestor is kept for them
    assert set(after) == {(thread, cid) for thread, ids in newest.items() for cid in ids}
    for key, values in after.items():
        assert values == before[key]  # every kept checkpoint loads as before
    for thread in ("a", "b"):
        rows = saver.history(thread)
        oldest = rows[0]
        assert oldest.snapshot is not None  # rebuilt
        assert oldest.base_seq == oldest.seq
        assert all(row.base_seq >= oldest.seq for row in rows)
    assert app.invoke({"stop": 82}, thread_id="b")["log"] == list(range(82))


def test_rebuilding_by_age_keeps_young_forks_loadable(saver: BaseSaver) -> None:
    app = fill(saver)
    before = every_state(app)
    rows = saver.history("a")
    cutoff = rows[-6].created_at  # the fork's rows and the last few of the main line
    removed = app.threads.prune(older_than=time.time() - cutoff, thread_ids=["a"])
    after = every_state(app)
    assert removed > 50
    assert len(after) == len(before) - removed
    assert all(t == "a" for t, _ in set(before) - set(after))  # "b" untouched
    for key, values in after.items():
        assert values == before[key]


def test_the_rebuild_plan_snapshots_the_oldest_kept_of_each_branch() -> None:
    # 0 <- 1 <- 2 <- 3 (snapshot at 0); 4 forks from 1; 5 continues 3
    rows = [_row(0, None, 0, 0), _row(1, 0, 0, 1), _row(2, 1, 0, 2), _row(3, 2, 0, 3)]
    rows += [_row(4, 1, 0, 4), _row(5, 3, 0, 5)]
    plan = plan_rebuild(rows, keep_last=2)  # 4 and 5 stay, each on its own snapshot
    assert (plan.snapshots, plan.rebase, plan.delete) == ([4, 5], {}, [0, 1, 2, 3])
    plan = plan_rebuild(rows, older_than=2.5, now=5)  # 3, 4, 5 stay; 5 is rebuilt from 3
    assert (plan.snapshots, plan.rebase, plan.delete) == ([3, 4], {3: [5]}, [0, 1, 2])


def test_a_prune_that_keeps_a_delta_chain_says_what_it_kept_and_why(saver: BaseSaver) -> None:
    # Issue 29, item 18: keep_last=2 on a chain without a snapshot removed nothing and
    # said "0" without the reason.
    from graphnb.checkpoint.prune import PruneResult

    app = looping(saver)
    app.invoke({"n": 0, "stop": 9, "log": []}, thread_id="t")  # 11 checkpoints, 1 snapshot
    before = len(app.get_state_history("t"))
    state = app.get_state("t").values
    result = saver.prune(keep_last=2)
    assert isinstance(result, PruneResult)
    assert (result, result.kept_ancestors) == (0, before - 2)
    assert repr(result) == f"PruneResult(removed=0, kept_ancestors={before - 2})"
    assert str(result) == (
        f"removed 0 checkpoints; kept {before - 2} older checkpoints that the kept ones are "
        "rebuilt from (a checkpoint stores what changed since the last snapshot); prune "
        "through the graph's state model to rebuild snapshots and remove them too: "
        "app.threads.prune(...)"
    )
    rebuilt = app.threads.prune(keep_last=2)  # what the message says to do
    assert (rebuilt, rebuilt.kept_ancestors) == (before - 2, 0)
    assert str(rebuilt) == f"removed {before - 2} checkpoints"
    assert len(app.get_state_history("t")) == 2
    assert app.get_state("t").values == state
