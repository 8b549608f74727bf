"""Suite-wide fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


@pytest.fixture
def artifacts(request: pytest.FixtureRequest) -> Path:
    """A folder for files a test leaves behind for people to look at (git-ignored)."""
    folder = ARTIFACTS / request.node.module.__name__.rsplit(".", 1)[-1]
    folder.mkdir(parents=True, exist_ok=True)
    return folder
