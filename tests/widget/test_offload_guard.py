"""The builder's wrappers (off_loop, guard_router) turn a `SystemExit` into `NodeExit`."""

from __future__ import annotations

import asyncio
import inspect

import pytest

from graphnb.widget.offload import NodeExit, guard_router, off_loop


async def quits(state: dict[str, int]) -> dict[str, int]:
    """A coroutine node that exits the interpreter."""
    raise SystemExit(3)


async def fails(state: dict[str, int]) -> dict[str, int]:
    """A coroutine node with an ordinary error."""
    raise ValueError("bad")


@pytest.mark.parametrize("guard", [off_loop, guard_router])
def test_an_async_systemexit_becomes_nodeexit_and_keeps_the_name(guard: object) -> None:
    guarded = guard(quits)  # type: ignore[operator]
    assert guarded.__name__ == "quits"
    assert inspect.iscoroutinefunction(guarded)
    with pytest.raises(NodeExit) as caught:
        asyncio.run(guarded({"n": 1}))
    assert isinstance(caught.value.__cause__, SystemExit)
    assert caught.value.__cause__.code == 3


@pytest.mark.parametrize("guard", [off_loop, guard_router])
def test_an_async_exception_passes_unchanged(guard: object) -> None:
    with pytest.raises(ValueError, match="bad"):
        asyncio.run(guard(fails)({"n": 1}))  # type: ignore[operator]
