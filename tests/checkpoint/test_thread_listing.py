"""Listing threads with status, search and keyset paging, on every saver."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import pytest

from graphnb.checkpoint import BaseSaver, CheckpointLoadError

from .test_threads import chain


def test_threads_info_lists_newest_first_with_status(saver: BaseSaver) -> None:
    app = chain("a", "b").compile(checkpointer=saver, interrupt_before=["b"])
    app.invoke({}, thread_id="alpha")
    app.invoke(None, thread_id="alpha")  # finished
    time.sleep(0.01)
    app.invoke({}, thread_id="beta")  # stopped before b
    infos = app.threads_info()
    assert [info.thread_id for info in infos] == ["beta", "alpha"]
    beta, alpha = infos
    assert beta.status == "interrupted"
    assert alpha.status == "finished"
    assert alpha.step == app.get_state("alpha").step
    assert beta.updated_at >= alpha.updated_at
    assert app.list_threads() == ["alpha", "beta"]  # the old listing still works


def test_a_seed_not_run_yet_is_pending_with_or_without_start_at(saver: BaseSaver) -> None:
    app = chain("a", "b").compile(checkpointer=saver)
    app.seed_thread("at-entry", {"topic": "context"})
    app.seed_thread("at-b", {"topic": "context"}, start_at="b")
    app.seed_thread("edited", {"topic": "context"})
    app.update_state("edited", {"messages": ["note"]})
    assert {info.thread_id: info.status for info in app.threads_info()} == {
        "at-entry": "pending",
        "at-b": "pending",
        "edited": "pending",
    }
    app.invoke(None, thread_id="at-entry")
    (info,) = app.threads_info(search="at-entry")
    assert info.status == "finished"


@pytest.mark.parametrize(
    "meta",
    [[], {"ran": ["a"], "interrupts": "x"}, {"ran": ["a"], "error": "boom"}],
    ids=["a-list", "interrupts-text", "error-text"],
)
def test_a_thread_whose_last_meta_is_damaged_is_listed_as_damaged(
    saver: BaseSaver, meta: Any
) -> None:
    app = chain("a").compile(checkpointer=saver)
    for thread_id in ("good-1", "bad", "good-2"):
        app.invoke({}, thread_id=thread_id)
    last = saver.history("bad")[-1]
    saver.put(replace(last, seq=last.seq + 1, checkpoint_id="forged", meta=meta, texts=None))
    infos = {info.thread_id: info for info in app.threads_info()}
    assert sorted(infos) == ["bad", "good-1", "good-2"]  # one damaged row hides no thread
    assert infos["good-1"].status == infos["good-2"].status == "finished"
    bad = infos["bad"]
    assert (bad.status, bad.checkpoint_id) == ("damaged", "forged")
    assert bad.error is not None
    assert bad.error["type"] == "CheckpointLoadError"
    assert "checkpoint 'forged' of thread 'bad' has a malformed meta" in bad.error["message"]
    with pytest.raises(CheckpointLoadError, match="malformed meta"):
        app.get_state("bad")  # what the status announces


def test_threads_info_searches_and_pages(saver: BaseSaver) -> None:
    app = chain("a").compile(checkpointer=saver)
    for index in range(5):
        app.invoke({}, thread_id=f"run-{index}")
    app.invoke({}, thread_id="other")
    found = app.threads_info(search="RUN-")
    assert {info.thread_id for info in found} == {f"run-{index}" for index in range(5)}
    pages: list[str] = []
    after: str | None = None
    while page := app.threads_info(search="run", limit=2, after=after):
        assert len(page) <= 2
        pages += [info.thread_id for info in page]
        after = page[-1].thread_id
    assert pages == [info.thread_id for info in found]
    with pytest.raises(ValueError, match="limit"):
        app.threads_info(limit=0)
    with pytest.raises(ValueError, match="after"):
        app.threads_info(after="nope")


def test_heads_are_each_threads_last_checkpoint(saver: BaseSaver) -> None:
    app = chain("a", "b").compile(checkpointer=saver, interrupt_before=["b"])
    for thread_id in ("x", "y", "z"):
        app.invoke({}, thread_id=thread_id)
    app.invoke(None, thread_id="y")
    heads = {row.thread_id: row for row in saver.heads()}
    assert sorted(heads) == saver.threads()
    for thread_id, head in heads.items():
        last = saver.load(thread_id)
        assert last is not None
        expected = last.target
        assert (head.seq, head.checkpoint_id, head.step, head.meta, head.created_at) == (
            expected.seq,
            expected.checkpoint_id,
            expected.step,
            expected.meta,
            expected.created_at,
        )


def test_search_takes_like_wildcards_literally(saver: BaseSaver) -> None:
    app = chain("a").compile(checkpointer=saver)
    for thread_id in ("100%_done", "100x-done", "a!b"):
        app.invoke({}, thread_id=thread_id)
    assert [info.thread_id for info in app.threads_info(search="0%_")] == ["100%_done"]
    assert [info.thread_id for info in app.threads_info(search="A!B")] == ["a!b"]


def test_search_ignores_the_case_of_any_letter_not_only_ascii(saver: BaseSaver) -> None:
    """SQLite's LOWER folds ASCII only and MySQL's leaves bytes alone: each saver must
    find the same threads, as MemorySaver does with Python's str.lower."""
    app = chain("a").compile(checkpointer=saver)
    for thread_id in ("CAFÉ-order", "ÜBER-job", "ΣΟΦΙΑ", "cafe-plain"):
        app.invoke({}, thread_id=thread_id)

    def found(text: str) -> list[str]:
        return [info.thread_id for info in app.threads_info(search=text)]

    assert found("café") == ["CAFÉ-order"]  # accents still count: not "cafe-plain"
    assert found("über") == ["ÜBER-job"]
    assert found("σοφια") == ["ΣΟΦΙΑ"]
    assert found("CAFE") == ["cafe-plain"]
