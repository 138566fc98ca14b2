"""/undo and /rewind in the workbench: the engine against the fake, real git, real files."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList

from agent_tui.core.changes.checkpoints import Checkpoints
from agent_tui.core.sessions.log import read_events
from agent_tui.core.sessions.start import close_session, open_session
from agent_tui.tui.app import make_app
from agent_tui.tui.screens.rewind import RewindScreen
from agent_tui.tui.widgets.conversation import NoticeBlock, UserBlock
from agent_tui.tui.widgets.prompt import PromptInput
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import Reply, ToolCall
from tests.tui.test_app import SIZE, type_prompt, until


def two_turns() -> list[Reply]:
    """Turn 0 writes a.txt; turn 1 writes b.txt and changes a.txt through the shell."""
    return [
        Reply(tool_calls=[ToolCall("write_file", {"file_path": "a.txt", "content": "one\n"})]),
        Reply(text="Wrote a."),
        Reply(tool_calls=[
            ToolCall("write_file", {"file_path": "b.txt", "content": "bee\n"}),
            ToolCall("shell", {"command": "echo two >> a.txt"}),
        ]),
        Reply(text="Wrote b and changed a."),
    ]


@pytest.fixture
def workbench(fake_provider, tmp_path):
    """A workbench recording a session in ``tmp_path/project`` (yolo: nothing asks)."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "keep.txt").write_text("untouched\n")
    settings = settings_for(fake_provider, approval_mode="yolo")
    app = make_app(settings, project, load_litellm=False,
                   session=open_session(project, settings.model))
    yield app, project
    if app.opened is not None and not app.opened.store.closed:
        close_session(app.opened)


def notices(app) -> list[str]:
    return [str(n.render()) for n in app.query(NoticeBlock)]


async def run_two_turns(pilot, fake_provider) -> None:
    fake_provider.script(*two_turns())
    await type_prompt(pilot, "write a")
    await until(pilot, lambda: len(fake_provider.requests) == 2 and not pilot.app.busy)
    await type_prompt(pilot, "write b\nand change a")
    await until(pilot, lambda: len(fake_provider.requests) == 4 and not pilot.app.busy)


async def test_undo_puts_back_one_turn_at_a_time_and_tells_the_model(fake_provider, workbench):
    app, project = workbench
    async with app.run_test(size=SIZE) as pilot:
        await run_two_turns(pilot, fake_provider)
        assert (project / "a.txt").read_text() == "one\ntwo\n"

        await type_prompt(pilot, "/undo")
        await until(pilot, lambda: any("Undid turn 1" in n for n in notices(app)))
        assert (project / "a.txt").read_text() == "one\n"
        assert not (project / "b.txt").exists()
        assert "2 files (a.txt, b.txt)" in next(n for n in notices(app) if "Undid turn 1" in n)

        fake_provider.script(Reply(text="Noted."))
        await type_prompt(pilot, "what now?")
        await until(pilot, lambda: len(fake_provider.requests) == 5 and not app.busy)
        sent = fake_provider.requests[4].last_user_text()
        assert "The person undid turn 1 with /undo" in sent and "a.txt, b.txt" in sent
        assert sent.endswith("what now?")

        await type_prompt(pilot, "/undo")
        await until(pilot, lambda: any("Undid turn 0" in n for n in notices(app)))
        assert not (project / "a.txt").exists()
        await type_prompt(pilot, "/undo")
        await until(pilot, lambda: any("Nothing to undo" in n for n in notices(app)))
        assert (project / "keep.txt").read_text() == "untouched\n"


async def test_undo_is_refused_while_a_turn_runs(fake_provider, workbench):
    app, project = workbench
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {
            "command": "echo x > x.txt; for i in $(seq 200); do [ -f go ] && break; "
                       "sleep 0.05; done"})]),
        Reply(text="done"))
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "run")
        await until(pilot, lambda: (project / "x.txt").exists())
        await type_prompt(pilot, "/undo")
        await until(pilot, lambda: any("before undoing" in n for n in notices(app)))
        assert (project / "x.txt").exists()
        (project / "go").touch()
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2)


async def open_rewind(pilot) -> RewindScreen:
    await type_prompt(pilot, "/rewind")
    await until(pilot, lambda: isinstance(pilot.app.screen, RewindScreen))
    await pilot.pause()
    return pilot.app.screen


async def test_rewind_lists_turns_and_goes_back_in_both(fake_provider, workbench):
    app, project = workbench
    async with app.run_test(size=SIZE) as pilot:
        await run_two_turns(pilot, fake_provider)
        old_id = app.session_id

        screen = await open_rewind(pilot)
        turns = screen.query_one("#rewind-turns", OptionList)
        labels = [str(turns.get_option_at_index(i).prompt) for i in range(turns.option_count)]
        assert labels[0].startswith("  0  write a") and "a.txt" in labels[0]
        assert labels[1].startswith("  1  write b") and "a.txt, b.txt" in labels[1]
        assert turns.highlighted == 1
        assert "Turn 1 changed: a.txt, b.txt" in str(screen.query_one("#rewind-files").render())

        await pilot.press("b")
        await until(pilot, lambda: app.session_id != old_id and any(
            "Rewound the conversation" in n for n in notices(app)))
        await pilot.pause()
        assert (project / "a.txt").read_text() == "one\n"
        assert not (project / "b.txt").exists()
        assert app.query_one(PromptInput).text == "write b\nand change a"
        assert [u.text for u in app.query(UserBlock)] == ["write a"]
        kept = read_events(old_id)
        assert sum(e["type"] == "user_message" for e in kept.events) == 2
        forked = read_events(app.session_id)
        assert [e["text"] for e in forked.events if e["type"] == "user_message"] == ["write a"]
        # The fork keeps the checkpoints of the turns it kept: /undo goes on from there.
        assert Checkpoints(project, app.session_id).turns() == [0]
        await type_prompt(pilot, "/undo")
        await until(pilot, lambda: any("Undid turn 0" in n for n in notices(app)))
        assert not (project / "a.txt").exists()


async def test_rewind_files_only_stays_in_the_session(fake_provider, workbench):
    app, project = workbench
    async with app.run_test(size=SIZE) as pilot:
        await run_two_turns(pilot, fake_provider)
        session_id = app.session_id
        screen = await open_rewind(pilot)
        await pilot.press("up")
        assert screen.highlighted is not None and screen.highlighted.turn == 0
        await pilot.press("f")
        await until(pilot, lambda: any("Rewound the files to before turn 0" in n
                                       for n in notices(app)))
        assert app.session_id == session_id
        assert not (project / "a.txt").exists() and not (project / "b.txt").exists()
        assert (project / "keep.txt").read_text() == "untouched\n"
        notes = [e["text"] for e in read_events(session_id).events if e["type"] == "model_note"]
        assert len(notes) == 1 and "rewound the files to before turn 0" in notes[0]

        screen = await open_rewind(pilot)
        assert [r.undone for r in screen.rows] == [True, True]
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, RewindScreen))


async def test_rewind_conversation_only_keeps_the_files_and_says_so(fake_provider, workbench):
    app, project = workbench
    async with app.run_test(size=SIZE) as pilot:
        await run_two_turns(pilot, fake_provider)
        old_id = app.session_id
        await open_rewind(pilot)
        await pilot.press("c")
        await until(pilot, lambda: app.session_id != old_id)
        await until(pilot, lambda: app.query_one(PromptInput).text == "write b\nand change a")
        assert (project / "a.txt").read_text() == "one\ntwo\n"
        assert (project / "b.txt").read_text() == "bee\n"

        fake_provider.script(Reply(text="I see."))
        await type_prompt(pilot, "write b again")
        await until(pilot, lambda: len(fake_provider.requests) == 5 and not app.busy)
        request = fake_provider.requests[4]
        sent = request.last_user_text()
        assert "files were left as they are" in sent and "a.txt, b.txt" in sent
        history = [m.get("content") for m in request.messages]
        assert "write b\nand change a" not in history and "write a" in history


async def test_rewind_without_turns_says_so(fake_provider, workbench):
    app, _project = workbench
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_rewind(pilot)
        assert screen.rows == []
        assert "no turns yet" in str(screen.query_one("#rewind-files").render())
        await pilot.press("b")
        assert app.screen is screen
        await pilot.press("escape")


def test_rows_name_the_files_of_each_turn(tmp_path: Path) -> None:
    from agent_tui.tui.screens.rewind import describe_files

    assert describe_files([]) == "no file changes"
    assert describe_files(["a", "b", "c", "d", "e"]) == "a, b, c +2"
