"""The workbench driven with Textual's pilot, the engine running for real against the fake."""

from __future__ import annotations

import asyncio
import time

from textual import events

from agent_tui.core import paths
from agent_tui.core.config import read_toml
from agent_tui.tui.app import make_app
from agent_tui.tui.widgets.assistant_block import AssistantBlock
from agent_tui.tui.widgets.conversation import (
    NoticeBlock,
    ToolBlock,
    UserBlock,
)
from agent_tui.tui.widgets.panels import ContextGauge, StatusBar
from agent_tui.tui.widgets.prompt import PromptInput
from agent_tui.tui.widgets.tool_log import ToolLog
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import Reply, ToolCall

SIZE = (120, 40)


async def until(pilot, condition, timeout=15.0):
    """Let the app run until ``condition()`` holds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the app")
        await pilot.pause(0.05)


async def type_prompt(pilot, text):
    prompt = pilot.app.query_one(PromptInput)
    prompt.text = text
    prompt.focus()
    await pilot.press("enter")


def app_for(fake, tmp_path, **overrides):
    return make_app(settings_for(fake, **overrides), tmp_path, load_litellm=False)


async def test_a_turn_fills_conversation_tool_log_todos_and_gauge(fake_provider, tmp_path):
    (tmp_path / "hello.txt").write_text("hello\n")
    fake_provider.script(
        Reply(text="Let me **look**.", tool_calls=[ToolCall("read_file", {"file_path": "hello.txt"})]),
        Reply(tool_calls=[ToolCall("todo_write", {"content": "- [x] read\n- [ ] write\n"})]),
        Reply(text="The file says hello.", usage=(1500, 20)),
    )
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        assert app.focused is app.query_one(PromptInput)
        await type_prompt(pilot, "what does hello.txt say?")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 3)
        await pilot.pause(0.2)

        users = app.query(UserBlock)
        assert [u.text for u in users] == ["what does hello.txt say?"]
        texts = [b.text for b in app.query(AssistantBlock)]
        assert texts == ["Let me **look**.", "The file says hello."]
        tools = list(app.query(ToolBlock))
        assert [(t.tool_name, t.status) for t in tools] == [("read_file", "ok"),
                                                            ("todo_write", "ok")]
        log = app.query_one(ToolLog)
        assert log.table.row_count == 2
        assert "☑ read" in str(app.query_one("#todos").render())
        gauge = app.query_one(ContextGauge)
        assert gauge.tokens == 1520 and gauge.window == 128_000


async def test_tool_block_expands_to_its_output(fake_provider, tmp_path):
    (tmp_path / "a.txt").write_text("secret content\n")
    fake_provider.script(Reply(tool_calls=[ToolCall("read_file", {"file_path": "a.txt"})]),
                         Reply(text="ok"))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "read a.txt")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2)
        block = app.query_one(ToolBlock)
        block.focus()
        await pilot.press("enter")
        assert block.expanded
        assert "secret content" in str(block.render())


async def test_messages_typed_while_busy_are_queued_then_sent(fake_provider, tmp_path):
    fake_provider.script(
        # The command waits until the test says go, so the turn is surely still running.
        Reply(tool_calls=[ToolCall("shell", {
            "command": "for i in $(seq 200); do [ -f go ] && break; sleep 0.05; done"})]),
        Reply(text="first done"),
        Reply(text="second done"),
    )
    app = app_for(fake_provider, tmp_path, approval_mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "first")
        await until(pilot, lambda: app.busy and len(fake_provider.requests) >= 1)
        await type_prompt(pilot, "second")
        await pilot.pause(0.1)
        queued = app.query(UserBlock)[-1]
        assert queued.has_class("queued") and queued.border_title == "you (queued)"
        assert app.query_one(StatusBar).queued == 1
        (tmp_path / "go").touch()
        await until(pilot, lambda: len(fake_provider.requests) == 3 and not app.busy)
        assert fake_provider.requests[2].last_user_text() == "second"
        assert not queued.has_class("queued")


async def test_escape_cancels_the_turn_and_kills_the_command(fake_provider, tmp_path):
    marker = tmp_path / "pid.txt"
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": f"echo $$ > {marker}; sleep 30"})]),
        Reply(text="after the cancel"),
    )
    app = app_for(fake_provider, tmp_path, approval_mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "run it")
        await until(pilot, lambda: marker.exists() and marker.read_text().strip())
        pid = int(marker.read_text())
        await pilot.press("escape")
        await until(pilot, lambda: not app.busy)
        await until(pilot, lambda: any("Cancelled" in str(n.render())
                                       for n in app.query(NoticeBlock)))
        await asyncio.sleep(0.3)
        assert not _alive(pid)

        await type_prompt(pilot, "go on")
        await until(pilot, lambda: len(fake_provider.requests) == 2 and not app.busy)
        results = fake_provider.requests[1].tool_results()
        assert "cancelled" in results[0]["content"]


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


async def test_shift_tab_cycles_the_approval_mode(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        seen = []
        for _ in range(4):
            await pilot.press("shift+tab")
            seen.append(app.query_one(StatusBar).mode)
        assert seen == ["auto-edit", "plan", "yolo", "default"]
        assert app.settings.approval_mode == "default"


async def test_slash_commands(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/mode plan")
        assert app.settings.approval_mode == "plan"
        await type_prompt(pilot, "/theme agent-tui-light")
        assert app.theme == "agent-tui-light"
        assert read_toml(paths.user_config_file())["theme"] == "agent-tui-light"
        await type_prompt(pilot, "/model openai/other")
        assert app.query_one(StatusBar).model == "openai/other"
        await type_prompt(pilot, "/frobnicate")
        await pilot.pause(0.1)
        assert "Unknown command /frobnicate" in str(app.query(NoticeBlock)[-1].render())
        await type_prompt(pilot, "/help")
        await pilot.pause(0.1)
        assert "Shift+Tab" in app.query(AssistantBlock)[-1].text
        old_session = app.session_id
        await type_prompt(pilot, "/new")
        await pilot.pause(0.1)
        assert app.session_id != old_session
        assert not app.query(AssistantBlock)


async def test_theme_choice_persists_into_the_next_start(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/theme agent-tui-high-contrast")
    from agent_tui.core.config import load_settings

    again = make_app(load_settings(tmp_path).settings, tmp_path, load_litellm=False)
    async with again.run_test(size=SIZE):
        assert again.theme == "agent-tui-high-contrast"


async def test_panes_toggle_and_resize_from_the_keyboard(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        side = app.query_one("#side")
        width = side.size.width
        await pilot.press("f6")
        await pilot.pause()
        assert side.size.width == width + 4
        await pilot.press("f3")
        assert app.query_one("#tool-log").has_class("hidden")
        await pilot.press("f2")
        await pilot.pause()
        assert not side.display or side.has_class("hidden")


async def test_prompt_history_with_up(fake_provider, tmp_path):
    fake_provider.script(Reply(text="one"), Reply(text="two"))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "first prompt")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1)
        prompt = app.query_one(PromptInput)
        prompt.focus()
        await pilot.press("up")
        assert prompt.text == "first prompt"
        await pilot.press("down")
        assert prompt.text == ""


async def test_layout_fits_80_by_24(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.query_one(PromptInput).region.height >= 3
        assert app.query_one(StatusBar).region.y == 23
        assert app.query_one("#conversation").region.width >= 30


async def test_first_run_without_a_model_opens_setup_and_saves_it(fake_provider, tmp_path):
    from agent_tui.core.config import Settings
    from agent_tui.tui.screens.setup import SetupScreen

    app = make_app(Settings(), tmp_path, load_litellm=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SetupScreen))
        await pilot.press("down")  # OpenAI
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, SetupScreen))
        assert app.settings.model == "openai/gpt-4.1"
        assert app.query_one(StatusBar).model == "openai/gpt-4.1"
    saved = read_toml(paths.user_config_file())
    assert saved["model"] == "openai/gpt-4.1"
    assert saved["api_key_env"] == "OPENAI_API_KEY"


async def test_skipping_setup_explains_how_to_choose_a_model(fake_provider, tmp_path):
    from agent_tui.core.config import Settings
    from agent_tui.tui.screens.setup import SetupScreen

    app = make_app(Settings(), tmp_path, load_litellm=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SetupScreen))
        await pilot.press("escape")
        await until(pilot, lambda: any("No model is configured" in str(n.render())
                                       for n in app.query(NoticeBlock)))
        assert not paths.user_config_file().exists()


async def test_c_copies_a_block_and_ctrl_up_reaches_the_blocks(fake_provider, tmp_path):
    fake_provider.script(Reply(text="Copy **me**."))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "say something")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1)
        await pilot.press("ctrl+up")
        assert isinstance(app.focused, AssistantBlock)
        await pilot.press("c")
        assert app.clipboard == "Copy **me**."
        await pilot.press("k")
        assert isinstance(app.focused, UserBlock)
        await pilot.press("c")
        assert app.clipboard == "say something"
        await pilot.press("escape")
        assert app.focused is app.query_one(PromptInput)


async def test_bell_rings_when_the_turn_ends_while_the_terminal_is_unfocused(
        fake_provider, tmp_path):
    """The bell alone here; tests/tui/workbench/test_notifications.py has the rest."""
    fake_provider.script(Reply(text="done"), Reply(text="done again"))
    app = app_for(fake_provider, tmp_path, notify_terminal="off", notify_desktop=False)
    async with app.run_test(size=SIZE) as pilot:
        written: list[str] = []
        app._driver.write = written.append  # what reaches the terminal
        await type_prompt(pilot, "focused")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1)
        assert written == []
        app.post_message(events.AppBlur())  # the terminal reports: focus lost
        await until(pilot, lambda: not app.app_focus)
        # Sent without a key (a key is the person back at the terminal).
        app.query_one(PromptInput).post_message(PromptInput.Submitted("away"))
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2)
        await pilot.pause(0.1)
        assert written == ["\x07"]


async def test_command_palette_offers_every_slash_command_and_pane_toggle(fake_provider,
                                                                          tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE):
        titles = {command.title for command in app.get_system_commands(app.screen)}
    for expected in ("/help", "/clear", "/new", "/quit", "/mode yolo", "/theme agent-tui-light",
                     "Toggle side panel", "Toggle tool log", "Toggle todos"):
        assert expected in titles


async def test_net_command_switches_network_tools_and_the_status_bar(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        status = app.query_one(StatusBar)
        assert status.network is False and "net: off" in str(status.render())
        await type_prompt(pilot, "/net on")
        assert app.settings.network is True
        assert "net: on" in str(status.render())
        await type_prompt(pilot, "/net off")
        assert app.settings.network is False


async def test_ps_lists_and_stops_background_processes(fake_provider, tmp_path):
    from agent_tui.tools.background import background_processes

    fake_provider.script(
        Reply(tool_calls=[ToolCall("background_process",
                                   {"name": "sleeper", "command": "sleep 30"})]),
        Reply(text="started"),
    )
    app = app_for(fake_provider, tmp_path, approval_mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "start it")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2)
        await type_prompt(pilot, "/ps")
        await until(pilot, lambda: "sleeper" in str(app.query(NoticeBlock)[-1].render()))
        assert "running" in str(app.query(NoticeBlock)[-1].render())
        await type_prompt(pilot, "/ps stop sleeper")
        await until(pilot, lambda: "Stopped sleeper" in str(app.query(NoticeBlock)[-1].render()))
    assert not background_processes.get("sleeper").alive


async def test_the_gauge_knows_the_window_once_litellm_has_loaded(fake_provider, tmp_path):
    app = make_app(settings_for(fake_provider, context_window=32_000), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.query_one(ContextGauge).window == 32_000)
        assert "0 / 32.0K tokens" in str(app.query_one(ContextGauge).render())


async def test_context_inspector_lists_items_and_pins_and_drops(fake_provider, tmp_path):
    from agent_tui.tui.screens.context_inspector import ContextInspector

    (tmp_path / "a.txt").write_text("alpha\n")
    fake_provider.script(Reply(tool_calls=[ToolCall("read_file", {"file_path": "a.txt"})]),
                         Reply(text="done"))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "read it")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2)
        await type_prompt(pilot, "/context")
        await until(pilot, lambda: isinstance(app.screen, ContextInspector) and app.screen.loaded)
        table = app.screen.query_one("DataTable")
        kinds = [table.get_row_at(i)[1] for i in range(table.row_count)]
        assert kinds[:2] == ["system", "tools"] and "tool_result" in kinds
        user_row = kinds.index("user")
        table.move_cursor(row=user_row)
        await pilot.press("p")
        assert app.agent.context.pinned_indices(app.agent.messages) == [1]
        tool_row = kinds.index("tool_result")
        table.move_cursor(row=tool_row)
        await pilot.press("x")
        # The call still needs an answer: the result's text goes, a one-line note stays.
        results = [m for m in app.agent.messages if m["role"] == "tool"]
        assert len(results) == 1 and "alpha" not in results[0]["content"]
        await pilot.press("escape")
        assert not isinstance(app.screen, ContextInspector)


async def test_a_provider_that_reuses_call_ids_gets_a_row_per_call(fake_provider, tmp_path):
    """Some servers number calls afresh in each reply (call_0 every time): each call still
    gets its own row in the tool log, with its own status and output."""
    (tmp_path / "a.txt").write_text("first file\n")
    (tmp_path / "b.txt").write_text("second file\n")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "a.txt"}, id="call_0")]),
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "b.txt"}, id="call_0")]),
        Reply(text="Both read."),
    )
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "read both")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 3)
        log = app.query_one(ToolLog)
        assert log.table.row_count == 2
        rows = [log.table.get_row_at(i) for i in range(2)]
        assert [str(row[2]) for row in rows] == ["a.txt", "b.txt"]
        assert [str(row[3]) for row in rows] == ["ok", "ok"]
        log.table.move_cursor(row=0)
        await pilot.pause()
        assert "first file" in str(log.query_one("#tool-detail").render())
