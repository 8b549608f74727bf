"""Fixtures of the diagram tests."""

from __future__ import annotations

import pytest

from graphnb import GraphSpec

from .samples import SAMPLES


@pytest.fixture(params=sorted(SAMPLES))
def sample(request: pytest.FixtureRequest) -> tuple[str, GraphSpec]:
    """Each sample, by name."""
    name: str = request.param
    return name, SAMPLES[name]()
