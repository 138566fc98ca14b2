"""What a server may ask of agent-tui besides tool calls, against the reference server
``server-everything`` (npm) over stdio: progress, roots, elicitation, sampling, logging,
task-only tools; and a changed tool list, against a server written with the SDK."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from agent_tui.core.mcp import McpServerConfig
from agent_tui.core.mcp.host import (
    NO_PERSON_TO_ASK,
    ElicitationAnswer,
    ElicitationRequest,
    McpHost,
    SamplingAnswer,
    SamplingRefused,
    SamplingRequest,
)
from agent_tui.tools.mcp import progress_text

from .conftest import MakeManager
from .everything import everything_config


async def _ready(mcp) -> None:  # type: ignore[no-untyped-def]
    await mcp.start()
    await mcp.wait_ready(60)
    server = next(iter(mcp.servers.values()))
    assert (server.state, server.error) == ("ready", "")


async def test_progress_roots_logs_and_tools_that_need_tasks(manager: MakeManager,
                                                           tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    mcp = manager(everything_config(tmp_path), host=McpHost(roots=[project]))
    await _ready(mcp)
    server = mcp.servers["everything"]

    progress: list[tuple[float, float | None, str | None]] = []
    done = await mcp.call("everything", "trigger-long-running-operation",
                          {"duration": 0.6, "steps": 3},
                          on_progress=lambda *report: progress.append(report))
    assert "Long running operation completed" in done.text
    assert progress == [(1, 3, None), (2, 3, None), (3, 3, None)]
    assert progress_text(2, 3, None) == "▰▰▰▰▰▰▰▱▱▱ 2/3"
    assert progress_text(4, None, "copying  files") == "progress 4 copying files"

    roots = await mcp.call("everything", "get-roots-list", {})
    assert f"URI: {project.resolve().as_uri()}" in roots.text

    # logging/setLevel info: the server's info messages arrive, into /mcp and its log.
    for _ in range(100):
        if any("Roots updated" in line for line in server.log_messages):
            break
        await asyncio.sleep(0.05)
    assert "[info] everything-server: Roots updated: 1 root(s) received from client" in \
        server.log_messages
    assert "[log] [info] everything-server: Roots updated" in server.log_path.read_text()

    # The 2025-11 tasks: a tool that runs only as a task is not offered.
    offered = {tool.name for tool in mcp.tools()}
    assert "simulate-research-query" not in offered
    assert server.task_tools == ["simulate-research-query"]
    assert {"trigger-elicitation-request", "trigger-sampling-request", "get-roots-list"} <= \
        offered


async def test_a_changed_project_folder_is_announced_as_new_roots(manager: MakeManager,
                                                                  tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir(), second.mkdir()
    mcp = manager(everything_config(tmp_path), host=McpHost(roots=[first]))
    await _ready(mcp)
    assert first.as_uri() in (await mcp.call("everything", "get-roots-list", {})).text

    await mcp.set_roots([second])
    for _ in range(100):
        listed = (await mcp.call("everything", "get-roots-list", {})).text
        if second.as_uri() in listed:
            break
        await asyncio.sleep(0.05)
    assert second.as_uri() in listed and first.as_uri() not in listed


async def test_a_form_is_answered_by_the_host_or_refused_without_one(manager: MakeManager,
                                                                     tmp_path: Path) -> None:
    asked: list[ElicitationRequest] = []

    async def elicit(request: ElicitationRequest) -> ElicitationAnswer:
        asked.append(request)
        return ElicitationAnswer("accept", {"name": "Ada Lovelace", "integer": 7})

    mcp = manager(everything_config(tmp_path), host=McpHost(elicit=elicit))
    await _ready(mcp)
    answered = await mcp.call("everything", "trigger-elicitation-request", {})
    assert "- Name: Ada Lovelace" in answered.text and "- Favorite Integer: 7" in answered.text
    [request] = asked
    assert request.server == "everything"
    assert request.message == "Please provide inputs for the following fields:"
    assert request.schema["required"] == ["name"]

    notes: list[str] = []
    headless = manager(everything_config(tmp_path, name="headless"),
                       host=McpHost(note=notes.append))
    await _ready(headless)
    refused = await headless.call("headless", "trigger-elicitation-request", {})
    assert refused.is_error and NO_PERSON_TO_ASK in refused.text
    assert notes == ["The MCP server headless asked for information (Please provide inputs "
                     f"for the following fields:); it was refused: {NO_PERSON_TO_ASK}."]


async def test_declined_and_cancelled_forms_reach_the_server(manager: MakeManager,
                                                              tmp_path: Path) -> None:
    answers = [ElicitationAnswer("decline"), ElicitationAnswer("cancel")]

    async def elicit(_request: ElicitationRequest) -> ElicitationAnswer:
        return answers.pop(0)

    mcp = manager(everything_config(tmp_path), host=McpHost(elicit=elicit))
    await _ready(mcp)
    declined = await mcp.call("everything", "trigger-elicitation-request", {})
    assert "User declined" in declined.text
    cancelled = await mcp.call("everything", "trigger-elicitation-request", {})
    assert "User cancelled" in cancelled.text


async def test_sampling_goes_through_the_host_and_its_refusal_reaches_the_server(
        manager: MakeManager, tmp_path: Path) -> None:
    asked: list[SamplingRequest] = []

    async def sample(request: SamplingRequest) -> SamplingAnswer:
        asked.append(request)
        if len(asked) > 1:
            raise SamplingRefused("the person did not allow this sampling request")
        return SamplingAnswer("a haiku about tests", "openai/fake-model", "endTurn")

    mcp = manager(everything_config(tmp_path), host=McpHost(sample=sample))
    await _ready(mcp)
    result = await mcp.call("everything", "trigger-sampling-request",
                            {"prompt": "write a haiku", "maxTokens": 40})
    assert '"text": "a haiku about tests"' in result.text
    assert '"model": "openai/fake-model"' in result.text
    request = asked[0]
    assert request.max_tokens == 40 and request.system_prompt == "You are a helpful test server."
    assert request.messages == (("user", "Resource trigger-sampling-request context: write a "
                                 "haiku"),)

    refused = await mcp.call("everything", "trigger-sampling-request", {"prompt": "again"})
    assert refused.is_error and "the person did not allow this sampling request" in refused.text


GROWING_SERVER = '''
from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("growing")

def added(text: str) -> str:
    """A tool that appeared later."""
    return f"added: {text}"

@server.tool()
async def grow(ctx: Context) -> str:
    """Add the tool `added` and say that the tools changed."""
    server.add_tool(added)
    await ctx.session.send_tool_list_changed()
    return "grown"

server.run()
'''


async def test_a_changed_tool_list_is_listed_again(manager: MakeManager, tmp_path: Path) -> None:
    script = tmp_path / "growing.py"
    script.write_text(GROWING_SERVER)
    changes: list[int] = []
    mcp = manager(McpServerConfig(name="growing", transport="stdio",
                                  source=tmp_path / "config.toml", command=sys.executable,
                                  args=(str(script),)),
                  on_change=lambda: changes.append(1))
    await _ready(mcp)
    assert [tool.name for tool in mcp.tools()] == ["grow"]
    before = len(changes)

    assert (await mcp.call("growing", "grow", {})).text == "grown"
    for _ in range(200):
        if len(mcp.tools()) > 1:
            break
        await asyncio.sleep(0.05)
    assert [tool.name for tool in mcp.tools()] == ["grow", "added"]
    assert len(changes) > before  # the front ends hear of it and offer the new tool
    assert (await mcp.call("growing", "added", {"text": "x"})).text == "added: x"
