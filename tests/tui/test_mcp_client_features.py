"""The reference MCP server (``server-everything``, npm) in the workbench and in headless
runs: its form opens a modal, its sampling request waits for the person's approval and runs
on the session's model, its progress shows in the call's block; headless, forms are refused
and sampling runs only in yolo mode."""

from __future__ import annotations

import io
import json
from pathlib import Path

from textual.widgets import Input

from agent_tui.core.mcp.host import NO_PERSON_TO_ASK
from agent_tui.tui.cli.headless import run_headless
from agent_tui.tui.screens.approval import ApprovalScreen
from agent_tui.tui.screens.elicitation import ElicitationScreen
from agent_tui.tui.widgets.tool_block import ToolBlock
from tests.core.loop_helpers import settings_for
from tests.core.mcp.everything import everything_entry
from tests.fakes.providers import Reply, ToolCall
from tests.tui.test_app import SIZE, app_for, type_prompt, until

TOOL = "mcp__everything__"


def _configure(home: Path) -> None:
    (home / "config.toml").write_text(
        f'[mcp_servers.everything]\ncommand = "node"\nargs = ["{everything_entry()}", '
        '"stdio"]\n')


def _ready(app) -> bool:  # type: ignore[no-untyped-def]
    manager = app.outside_tools.manager
    return manager is not None and manager.servers["everything"].state == "ready"


def _results(fake_provider, request: int) -> list[str]:  # type: ignore[no-untyped-def]
    return [r["content"] for r in fake_provider.requests[request].tool_results()]


async def test_a_servers_form_opens_a_modal_and_its_answer_reaches_the_server(
        fake_provider, tmp_path, agent_tui_home):
    _configure(agent_tui_home)
    fake_provider.script(Reply(tool_calls=[ToolCall(f"{TOOL}trigger-elicitation-request", {})]),
                         Reply(text="Thanks, Ada."))
    app = app_for(fake_provider, tmp_path, allow_rules=[f"{TOOL}*"])
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: _ready(app), timeout=60)
        await type_prompt(pilot, "ask me for my details")
        await until(pilot, lambda: isinstance(app.screen, ElicitationScreen), timeout=30)
        form = app.screen
        assert "Please provide inputs for the following fields:" in str(
            form.query_one("#elicit-message").render())
        # Accepting without the required name says what is missing and keeps the form.
        await pilot.press("ctrl+s")
        assert "String is required" in str(form.query_one("#elicit-error").render())
        assert app.screen is form
        name = form.query_one("#field-0", Input)
        name.focus()
        await pilot.press(*"Ada")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2,
                    timeout=30)
    [result] = _results(fake_provider, 1)
    assert "User provided the requested information" in result and "- Name: Ada" in result
    # The defaults of the schema went along (an integer stays an integer).
    assert '"integer": 42' in result and '"check": false' in result


async def test_declining_a_form_tells_the_server(fake_provider, tmp_path, agent_tui_home):
    _configure(agent_tui_home)
    fake_provider.script(Reply(tool_calls=[ToolCall(f"{TOOL}trigger-elicitation-request", {})]),
                         Reply(text="Fine."))
    app = app_for(fake_provider, tmp_path, allow_rules=[f"{TOOL}*"])
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: _ready(app), timeout=60)
        await type_prompt(pilot, "ask me")
        await until(pilot, lambda: isinstance(app.screen, ElicitationScreen), timeout=30)
        await pilot.press("ctrl+d")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2,
                    timeout=30)
    assert "User declined" in _results(fake_provider, 1)[0]


async def test_progress_shows_in_the_calls_block_while_it_runs(fake_provider, tmp_path,
                                                               agent_tui_home):
    _configure(agent_tui_home)
    fake_provider.script(
        Reply(tool_calls=[ToolCall(f"{TOOL}trigger-long-running-operation",
                                   {"duration": 4, "steps": 4})]),
        Reply(text="It finished."))
    app = app_for(fake_provider, tmp_path, allow_rules=[f"{TOOL}*"])
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: _ready(app), timeout=60)
        await type_prompt(pilot, "run the long operation")

        def block() -> ToolBlock | None:
            return next(iter(app.query(ToolBlock)), None)

        await until(pilot, lambda: block() is not None and "/4" in block().progress,
                    timeout=30)
        assert block().progress.startswith(("▰", "▱"))
        assert block().progress in str(block().render())
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2,
                    timeout=30)
        assert block().status == "ok" and block().progress == ""
    assert "Long running operation completed" in _results(fake_provider, 1)[0]


async def test_sampling_waits_for_approval_and_runs_on_the_sessions_model(
        fake_provider, tmp_path, agent_tui_home):
    _configure(agent_tui_home)
    fake_provider.script(
        Reply(tool_calls=[ToolCall(f"{TOOL}trigger-sampling-request",
                                   {"prompt": "name a colour", "maxTokens": 30})]),
        Reply(text="Teal."),  # the server's sampling request, on the session's model
        Reply(text="The server's model said teal."))
    app = app_for(fake_provider, tmp_path, allow_rules=[f"{TOOL}*"])
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: _ready(app), timeout=60)
        await type_prompt(pilot, "sample through the server")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), timeout=30)
        shown = app.screen.request
        assert shown.summary.startswith("MCP server everything asks the model: Resource")
        assert "(at most 30 tokens, temperature 0.7)" in shown.details.arguments
        assert len(fake_provider.requests) == 1  # nothing reaches the model before "y"
        await pilot.press("y")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 3,
                    timeout=30)
    sampled = fake_provider.requests[1]
    assert sampled.last_user_text() == "Resource trigger-sampling-request context: name a colour"
    assert '"text": "Teal."' in _results(fake_provider, 2)[0]


async def test_a_headless_run_refuses_forms_and_samples_only_in_yolo_mode(
        fake_provider, tmp_path, agent_tui_home):
    _configure(agent_tui_home)
    fake_provider.script(
        Reply(tool_calls=[ToolCall(f"{TOOL}trigger-elicitation-request", {}),
                          ToolCall(f"{TOOL}trigger-sampling-request", {"prompt": "hi"})]),
        Reply(text="done"))
    out, err = io.StringIO(), io.StringIO()
    settings = settings_for(fake_provider, allow_rules=[f"{TOOL}*"])
    code = await run_headless(settings, tmp_path, "use the server", "stream-json", out, err)
    assert code == 0, err.getvalue()
    results = [json.loads(line) for line in out.getvalue().splitlines()
               if '"tool_result"' in line]
    assert not results[0]["ok"] and NO_PERSON_TO_ASK in results[0]["output"]
    assert "asked for information" in err.getvalue()  # the person is told too
    assert not results[1]["ok"] and "--approval-mode yolo allows it" in results[1]["output"]
    assert len(fake_provider.requests) == 2  # no sampling request reached the model

    fake_provider.script(
        Reply(tool_calls=[ToolCall(f"{TOOL}trigger-sampling-request", {"prompt": "hi"})]),
        Reply(text="Hello from the model."),
        Reply(text="done"))
    out = io.StringIO()
    code = await run_headless(settings_for(fake_provider, approval_mode="yolo"), tmp_path,
                              "sample", "stream-json", out, err)
    assert code == 0, err.getvalue()
    results = [json.loads(line) for line in out.getvalue().splitlines()
               if '"tool_result"' in line]
    assert results[0]["ok"] and '"text": "Hello from the model."' in results[0]["output"]


async def test_mcp_shows_the_servers_log_messages_and_the_tools_left_out(
        fake_provider, tmp_path, agent_tui_home):
    from agent_tui.tui.screens.mcp import McpScreen

    _configure(agent_tui_home)
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: _ready(app), timeout=60)
        server = app.outside_tools.manager.servers["everything"]
        # The server asks for the roots just after it starts, and logs that at info level.
        await until(pilot, lambda: server.log_count > 0, timeout=30)
        await type_prompt(pilot, "/mcp")
        await until(pilot, lambda: isinstance(app.screen, McpScreen))
        detail = str(app.screen.query_one("#mcp-server").render())
        assert "its log messages (info and above):" in detail
        assert "[info] everything-server: Roots updated: 1 root(s) received from client" in detail
        assert ("not offered (they run only as MCP tasks, which agent-tui does not run yet): "
                "simulate-research-query") in detail


async def test_a_url_request_shows_the_page_and_sends_no_values(fake_provider, tmp_path,
                                                                agent_tui_home):
    _configure(agent_tui_home)
    fake_provider.script(
        Reply(tool_calls=[ToolCall(f"{TOOL}trigger-url-elicitation",
                                   {"url": "https://example.com/consent"})]),
        Reply(text="Opened."))
    app = app_for(fake_provider, tmp_path, allow_rules=[f"{TOOL}*"])
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: _ready(app), timeout=60)
        await type_prompt(pilot, "open the consent page")
        await until(pilot, lambda: isinstance(app.screen, ElicitationScreen), timeout=30)
        assert "Open this page to go on: https://example.com/consent" in str(
            app.screen.query_one("#elicit-url").render())
        await pilot.press("ctrl+s")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2,
                    timeout=30)
    [result] = _results(fake_provider, 1)
    assert '"action": "accept"' in result and "content" not in result.split("accept", 1)[1]


def test_a_carriage_return_redraws_its_line_in_live_output() -> None:
    from agent_tui.tui.widgets.tool_block import live_output, progress_line

    shown = live_output("", "starting\n")
    shown = live_output(shown, "\r▰▱ 1/2")
    shown = live_output(shown, "\r▰▰ 2/2 copying")
    assert shown == "starting\n▰▰ 2/2 copying"
    assert live_output("a\r\n", "b\r\n") == "a\r\nb\r\n"  # line ends stay as they are
    assert progress_line("\r▰▰ 2/2 copying") == "▰▰ 2/2 copying"
    assert progress_line("plain output\n") is None
