"""The first screen teaches: a welcome line on a new session, the prompt's placeholder, and
a line of keys at the foot that follows the state (idle, typing, a turn running, calls
waiting for approval)."""

from __future__ import annotations

import threading

from agent_tui.core.sessions.start import close_session, open_session
from agent_tui.tui.app import AgentApp, make_app
from agent_tui.tui.screens.approval import ApprovalScreen
from agent_tui.tui.widgets.assistant_block import AssistantBlock
from agent_tui.tui.widgets.conversation import ConversationView, EarlierMarker, UserBlock
from agent_tui.tui.widgets.key_footer import (
    APPROVALS,
    IDLE,
    RUNNING,
    TYPING,
    KeyFooter,
    bound_keys,
    key_label,
)
from agent_tui.tui.widgets.prompt import PLACEHOLDER, PromptInput
from agent_tui.tui.widgets.welcome import WelcomeLine, welcome_text
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import Reply, ToolCall
from tests.tui.test_app import SIZE, app_for, type_prompt, until


def footer(app: AgentApp) -> str:
    return str(app.query_one(KeyFooter).render())


def welcome(app: AgentApp) -> list[str]:
    return [str(line.content) for line in app.query(WelcomeLine)]


async def test_a_new_session_opens_with_the_welcome_line_and_a_resumed_one_without(
        fake_provider, tmp_path):
    fake_provider.script(Reply(text="Hello."))
    settings = settings_for(fake_provider)
    opened = open_session(tmp_path, settings.model)  # as the agent-tui command does
    app = make_app(settings, tmp_path, load_litellm=False, session=opened)
    async with app.run_test(size=SIZE) as pilot:
        [line] = welcome(app)
        assert line == (f"agent-tui · openai/fake-model · {tmp_path} · approval mode default\n"
                        "/ commands  @ files  ? or F1 keys")
        assert app.conversation.children[0] is app.query_one(WelcomeLine)
        await type_prompt(pilot, "hi")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1,
                    timeout=60)
    close_session(opened)
    # A view element: the model never saw it, the session log did not record it.
    sent = str(fake_provider.requests[0].messages)
    assert "? or F1 keys" not in sent and "approval mode default" not in sent
    assert "F1 keys" not in opened.store.path.read_text()

    resumed = open_session(tmp_path, settings.model, resume=opened.store.session_id)
    app = make_app(settings, tmp_path, load_litellm=False, session=resumed)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: len(app.query(UserBlock)) == 1)
        await pilot.pause(0.1)
        assert welcome(app) == []
    close_session(resumed)


async def test_new_opens_with_the_welcome_and_a_session_resumed_from_the_browser_without(
        fake_provider, tmp_path):
    from agent_tui.tui.screens.session_browser import SessionBrowser

    fake_provider.script(Reply(text="old answer"))
    settings = settings_for(fake_provider)
    older = open_session(tmp_path, settings.model)
    app = make_app(settings, tmp_path, load_litellm=False, session=older)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "the older session")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1,
                    timeout=60)
        await pilot.press("shift+tab")  # the mode now in force: auto-edit
        await type_prompt(pilot, "/new")
        await until(pilot, lambda: app.session_id != older.store.session_id)
        await pilot.pause(0.1)
        [line] = welcome(app)
        assert "approval mode auto-edit" in line
        assert app.conversation.children[0] is app.query_one(WelcomeLine)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, SessionBrowser))
        table = app.screen.query_one("DataTable")
        await until(pilot, lambda: any("the older session" in str(table.get_row_at(i)[0])
                                       for i in range(table.row_count)))
        titles = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        table.move_cursor(row=titles.index("the older session"))
        table.focus()
        await pilot.press("enter")
        await until(pilot, lambda: app.session_id == older.store.session_id)
        await until(pilot, lambda: len(app.query(UserBlock)) == 1)
        assert welcome(app) == []
        close_session(app.opened)


async def test_a_long_session_keeps_the_welcome_line_above_its_oldest_block():
    from tests.tui.test_long_session import Transcript, session, settle

    app = Transcript()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        await view.add(WelcomeLine(welcome_text("openai/x", "~/p", "default", "F1")))
        for block in session(120):
            await view.add(block)
        await settle(pilot)
        assert not app.query(WelcomeLine)  # unmounted with the oldest blocks
        while view.earlier_count:
            await view.show_earlier()
            await settle(pilot)
        blocks = [w for w in view.children if not isinstance(w, EarlierMarker)]
        assert isinstance(blocks[0], WelcomeLine) and "openai/x" in str(blocks[0].content)
        assert isinstance(blocks[1], UserBlock) and blocks[1].text == "question 0"


async def test_the_welcome_line_names_a_missing_model_and_the_mode_in_force(tmp_path):
    from agent_tui.core.config import Settings

    app = make_app(Settings(model="", approval_mode="plan"), tmp_path, load_litellm=False)
    async with app.run_test(size=SIZE):
        [line] = welcome(app)
        assert "no model yet" in line and "approval mode plan" in line


async def test_the_empty_prompt_shows_its_placeholder(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one(PromptInput)
        assert str(prompt.placeholder) == PLACEHOLDER
        await pilot.pause()
        assert PLACEHOLDER in prompt.render_line(0).text
        prompt.text = "x"
        await pilot.pause()
        assert PLACEHOLDER not in prompt.render_line(0).text


async def test_the_key_footer_follows_idle_typing_a_turn_an_approval_and_idle_again(
        fake_provider, tmp_path):
    go = threading.Event()
    replies = iter([Reply(tool_calls=[ToolCall("write_file",
                                               {"file_path": "a.txt", "content": "A\n"})]),
                    Reply(text="Written.")])

    def answer(request):
        go.wait(30)  # the model is silent until the test has read the running turn's line
        return next(replies)

    fake_provider.responder = answer
    app = app_for(fake_provider, tmp_path)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert footer(app) == ("Enter send  Ctrl+J new line  / commands  @ files  "
                                   "F1 keys  Ctrl+C quit")
            await pilot.press("w", "r")
            assert footer(app) == ("Enter send  Ctrl+J new line  ↑↓ history  @ files  "
                                   "Ctrl+C clear")
            await pilot.press(*"ite a.txt", "enter")
            await until(pilot, lambda: app.busy and len(fake_provider.requests) == 1,
                        timeout=60)
            assert footer(app) == "Esc cancel  Ctrl+C cancel  Enter queue a prompt  F1 keys"
            go.set()
            await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), timeout=60)
            await until(pilot, lambda: footer(app).startswith("F8 approvals (1 waiting)"))
            assert footer(app) == ("F8 approvals (1 waiting)  Esc cancel  Ctrl+C cancel  "
                                   "Enter queue a prompt  F1 keys")
            await pilot.press("y")
            await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2,
                        timeout=60)
            await pilot.pause()
            assert footer(app).startswith("Enter send  Ctrl+J new line  / commands")
            assert (tmp_path / "a.txt").read_text() == "A\n"
    finally:
        go.set()


async def test_the_key_footer_keeps_one_line_under_the_prompt_at_80_columns(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        bar = app.query_one(KeyFooter)
        bar.busy, bar.waiting = True, 12  # the longest line it has
        await pilot.pause()
        prompt = app.query_one(PromptInput)
        assert bar.region.height == 1 and bar.region.y == prompt.region.bottom
        assert bar.region.width == app.query_one("#left").region.width
        line = bar.render_line(0).text
        assert line.rstrip().endswith("…") and line.startswith("F8 approvals (12 waiting)")


async def test_question_mark_in_the_empty_prompt_and_f1_show_the_keys(fake_provider,
                                                                     tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press("?")
        await until(pilot, lambda: len(app.query(AssistantBlock)) == 1)
        assert "**Keys**" in app.query_one(AssistantBlock).text
        assert prompt.text == ""
        await pilot.press(*"why?")  # after text, ? is a question mark
        assert prompt.text == "why?"
        await pilot.press("f1")
        await until(pilot, lambda: len(app.query(AssistantBlock)) == 2)


def test_every_hint_names_a_key_the_workbench_binds():
    keys = bound_keys([*AgentApp.BINDINGS, *PromptInput.BINDINGS])
    for hint in (*IDLE, *TYPING, *RUNNING, APPROVALS):
        assert hint.key or hint.action in keys, hint
    assert (keys["cancel_turn"], keys["interrupt"], keys["newline"], keys["show_keys"],
            keys["open_inbox"]) == ("Esc", "Ctrl+C", "Ctrl+J", "F1", "F8")


def test_keys_read_as_people_write_them():
    assert [key_label(k) for k in ("ctrl+c", "escape", "f12", "shift+tab", "question_mark",
                                   "ctrl+up", "enter")] == [
        "Ctrl+C", "Esc", "F12", "Shift+Tab", "?", "Ctrl+↑", "Enter"]
