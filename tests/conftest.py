"""Shared pytest fixtures for agent-tui's tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.providers import FakeProvider


@pytest.fixture(autouse=True)
def agent_tui_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Points ``AGENT_TUI_HOME`` at a fresh temporary directory for every test, and turns
    the warm engine off."""
    home = tmp_path_factory.mktemp("agent_tui_home")
    monkeypatch.setenv("AGENT_TUI_HOME", str(home))
    # No warm engine outliving the tests; tests/core/test_warm_engine.py starts its own.
    monkeypatch.setenv("AGENT_TUI_WARM_ENGINE", "false")
    return home


@pytest.fixture
def fake_provider() -> Iterator[FakeProvider]:
    """A started `FakeProvider`, stopped after the test."""
    with FakeProvider() as fake:
        yield fake
