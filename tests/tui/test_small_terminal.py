"""The workbench on a small terminal (80x24): the side panel gives way to the conversation,
no screen cuts its text, and a resize keeps the conversation at its end."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widget import Widget
from textual.widgets import DataTable

from agent_tui.tui.screens.mcp import McpScreen
from agent_tui.tui.screens.skills import SkillsScreen
from agent_tui.tui.widgets.conversation import ConversationView
from agent_tui.tui.widgets.panels import CONVERSATION_MIN_WIDTH, NARROW_BELOW, SIDE_PANEL_WIDTH
from tests.fakes.providers import Reply, ToolCall
from tests.tui.test_app import app_for, type_prompt, until
from tests.tui.test_approval import ApprovalHost, ctx, edit_request  # noqa: F401
from tests.tui.test_knowledge_screens import ScreenHost, catalog
from tests.tui.test_snapshots import (  # noqa: F401
    REVIEW_EDITED,
    REVIEW_PROJECT,
    REVIEW_SOURCE,
    _review_host,
    _submit,
    _until,
    project,
    snapshot_app,
)

SMALL = (80, 24)
LARGE = (120, 40)

LONG_ANSWER = "\n\n".join(
    f"Paragraph {n}: the agent explains, at some length, what it found in the project and "
    "why each change it proposes is needed, so the answer wraps over several lines."
    for n in range(12)
)


def _side_shown(app) -> bool:
    return app.query_one("#side").display


async def test_at_80_columns_the_side_panel_is_hidden_and_f2_shows_it(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        assert not _side_shown(app)
        assert app.query_one("#conversation").region.width >= CONVERSATION_MIN_WIDTH
        await pilot.press("f2")
        await pilot.pause()
        assert _side_shown(app)
        await pilot.press("f2")
        await pilot.pause()
        assert not _side_shown(app)


async def test_the_side_panel_shows_where_the_conversation_keeps_60_columns(
    fake_provider, tmp_path
):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=(NARROW_BELOW, 30)) as pilot:
        await pilot.pause()
        assert _side_shown(app)
        assert app.query_one("#conversation").region.width == CONVERSATION_MIN_WIDTH
        await pilot.resize_terminal(NARROW_BELOW - 1, 30)
        await pilot.pause()
        assert not _side_shown(app)
        assert app.query_one("#conversation").region.width == NARROW_BELOW - 1


async def test_the_persons_choice_of_side_panel_holds_across_resizes(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("f2")  # shown on a narrow terminal
        await pilot.resize_terminal(*LARGE)
        await pilot.pause()
        await pilot.resize_terminal(*SMALL)
        await pilot.pause()
        assert _side_shown(app)
        await pilot.resize_terminal(*LARGE)
        await pilot.press("f2")  # hidden on a wide one
        await pilot.resize_terminal(*SMALL)
        await pilot.pause()
        await pilot.resize_terminal(*LARGE)
        await pilot.pause()
        assert not _side_shown(app)
        assert app.query_one("#conversation").region.width == LARGE[0]
        await pilot.press("f2")
        await pilot.pause()
        assert app.query_one("#conversation").region.width == LARGE[0] - SIDE_PANEL_WIDTH


async def _long_conversation(pilot, fake_provider) -> ConversationView:
    app = pilot.app
    fake_provider.script(
        Reply(text=LONG_ANSWER, chunk_size=200), Reply(text=LONG_ANSWER, chunk_size=200)
    )
    for sent, prompt in enumerate(("explain the project", "and again"), start=1):
        await type_prompt(pilot, prompt)
        await until(
            pilot,
            lambda sent=sent: not app.busy and len(fake_provider.requests) == sent,
            timeout=60,
        )
    conversation = app.query_one(ConversationView)
    await until(
        pilot, lambda: conversation.max_scroll_y > 0 and conversation.is_vertical_scroll_end
    )
    return conversation


async def test_a_conversation_at_its_end_stays_there_after_a_resize(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=LARGE) as pilot:
        conversation = await _long_conversation(pilot, fake_provider)
        for size in (SMALL, LARGE, (100, 30), (60, 20)):
            await pilot.resize_terminal(*size)
            await pilot.pause(0.2)
            assert conversation.is_vertical_scroll_end, size
            assert conversation.scroll_y == conversation.max_scroll_y > 0


async def test_a_conversation_scrolled_up_is_not_moved_to_its_end_by_a_resize(
    fake_provider, tmp_path
):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=LARGE) as pilot:
        conversation = await _long_conversation(pilot, fake_provider)
        conversation.scroll_to(y=3, animate=False)
        await pilot.pause()
        for size in (SMALL, LARGE):
            await pilot.resize_terminal(*size)
            await pilot.pause(0.2)
            assert conversation.scroll_y == 3, size


# --------------------------------------------------------------------------- no text cut


def screen_lines(app) -> list[str]:
    """The screen as the terminal shows it, a string per row."""
    return [
        "".join(segment.text for segment in strip)
        for strip in app.screen._compositor.render_strips()
    ]


def shown_lines(app, widget: Widget) -> list[str]:
    """The rows of text ``widget`` shows on screen."""
    region = widget.content_region
    lines = screen_lines(app)
    return [lines[y][region.x : region.right].strip() for y in range(region.y, region.bottom)]


def shown(app, widget: Widget) -> str:
    """The text ``widget`` shows on screen, its rows joined by spaces."""
    return " ".join(shown_lines(app, widget))


async def test_mcp_wraps_its_title_and_key_line_at_80_columns(fake_provider, tmp_path):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await type_prompt(pilot, "/mcp")
        await until(pilot, lambda: isinstance(app.screen, McpScreen))
        await pilot.pause()
        screen = app.screen
        assert shown(app, screen.query_one("#mcp-title")).endswith(
            "or a .mcp.json to the project (see the README)"
        )
        assert shown(app, screen.query_one("#mcp-help")).startswith("r reconnect · d disable")
        assert shown(app, screen.query_one("#mcp-help")).endswith(
            "allow one server's with the rule mcp__SERVER__*"
        )


async def test_skills_wraps_its_lines_and_fits_its_rows_at_80_columns():
    app = ScreenHost(SkillsScreen(catalog()))
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        await pilot.pause()
        screen = app.screen
        assert shown(app, screen.query_one("#skills-title")).endswith("when a task calls for it")
        assert shown(app, screen.query_one("#skills-help")).endswith(
            "the repository's skills/ · Esc close"
        )
        table = screen.query_one(DataTable)
        assert table.virtual_size.width <= table.scrollable_content_region.width
        rows = shown(app, table)
        assert "Write a commit message f…" in rows  # cut with an ellipsis, not at the edge


async def test_the_status_bar_ends_in_an_ellipsis_and_keeps_what_waits_for_you(
    fake_provider, tmp_path
):
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        app.status.project = "~/projects/a-project-with-a-rather-long-name"
        app.status.inbox = 1
        await pilot.pause()
        line = shown(app, app.status)
        assert "1 awaiting approval (F8)" in line
        assert line.endswith("…")


async def test_the_review_title_wraps_at_80_columns():
    from agent_tui.core.changes.checkpoints import FileChange

    names = [f"src/module_{n}.py" for n in range(12)]
    for name in names:
        (REVIEW_PROJECT / name).parent.mkdir(parents=True, exist_ok=True)
        (REVIEW_PROJECT / name).write_text("x = 1\n")
    changes = [FileChange(name, None, b"x = 1\n", None, 0o100644) for name in names]
    app = _review_host(changes)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        await pilot.press("r", "enter")  # rejected: the title grows by "1 rejected (reverted)"
        await pilot.pause()
        title = shown(app, app.screen.query_one("#review-title"))
        assert title == (
            "Changes in this session · 12 files · file 2 of 12 · 1 rejected (reverted) · "
            "11 to review"
        )


async def test_the_session_browser_shows_the_columns_it_has_room_for(tmp_path):
    from agent_tui.tui.screens.session_browser import COLUMNS
    from tests.tui.test_session_browser import BrowserHost, settle, three_sessions

    three_sessions(tmp_path)
    app = BrowserHost()
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.pause()
        table = app.screen.query_one("#sessions", DataTable)
        assert [str(c.key.value) for c in table.ordered_columns] == ["title", "model", "updated"]
        assert table.virtual_size.width <= table.scrollable_content_region.width
        await pilot.resize_terminal(*LARGE)
        await settle(pilot)
        await pilot.pause()
        assert [str(c.key.value) for c in table.ordered_columns] == list(COLUMNS)
        assert table.virtual_size.width <= table.scrollable_content_region.width


# --------------------------------------------------------------------------- snapshots

SIZES = pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])


@SIZES
def test_snapshot_main_screen_after_a_turn(snap_compare, fake_provider, project, size):  # noqa: F811
    """After one turn: the welcome line, the user's prompt, the agent's Markdown answer and
    two compact tool blocks (read_file and todo_write, both ✓), the prompt, the status bar
    and the key line. At 80x24 there is no side panel: the conversation takes the whole
    width and the status bar ends in "…". At 120x40 the side panel shows the context gauge,
    the todo list (one ticked, one open) and two rows in the tool log."""
    fake_provider.script(
        Reply(
            text="Let me **read** it.",
            usage=(1200, 20),
            tool_calls=[ToolCall("read_file", {"file_path": "hello.txt"})],
        ),
        Reply(
            usage=(1500, 30),
            tool_calls=[
                ToolCall("todo_write", {"content": "- [x] read hello.txt\n- [ ] answer\n"})
            ],
        ),
        Reply(text="The file says **hello**.", usage=(1900, 100)),
    )
    submit = _submit("what does hello.txt say?")

    async def run_before(pilot):
        await submit(pilot)
        await _until(
            pilot, lambda: len(fake_provider.requests) == 3 and not pilot.app.busy, timeout=60
        )
        await pilot.pause(0.3)

    assert snap_compare(snapshot_app(fake_provider), terminal_size=size, run_before=run_before)


@SIZES
def test_snapshot_help(snap_compare, fake_provider, project, size):  # noqa: F811
    """/help's answer in the conversation, followed to its end: the commands, each with its
    help, wrapped at the conversation's width (the whole width at 80x24, beside the side
    panel at 120x40); nothing runs off the right edge."""
    submit = _submit("/help")

    async def run_before(pilot):
        await submit(pilot)
        conversation = pilot.app.query_one(ConversationView)
        await _until(pilot, lambda: pilot.app.query("AssistantBlock") and not pilot.app.busy)
        await pilot.pause(0.3)
        # The picture is of the answer's end: taken there whether or not a long answer's
        # last page had been followed yet (following is tested on its own above).
        conversation.scroll_end(animate=False)
        await _until(pilot, lambda: conversation.is_vertical_scroll_end)
        await pilot.pause(0.3)

    assert snap_compare(snapshot_app(fake_provider), terminal_size=size, run_before=run_before)


@SIZES
def test_snapshot_approval_of_an_edit(snap_compare, ctx, size):  # noqa: F811
    """The approval modal for an edit of app.py: its title, "Needs approval: changes files",
    the side-by-side diff (before | after) fitted to the modal's width, and every key line
    whole: y allow once, n deny, d deny with a reason, e edit first, esc deny; "i: answer
    later, in the approval inbox"; "a: always allow edit_file(app.py) (then pick how
    long)"."""
    assert snap_compare(
        ApprovalHost(edit_request(ctx, rules=("edit_file(app.py)",))), terminal_size=size
    )


@SIZES
def test_snapshot_review_of_changes(snap_compare, size):
    """F7 on two changed files: the title "Changes in this session · 2 files · file 1 of
    2 · 3 to review" whole, the file list (app.py +2 -2, notes.md new file), app.py's first
    hunk side by side, and the key lines at the bottom, whole."""
    from agent_tui.core.changes.checkpoints import FileChange

    REVIEW_PROJECT.mkdir(parents=True, exist_ok=True)
    (REVIEW_PROJECT / "app.py").write_text(REVIEW_EDITED)
    (REVIEW_PROJECT / "notes.md").write_text("# Notes\n\nbuy milk\n")
    changes = [
        FileChange("app.py", REVIEW_SOURCE.encode(), REVIEW_EDITED.encode(), 0o100644, 0o100644),
        FileChange("notes.md", None, b"# Notes\n\nbuy milk\n", None, 0o100644),
    ]

    async def run_before(pilot):
        await pilot.pause(0.3)

    assert snap_compare(_review_host(changes), terminal_size=size, run_before=run_before)


@SIZES
def test_snapshot_session_browser(snap_compare, size):
    """The session browser with three sessions of /srv/projects/shop, newest first: the
    search box, the table (at 80x24 title, model and updated; at 120x40 every column:
    title, project, model, updated, prompts, tokens, cost) with the flaky-test question
    highlighted, its preview below, and the status and key lines at the bottom."""
    from tests.tui.test_session_browser import BrowserHost, settle, three_sessions

    three_sessions(Path("/srv/projects/shop"))

    async def run_before(pilot):
        await settle(pilot)
        await pilot.pause()

    assert snap_compare(BrowserHost(), terminal_size=size, run_before=run_before)


async def test_the_approval_modal_breaks_its_key_line_between_keys(ctx):  # noqa: F811
    from tests.tui.test_approval import ask, shell_call

    app = ApprovalHost(ask(shell_call(ctx), rules=("shell(rm -r build)",)))
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        await pilot.pause()
        keys = shown_lines(app, app.screen.query_one("#keys"))
        items = [
            "y: allow once",
            "n: deny",
            "d: deny with a reason",
            "e: edit first",
            "p: preview",
            "esc: deny",
        ]
        for item in items:
            assert any(item in line for line in keys), (item, keys)
        assert len(keys[0]) <= app.screen.query_one("#keys").content_region.width


async def test_the_open_sessions_title_wraps_at_80_columns(fake_provider, tmp_path):
    from agent_tui.tui.screens.session_switcher import SessionSwitcher

    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("f9")
        await until(pilot, lambda: isinstance(app.screen, SessionSwitcher))
        await pilot.pause()
        title = shown(app, app.screen.query_one("#inbox-title"))
        assert title == "Open sessions: only this one. /bg PROMPT starts one in the background."


async def test_the_open_sessions_table_fits_80_columns_and_cuts_its_prompt(fake_provider, tmp_path):
    from agent_tui.tui.screens.session_switcher import SessionSwitcher

    fake_provider.script(Reply(text="Done."))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await type_prompt(pilot, "explain " + "the build and the tests and the release " * 4)
        await until(pilot, lambda: not app.busy and fake_provider.requests, 60)
        await pilot.press("f9")
        await until(pilot, lambda: isinstance(app.screen, SessionSwitcher))
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        await until(pilot, lambda: table.virtual_size.width <= table.scrollable_content_region.width)
        assert [str(c.label) for c in table.ordered_columns] == [
            "session", "state", "model calls", "cost", "prompt"]
        assert "explain the build and the" in shown(app, table)
        assert shown(app, table).rstrip().endswith("…")


async def test_context_fits_80_columns_and_cuts_its_previews(fake_provider, tmp_path):
    from agent_tui.tui.screens.context_inspector import ContextInspector

    fake_provider.script(Reply(text="A long answer " * 30))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await type_prompt(pilot, "say something long")
        await until(pilot, lambda: not app.busy and fake_provider.requests, 60)
        await type_prompt(pilot, "/context")
        await until(pilot, lambda: isinstance(app.screen, ContextInspector))
        await until(pilot, lambda: app.screen.loaded, 60)
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        await until(pilot, lambda: table.virtual_size.width <= table.scrollable_content_region.width)
        assert "A long answer A long" in shown(app, table)
        assert "…" in shown(app, table)
