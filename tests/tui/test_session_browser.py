"""The session browser, driven with Textual's pilot over real session logs and index."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual import work
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import DataTable, Markdown, OptionList, Static
from textual.widgets.markdown import MarkdownBlock

from agent_tui.core import paths
from agent_tui.core.sessions.log import SessionStore, fork_before_turn
from agent_tui.themes import THEMES
from agent_tui.tui.screens.session_browser import (
    BrowserAction,
    ConfirmDelete,
    SessionBrowser,
    TurnPicker,
)

SIZE = (120, 36)
_UNSET: Any = object()
DAY = 86_400.0
T0 = 1_767_225_600.0  # 2026-01-01 00:00 UTC


@pytest.fixture(autouse=True)
def utc() -> Iterator[None]:
    """Dates in the table are local time: pin the zone so they read the same everywhere."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TZ", "UTC")
    time.tzset()
    yield
    mp.undo()
    time.tzset()


def record(session_id: str, project: Path, model: str, start: float, prompt: str,
           answer: str, *, edits: str | None = None, tokens: int = 0,
           cost: float | None = None) -> None:
    """A finished one-turn session with fixed timestamps; ``edits`` names a file it wrote."""
    mp = pytest.MonkeyPatch()
    mp.setattr(time, "time", lambda: start)  # the header's "created"
    try:
        store = SessionStore.create(session_id, project=project, model=model)
    finally:
        mp.undo()
    with store:
        store.append({"type": "user_message", "text": prompt, "ts": start + 1})
        if edits:
            store.append({"type": "tool_call", "id": "c1", "name": "write_file",
                          "args": {"file_path": edits, "content": "x = 1\n"}, "ts": start + 2})
            store.append({"type": "tool_result", "id": "c1", "name": "write_file", "ok": True,
                          "output": f"Wrote {edits}", "ts": start + 3})
        store.append({"type": "assistant_message", "text": answer, "tool_calls": [],
                      "ts": start + 4})
        if tokens:
            store.append({"type": "usage", "ts": start + 5, "session": {
                "prompt_tokens": tokens, "completion_tokens": tokens // 10, "cost": cost}})


def three_sessions(project: Path) -> None:
    record("s-parser", project, "openai/gpt-4.1", T0, "Fix the CSV parser for quoted commas",
           "The parser now handles quoted commas.", edits="src/foo.py", tokens=12_400,
           cost=0.0312)
    record("s-readme", project, "anthropic/claude-sonnet-4", T0 + DAY,
           "Write a README section about installing", "Added an Install section.",
           edits="README.md", tokens=3_050, cost=0.0104)
    record("s-flaky", project, "ollama_chat/qwen2.5-coder", T0 + 2 * DAY,
           "Why does test_retry fail on CI only?", "The test sleeps on a real clock.")


class BrowserHost(App[None]):
    """A bare app with the workbench's theme that opens the browser once and keeps the answer."""

    def __init__(self, project: Path | None = None) -> None:
        super().__init__()
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = THEMES[0].name
        self.browser = SessionBrowser(project=project)
        self.answer: BrowserAction | None = _UNSET

    def on_mount(self) -> None:
        self.browse()

    @work
    async def browse(self) -> None:
        self.answer = await self.push_screen_wait(self.browser)


async def settle(pilot: Pilot[Any]) -> None:
    """Let the browser's workers finish (not the host's, which waits for the answer)."""
    app = pilot.app
    await pilot.pause()
    while any(w.node is not app and not w.is_finished for w in app.workers):
        await pilot.pause(0.01)
    await pilot.pause()


async def picker_on(pilot: Pilot[Any]) -> TurnPicker:
    """Wait for the turn picker (the browser's worker waits on it, so ``settle`` cannot)."""
    for _ in range(500):
        if isinstance(pilot.app.screen, TurnPicker):
            await pilot.pause()
            return pilot.app.screen
        await pilot.pause(0.01)
    raise AssertionError("the turn picker did not open")


def listed(pilot: Pilot[Any]) -> list[str]:
    table = pilot.app.screen.query_one("#sessions", DataTable)
    return [str(key.value) for key in table.rows]


def preview(pilot: Pilot[Any]) -> str:
    return pilot.app.screen.query_one("#preview", Markdown).source


async def type_search(pilot: Pilot[Any], text: str) -> None:
    """Type ``text`` in the search box, where the browser opens, and wait for the results."""
    await pilot.press(*text)
    await settle(pilot)


def keys_line(pilot: Pilot[Any]) -> str:
    return str(pilot.app.screen.query_one("#keys", Static).render())


async def test_the_table_lists_sessions_newest_first(tmp_path: Path) -> None:
    three_sessions(tmp_path / "shop")
    app = BrowserHost()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert listed(pilot) == ["s-flaky", "s-readme", "s-parser"]
        table = app.screen.query_one("#sessions", DataTable)
        assert [str(c) for c in table.get_row("s-parser")] == [
            "Fix the CSV parser for quoted com…", "shop", "gpt-4.1",
            "2026-01-01 00:00", "1", "13.6k", "$0.03"]
        assert "3 sessions" in str(app.screen.query_one("#status", Static).render())


async def test_s_cycles_the_sort_column(tmp_path: Path) -> None:
    three_sessions(tmp_path)
    app = BrowserHost()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("tab", "s")  # title, A to Z
        assert listed(pilot) == ["s-parser", "s-flaky", "s-readme"]
        for _ in range(4):  # project, model, turns, tokens
            await pilot.press("s")
        assert app.browser.sort == "tokens"
        assert listed(pilot) == ["s-parser", "s-readme", "s-flaky"]


async def test_search_narrows_by_message_text(tmp_path: Path) -> None:
    three_sessions(tmp_path)
    app = BrowserHost()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "install")
        assert listed(pilot) == ["s-readme"]
        assert "mentioning 'install'" in str(app.screen.query_one("#status", Static).render())


async def test_file_search_narrows_to_sessions_that_changed_the_file(tmp_path: Path) -> None:
    three_sessions(tmp_path)
    app = BrowserHost()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "file:foo.py")
        assert listed(pilot) == ["s-parser"]
        await pilot.press("enter")  # resumes the highlighted result
        await pilot.pause()
    assert app.answer == BrowserAction("resume", "s-parser")


async def test_typing_goes_into_the_search_box_not_to_the_single_key_actions(
        tmp_path: Path) -> None:
    three_sessions(tmp_path)
    app = BrowserHost()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "type search" in keys_line(pilot) and "f fork" not in keys_line(pilot)
        await type_search(pilot, "file:")  # "f" forks in the table, "x" exports, "d" deletes
        assert app.screen is app.browser and app.answer is _UNSET
        assert app.screen.query_one("#search").value == "file:"
        assert listed(pilot) == ["s-flaky", "s-readme", "s-parser"]
        await pilot.press("tab")  # to the table: the key line names its single keys
        assert "f fork" in keys_line(pilot) and "/ search" in keys_line(pilot)
        await pilot.press("slash", *"foo")  # back in the search box
        await settle(pilot)
        assert app.screen.query_one("#search").value == "file:foo"
        assert listed(pilot) == ["s-parser"]
        assert app.answer is _UNSET


async def test_enter_typed_before_the_results_resumes_what_the_search_finds(
        tmp_path: Path) -> None:
    three_sessions(tmp_path)
    app = BrowserHost()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"install", "enter")
        await settle(pilot)
    assert app.answer == BrowserAction("resume", "s-readme")


async def test_preview_shows_the_highlighted_transcript(tmp_path: Path) -> None:
    three_sessions(tmp_path)
    app = BrowserHost()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Why does test_retry fail on CI only?" in preview(pilot)
        await pilot.press("down")
        await settle(pilot)
        assert "Added an Install section." in preview(pilot)
        assert "test_retry" not in preview(pilot)


async def test_the_preview_shows_html_in_an_answer_as_written(tmp_path: Path) -> None:
    record("s-html", tmp_path, "openai/gpt-4.1", T0, "How do I stop it?",
           "Press <kbd>Ctrl</kbd>+<kbd>C</kbd>.\n\n<details>\n<summary>Why</summary>\n</details>\n")
    app = BrowserHost()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        drawn = "\n".join(block._content.plain for block in app.screen.query_one(
            "#preview", Markdown).query(MarkdownBlock))
        assert "Press <kbd>Ctrl</kbd>+<kbd>C</kbd>." in drawn
        assert "<details>\n<summary>Why</summary>\n</details>" in drawn


async def test_enter_resumes_the_highlighted_session(tmp_path: Path) -> None:
    three_sessions(tmp_path)
    app = BrowserHost()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "enter")
        await pilot.pause()
    assert app.answer == BrowserAction("resume", "s-readme")


async def test_f_forks_and_x_exports(tmp_path: Path) -> None:
    three_sessions(tmp_path)
    app = BrowserHost()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("tab", "f")
        await pilot.pause()
    assert app.answer == BrowserAction("fork", "s-flaky")
    app = BrowserHost()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "down", "tab", "x")  # the arrows work from the search too
        await pilot.pause()
    assert app.answer == BrowserAction("export", "s-parser")


async def test_t_forks_before_a_turn_picked_from_the_list(tmp_path: Path) -> None:
    with SessionStore.create("s-three", project=tmp_path, model="openai/gpt-4.1") as store:
        for n in range(3):
            store.append({"type": "user_message", "text": f"prompt number {n}\nmore"})
            store.append({"type": "assistant_message", "text": f"answer {n}", "tool_calls": []})
    app = BrowserHost()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("tab", "t")
        picker = await picker_on(pilot)
        assert isinstance(picker, TurnPicker)
        options = picker.query_one("#turns", OptionList)
        assert [str(options.get_option_at_index(i).prompt) for i in range(3)] == [
            "  0 prompt number 0", "  1 prompt number 1", "  2 prompt number 2"]
        assert options.highlighted == 2  # the newest turn first
        await pilot.press("up", "enter")
        await settle(pilot)
    assert app.answer == BrowserAction("fork", "s-three", 1)


async def test_escape_in_the_turn_picker_goes_back_to_the_browser(tmp_path: Path) -> None:
    three_sessions(tmp_path)
    app = BrowserHost()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("tab", "t")
        await picker_on(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.browser and app.answer is _UNSET


async def test_a_fork_is_marked_and_its_preview_names_parent_and_prompt(tmp_path: Path) -> None:
    with SessionStore.create("s-parent", project=tmp_path, model="openai/gpt-4.1") as store:
        for n in range(3):
            store.append({"type": "user_message", "text": f"prompt number {n}"})
            store.append({"type": "assistant_message", "text": f"answer {n}", "tool_calls": []})
    fork_id = fork_before_turn("s-parent", 2)  # keeps prompts 0 and 1
    app = BrowserHost()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#sessions", DataTable)
        assert str(table.get_row(fork_id)[0]) == "↳ prompt number 0"
        assert str(table.get_row("s-parent")[0]) == "prompt number 0"
        table.move_cursor(row=table.get_row_index(fork_id), animate=False)
        await settle(pilot)
        assert "**Forked from:** s-parent, after its prompt 2" in preview(pilot)


async def test_d_deletes_after_confirmation(tmp_path: Path) -> None:
    three_sessions(tmp_path)
    app = BrowserHost()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("tab", "d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDelete)
        await pilot.press("n")  # kept
        await settle(pilot)
        assert paths.session_dir("s-flaky").is_dir()
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, SessionBrowser)
        assert not paths.session_dir("s-flaky").exists()
        assert listed(pilot) == ["s-readme", "s-parser"]
        assert "Added an Install section." in preview(pilot)


async def test_a_session_open_elsewhere_is_not_deleted(tmp_path: Path) -> None:
    three_sessions(tmp_path)
    app = BrowserHost()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        with SessionStore.open("s-flaky"):
            await pilot.press("tab", "d")
            await pilot.pause()
            await pilot.press("y")
            await settle(pilot)
        assert paths.session_dir("s-flaky").is_dir()
        assert listed(pilot) == ["s-flaky", "s-readme", "s-parser"]
        assert any(n.title == "Not deleted" for n in app._notifications)


async def test_escape_closes_with_none(tmp_path: Path) -> None:
    three_sessions(tmp_path)
    app = BrowserHost()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert app.answer is None


async def test_no_sessions_says_so() -> None:
    app = BrowserHost()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert listed(pilot) == []
        assert "No sessions recorded yet" in str(app.screen.query_one("#status", Static).render())
        await pilot.press("enter")
        assert app.answer is _UNSET


def test_snapshot_browser_with_three_sessions(snap_compare) -> None:
    """A search box on top reads "search messages, or file:foo.py". Below it a table of
    three sessions newest first (the flaky-test question from 2026-01-03 highlighted, then
    the README and CSV-parser sessions), every column visible without scrolling: title,
    project "shop", model without its provider, date, prompts, tokens (13.6k, 3.4k) and cost
    ($0.03, $0.01, blank for the local model), "updated ▼" marking the sort column. Under
    the table, the highlighted session's transcript as Markdown: its title, session id,
    project, model and date, then the User prompt and the Assistant heading (the pane
    scrolls for the rest). The bottom line says "3 sessions, sorted by
    updated" and lists the keys of the search box, where the cursor is: type search,
    ↑↓ choose, enter resume, tab fork, export, delete…, esc close."""
    three_sessions(Path("/srv/projects/shop"))

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)

    assert snap_compare(BrowserHost(), terminal_size=SIZE, run_before=run_before)
