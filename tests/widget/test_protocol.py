"""The builder's protocol, Python side: traits and messages, through a fake comm."""

from __future__ import annotations

import asyncio
import json
import types
from pathlib import Path
from typing import Any

import pytest

from graphnb import END, START, GraphSpec, StateGraph
from graphnb.widget import Builder

from .conftest import run_async  # type: ignore[import-not-found]


def spec_json(builder: Builder) -> dict[str, Any]:
    return builder.spec.to_dict()


def test_builder_opens_a_graph_built_in_code_with_a_position_for_every_node(comm, notebook):
    builder = Builder(notebook["graph"], namespace=notebook)
    spec = builder.spec
    assert [node.id for node in spec.nodes] == ["research", "draft"]
    assert all(node.position is not None for node in spec.nodes)
    assert set(spec.metadata["graphnb.widget.positions"]) == {START, END}  # type: ignore[arg-type]
    assert builder.problems == []
    # The first state the front end sees carries the whole spec as JSON.
    state = comm.opened["data"]["state"]
    assert GraphSpec.model_validate(state["spec"]) == spec


def test_an_edit_from_the_front_end_updates_spec_and_live_problems(comm, notebook):
    builder = Builder(notebook["graph"], namespace=notebook)
    edited = spec_json(builder)
    lonely = {"id": "lonely", "binding": None, "position": {"x": 0, "y": 0}}
    edited["nodes"].append(lonely)
    comm.receive_update({"spec": edited})
    assert [node.id for node in builder.spec.nodes] == ["research", "draft", "lonely"]
    codes = {(p["code"], tuple(p["nodes"])) for p in builder.problems}
    assert codes == {("unbound", ("lonely",)), ("unreachable", ("lonely",))}
    assert comm.updates("problems")[-1] == builder.problems


def test_a_dead_end_and_an_unknown_binding_are_pinned_on_their_nodes(comm, notebook):
    builder = Builder(notebook["graph"], namespace=notebook)
    edited = spec_json(builder)
    edited["edges"] = [e for e in edited["edges"] if e["target"] != END]
    edited["nodes"][0]["binding"] = "nowhere_to_be_found"
    comm.receive_update({"spec": edited})
    pinned = {p["code"]: p for p in builder.problems}
    assert pinned["dead-end"]["nodes"] == ["draft"]
    assert pinned["unresolved"]["nodes"] == ["research"]
    assert "nowhere_to_be_found" in pinned["unresolved"]["message"]


def test_the_panels_list_functions_and_state_models_defined_in_the_notebook(comm, notebook):
    builder = Builder(namespace=notebook)
    names = [c["name"] for c in builder.callables]
    assert names == ["broken", "draft", "research"]  # not imported ones, not _private
    draft = next(c for c in builder.callables if c["name"] == "draft")
    assert draft["kind"] == "generator"
    assert draft["signature"] == "draft(state: Story)"
    assert draft["doc"] == "Stream the text in many small chunks."
    assert draft["source"].startswith("def draft(state: Story):")
    (story,) = builder.models
    assert story["binding"] == "Story"
    fields = {f["name"]: f for f in story["fields"]}
    assert fields["notes"]["reducer"] == "append"
    assert fields["text"]["streaming"] is True
    assert fields["text"]["alias"] == "Text"
    assert story["json_schema"]["properties"]["topic"]["type"] == "string"


def test_refresh_finds_functions_defined_after_the_builder(comm, notebook):
    builder = Builder(namespace=notebook)
    exec("def later(state):\n    return {}\n", notebook)
    comm.receive({"type": "refresh"})
    assert "later" in [c["name"] for c in builder.callables]


def test_inspect_replies_with_signature_docstring_and_source_of_a_module_function(comm):
    Builder(namespace={})
    reply = comm.receive({"type": "inspect", "binding": "graphnb.cli.demo:outline"})
    assert reply["error"] is None
    assert reply["info"]["signature"].startswith("outline(state:")
    assert reply["info"]["doc"] == "Plan the answer in three steps."
    assert "def outline" in reply["info"]["source"]


def test_inspect_of_a_binding_that_names_nothing_replies_with_why(comm):
    Builder(namespace={})
    reply = comm.receive({"type": "inspect", "binding": "graphnb.cli.demo:nothing"})
    assert "info" not in reply
    assert "has no attribute 'nothing'" in reply["error"]


def test_picking_a_state_model_fills_the_specs_state(comm, notebook):
    builder = Builder(namespace=notebook)
    comm.receive({"type": "use_model", "binding": "Story"})
    state = builder.spec.state
    assert (state.kind, state.binding) == ("model", "Story")
    assert [f.name for f in state.fields] == ["topic", "notes", "text"]
    comm.receive({"type": "use_model", "binding": None})
    assert builder.spec.state.kind == "dict"


def test_layout_places_every_node_start_and_end_apart(comm, notebook):
    builder = Builder(notebook["graph"], namespace=notebook)
    moved = spec_json(builder)
    for node in moved["nodes"]:
        node["position"] = {"x": 0, "y": 0}
    comm.receive_update({"spec": moved})
    comm.receive({"type": "layout"})
    spots = {(n.position.x, n.position.y) for n in builder.spec.nodes if n.position}
    assert len(spots) == 2
    special = builder.spec.metadata["graphnb.widget.positions"]
    assert isinstance(special, dict)
    assert special[START]["y"] < min(y for _, y in spots) < special[END]["y"]  # type: ignore[index]
    # START and END (70 px pills) are centred on the column of the chain (170 px steps).
    (column,) = {x for x, _ in spots}
    assert special[START]["x"] + 35 == special[END]["x"] + 35 == column + 85  # type: ignore[index]


def test_the_drawing_is_saved_to_its_file_and_loads_back(comm, notebook, tmp_path):
    path = tmp_path / "story.graph.json"
    builder = Builder(notebook["graph"], namespace=notebook, path=path)
    assert GraphSpec.from_json(path.read_text()) == builder.spec, "saved from the start"
    edited = spec_json(builder)
    edited["nodes"][0]["position"] = {"x": 12, "y": 34}
    comm.receive_update({"spec": edited})
    saved = GraphSpec.from_json(path.read_text())
    assert saved.nodes[0].position is not None
    assert (saved.nodes[0].position.x, saved.nodes[0].position.y) == (12, 34)

    reopened = Builder.load(path, namespace=notebook)
    assert reopened.spec == builder.spec
    assert reopened.compile().invoke({"topic": "t"}).notes == ["facts about t"]


def test_a_file_that_is_not_a_drawing_is_named_and_left_as_it_is(comms, tmp_path):
    missing = tmp_path / "typo.graph.json"
    with pytest.raises(FileNotFoundError, match=r"no drawing is saved at .*typo\.graph\.json"):
        Builder.load(missing)
    assert not missing.exists(), "a mistyped path must not become a new, empty drawing"
    for text in ("{not json", '{"precious": true}', "[1, 2]"):
        foreign = tmp_path / "notes.json"
        foreign.write_text(text)
        with pytest.raises(ValueError, match=r"notes\.json' is not a saved graph drawing"):
            Builder(path=foreign)
        with pytest.raises(ValueError, match="The file is left as it is"):
            Builder.load(foreign)
        assert foreign.read_text() == text
    with pytest.raises(ValueError, match="is a folder; a builder saves its drawing to a file"):
        Builder(path=tmp_path)


def test_builder_opens_a_compiled_graph_a_spec_and_a_module(comms, notebook):
    compiled = notebook["graph"].compile()
    assert Builder(compiled, namespace=notebook).spec.name == "story"
    as_json = notebook["graph"].spec.to_dict()
    assert [n.id for n in Builder(as_json, namespace=notebook).spec.nodes] == ["research", "draft"]
    module = types.ModuleType("flows")
    module.graph = notebook["graph"]  # type: ignore[attr-defined]
    assert Builder(module, namespace=notebook).spec.name == "story"
    with pytest.raises(TypeError, match="Builder\\(\\) opens a StateGraph"):
        Builder(42)  # type: ignore[arg-type]


def test_compile_uses_callables_given_in_code_even_without_a_binding(comms):
    graph = StateGraph(dict, name="lambdas").add_node("double", lambda s: {"n": s["n"] * 2})
    graph.add_edge(START, "double").add_edge("double", END)
    builder = Builder(graph, namespace={})
    assert builder.spec.nodes[0].binding is None
    assert builder.problems == []
    assert builder.compile().invoke({"n": 21}) == {"n": 42}


def test_bindings_given_in_code_resolve_when_the_namespace_lacks_them(comms):
    # A script's functions get bare bindings ("halve") that an explicit namespace lacks.
    def halve(state: dict[str, Any]) -> dict[str, Any]:
        return {"n": state["n"] // 2}

    def route(state: dict[str, Any]) -> str:
        return "done"

    halve.__module__ = route.__module__ = "__main__"
    halve.__qualname__, route.__qualname__ = "halve", "route"
    graph = StateGraph(dict, name="script").add_node("halve", halve)
    graph.add_edge(START, "halve").add_conditional_edges("halve", route, {"done": END})
    builder = Builder(graph, namespace={})
    assert builder.spec.nodes[0].binding == "halve"
    assert builder.problems == []
    assert builder.compile().invoke({"n": 42}) == {"n": 21}
    # A name the code never gave still names nothing.
    spec = builder.spec.model_copy(deep=True)
    spec.nodes[0].binding = "missing"
    builder.spec = spec
    assert [p["code"] for p in builder.problems] == ["unresolved"]


def _renamed(spec: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """The spec the front end sends after a rename (``renameNode`` in widgets/src/spec.ts):
    the node keeps everything but its id; edges and routers follow it, routes (what the
    router returns) keep the old name."""
    swap = {old: new}
    spec = json.loads(json.dumps(spec))
    for node in spec["nodes"]:
        node["id"] = swap.get(node["id"], node["id"])
    for edge in spec["edges"]:
        if edge.get("kind") == "conditional" and edge.get("route") is None:
            edge["route"] = edge["target"] if edge["target"] == old else None
        edge["source"] = swap.get(edge["source"], edge["source"])
        edge["target"] = swap.get(edge["target"], edge["target"])
    spec["routers"] = {swap.get(k, k): v for k, v in spec["routers"].items()}
    return spec


def test_a_callable_given_in_code_follows_its_node_through_renames(comm):
    graph = StateGraph(dict, name="lambdas").add_node("a", lambda s: {"x": 1})
    builder = Builder(graph.add_edge(START, "a").add_edge("a", END), namespace={})
    comm.receive_update({"spec": _renamed(spec_json(builder), "a", "renamed")})
    assert [node.id for node in builder.spec.nodes] == ["renamed"]
    assert builder.problems == []
    assert builder.compile().invoke({}) == {"x": 1}
    # A new node that takes the old name is not the lambda; renaming back (undo) is.
    grown = spec_json(builder)
    grown["nodes"].append({"id": "a", "position": {"x": 0, "y": 0}})
    comm.receive_update({"spec": grown})
    assert {(p["code"], tuple(p["nodes"])) for p in builder.problems} >= {("unbound", ("a",))}
    assert not [p for p in builder.problems if "renamed" in p["nodes"]]
    comm.receive_update({"spec": _renamed(spec_json(builder), "renamed", "again")})
    assert builder.to_graph().callables["again"] is not None
    assert builder.to_graph().callables["a"] is None


def test_renaming_a_route_target_keeps_a_router_given_in_code_working(comm):
    # The router returns "b"; renaming b used to rename the route too, and the run failed.
    graph = StateGraph(dict, name="routed").add_node("a", lambda s: {"x": 1})
    graph.add_node("b", lambda s: {"y": 2}).add_edge(START, "a").add_edge("b", END)
    graph.add_conditional_edges("a", lambda s: "b", ["b", END])
    builder = Builder(graph, namespace={})
    comm.receive_update({"spec": _renamed(spec_json(builder), "b", "c")})
    assert builder.problems == []
    assert builder.compile().invoke({}) == {"x": 1, "y": 2}


def test_a_router_given_in_code_follows_its_source_node_through_renames(comm):
    graph = StateGraph(dict, name="routed")
    graph.add_node("pick", lambda s: {})
    graph.add_node("yes", lambda s: {"said": "yes"})
    graph.add_node("no", lambda s: {"said": "no"})
    graph.add_edge(START, "pick")
    graph.add_conditional_edges("pick", lambda s: "yes" if s["n"] > 0 else "no", ["yes", "no"])
    graph.add_edge("yes", END).add_edge("no", END)
    builder = Builder(graph, namespace={})
    assert builder.problems == []
    comm.receive_update({"spec": _renamed(spec_json(builder), "pick", "choose")})
    assert builder.problems == []
    assert builder.compile().invoke({"n": 1})["said"] == "yes"
    assert builder.compile().invoke({"n": -1})["said"] == "no"


def test_a_run_streams_chunks_in_batches_and_reports_every_node(comm, notebook):
    notebook["WORDS"] = 500
    builder = Builder(notebook["graph"], namespace=notebook)
    comm.clear()

    async def main() -> Any:
        comm.receive({"type": "run", "input": {"topic": "otter"}, "thread_id": None})
        task = builder._runner.task
        assert task is not None
        return await task

    final = run_async(main())
    expected = "".join(f"otter-{i} " for i in range(500))
    assert final.text == expected
    chunks = comm.custom("chunks")
    assert "".join(c["text"] for c in chunks) == expected
    assert [c["offset"] for c in chunks] == [
        sum(len(c["text"]) for c in chunks[:i]) for i in range(len(chunks))
    ]
    assert len(chunks) < 50, "chunks must be batched, not sent one message each"
    run = builder.run_state
    assert run["status"] == "done"
    assert run["chunks"] == expected
    assert {name: n["status"] for name, n in run["nodes"].items()} == {
        "research": "done",
        "draft": "done",
    }
    assert all(n["duration"] is not None for n in run["nodes"].values())
    steps = run["steps"]
    assert [s["step"] for s in steps] == [-1, 0, 1]
    assert steps[0]["changed"] == ["topic"]
    assert steps[1]["changed"] == ["notes"]
    assert steps[2]["changed"] == ["text"]
    assert steps[2]["state"]["text"] == expected


def test_run_updates_are_coalesced_while_nodes_finish_quickly(comm, notebook):
    builder = Builder(namespace=notebook)
    chain = StateGraph(dict, name="chain")
    names = [f"n{i}" for i in range(90)]
    for name in names:
        chain.add_node(name, lambda state: {"count": state.get("count", 0) + 1})
    for a, b in zip([START, *names], [*names, END], strict=False):
        chain.add_edge(a, b)
    builder = Builder(chain, namespace=notebook)
    comm.clear()

    async def main() -> Any:
        return await builder.run({"count": 0})

    assert run_async(main()) == {"count": 90}
    published = comm.updates("run_state")
    assert published[-1]["status"] == "done"
    assert len(published) < 20, f"{len(published)} run updates for 90 quick nodes"


def test_a_failing_node_shows_the_error_and_its_traceback(comm, notebook):
    graph = StateGraph(notebook["Story"], name="failing").add_node("broken", notebook["broken"])
    graph.add_edge(START, "broken").add_edge("broken", END)
    builder = Builder(graph, namespace=notebook)

    assert run_async(_run(builder, {})) is None
    run = builder.run_state
    assert run["status"] == "error"
    assert run["nodes"]["broken"]["status"] == "error"
    assert run["error"]["node"] == "broken"
    assert run["error"]["message"] == "ValueError: the model is down"
    assert "ValueError: the model is down" in run["error"]["traceback"]
    assert run["error"]["problems"] == []  # the graph was fine: it failed while running


def test_a_graph_that_does_not_compile_reports_why_instead_of_running(comm, notebook):
    builder = Builder(namespace=notebook)
    assert run_async(_run(builder, {})) is None
    assert builder.run_state["status"] == "error"
    assert "no edge leaves START" in builder.run_state["error"]["message"]


def test_a_graph_that_does_not_compile_lists_its_problems_with_their_nodes(comm, notebook):
    builder = Builder(notebook["graph"], namespace=notebook)
    edited = spec_json(builder)
    edited["nodes"].append({"id": "lonely", "binding": None, "position": {"x": 0, "y": 0}})
    comm.receive_update({"spec": edited})
    builder.pin_problems([{"code": "exercise", "message": "draw more", "nodes": []}])
    assert run_async(_run(builder, {})) is None
    error = builder.run_state["error"]
    # The Problems panel's list, so each problem links to its node; no exercise points.
    listed = {(p["code"], tuple(p["nodes"])) for p in error["problems"]}
    assert listed == {("unbound", ("lonely",)), ("unreachable", ("lonely",))}


def test_stop_cancels_the_running_task(comm, notebook):
    notebook["WORDS"] = 1000
    notebook["DELAY"] = 0.005
    builder = Builder(notebook["graph"], namespace=notebook)

    async def main() -> None:
        task = builder.run({"topic": "t"})
        while builder.run_state["nodes"]["draft"]["status"] != "running":
            await asyncio.sleep(0.01)
        comm.receive({"type": "stop"})
        with pytest.raises(asyncio.CancelledError):
            await task
        assert task.cancelled()

    run_async(main())
    run = builder.run_state
    assert run["status"] == "stopped"
    assert run["nodes"]["draft"]["status"] == "idle"
    assert run["active"] == []
    assert builder.stop() is False


def test_a_second_run_while_one_goes_on_is_refused(comm, notebook):
    notebook["DELAY"] = 0.01
    builder = Builder(notebook["graph"], namespace=notebook)

    async def main() -> None:
        builder.run({})
        with pytest.raises(RuntimeError, match="already going on"):
            builder.run({})
        builder.stop()

    run_async(main())


def test_a_run_refused_while_one_goes_on_keeps_the_running_runs_panel(comm, notebook):
    notebook["DELAY"] = 0.01
    builder = Builder(notebook["graph"], namespace=notebook)

    async def main() -> None:
        task = builder.run({})
        while builder.last_run["status"] != "running":
            await asyncio.sleep(0.001)
        run_id = builder.last_run["id"]
        spec = builder.spec.model_copy(deep=True)
        spec.edges = []  # no longer compiles
        builder.spec = spec
        with pytest.raises(RuntimeError, match="already going on"):
            builder.run({})
        assert builder.last_run["id"] == run_id
        assert builder.last_run["status"] == "running"
        builder.stop()
        with pytest.raises(asyncio.CancelledError):
            await task

    run_async(main())
    assert builder.run_state["status"] == "stopped"


def test_export_writes_the_module_next_to_the_drawing(comm, tmp_path):
    from graphnb.cli import demo

    builder = Builder(demo.build(), namespace={}, path=tmp_path / "demo.json")
    comm.receive({"type": "export"})
    written = Path(builder.export_status)
    assert written == (tmp_path / "demo.py").resolve(), builder.export_status
    assert "from graphnb.cli.demo import" in written.read_text()


def test_an_export_that_fails_says_why_in_the_status(comm, notebook, tmp_path, caplog):
    builder = Builder(notebook["graph"], namespace=notebook, path=tmp_path / "story.json")
    comm.receive({"type": "export"})
    assert builder.export_status.startswith("export failed: ")
    assert not (tmp_path / "story.py").exists()


def test_messages_without_a_type_are_ignored(comm, notebook, caplog):
    builder = Builder(namespace=notebook)
    comm.receive({"nothing": True})
    comm.receive({"type": "no-such-request"})
    assert builder.export_status == ""
    assert any("[graphnb]" in record.getMessage() for record in caplog.records)


async def _run(builder: Builder, input: dict[str, Any]) -> Any:
    return await builder.run(input)


def test_spec_trait_is_json(comm, notebook):
    builder = Builder(notebook["graph"], namespace=notebook)
    json.dumps(comm.opened["data"]["state"])
    assert builder.spec.name == "story"


def test_with_a_saver_each_run_belongs_to_a_thread_that_the_next_run_continues(comm, notebook):
    builder = Builder(notebook["graph"], namespace=notebook)
    assert builder.saves_threads is False
    comm.receive({"type": "use_saver", "url": "memory://"})
    assert (builder.saves_threads, builder.saver) == (True, "memory://")

    first = run_async(_run(builder, {"topic": "a"}))
    thread = builder.run_state["thread_id"]
    assert thread, "a run with a saver and no thread id starts a new thread"
    assert first.notes == ["facts about a"]

    async def again() -> Any:
        return await builder.run({"topic": "b"}, thread_id=thread)

    second = run_async(again())
    assert second.notes == ["facts about a", "facts about b"]
    assert builder.compile().get_state(thread).values.topic == "b"


def test_a_saver_url_that_names_nothing_is_reported_in_the_widget(comm, notebook):
    builder = Builder(namespace=notebook)
    comm.receive({"type": "use_saver", "url": "nosuch://x"})
    assert builder.notice.startswith("use_saver failed: ")
    assert builder.saves_threads is False
    comm.receive({"type": "use_saver", "url": ""})
    assert builder.notice == ""


def _handoff(state: dict[str, Any]) -> Any:
    from graphnb import Command

    return Command(goto="billing")


def test_a_nodes_command_destinations_reach_the_canvas_and_count_as_paths(comm):
    from graphnb import StateGraph

    graph = StateGraph(dict).add_node("triage", _handoff, destinations={"billing": "invoice"})
    graph.add_node("billing", lambda state: {}).add_edge(START, "triage")
    graph.add_edge("billing", END)
    builder = Builder(graph, namespace={"_handoff": _handoff})
    # The canvas draws them from the spec it is sent (widgets/src/flow.ts, toEdges).
    sent = comm.opened["data"]["state"]["spec"]
    triage = next(node for node in sent["nodes"] if node["id"] == "triage")
    assert triage["destinations"] == {"billing": "invoice"}
    # billing is reached only through the Command: no "unreachable", no "dead-end".
    assert builder.problems == []
    edited = spec_json(builder)
    edited["nodes"][0]["destinations"] = {"billing": "invoice", "ghost": None}
    comm.receive_update({"spec": edited})
    assert [(p["code"], p["message"]) for p in builder.problems] == [
        ("unknown-node", "`ghost` is a destination of `triage` but is not a node.")
    ]
