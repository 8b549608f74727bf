"""Progress of a batch: the callback, the text bar and the notebook widget."""

from __future__ import annotations

import io
from typing import Any

import pytest

from graphnb.engine.batch import BatchProgress
from graphnb.progress import ProgressWidget, TextProgress, describe, display_for, in_notebook

from .conftest import process_pool


def test_callback_sees_every_input_finish_and_a_last_finished_update(nodes: Any) -> None:
    seen: list[BatchProgress] = []
    inputs = [{"x": i if i % 3 else -1} for i in range(9)]  # 3 fail
    nodes.build().batch(inputs, progress=seen.append, return_exceptions=True, max_concurrency=2)
    last = seen[-1]
    assert (last.total, last.done, last.failed, last.running, last.finished) == (9, 6, 3, 0, True)
    assert [p.finished for p in seen].count(True) == 1
    completed = [p.completed for p in seen]
    assert completed == sorted(completed)
    assert all(p.running <= 2 for p in seen)  # never more than the pool's threads


def test_callback_on_a_process_pool(nodes: Any) -> None:
    seen: list[BatchProgress] = []
    with process_pool(2) as pool:
        nodes.build().batch([{"x": 1}, {"x": 2}], executor=pool, progress=seen.append)
    assert (seen[-1].done, seen[-1].failed, seen[-1].finished) == (2, 0, True)


def test_progress_true_outside_a_notebook_writes_a_text_bar_to_stderr(
    nodes: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert not in_notebook()
    nodes.build().batch([{"x": 1}, {"x": -1}], progress=True, return_exceptions=True)
    err = capsys.readouterr().err
    # stderr is not a terminal here: whole lines, the last one the finished batch
    assert err.endswith("\n")
    assert err.splitlines()[-1].startswith("batch [" + "#" * 30 + "] 2/2 done 1 failed 1")


def test_progress_must_be_a_bool_or_callable(nodes: Any) -> None:
    with pytest.raises(TypeError, match="progress must be True, False or a callable"):
        nodes.build().batch([{"x": 1}], progress="yes")  # type: ignore[arg-type]


def test_live_text_bar_redraws_one_line_and_ends_it() -> None:
    out = io.StringIO()
    bar = TextProgress(out, width=4, live=True)
    bar(BatchProgress(total=4, done=1, failed=0, running=2, elapsed=1.0))
    bar(BatchProgress(total=4, done=3, failed=1, running=0, elapsed=2.0, finished=True))
    assert out.getvalue() == (
        "\rbatch [#...] 1/4 done 1 failed 0 running 2 1.0/s ETA 3s\x1b[K"
        "\rbatch [####] 4/4 done 3 failed 1 running 0 2.0/s 2s\x1b[K\n"
    )


def test_text_bar_in_a_file_writes_a_line_now_and_then_and_the_last() -> None:
    out = io.StringIO()
    bar = TextProgress(out, width=4, live=False, every=3600)
    for done in range(4):
        bar(BatchProgress(total=4, done=done, failed=0, running=1, elapsed=1.0 + done))
    bar(BatchProgress(total=4, done=4, failed=0, running=0, elapsed=5.0, finished=True))
    assert out.getvalue().splitlines() == [
        "batch [....] 0/4 done 0 failed 0 running 1 0.0/s ETA ?",
        "batch [####] 4/4 done 4 failed 0 running 0 0.8/s 5s",
    ]


def test_describe_gives_eta_in_minutes_and_hours() -> None:
    slow = BatchProgress(total=1000, done=10, failed=0, running=4, elapsed=100.0)
    assert describe(slow) == "10/1000 done 10 failed 0 running 4 0.1/s ETA 2h45m"
    middling = BatchProgress(total=100, done=50, failed=0, running=0, elapsed=125.0)
    assert describe(middling).endswith("ETA 2m05s")


def test_widget_holds_the_counts_and_turns_red_on_a_failure() -> None:
    pytest.importorskip("ipywidgets")
    widget = ProgressWidget(10)
    assert (widget.bar.value, widget.bar.max) == (0, 10)
    widget(BatchProgress(total=10, done=3, failed=0, running=2, elapsed=1.5))
    assert widget.bar.value == 3
    assert widget.bar.bar_style == ""
    assert widget.label.value == "3/10 done 3 failed 0 running 2 2.0/s ETA 4s"
    widget(BatchProgress(total=10, done=8, failed=2, running=0, elapsed=5.0, finished=True))
    assert widget.bar.value == 10
    assert widget.bar.bar_style == "danger"
    assert widget.label.value == "10/10 done 8 failed 2 running 0 2.0/s 5s"
    assert widget.box.children == (widget.bar, widget.label)


def test_widget_turns_green_when_all_finished_and_escapes_nothing_unsafe() -> None:
    pytest.importorskip("ipywidgets")
    widget = ProgressWidget(1)
    widget(BatchProgress(total=1, done=1, failed=0, running=0, elapsed=1.0, finished=True))
    assert widget.bar.bar_style == "success"
    assert "<" not in widget.label.value


def test_display_outside_a_notebook_is_the_text_bar() -> None:
    assert isinstance(display_for(3), TextProgress)
