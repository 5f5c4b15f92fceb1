"""Fixtures for provider tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agentci.testing.fake_gemini import FakeGemini


@pytest.fixture
def fake() -> Iterator[FakeGemini]:
    """A running fake Gemini server with an empty script (``fake.add(...)`` turns)."""
    with FakeGemini() as server:
        yield server


@pytest.fixture(params=[True, False], ids=["private-path", "public-path"])
def raw_path(request: pytest.FixtureRequest) -> bool:
    """Both ways agentci calls Gemini: the private path (a prebuilt body, no SDK), the SDK's
    public one."""
    return bool(request.param)
