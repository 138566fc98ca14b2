"""Several sessions at once in the workbench: /bg, the approval inbox (F8) and the session
switcher (F9), each session's agent running for real against the fake provider."""

from __future__ import annotations

from agent_tui.core.sessions.log import read_events
from agent_tui.core.sessions.start import close_session, open_session
from agent_tui.tui.app import make_app
from agent_tui.tui.screens.approval import ApprovalScreen
from agent_tui.tui.screens.inbox import InboxScreen
from agent_tui.tui.screens.session_switcher import SessionSwitcher
from agent_tui.tui.widgets.conversation import UserBlock
from agent_tui.tui.widgets.panels import StatusBar
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import Reply, ToolCall
from tests.tui.test_app import SIZE, type_prompt, until


def first_prompt(request) -> str:
    users = [m for m in request.messages if m.get("role") == "user"]
    content = users[0]["content"] if users else ""
    return content if isinstance(content, str) else str(content)


def by_prompt(replies: dict[str, list[Reply]]):
    """A responder that answers each session from its own script, keyed by the session's
    first prompt: sessions running at once ask in any order."""
    def respond(request):
        for key, script in replies.items():
            if key in first_prompt(request):
                return script.pop(0)
        raise AssertionError(f"no script for {first_prompt(request)!r}")
    return respond


def screen_of(app, kind):
    return app.screen if isinstance(app.screen, kind) else None


def workbench(fake, tmp_path):
    settings = settings_for(fake)
    opened = open_session(tmp_path, settings.model)
    return make_app(settings, tmp_path, load_litellm=False, session=opened)


async def test_a_background_session_asks_in_the_inbox_while_the_front_goes_on(
        fake_provider, tmp_path):
    fake_provider.responder = by_prompt({
        "write the notes": [
            Reply(tool_calls=[ToolCall("write_file", {"file_path": "notes.txt",
                                                      "content": "from the background\n"})]),
            Reply(text="Notes written.")],
        "say hello": [Reply(text="Hello from the front.")],
    })
    app = workbench(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/bg write the notes")
        await until(pilot, lambda: app.status.inbox == 1)
        # The background call waits without a modal over the front session.
        assert screen_of(app, ApprovalScreen) is None
        assert "1 awaiting approval (F8)" in str(app.query_one(StatusBar).render())
        await type_prompt(pilot, "say hello")
        await until(pilot, lambda: not app.busy and any(
            "Hello from the front." in getattr(b, "text", "") for b in app.conversation.children))
        assert not (tmp_path / "notes.txt").exists()

        await pilot.press("f8")
        await until(pilot, lambda: screen_of(app, InboxScreen) is not None)
        inbox = screen_of(app, InboxScreen)
        assert [item.request.tool for item in inbox.approver.pending] == ["write_file"]
        await pilot.press("y")
        await until(pilot, lambda: (tmp_path / "notes.txt").exists()
                    and app.background.running() == 0)
        session = next(iter(app.background.sessions.values()))
        await until(pilot, lambda: app.background.state(session) == "done")
        assert session.changed == {"notes.txt"} and session.last == "Notes written."
        await pilot.press("escape")
        log = read_events(session.session_id)
        assert any(e.get("text") == "write the notes" for e in log.events)
        assert app.session_id != session.session_id
    close_session(app.opened)


async def test_the_inbox_allows_read_only_calls_in_bulk_and_denies_the_rest(
        fake_provider, tmp_path):
    outside = tmp_path.parent / "outside-bulk"
    outside.mkdir()
    (outside / "a.txt").write_text("A")
    (outside / "b.txt").write_text("B")
    fake_provider.responder = by_prompt({
        "read both": [
            Reply(tool_calls=[ToolCall("read_file", {"file_path": str(outside / "a.txt")}),
                              ToolCall("read_file", {"file_path": str(outside / "b.txt")})]),
            Reply(text="Read both.")],
        "clean up": [Reply(tool_calls=[ToolCall("shell", {"command": "touch cleaned.txt"})]),
                     Reply(text="Not cleaned.")],
    })
    app = workbench(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/bg clean up")
        await until(pilot, lambda: app.status.inbox == 1)
        await type_prompt(pilot, "read both")
        await until(pilot, lambda: screen_of(app, ApprovalScreen) is not None
                    and app.status.inbox == 3)
        assert screen_of(app, ApprovalScreen).waiting == 2
        await pilot.press("f8")  # answer in the inbox
        await until(pilot, lambda: screen_of(app, InboxScreen) is not None)
        inbox = screen_of(app, InboxScreen)
        assert sorted(i.read_only for i in inbox.approver.pending) == [False, True, True]
        await pilot.press("r")
        await until(pilot, lambda: len(inbox.approver.pending) == 1)
        assert inbox.approver.pending[0].request.tool == "shell"
        await pilot.press("n")
        await until(pilot, lambda: not app.busy and app.background.running() == 0
                    and app.status.inbox == 0)
        await pilot.press("escape")
    front = [r for r in fake_provider.requests if "read both" in first_prompt(r)]
    contents = [r["content"] for r in front[-1].tool_results()]
    assert "A" in contents[0] and "B" in contents[1]
    assert not (tmp_path / "cleaned.txt").exists()
    back = [r for r in fake_provider.requests if "clean up" in first_prompt(r)]
    assert "denied by the user" in back[-1].tool_results()[-1]["content"]
    close_session(app.opened)


async def test_the_switcher_brings_a_waiting_session_to_the_front_and_back(
        fake_provider, tmp_path):
    fake_provider.responder = by_prompt({
        "first session": [Reply(text="First answer.")],
        "make the file": [
            Reply(text="Making it.",
                  tool_calls=[ToolCall("shell", {"command": "touch made.txt"})]),
            Reply(text="Made.")],
    })
    app = workbench(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        front_id = app.session_id
        await type_prompt(pilot, "first session")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1)
        await type_prompt(pilot, "/bg make the file")
        await until(pilot, lambda: app.status.inbox == 1)
        back_id = next(iter(app.background.sessions))

        await pilot.press("f9")
        await until(pilot, lambda: screen_of(app, SessionSwitcher) is not None)
        switcher = screen_of(app, SessionSwitcher)
        assert switcher._ids == [front_id, back_id]
        front, back = app.front, app.background.sessions[back_id]
        assert app.background.state(back) == "waiting"
        await pilot.press("j", "enter")
        # In front now: its transcript from its log, and its waiting call as the modal.
        await until(pilot, lambda: app.session_id == back_id
                    and screen_of(app, ApprovalScreen) is not None)
        assert [b.text for b in app.query(UserBlock)] == ["make the file"]
        assert list(app.background.sessions) == [front_id]
        # Switching moved the sessions themselves, each with its agent and log: none copied.
        assert app.front is back and app.background.sessions[front_id] is front
        assert app.agent is back.agent and front.agent is not None
        await pilot.press("y")
        await until(pilot, lambda: not app.busy and (tmp_path / "made.txt").exists())
        await until(pilot, lambda: any("Made." in getattr(b, "text", "")
                                       for b in app.conversation.children))

        await type_prompt(pilot, f"/switch {front_id}")
        await until(pilot, lambda: app.session_id == front_id
                    and [b.text for b in app.query(UserBlock)] == ["first session"])
        assert list(app.background.sessions) == [back_id]
        assert app.background.state(app.background.sessions[back_id]) == "idle"
    close_session(app.opened)


async def test_a_running_front_session_goes_on_in_the_background(fake_provider, tmp_path):
    fake_provider.responder = by_prompt({
        "long job": [Reply(tool_calls=[ToolCall("shell", {"command": "touch long.txt"})]),
                     Reply(text="Long job done.")],
        "other work": [Reply(text="Other work answered.")],
    })
    app = workbench(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        first_id = app.session_id
        await type_prompt(pilot, "/bg other work")
        await until(pilot, lambda: len(app.background.sessions) == 1
                    and app.background.running() == 0)
        other_id = next(iter(app.background.sessions))
        await type_prompt(pilot, "long job")
        await until(pilot, lambda: screen_of(app, ApprovalScreen) is not None)
        await pilot.press("f9")  # over the modal
        await until(pilot, lambda: screen_of(app, SessionSwitcher) is not None)
        await pilot.press("j", "enter")
        await until(pilot, lambda: app.session_id == other_id and not app.busy
                    and screen_of(app, ApprovalScreen) is None)
        assert [b.text for b in app.query(UserBlock)] == ["other work"]
        # The first session, still waiting on its call, went on in the background.
        moved = app.background.sessions[first_id]
        assert moved.running and app.background.state(moved) == "waiting"
        await pilot.press("f8")
        await until(pilot, lambda: screen_of(app, InboxScreen) is not None)
        await pilot.press("y")
        await until(pilot, lambda: app.background.state(moved) == "done")
        assert (tmp_path / "long.txt").exists() and moved.last == "Long job done."
        assert app.session_id == other_id and not app.busy
    close_session(app.opened)


async def test_the_switcher_stops_a_background_session_and_its_call_leaves_the_inbox(
        fake_provider, tmp_path):
    fake_provider.responder = by_prompt({
        "risky job": [Reply(tool_calls=[ToolCall("shell", {"command": "touch risky.txt"})])],
    })
    app = workbench(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/bg risky job")
        await until(pilot, lambda: app.status.inbox == 1)
        session = next(iter(app.background.sessions.values()))
        await pilot.press("f9")
        await until(pilot, lambda: screen_of(app, SessionSwitcher) is not None)
        await pilot.press("j", "c")
        await until(pilot, lambda: app.background.state(session) == "cancelled"
                    and app.status.inbox == 0)
        assert app.approver.pending == [] and not (tmp_path / "risky.txt").exists()
        await pilot.press("x")
        await until(pilot, lambda: app.background.sessions == {})
        await pilot.press("escape")
        # Closed, it stays in the store: its log has the prompt.
        assert any(e.get("text") == "risky job" for e in read_events(session.session_id).events)
    close_session(app.opened)
