"""Fixtures of the MCP tests: managers that are always closed, whatever a test does."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from agent_tui.core.mcp import McpManager, McpServerConfig

MakeManager = Callable[..., McpManager]


@pytest.fixture
async def manager(tmp_path: Path) -> AsyncIterator[MakeManager]:
    """Makes managers logging into ``tmp_path/logs``; each is closed after the test."""
    made: list[McpManager] = []

    def make(*configs: McpServerConfig, **options: object) -> McpManager:
        made.append(McpManager(list(configs), tmp_path / "logs", **options))  # type: ignore[arg-type]
        return made[-1]

    yield make
    for each in made:
        await each.close()
