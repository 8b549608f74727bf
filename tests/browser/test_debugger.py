"""The builder as a debugger (issue 15), driven with the mouse and the keyboard, on SQLite
and on PostgreSQL: pick a thread, scrub its history, edit a field and fork, see a bad value
refused at its field, run again from a checkpoint. Each test then reads the saver's rows
from the kernel: the fork is a new branch, and no earlier checkpoint changed.

One JupyterLab server and one Chromium for the module; each test opens its own notebook.
"""

from __future__ import annotations

import itertools
import uuid
from typing import Any

import pytest

POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"

GRAPH = """
import json
from typing import Annotated
from graphnb import END, START, GraphState, StateField, StateGraph, append
from graphnb.widget import Builder

class Story(GraphState):
    topic: str = "graphs"
    notes: Annotated[list[str], StateField(reducer=append)] = []
    text: str = ""

def research(state: Story) -> dict:
    if state.topic == "boom":
        raise ValueError("the search service is down")
    return {"notes": [f"facts about {state.topic}"]}

def draft(state: Story) -> dict:
    return {"text": f"a story about {state.topic}"}

graph = (
    StateGraph(Story, name="story")
    .add_node("research", research)
    .add_node("draft", draft)
    .add_edge(START, "research")
    .add_edge("research", "draft")
    .add_edge("draft", END)
)
"""

SAVER = {
    "sqlite": "saver = 'sqlite:///{prefix}threads.db'",
    "postgres": (
        "from graphnb.checkpoint import PostgresSaver\n"
        f"saver = PostgresSaver({POSTGRES_URL!r}, table_prefix='{{prefix}}')"
    ),
}

THREADS = """
builder = Builder(graph, checkpointer=saver)
app = builder.compile()
app.invoke({"topic": "alpha"}, thread_id="alpha")
app.invoke({"topic": "beta"}, thread_id="beta")
try:
    app.invoke({"topic": "boom"}, thread_id="broken")
except Exception as error:
    failure = repr(error)

def rows(thread_id):
    \"\"\"Every checkpoint of the thread as the saver holds it, oldest first.\"\"\"
    return [
        {"id": r.checkpoint_id, "parent": r.parent_id, "seq": r.seq, "source": r.source,
         "values": json.loads(app.get_state(thread_id, r.checkpoint_id).values.model_dump_json())}
        for r in app.checkpointer.history(thread_id)
    ]
builder
"""


def _reachable_postgres() -> bool:
    try:
        import psycopg

        psycopg.connect(POSTGRES_URL, connect_timeout=3).close()
    except Exception:
        return False
    return True


@pytest.fixture(params=["sqlite", "postgres"])
def saver_kind(request: pytest.FixtureRequest) -> str:
    if request.param == "postgres" and not _reachable_postgres():
        pytest.skip("the local PostgreSQL server is not running")
    return str(request.param)


def _drop(kernel: Any, kind: str) -> None:
    if kind == "postgres":
        kernel.run(
            "conn = saver._connect()\n"
            "cur = conn.cursor()\n"
            "cur.execute(f'DROP TABLE IF EXISTS {saver.table}')\n"
            "cur.execute(f'DROP TABLE IF EXISTS {saver.version_table}')\n"
            "conn.commit(); conn.close(); saver.close()"
        )


def _status(lab: Any, node: str) -> str:
    return str(lab.node(node).locator(".graphnb-node").get_attribute("data-status"))


def _wait_status(lab: Any, node: str, status: str) -> None:
    lab.page.wait_for_function(
        f"""() => {{
            const n = document.querySelector('.react-flow__node[data-id="{node}"] .graphnb-node');
            return n && n.dataset.status === '{status}';
        }}""",
        timeout=30_000,
    )


def test_pick_scrub_edit_fork_and_run_again(lab: Any, saver_kind: str) -> None:
    prefix = f"dbg{uuid.uuid4().hex[:8]}_"
    saver = SAVER[saver_kind].format(prefix=prefix)
    kernel = lab.open_notebook(f"debugger-{saver_kind}", [GRAPH, saver, THREADS])
    try:
        _run_story(lab, kernel)
    finally:
        _drop(kernel, saver_kind)


def _run_story(lab: Any, kernel: Any) -> None:
    page = lab.page
    lab.builder()
    assert "search service is down" in kernel.json("failure")

    # The threads panel (the Threads tab): newest first, each with its status.
    lab.side_tab("threads")
    alpha = page.get_by_test_id("thread-alpha")
    alpha.wait_for()
    listed = page.locator('[data-testid="threads-list"] button.graphnb-thread')
    ids = [t.get_attribute("data-testid") for t in listed.all()]
    assert ids == ["thread-broken", "thread-beta", "thread-alpha"], ids
    assert page.get_by_test_id("thread-broken").get_attribute("data-status") == "failed"
    assert alpha.get_attribute("data-status") == "finished"
    assert "step 1" in alpha.inner_text()

    # Search, with the keyboard.
    search = lab.side(page.get_by_test_id("threads-search"))
    search.click()
    search.type("ALP")
    page.wait_for_function(
        """() => document.querySelectorAll('[data-testid="threads-list"] button').length === 1"""
    )
    assert page.get_by_test_id("thread-beta").count() == 0
    search.fill("")
    page.get_by_test_id("thread-broken").wait_for()

    # Pick the failed thread: its history says what failed, the node is lit as failed.
    lab.side(page.get_by_test_id("thread-broken")).click()
    failure = page.get_by_test_id("history-failure")
    failure.wait_for()
    assert "search service is down" in failure.inner_text()
    _wait_status(lab, "research", "error")

    # Pick alpha: its last checkpoint is shown, draft ran.
    lab.side(page.get_by_test_id("thread-alpha")).click()
    page.wait_for_function(
        """() => (document.querySelector('[data-testid="panel-history"]') || {}).textContent
            ?.includes('History of alpha')"""
    )
    page.get_by_test_id("history-item-0").wait_for()
    _wait_status(lab, "draft", "done")
    before = kernel.json("rows('alpha')")
    assert [r["source"] for r in before] == ["input", "loop", "loop"]

    # Scrub back one step with the keyboard: the state after research, notes changed.
    slider = lab.side(page.get_by_test_id("history-slider"))
    slider.focus()
    page.keyboard.press("ArrowLeft")
    detail = page.get_by_test_id("history-detail")
    page.wait_for_function(
        f"""() => document.querySelector('[data-testid="history-detail"]')
            ?.dataset.checkpoint === '{before[1]["id"]}'"""
    )
    assert page.get_by_test_id("history-field-notes").get_attribute("data-changed") == "true"
    assert page.get_by_test_id("history-field-text").get_attribute("data-changed") == "false"
    _wait_status(lab, "draft", "pending")
    assert _status(lab, "research") == "done"
    assert "next draft" in detail.inner_text()

    # Edit a field there and fork, acting as research: draft runs next on the fork.
    lab.side(page.get_by_test_id("history-edit")).click()
    form = page.get_by_test_id("history-edit-form")
    topic = form.get_by_test_id("run-field-topic")
    assert topic.input_value() == "alpha"  # prefilled with that checkpoint's values
    topic.fill("edited")
    lab.side(form.get_by_test_id("history-as-node")).select_option("research")
    lab.side(form.get_by_test_id("history-fork")).click()
    page.get_by_test_id("history-note").wait_for()
    assert "forked" in page.get_by_test_id("history-note").inner_text()
    page.get_by_test_id("history-fork-0").wait_for()  # the new checkpoint is a branch
    after = kernel.json("rows('alpha')")
    assert len(after) == len(before) + 1
    fork = after[-1]
    assert fork["parent"] == before[1]["id"]
    assert fork["source"] == "update"
    assert fork["values"]["topic"] == "edited"
    assert after[: len(before)] == before  # nothing overwritten

    # A value the model refuses is flagged at its field, and nothing is written.
    lab.side(page.get_by_test_id("history-edit")).click()
    form = page.get_by_test_id("history-edit-form")
    notes = form.get_by_test_id("run-field-notes")
    notes.fill('["facts about alpha", 7]')
    lab.side(form.get_by_test_id("history-fork")).click()
    form.get_by_test_id("run-field-error-notes").wait_for()
    assert kernel.json("len(rows('alpha'))") == len(after)
    lab.side(form.get_by_test_id("history-cancel")).click()

    # Run again from the fork: draft runs on the edited state, as a child of the fork.
    lab.side(page.get_by_test_id("history-item-0")).click()
    lab.side(page.get_by_test_id("history-rerun")).click()
    lab.wait_until(
        lambda: kernel.json("builder.last_run['status']") == "done",
        timeout=30,
        message=lambda: str(kernel.json("builder.last_run['status']")),
    )
    final = kernel.json("rows('alpha')")
    assert len(final) == len(after) + 1
    assert final[-1]["parent"] == fork["id"]
    assert final[-1]["values"]["text"] == "a story about edited"
    assert final[: len(after)] == after
    page.wait_for_function(
        """() => document.querySelector('[data-testid="history-item-0"]')
            ?.dataset.source === 'loop'"""
    )
    lab.screenshot(f"debugger-history-{lab.artifact_stem[-20:]}")


PAUSING = """
import time
ENDED = []

def research_timed(state: Story) -> dict:
    time.sleep(0.2)
    update = {"notes": [f"facts about {state.topic}"]}
    ENDED.append(time.time())
    return update

graph = (
    StateGraph(Story, name="story")
    .add_node("research", research_timed)
    .add_node("draft", draft)
    .add_edge(START, "research")
    .add_edge("research", "draft")
    .add_edge("draft", END)
)
builder = Builder(graph, checkpointer=saver)
app = builder.compile()

def rows(thread_id):
    return [
        {"id": r.checkpoint_id, "parent": r.parent_id, "source": r.source,
         "values": json.loads(app.get_state(thread_id, r.checkpoint_id).values.model_dump_json())}
        for r in app.checkpointer.history(thread_id)
    ]
builder
"""

# Stamps (Date.now()) when the pause first shows, so the test can compare it with the
# kernel's time.time() at the node's end: both read the same machine's clock.
WATCH_PAUSE = """() => {
    window.__pausedAt = null;
    const seen = () => document.querySelector('[data-testid="paused-where"]');
    const observer = new MutationObserver(() => {
        if (seen() && window.__pausedAt === null) {
            window.__pausedAt = Date.now();
            observer.disconnect();
        }
    });
    observer.observe(document.body, { childList: true, subtree: true });
}"""


def _thread(kernel: Any) -> str:
    return str(kernel.json("builder.paused['thread_id']"))


def test_breakpoints_pause_step_continue_and_stop(lab: Any, saver_kind: str) -> None:
    prefix = f"dbg{uuid.uuid4().hex[:8]}_"
    saver = SAVER[saver_kind].format(prefix=prefix)
    kernel = lab.open_notebook(f"breakpoints-{saver_kind}", [GRAPH, saver, PAUSING])
    try:
        _pause_story(lab, kernel, saver_kind)
    finally:
        _drop(kernel, saver_kind)


def _pause_story(lab: Any, kernel: Any, saver_kind: str) -> None:
    page = lab.page
    lab.builder()
    # Select research on the canvas, pause after it (the button, with the keyboard).
    lab.node("research").click()
    after = lab.side(page.get_by_test_id("breakpoint-after"))
    after.focus()
    page.keyboard.press("Enter")
    page.get_by_test_id("breakpoint-research").wait_for()
    assert page.get_by_test_id("breakpoint-research").get_attribute("data-when") == "after"
    assert kernel.json("builder.breakpoints") == {"research": ["after"]}

    page.evaluate(WATCH_PAUSE)
    page.get_by_test_id("toolbar-run").click()
    where = page.get_by_test_id("paused-where")
    where.wait_for(timeout=30_000)
    assert "after research" in where.inner_text()
    shown = page.evaluate("() => window.__pausedAt") / 1000
    latency = shown - kernel.json("ENDED[-1]")
    print(f"[measure] {saver_kind}: pause shown {latency * 1000:.0f} ms after the node's end")
    assert latency < 3, f"the pause showed {latency:.2f} s after the node ended"
    thread = _thread(kernel)
    paused_rows = kernel.json(f"rows({thread!r})")
    assert [r["source"] for r in paused_rows] == ["input", "loop"]
    assert kernel.json(f"app.get_state({thread!r}).next") == ["draft"]

    # Continue: draft runs, the thread ends, nothing before was rewritten.
    lab.side(page.get_by_test_id("pause-continue")).click()
    page.get_by_test_id("paused").wait_for(state="detached", timeout=30_000)
    lab.wait_until(lambda: kernel.json(f"len(rows({thread!r}))") == 3, timeout=30)
    done_rows = kernel.json(f"rows({thread!r})")
    assert done_rows[:2] == paused_rows
    assert done_rows[-1]["values"]["text"] == "a story about graphs"

    # Move the breakpoint before research; Step runs one super-step and pauses again.
    lab.side(page.get_by_test_id("breakpoint-after")).click()
    lab.side(page.get_by_test_id("breakpoint-before")).click()
    lab.wait_until(lambda: kernel.json("builder.breakpoints") == {"research": ["before"]})
    page.get_by_test_id("breakpoint-research").wait_for()
    page.get_by_test_id("toolbar-run").click()
    page.wait_for_function(
        """() => document.querySelector('[data-testid="paused-where"]')
            ?.textContent.includes('before research')""",
        timeout=30_000,
    )
    thread = _thread(kernel)
    assert kernel.json(f"app.get_state({thread!r}).values.notes") == []
    lab.side(page.get_by_test_id("pause-step")).click()
    page.wait_for_function(
        """() => document.querySelector('[data-testid="paused-where"]')
            ?.textContent.includes('after research')""",
        timeout=30_000,
    )
    assert kernel.json(f"app.get_state({thread!r}).values.notes") == ["facts about graphs"]
    assert kernel.json(f"app.get_state({thread!r}).values.text") == ""
    stepped = kernel.json(f"rows({thread!r})")

    # Stop: the pause goes, the thread stays where it was.
    lab.side(page.get_by_test_id("pause-stop")).click()
    page.get_by_test_id("paused").wait_for(state="detached")
    assert kernel.json(f"rows({thread!r})") == stepped
    assert kernel.json(f"app.get_state({thread!r}).next") == ["draft"]


ASKING = """
import json
from typing import Annotated
from graphnb import END, START, GraphState, StateField, StateGraph, append, interrupt
from graphnb.widget import Builder

class Form(GraphState):
    answers: Annotated[list[str], StateField(reducer=append)] = []

NAME = {"question": "Who are you?", "schema": {
    "type": "object", "properties": {"name": {"type": "string", "title": "Name"}},
    "required": ["name"]}}

def name(state: Form) -> dict:
    return {"answers": [f"name={interrupt(NAME)['name']}"]}

def city(state: Form) -> dict:
    return {"answers": [f"city={interrupt('Which city?')}"]}

form = (
    StateGraph(Form, name="form")
    .add_node("name", name)
    .add_node("city", city)
    .add_edge(START, "name")
    .add_edge(START, "city")
    .add_edge("name", END)
    .add_edge("city", END)
)
builder = Builder(form, checkpointer=saver)
app = builder.compile()

def sources(thread_id):
    return [(r.checkpoint_id, r.source) for r in app.checkpointer.history(thread_id)]
builder
"""


def test_interrupts_are_answered_one_by_one(lab: Any, saver_kind: str) -> None:
    prefix = f"dbg{uuid.uuid4().hex[:8]}_"
    saver = SAVER[saver_kind].format(prefix=prefix)
    kernel = lab.open_notebook(f"interrupts-{saver_kind}", [saver, ASKING])
    try:
        page = lab.page
        lab.builder()
        page.get_by_test_id("toolbar-run").click()
        city = page.get_by_test_id("interrupt-city")
        city.wait_for(timeout=30_000)
        name = page.get_by_test_id("interrupt-name")
        assert page.get_by_test_id("interrupt-question-city").inner_text() == "Which city?"
        assert page.get_by_test_id("interrupt-question-name").inner_text() == "Who are you?"
        # The value carries a JSON schema: a form, not a text box.
        assert name.get_by_test_id("interrupt-form-name").get_by_test_id("run-field-name").count()
        thread = _thread(kernel)
        first = kernel.json(f"sources({thread!r})")

        # Answer the city with the keyboard (Ctrl+Enter); the name still waits.
        answer = lab.side(page.get_by_test_id("interrupt-answer-city"))
        answer.click()
        answer.type("Paris")
        page.keyboard.press("Control+Enter")
        page.get_by_test_id("interrupt-city").wait_for(state="detached", timeout=30_000)
        name.wait_for(timeout=30_000)
        second = kernel.json(f"sources({thread!r})")
        assert second[: len(first)] == first
        assert kernel.json(f"[i.node for i in app.get_state({thread!r}).interrupts]") == ["name"]

        field = lab.side(name.get_by_test_id("run-field-name"))
        field.fill("Ada")
        lab.side(page.get_by_test_id("interrupt-submit-name")).click()
        page.get_by_test_id("paused").wait_for(state="detached", timeout=30_000)
        lab.wait_until(
            lambda: kernel.json(f"app.get_state({thread!r}).next") == [],
            timeout=30,
        )
        answers = kernel.json(f"sorted(app.get_state({thread!r}).values.answers)")
        assert answers == ["city=Paris", "name=Ada"]
        assert kernel.json(f"sources({thread!r})")[: len(second)] == second
    finally:
        _drop(kernel, saver_kind)


LIVE = """
import time

def slow_research(state: Story) -> dict:
    time.sleep(1.5)
    return {"notes": [f"facts about {state.topic}"]}

graph = (
    StateGraph(Story, name="story")
    .add_node("research", slow_research)
    .add_node("draft", draft)
    .add_edge(START, "research")
    .add_edge("research", "draft")
    .add_edge("draft", END)
)
builder = Builder(graph, checkpointer=saver)
app = builder.compile()
watching = builder.watch()
builder
"""


def test_a_run_started_in_another_cell_shows_live(lab: Any, saver_kind: str) -> None:
    prefix = f"dbg{uuid.uuid4().hex[:8]}_"
    saver = SAVER[saver_kind].format(prefix=prefix)
    kernel = lab.open_notebook(f"watch-{saver_kind}", [GRAPH, saver, LIVE])
    try:
        lab.builder()
        # A cell that blocks the kernel while the graph runs, as a user would write it.
        lab.run_new_cell("final = app.invoke({'topic': 'live'}, thread_id='from-code')")
        _wait_status(lab, "research", "running")
        # Seen while the run goes on, not drawn after it: the run panel says running.
        assert lab.page.get_by_test_id("run-status").text_content() == "running"
        assert _status(lab, "draft") == "idle"
        _wait_status(lab, "draft", "done")
        lab.page.wait_for_function(
            """() => document.querySelector('[data-testid="run-status"]')
                ?.textContent === 'done'"""
        )
        lab.wait_for_kernel_idle()
        assert kernel.json("final.text") == "a story about live"
        count = kernel.json("len(app.checkpointer.history('from-code'))")
        assert count == 3
    finally:
        kernel.run("watching.close()")
        _drop(kernel, saver_kind)


MANY = """
import json
from typing import Annotated
from graphnb import END, START, GraphState, StateField, StateGraph, append
from graphnb.widget import Builder

class Count(GraphState):
    n: int = 0
    seen: Annotated[list[int], StateField(reducer=append)] = []

def tick(state: Count) -> dict:
    return {"n": state.n + 1, "seen": [state.n]}

loop = (
    StateGraph(Count, name="loop")
    .add_node("tick", tick)
    .add_edge(START, "tick")
    .add_conditional_edges("tick", lambda s: END if s.n >= 999 else "tick", ["tick", END])
)
app = loop.compile(checkpointer="sqlite:///many.db", recursion_limit=2000)
for index in range(10_000):
    app.seed_thread(f"seeded-{index:05d}", {"n": index})
app.invoke({}, thread_id="long")
builder = Builder(loop, checkpointer="sqlite:///many.db")
builder
"""

# Frame times while the slider is scrubbed with the keyboard (requestAnimationFrame).
FRAMES = """() => {
    window.__frames = [];
    const tick = (t) => {
        window.__frames.push(t);
        if (!window.__stopFrames) requestAnimationFrame(tick);
    };
    window.__stopFrames = false;
    requestAnimationFrame(tick);
}"""

# Stamps when the threads list first holds a page: the panel asks as soon as it mounts.
WATCH_THREADS = """() => {
    window.__listShown = null;
    window.__listMounted = null;
    const observer = new MutationObserver(() => {
        const list = document.querySelector('[data-testid="threads-list"]');
        if (list && window.__listMounted === null) window.__listMounted = performance.now();
        if (list && list.querySelectorAll('button').length >= 50) {
            window.__listShown = performance.now();
            observer.disconnect();
        }
    });
    observer.observe(document.body, { childList: true, subtree: true });
}"""


def test_ten_thousand_threads_and_a_thousand_checkpoints_stay_fast(lab: Any) -> None:
    kernel = lab.open_notebook("debugger-speed", [MANY], run=False)
    page = lab.page
    page.evaluate(WATCH_THREADS)
    lab.run_all_cells(timeout=300)
    lab.builder(timeout=120)
    page.wait_for_function("() => window.__listShown !== null", timeout=60_000)
    opened = page.evaluate("() => window.__listShown - window.__listMounted")
    assert kernel.json("len(app.threads_info())") == 10_001
    # The next page, by the mouse.
    started = page.evaluate("() => performance.now()")
    lab.side(page.get_by_test_id("threads-more")).click()
    page.wait_for_function(
        """() => document.querySelectorAll('[data-testid="threads-list"] button').length >= 100"""
    )
    more = page.evaluate("() => performance.now()") - started
    print(f"[measure] 10,001 threads: first page {opened:.0f} ms, next {more:.0f} ms")
    assert opened < 2000, f"the threads panel took {opened:.0f} ms to open"

    # A thread of 1,000 checkpoints: scrub its history with the keyboard.
    search = lab.side(page.get_by_test_id("threads-search"))
    search.fill("long")
    lab.side(page.get_by_test_id("thread-long")).click()
    page.get_by_test_id("history-item-0").wait_for()
    slider = lab.side(page.get_by_test_id("history-slider"))
    slider.focus()
    page.evaluate(FRAMES)
    # Older pages come late, as from a busy kernel: the presses must not wait for them.
    kernel.run(
        "import time\n"
        "read_page = builder._handlers['debug_history']\n"
        "def late_page(request):\n"
        "    if request['before']:\n"
        "        time.sleep(2)\n"
        "    return read_page(request)\n"
        "builder._handlers['debug_history'] = late_page"
    )
    # Every checkpoint, newest to oldest: each press moves one back, and none is lost. Pages
    # of 200 are read ahead of the slider, which reaches a page past the loaded rows, so a
    # page that comes late (a busy kernel) holds no press up.
    presses = 999
    target = 998 - presses  # the input checkpoint, before the first step
    started = page.evaluate("() => performance.now()")
    for _ in range(presses):
        page.keyboard.press("ArrowLeft")
    page.wait_for_function(
        f"""() => document.querySelector('[data-testid="history-detail"]')
            ?.dataset.step === '{target}'""",
        timeout=30_000,
    )
    assert page.get_by_test_id("history-count").inner_text() == "1000 checkpoints"
    assert page.get_by_test_id("history-slider").input_value() == "0"
    elapsed = page.evaluate("() => performance.now()") - started
    frames = page.evaluate("() => { window.__stopFrames = true; return window.__frames; }")
    gaps = sorted(b - a for a, b in itertools.pairwise(frames))
    median = gaps[len(gaps) // 2]
    slowest = gaps[int(len(gaps) * 0.95)]
    fps = 1000 * (len(frames) - 1) / (frames[-1] - frames[0])
    print(
        f"[measure] history of 1,000 checkpoints: {presses} steps scrubbed in {elapsed:.0f} ms, "
        f"{fps:.0f} fps, frame gap median {median:.1f} ms, 95th percentile {slowest:.1f} ms"
    )
    assert median < 50, f"scrubbing drew a frame every {median:.0f} ms"
    # The chosen row stays in the list's view; the slider fits its panel.
    inside = page.evaluate(
        """() => {
            const list = document.querySelector('[data-testid="history-list"]');
            const row = list.querySelector('[aria-pressed="true"]').getBoundingClientRect();
            const box = list.getBoundingClientRect();
            const slider = document.querySelector('[data-testid="history-slider"]')
                .getBoundingClientRect();
            const panel = document.querySelector('[data-testid="panel-history"]')
                .getBoundingClientRect();
            return [row.top >= box.top - 1 && row.bottom <= box.bottom + 1,
                    slider.right <= panel.right + 1];
        }"""
    )
    assert inside == [True, True], inside
    assert int(kernel.json("len(app.get_state_history('long'))")) == 1000
    lab.screenshot("debugger-speed-history")


CHAT = """
import time
from typing import Annotated, Any
from graphnb import END, START, GraphState, RetryPolicy, StateField, StateGraph, append
from graphnb.widget import Builder

class Chat(GraphState):
    messages: Annotated[list[dict[str, Any]], StateField(reducer=append)] = []
    answer: Annotated[str, StateField(streaming=True)] = ""

def think(state: Chat) -> dict:
    call = {"name": "weather", "arguments": {"city": "Paris"}, "id": "c1"}
    return {"messages": [{"role": "assistant", "content": None, "tool_calls": [call]}]}

calls = []

def tool(state: Chat) -> dict:
    calls.append(1)
    if len(calls) == 1:
        raise ConnectionError("the weather service dropped the first call")
    return {"messages": [{"role": "tool", "content": "sunny", "tool_call_id": "c1",
                          "name": "weather"}]}

def respond(state: Chat):
    for word in "It is sunny in Paris today .".split():
        time.sleep(0.3)
        yield word + " "

chat = (
    StateGraph(Chat, name="chat")
    .add_node("think", think)
    .add_node("tool", tool, retry=RetryPolicy(max_attempts=2, initial_interval=0.01))
    .add_node("respond", respond)
    .add_edge(START, "think").add_edge("think", "tool").add_edge("tool", "respond")
    .add_edge("respond", END)
)
builder = Builder(chat)
builder
"""


def test_a_chat_with_tool_calls_and_streamed_tokens_and_the_runs_timeline(lab: Any) -> None:
    kernel = lab.open_notebook("debugger-chat", [CHAT])
    page = lab.page
    lab.builder()
    json_input = page.get_by_test_id("run-input-json")
    json_input.fill('{"messages": [{"role": "user", "content": "Weather in Paris?"}]}')
    page.get_by_test_id("toolbar-run").click()
    streaming = page.get_by_test_id("chat-streaming")
    streaming.wait_for(timeout=30_000)
    assert kernel.json("builder.last_run['status']") == "running"  # tokens during the run
    assert "It" in streaming.inner_text()
    assert page.get_by_test_id("chat-message-0").get_attribute("data-role") == "user"
    call = page.get_by_test_id("chat-call-weather")
    assert 'weather({"city":"Paris"})' in call.inner_text()
    assert page.get_by_test_id("chat-message-2").get_attribute("data-role") == "tool"
    assert "sunny" in page.get_by_test_id("chat-message-2").inner_text()
    page.wait_for_function(
        """() => (document.querySelector('[data-testid="run-status"]') || {}).textContent
            === 'done'""",
        timeout=30_000,
    )
    streaming.wait_for(state="detached")

    # The timeline: a bar per node, the streaming node's the longest; a click shows the
    # state after its step.
    widths = {
        node: page.get_by_test_id(f"timeline-bar-{node}-0").bounding_box()["width"]
        for node in ("think", "tool", "respond")
    }
    assert widths["respond"] > 3 * widths["think"], widths
    # The tool failed once and its retry policy ran it again: the timeline says so.
    assert page.get_by_test_id("timeline-retries-tool").inner_text() == "retried \u00d71"
    assert page.get_by_test_id("timeline-retries-think").count() == 0
    lab.side(page.get_by_test_id("timeline-bar-respond-0")).click()
    detail = page.get_by_test_id("timeline-detail")
    assert "respond · done" in detail.inner_text()
    assert "It is sunny in Paris today ." in page.get_by_test_id("timeline-state").inner_text()


CHANGE_THEME = "(theme) => window.jupyterapp.commands.execute('apputils:change-theme', { theme })"


def test_the_debugger_panels_are_readable_in_the_dark_theme(lab: Any) -> None:
    saver = SAVER["sqlite"].format(prefix=f"dbg{uuid.uuid4().hex[:8]}_")
    kernel = lab.open_notebook("debugger-dark", [saver, ASKING])
    page = lab.page
    root = lab.builder()
    page.evaluate(CHANGE_THEME, "JupyterLab Dark")
    try:
        page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'")
        page.wait_for_timeout(300)
        # A run that waits for two answers: the interrupt forms; its thread in the threads
        # panel, picked: its history; a node selected: the breakpoint toggles.
        page.get_by_test_id("toolbar-run").click()
        page.get_by_test_id("interrupt-city").wait_for(timeout=30_000)
        thread = _thread(kernel)
        lab.side(page.get_by_test_id(f"thread-{thread}")).click()
        page.get_by_test_id("history-item-0").wait_for()
        lab.node("city").click()
        lab.side(page.get_by_test_id("breakpoint-before")).click()
        page.get_by_test_id("breakpoint-city").wait_for()
        checked = {
            "a thread": page.get_by_test_id(f"thread-{thread}"),
            "the threads search": page.get_by_test_id("threads-search"),
            "a checkpoint": page.get_by_test_id("history-item-0"),
            "the checkpoint count": page.get_by_test_id("history-count"),
            "the checkpoint's fields": page.get_by_test_id("history-detail"),
            "a breakpoint toggle": page.get_by_test_id("breakpoint-after"),
            "the breakpoints set": page.get_by_test_id("breakpoint-list"),
            "a question": page.get_by_test_id("interrupt-question-city"),
            "an answer box": page.get_by_test_id("interrupt-answer-city"),
            "a form field": page.get_by_test_id("interrupt-form-name"),
            "an answer button": page.get_by_test_id("interrupt-submit-city"),
        }
        for what, element in checked.items():
            lab.side(element)
            seen = lab.contrast(element)
            assert seen["text"] != seen["behind"], f"{what}: text drawn in its background colour"
            assert seen["ratio"] >= 4.5, f"{what}: contrast {seen['ratio']:.1f} in the dark theme"
        # The panels are dark too, not light boxes on the dark page.
        behind = lab.contrast(page.get_by_test_id("panel-history"))["behind"]
        assert sum(behind) / 3 < 100, f"the history panel's background is {behind}"
        lab.side(page.get_by_test_id("paused"))
        lab.screenshot("debugger-dark-paused", element=root)
        lab.side(page.get_by_test_id("panel-history"))
        lab.screenshot("debugger-dark-history", element=root)
    finally:
        page.evaluate(CHANGE_THEME, "JupyterLab Light")
        page.wait_for_function("() => document.body.dataset.jpThemeLight === 'true'")
    lab.assert_no_js_errors()


REACT = """
import time
from graphnb.agent import ReActAgent, ScriptedModel, call
from graphnb.widget import Builder

def weather(city: str) -> str:
    '''Today's weather in a city.'''
    time.sleep(2)  # slow enough to see TOOL_CALLING lit while it works
    return f"sunny in {city}"

model = ScriptedModel([call("weather", city="Paris"), "It is sunny in Paris."])
agent = ReActAgent(model, [weather])
builder = Builder(agent.graph)
builder
"""


def test_a_react_agents_run_shows_as_a_chat_with_its_machine_state_lit(lab: Any) -> None:
    lab.open_notebook("debugger-react", [REACT])
    page = lab.page
    lab.builder()
    lab.side(page.get_by_test_id("run-input-json")).fill('{"prompt": "Weather in Paris?"}')
    page.get_by_test_id("toolbar-run").click()
    # While the tool works: the machine is in TOOL_CALLING on its diagram, the call is in
    # the chat, its result not yet.
    _wait_status(lab, "TOOL_CALLING", "running")
    assert _status(lab, "THINKING") == "done"
    call = page.get_by_test_id("chat-call-weather")
    call.wait_for(timeout=30_000)
    assert 'weather({"city":"Paris"})' in call.inner_text()
    assert page.get_by_test_id("chat-message-0").get_attribute("data-role") == "user"
    assert "Weather in Paris?" in page.get_by_test_id("chat-message-0").inner_text()
    lab.side(page.get_by_test_id("chat-message-0"))
    lab.screenshot("debugger-react-tool-calling", element=lab.builder())
    page.wait_for_function(
        """() => (document.querySelector('[data-testid="run-status"]') || {}).textContent
            === 'done'""",
        timeout=30_000,
    )
    # The tool's result inline, then the answer; the machine ended in COMPLETED.
    roles = page.evaluate(
        """() => Array.from(document.querySelectorAll('[data-testid^="chat-message-"]'))
            .map((m) => m.dataset.role)"""
    )
    assert roles == ["user", "assistant", "tool", "assistant"], roles
    assert "sunny in Paris" in page.get_by_test_id("chat-message-2").inner_text()
    assert "It is sunny in Paris." in page.get_by_test_id("chat-message-3").inner_text()
    assert _status(lab, "COMPLETED") == "done"
    assert _status(lab, "FAILED") != "done"
    lab.side(page.get_by_test_id("chat-message-0"))
    lab.screenshot("debugger-react-chat", element=lab.builder())
    lab.assert_no_js_errors()
