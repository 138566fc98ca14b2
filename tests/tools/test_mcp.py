"""MCP tools as the model sees them: names, schemas, argument checks and real calls."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_tui.core.mcp import McpManager, McpToolInfo
from agent_tui.tools.base import ToolArgumentError, ToolContext, ToolKind
from agent_tui.tools.mcp import McpTool, mcp_tool_name, mcp_tools
from agent_tui.tools.registry import ToolRegistry
from tests.core.mcp.servers import DEMO_TOOLS, stdio_config


@pytest.fixture
async def demo(tmp_path: Path) -> AsyncIterator[McpManager]:
    """A manager with the demo server ready."""
    manager = McpManager([stdio_config(tmp_path)], tmp_path / "logs")
    try:
        await manager.start()
        await manager.wait_ready(20)
        assert manager.servers["demo"].state == "ready"
        yield manager
    finally:
        await manager.close()


def context(tmp_path: Path, *, images: bool = True) -> ToolContext:
    return ToolContext(workdir=tmp_path, output_dir=tmp_path / "out", supports_images=images)


def tool(manager: McpManager, name: str) -> McpTool:
    [found] = [t for t in mcp_tools(manager) if isinstance(t, McpTool) and t.info.name == name]
    return found


def test_names_are_safe_and_short() -> None:
    assert mcp_tool_name("github", "search_issues") == "mcp__github__search_issues"
    assert mcp_tool_name("my server", "files.read/all") == "mcp__my_server__files_read_all"
    long_a = mcp_tool_name("s", "x" * 100 + "a")
    long_b = mcp_tool_name("s", "x" * 100 + "b")
    assert len(long_a) == len(long_b) == 64
    assert long_a != long_b


def test_a_tool_is_described_by_its_server() -> None:
    info = McpToolInfo("docs", "search", "Search the docs.", {
        "type": "object", "title": "searchArguments",
        "properties": {"q": {"type": "string", "title": "Q"}}, "required": ["q"]})
    made = McpTool(info, McpManager([], Path("/nonexistent")))
    other = McpTool(McpToolInfo("docs", "fetch", "", {}), made.manager)
    assert (made.name, made.kind) == ("mcp__docs__search", ToolKind.OTHER)
    assert made.description == "[MCP server docs] Search the docs."
    assert made.ask_reason == "calls the MCP server docs"
    assert made.parameters_schema() == {"type": "object", "properties": {"q": {"type": "string"}},
                                        "required": ["q"]}
    assert other.name == "mcp__docs__fetch" and made.name == "mcp__docs__search"
    assert other.parameters_schema() == {"type": "object", "properties": {}}
    assert made.schema()["function"]["name"] == "mcp__docs__search"


async def test_calls_through_build_and_execute(demo: McpManager, tmp_path: Path) -> None:
    tools = mcp_tools(demo)
    assert sorted(t.name for t in tools) == sorted(f"mcp__demo__{n}" for n in DEMO_TOOLS)
    registry = ToolRegistry(tools)
    call = registry.build("mcp__demo__echo", '{"text": "hi", "times": 2}', context(tmp_path))
    assert call.describe() == 'mcp__demo__echo {"text":"hi","times":2}'
    result = await call.execute()
    assert (result.ok, result.llm_content, result.images) == (True, "hi hi", [])


async def test_missing_required_arguments_show_the_schema(demo: McpManager,
                                                          tmp_path: Path) -> None:
    echo = tool(demo, "echo")
    with pytest.raises(ToolArgumentError) as caught:
        echo.build({"times": 2}, context(tmp_path))
    message = str(caught.value)
    assert "missing required text" in message
    assert json.dumps(echo.parameters_schema()) in message


async def test_images_and_errors_become_tool_results(demo: McpManager, tmp_path: Path) -> None:
    picture = await tool(demo, "picture").build({}, context(tmp_path)).execute()
    assert picture.ok and picture.llm_content == "a red dot"
    [image] = picture.images
    assert image.media_type == "image/png"

    text_only = await tool(demo, "picture").build({}, context(tmp_path, images=False)).execute()
    assert text_only.images == []
    assert "1 image(s) not shown" in text_only.llm_content

    refused = await tool(demo, "refuse").build({}, context(tmp_path)).execute()
    assert not refused.ok
    assert "the demo refuses politely" in (refused.error or "")


async def test_a_server_failure_is_a_failed_result(demo: McpManager, tmp_path: Path) -> None:
    slow = tool(demo, "slow").build({"seconds": 30}, context(tmp_path))
    demo.disable("demo")
    result = await slow.execute()
    assert not result.ok
    assert result.error == "the MCP server demo is disabled; enable it from /mcp to use its tools"


async def test_the_approval_shows_the_arguments_the_call_sends(demo: McpManager,
                                                              tmp_path: Path) -> None:
    from agent_tui.core.approval_request import approval_request

    ctx = ToolContext(workdir=tmp_path, output_dir=tmp_path / "out")
    tool = next(t for t in mcp_tools(demo) if t.name == "mcp__demo__echo")
    invocation = tool.build({"text": "rm -rf the production database", "times": 2}, ctx)

    request = approval_request("c1", invocation, "calls the MCP server demo",
                               confirmation=invocation.confirmation(), workdir=tmp_path)

    assert "rm -rf the production database" in request.details.arguments
    assert '"times": 2' in request.details.arguments
