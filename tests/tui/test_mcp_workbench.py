"""MCP servers in the workbench and in headless runs: a real stdio server written with the
SDK, configured in the user's config.toml."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

from agent_tui.tui.cli.headless import run_headless
from agent_tui.tui.screens.mcp import McpScreen
from agent_tui.tui.widgets.prompt import PromptInput
from tests.core.loop_helpers import settings_for
from tests.core.mcp.servers import demo_script
from tests.fakes.providers import Reply, ToolCall
from tests.tui.test_app import SIZE, app_for, type_prompt, until


def _configure(home: Path, folder: Path, *extra: str) -> None:
    script = demo_script(folder)
    (home / "config.toml").write_text("\n".join([
        "[mcp_servers.demo]", f'command = "{sys.executable}"', f'args = ["{script}"]',
        *extra]) + "\n")


async def test_the_servers_tools_are_offered_called_and_shown(fake_provider, tmp_path,
                                                              agent_tui_home):
    _configure(agent_tui_home, tmp_path)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("mcp__demo__echo", {"text": "hi", "times": 2})]),
        Reply(text="The server said hi twice."))
    app = app_for(fake_provider, tmp_path, allow_rules=["mcp__demo__*"])
    async with app.run_test(size=SIZE) as pilot:
        manager = lambda: app.outside_tools.manager  # noqa: E731
        await until(pilot, lambda: manager() is not None
                    and manager().servers["demo"].state == "ready", timeout=30)
        await type_prompt(pilot, "/mcp")
        await until(pilot, lambda: isinstance(app.screen, McpScreen))
        table = app.screen.query_one("DataTable")
        assert [str(c) for c in table.get_row_at(0)][:3] == ["demo", "stdio", "ready"]
        detail = str(app.screen.query_one("#mcp-server").render())
        assert "echo: Echo the text back." in detail
        await pilot.press("escape")

        await type_prompt(pilot, "say hi through the server")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2,
                    timeout=30)
        offered = {t["function"]["name"] for t in fake_provider.requests[0].tools}
        assert {"mcp__demo__echo", "mcp__demo__crash"} <= offered
        # Allowed by the rule mcp__demo__*: no approval modal, the result reached the model.
        assert fake_provider.requests[1].tool_results()[0]["content"] == "hi hi"
        assert app.query_one(PromptInput).has_focus


async def test_a_headless_run_waits_for_the_servers_and_closes_them(fake_provider, tmp_path,
                                                                    agent_tui_home):
    _configure(agent_tui_home, tmp_path, 'enabled_tools = ["echo"]')
    fake_provider.script(
        Reply(tool_calls=[ToolCall("mcp__demo__echo", {"text": "ok"})]),
        Reply(text="done"))
    out, err = io.StringIO(), io.StringIO()

    code = await run_headless(settings_for(fake_provider, approval_mode="yolo"), tmp_path,
                              "use the server", "stream-json", out, err)

    assert code == 0, err.getvalue()
    offered = {t["function"]["name"] for t in fake_provider.requests[0].tools}
    assert "mcp__demo__echo" in offered and "mcp__demo__crash" not in offered
    results = [json.loads(line) for line in out.getvalue().splitlines()
               if '"tool_result"' in line]
    assert results[0]["ok"] and results[0]["output"] == "ok"


async def test_a_server_that_fails_is_reported_and_the_run_goes_on(fake_provider, tmp_path,
                                                                   agent_tui_home):
    (agent_tui_home / "config.toml").write_text(
        f'[mcp_servers.broken]\ncommand = "{sys.executable}"\n'
        'args = ["-c", "print(\'not an MCP server\')"]\n')
    fake_provider.script(Reply(text="fine without it"))
    out, err = io.StringIO(), io.StringIO()

    code = await run_headless(settings_for(fake_provider), tmp_path, "hello", "text", out, err)

    assert code == 0
    assert "MCP server broken" in err.getvalue()
    assert "fine without it" in out.getvalue()


PROMPTS_SERVER = '''
from mcp.server.mcpserver import MCPServer

server = MCPServer("docs")

@server.prompt()
def review(path: str, focus: str = "bugs") -> str:
    """Review a file."""
    return f"Review {path}, looking for {focus}."

@server.resource("notes://today")
def today() -> str:
    """Today's notes."""
    return "ship the release at noon"

server.run()
'''


async def test_server_prompts_are_slash_commands_and_resources_attach(
        fake_provider, tmp_path, agent_tui_home):
    script = tmp_path / "docs_server.py"
    script.write_text(PROMPTS_SERVER)
    (agent_tui_home / "config.toml").write_text(
        f'[mcp_servers.docs]\ncommand = "{sys.executable}"\nargs = ["{script}"]\n')
    fake_provider.script(Reply(text="Reviewed."), Reply(text="Noted."))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "/mcp__docs__review" in app.query_one(PromptInput).commands,
                    timeout=30)
        assert "PATH [FOCUS]" in app.query_one(PromptInput).commands["/mcp__docs__review"]

        await type_prompt(pilot, "/mcp__docs__review app.py security holes")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1)
        assert fake_provider.requests[0].last_user_text() == \
            "Review app.py, looking for security holes."

        await type_prompt(pilot, "what is planned? @docs:notes://today")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2)
        sent = fake_provider.requests[1].last_user_text()
        assert 'uri="notes://today"' in sent and "ship the release at noon" in sent


async def test_a_headless_run_sends_a_server_prompt(fake_provider, tmp_path, agent_tui_home):
    script = tmp_path / "docs_server.py"
    script.write_text(PROMPTS_SERVER)
    (agent_tui_home / "config.toml").write_text(
        f'[mcp_servers.docs]\ncommand = "{sys.executable}"\nargs = ["{script}"]\n')
    fake_provider.script(Reply(text="Reviewed."))
    out, err = io.StringIO(), io.StringIO()

    code = await run_headless(settings_for(fake_provider), tmp_path,
                              "/mcp__docs__review cli.py", "text", out, err)

    assert code == 0, err.getvalue()
    assert fake_provider.requests[0].last_user_text() == "Review cli.py, looking for bugs."
    missing = await run_headless(settings_for(fake_provider), tmp_path, "/mcp__docs__review",
                                 "text", io.StringIO(), err)
    assert missing == 2 and "needs path" in err.getvalue()
