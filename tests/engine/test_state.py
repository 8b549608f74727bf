"""Typed state: reducers, aliases, streaming fields, what is and is not state."""

from __future__ import annotations

import operator
from typing import Annotated, ClassVar, NotRequired, Required, TypedDict

import pytest
import typing_extensions
from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    PrivateAttr,
    Tag,
    field_validator,
    model_validator,
)
from typing_extensions import ReadOnly

from graphnb import (
    END,
    START,
    GraphSetupError,
    GraphState,
    GraphValidationError,
    InvalidUpdateError,
    StateField,
    StateGraph,
    add,
    append,
    merge,
)


class Counters(GraphState):
    log: Annotated[list[str], StateField(reducer=append)] = []
    total: Annotated[int, StateField(reducer=add)] = 0
    tags: Annotated[dict[str, int], StateField(reducer=merge)] = {}
    legacy: Annotated[list[int], operator.add] = []
    last: str = ""


def one_node(state_type, fn, **kwargs):
    graph = StateGraph(state_type, **kwargs)
    graph.add_node("work", fn).add_edge(START, "work").add_edge("work", END)
    return graph.compile()


def test_builtin_reducers_merge_writes():
    def work(state: Counters) -> dict:
        return {"log": ["b"], "total": 5, "tags": {"y": 2}, "legacy": [2], "last": "work"}

    result = one_node(Counters, work).invoke(
        {"log": ["a"], "total": 1, "tags": {"x": 1}, "legacy": [1]}
    )
    assert result.log == ["a", "b"]
    assert result.total == 6
    assert result.tags == {"x": 1, "y": 2}
    assert result.legacy == [1, 2]
    assert result.last == "work"


def test_reducers_apply_to_the_input_before_the_first_node():
    class Seeded(GraphState):
        items: Annotated[list[str], StateField(reducer=append)] = ["default"]

    seen = []
    one_node(Seeded, lambda s: seen.append(list(s.items))).invoke({"items": ["input"]})
    assert seen == [["default", "input"]]


def test_append_accepts_a_single_item():
    result = one_node(Counters, lambda s: {"log": "one"}).invoke()
    assert result.log == ["one"]


def test_custom_two_argument_reducer():
    def keep_max(current: int, update: int) -> int:
        return max(current, update)

    class Peak(GraphState):
        peak: Annotated[int, StateField(reducer=keep_max)] = 0

    assert one_node(Peak, lambda s: {"peak": 3}).invoke({"peak": 7}).peak == 7
    assert one_node(Peak, lambda s: {"peak": 9}).invoke({"peak": 7}).peak == 9


def test_custom_reducer_result_is_validated():
    class Weird(GraphState):
        n: Annotated[int, StateField(reducer=lambda a, b: f"{a}{b}x")] = 0

    with pytest.raises(InvalidUpdateError) as caught:
        one_node(Weird, lambda s: {"n": 1}).invoke()
    assert caught.value.field == "n"


def test_alias_is_accepted_on_input_and_in_updates_and_used_in_maps():
    class Legacy(GraphState):
        current_step: Annotated[str, StateField(alias="currentStep")] = ""
        count: int = 0

    graph = one_node(Legacy, lambda s: {"currentStep": s.current_step + "!", "count": 1})
    result = graph.invoke({"currentStep": "go"})
    assert result.current_step == "go!"
    assert result.to_map() == {"currentStep": "go!", "count": 1}
    assert Legacy.model_validate({"currentStep": "x"}).current_step == "x"


def test_private_attributes_and_classvars_are_not_state():
    class WithExtras(GraphState):
        kind: ClassVar[str] = "extras"
        _cache: dict[str, int] = PrivateAttr(default_factory=dict)
        value: int = 0

    def work(state: WithExtras) -> WithExtras:
        state._cache["hit"] = 1
        state.value = 2
        return state

    graph = one_node(WithExtras, work)
    assert [f.name for f in graph.spec.state.fields] == ["value"]
    result = graph.invoke()
    assert result.value == 2
    assert "_cache" not in result.model_dump()
    assert result._cache == {}


def test_two_streaming_fields_are_rejected_when_the_graph_is_built():
    class TwoStreams(GraphState):
        a: Annotated[str, StateField(streaming=True)] = ""
        b: Annotated[str, StateField(streaming=True)] = ""

    graph = StateGraph(TwoStreams)
    graph.add_node("n", lambda s: None).add_edge(START, "n").add_edge("n", END)
    with pytest.raises(GraphValidationError, match=r"2 streaming fields \(`a`, `b`\)"):
        graph.compile()


def test_dict_state_with_per_key_reducers():
    graph = one_node(
        dict, lambda s: {"messages": ["hi"], "step": "done"}, reducers={"messages": append}
    )
    assert graph.invoke({"messages": ["hello"]}) == {"messages": ["hello", "hi"], "step": "done"}


def test_typeddict_state_reads_reducers_from_annotations():
    class Chat(TypedDict, total=False):
        messages: Annotated[list[str], operator.add]
        turns: int

    graph = one_node(Chat, lambda s: {"messages": ["b"], "turns": s.get("turns", 0) + 1})
    assert graph.invoke({"messages": ["a"]}) == {"messages": ["a", "b"], "turns": 1}
    with pytest.raises(InvalidUpdateError, match="'turns' expects int"):
        one_node(Chat, lambda s: {"turns": "many"}).invoke({})


def test_reducers_keyword_is_refused_for_models():
    with pytest.raises(GraphSetupError, match="declares its reducers"):
        StateGraph(Counters, reducers={"log": append})


def test_state_type_must_be_a_model_typeddict_or_dict():
    with pytest.raises(GraphSetupError, match="GraphState subclass, a TypedDict or dict"):
        StateGraph(list)


def test_unresolvable_annotations_are_an_error_not_a_silent_replace(tmp_path):
    import importlib.util

    source = tmp_path / "unregistered.py"
    source.write_text(
        "from __future__ import annotations\n"
        "from typing import Annotated\n"
        "from graphnb import GraphState, StateField, append\n"
        "class Log(GraphState):\n"
        "    items: Annotated[list[str], StateField(reducer=append)] = []\n"
    )
    spec = importlib.util.spec_from_file_location("unregistered", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # not put in sys.modules: names cannot be resolved
    with pytest.raises(GraphSetupError, match=r"annotations of Log cannot be resolved"):
        StateGraph(module.Log)


def test_required_fields_must_be_given():
    class Needs(GraphState):
        question: str

    graph = one_node(Needs, lambda s: None)
    with pytest.raises(InvalidUpdateError, match="lacks required field"):
        graph.invoke({})
    assert graph.invoke({"question": "why"}).question == "why"


def test_typeddict_fields_marked_required_or_not_required_keep_their_reducers():
    # NotRequired/Required/ReadOnly wrapped the annotation the TypeAdapter was built from,
    # and StateGraph failed with pydantic's "Unable to generate pydantic-core schema".
    class Chat(TypedDict):
        question: Required[str]
        messages: NotRequired[Annotated[list[str], operator.add]]
        topic: ReadOnly[str]

    graph = one_node(Chat, lambda s: {"messages": ["b"]})
    assert graph.invoke({"question": "q", "messages": ["a"], "topic": "t"}) == {
        "question": "q",
        "messages": ["a", "b"],
        "topic": "t",
    }
    assert [(f.name, f.type, f.reducer) for f in graph.spec.state.fields] == [
        ("question", "str", "replace"),
        ("messages", "list[str]", "add"),
        ("topic", "str", "replace"),
    ]
    with pytest.raises(InvalidUpdateError, match="'question' expects str"):
        one_node(Chat, lambda s: {"question": 3}).invoke({})


def test_a_typing_extensions_typeddict_is_a_typeddict_state():
    # pydantic asks for typing_extensions' TypedDict before Python 3.12, which typing's
    # is_typeddict does not recognise: the state was refused as not a TypedDict.
    class Chat(typing_extensions.TypedDict, total=False):
        messages: Annotated[list[str], operator.add]

    graph = one_node(Chat, lambda s: {"messages": ["b"]})
    assert graph.invoke({"messages": ["a"]}) == {"messages": ["a", "b"]}
    assert graph.spec.state.kind == "typeddict"


class ShortNote(BaseModel):
    text: str


class LongNote(BaseModel):
    text: str


def _note_kind(value: object) -> str:
    text = value["text"] if isinstance(value, dict) else getattr(value, "text", "")
    return "long" if len(text) > 5 else "short"


Note = Annotated[ShortNote, Tag("short")] | Annotated[LongNote, Tag("long")]


class Notes(GraphState):
    note: Note = Field(ShortNote(text=""), discriminator=Discriminator(_note_kind))


def test_a_fields_discriminator_picks_the_union_member_of_a_write():
    # Field(discriminator=...) is kept on the FieldInfo, not in its metadata: writes were
    # validated as a plain union, which took the first member that fit (ShortNote).
    assert type(Notes(note={"text": "a long note"}).note) is LongNote
    graph = one_node(Notes, lambda s: {"note": {"text": "a long note"}})
    assert type(graph.invoke({}).note) is LongNote
    assert type(graph.invoke({"note": {"text": "a long note"}}).note) is LongNote


class Opaque:
    """A type pydantic has no schema for."""


def test_the_models_config_applies_to_the_writes_to_its_fields():
    # Only `strict` was passed on, and to every field: a strict model with a model field
    # crashed StateGraph (pydantic's "Cannot use `config` when the type is a BaseModel"),
    # arbitrary_types_allowed was ignored (a schema error), str_strip_whitespace too.
    class Strict(GraphState):
        model_config = ConfigDict(strict=True)
        note: ShortNote = ShortNote(text="")
        count: int = 0

    graph = one_node(Strict, lambda s: {"note": {"text": "hi"}})
    assert graph.invoke({}).note == ShortNote(text="hi")
    with pytest.raises(InvalidUpdateError, match="'count' expects int"):
        one_node(Strict, lambda s: {"count": "3"}).invoke({})

    class Anything(GraphState):
        model_config = ConfigDict(arbitrary_types_allowed=True)
        blob: Opaque | None = None

    blob = Opaque()
    assert one_node(Anything, lambda s: {"blob": blob}).invoke({}).blob is blob

    class Stripped(GraphState):
        model_config = ConfigDict(str_strip_whitespace=True)
        name: str = ""

    assert Stripped(name=" Ada ").name == "Ada"
    assert one_node(Stripped, lambda s: {"name": " Ada "}).invoke({}).name == "Ada"


def test_a_pydantic_alias_is_accepted_in_inputs_and_writes_like_a_state_field_alias():
    # The model accepts Field(alias=...) keys, but graphnb knew only StateField aliases:
    # an input or a node's write keyed by the alias was refused as an unknown field.
    class Profile(GraphState):
        user_name: str = Field("", alias="userName")
        visits: int = Field(0, validation_alias="visitCount")
        city: str = Field("", alias="city")

    graph = one_node(Profile, lambda s: {"userName": s.user_name.upper(), "visitCount": 2})
    final = graph.invoke({"userName": "ada", "visitCount": 1})
    assert (final.user_name, final.visits) == ("ADA", 2)
    assert [(f.name, f.alias) for f in graph.spec.state.fields] == [
        ("user_name", "userName"),
        ("visits", "visitCount"),
        ("city", None),
    ]


def test_a_default_factory_taking_the_validated_data_sees_the_fields_before_it():
    # pydantic calls `default_factory=lambda data: ...` with the fields validated before
    # it; graphnb called it with no data at all: every run failed with KeyError: 'topic'.
    class Draft(GraphState):
        topic: str = "cats"
        title: str = Field(default_factory=lambda data: data["topic"].title())

    graph = one_node(Draft, lambda s: None)
    assert graph.invoke({}).title == Draft().title == "Cats"
    assert graph.invoke({"topic": "dogs"}).title == Draft(topic="dogs").title == "Dogs"
    assert graph.invoke({"topic": "dogs", "title": "Mine"}).title == "Mine"


class Checked(GraphState):
    n: int = 0
    name: str = ""
    low: int = 0
    high: int = 10
    log: Annotated[list[str], StateField(reducer=append)] = []

    @field_validator("n")
    @classmethod
    def _not_negative(cls, value: int) -> int:
        if value < 0:
            raise ValueError("n must not be negative")
        return value

    @field_validator("name")
    @classmethod
    def _lower(cls, value: str) -> str:
        return value.lower()

    @field_validator("log")
    @classmethod
    def _short(cls, value: list[str]) -> list[str]:
        if len(value) > 2:
            raise ValueError("at most 2 entries")
        return value

    @model_validator(mode="after")
    def _ordered(self) -> Checked:
        if self.low > self.high:
            raise ValueError("low must not pass high")
        return self


def test_the_models_validators_check_inputs_and_writes_as_an_assignment():
    keep = one_node(Checked, lambda state: {})
    assert keep.invoke({"name": "ADA"}).name == "ada", "what a validator returns is kept"
    with pytest.raises(InvalidUpdateError, match="n must not be negative") as caught:
        keep.invoke({"n": -1})
    assert (caught.value.node, caught.value.field, caught.value.value) == (START, "n", -1)

    assert one_node(Checked, lambda state: {"name": "BOB"}).invoke().name == "bob"
    with pytest.raises(InvalidUpdateError, match="Checked refused -3 for field 'n'") as caught:
        one_node(Checked, lambda state: {"n": -3}).invoke({"n": 1})
    assert (caught.value.node, caught.value.field) == ("work", "n")
    # A field validator sees the merged value (the list after append), a model validator
    # the state after the node's whole update.
    with pytest.raises(InvalidUpdateError, match="at most 2 entries"):
        one_node(Checked, lambda state: {"log": ["c"]}).invoke({"log": ["a", "b"]})
    with pytest.raises(InvalidUpdateError, match="low must not pass high"):
        one_node(Checked, lambda state: {"low": 50}).invoke()
    assert one_node(Checked, lambda state: {"low": 50, "high": 60}).invoke().low == 50


def test_a_validator_refusing_an_edit_leaves_the_thread_as_it_was():
    from graphnb.checkpoint import MemorySaver

    graph = StateGraph(Checked).add_node("work", lambda state: {})
    app = graph.add_edge(START, "work").add_edge("work", END).compile(checkpointer=MemorySaver())
    app.invoke({"n": 2}, thread_id="t")
    with pytest.raises(InvalidUpdateError, match="n must not be negative"):
        app.update_state("t", {"n": -5})
    assert app.get_state("t").values.n == 2
    app.update_state("t", {"name": "MIXED Case"})
    assert app.get_state("t").values.name == "mixed case"
