"""The workbench's screens and the session commands over hostile text: ``/context``, the
session browser (its table, preview, turn picker and delete question), the approval modal
(command, edit and arguments), the compaction review, the diff review, rewind, and
``agent-tui sessions list|show`` and the Markdown export.

Every sample of ``HOSTILE`` is in the data: nothing may crash, each shows literally (escape
sequences and invisible characters as visible pictures), no app action may run (no bell, no
quit, no click action of the text's own), and no ESC byte reaches the terminal.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from textual import work
from textual.app import App
from textual.screen import Screen
from textual.widgets import DataTable, Input, Label, Markdown, OptionList, Static, TextArea

from agent_tui.core.approval import (
    ApprovalRequest,
    ArgumentDetails,
    CommandDetails,
    EditDetails,
    RunEdited,
    WriteEdited,
)
from agent_tui.core.changes.checkpoints import FileChange
from agent_tui.core.safety.permissions import PartVerdict, Verdict
from agent_tui.core.sessions.export import to_markdown
from agent_tui.core.sessions.log import SessionStore, read_events
from agent_tui.themes import THEMES
from agent_tui.tui.cli import sessions_cli
from agent_tui.tui.outside_text import visible
from agent_tui.tui.screens.approval import ApprovalScreen
from agent_tui.tui.screens.compaction import CompactionScreen
from agent_tui.tui.screens.context_inspector import ContextInspector
from agent_tui.tui.screens.diff_review import DiffReviewScreen
from agent_tui.tui.screens.rewind import RewindScreen, TurnRow
from agent_tui.tui.screens.session_browser import ConfirmDelete, SessionBrowser, TurnPicker
from agent_tui.tui.widgets.diff_view import DiffView
from tests.fakes.providers import Reply, ToolCall
from tests.tui.hostile_text import ALL_HOSTILE, HOSTILE, SHORT_HOSTILE
from tests.tui.test_app import app_for, type_prompt, until

SIZE = (140, 44)
SHORT = {name: text for name, text in HOSTILE.items() if name != "long line"}
"""The samples that fit in a title, a file name or a table cell."""
ONE_LINE = {name: text for name, text in SHORT.items()
            if not re.search(r"[\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029]", text)}
"""The samples that stay on one line (a title is a prompt's first line)."""
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069"
                    "\ufeff]")
"""What must never reach the terminal: escapes, controls, invisible and reordering marks."""
OWN_CLICKS = re.compile(r"^link\('[^']*'\)$")
"""The only click actions allowed on screen: a Markdown link (it runs no app action)."""


def file_name(name: str, text: str) -> str:
    """A file name carrying ``text`` (no ``/`` or NUL, within the file system's limit)."""
    return (name.replace(" ", "_") + "=" + text.replace("/", "∕").replace("\0", "0"))[:120]


def plain(widget: Any) -> str:
    """The text a widget shows."""
    if isinstance(widget, Markdown):
        return "\n".join(plain(child) for child in widget.query(Static))
    return str(widget.render())


def table_text(table: DataTable[Any]) -> list[list[str]]:
    """Every cell's text, row by row (a str cell would have been parsed as markup)."""
    rows = []
    for index in range(table.row_count):
        row = table.get_row_at(index)
        assert all(not isinstance(cell, str) or not re.search(r"[\[\x1b]", cell) for cell in row)
        rows.append([str(cell) for cell in row])
    return rows


def options_text(options: OptionList) -> list[str]:
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


def assert_terminal_safe(app: App[Any]) -> None:
    """No control or invisible character in what the terminal gets, no click of the text's."""
    for strip in app.screen._compositor.render_strips():
        for segment in strip:
            assert not UNSAFE.search(segment.text), repr(segment.text)
            action = segment.style.meta.get("@click") if segment.style else None
            assert action is None or OWN_CLICKS.match(str(action)), action


class Tripwire:
    """Records the app actions hostile text might reach for."""

    def __init__(self, app: App[Any], monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[str] = []
        for name in ("bell", "action_bell", "action_quit", "exit", "open_url"):
            monkeypatch.setattr(app, name, self._record(name))

    def _record(self, name: str) -> Any:
        def called(*args: Any, **kwargs: Any) -> None:
            self.calls.append(name)
        return called


class ScreenHost(App[None]):
    """A bare app with the workbench's themes that opens one screen and keeps its answer."""

    def __init__(self, screen: Screen[Any]) -> None:
        super().__init__()
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = THEMES[0].name
        self.opened = screen
        self.answers: list[Any] = []

    def on_mount(self) -> None:
        self.open()

    @work
    async def open(self) -> None:
        self.answers.append(await self.push_screen_wait(self.opened))


async def settle(pilot: Any) -> None:
    """Let the screen's workers finish (not the host's, which waits for the answer)."""
    app = pilot.app
    await pilot.pause()
    for _ in range(1000):
        if all(w.node is app or w.is_finished for w in app.workers):
            break
        await pilot.pause(0.01)
    await pilot.pause()


async def screen_on(pilot: Any, kind: type[Screen[Any]]) -> Any:
    await until(pilot, lambda: isinstance(pilot.app.screen, kind))
    await pilot.pause()
    return pilot.app.screen


# -- /context ------------------------------------------------------------------------------


async def test_context_opens_after_reading_a_file_by_its_absolute_path(fake_provider,
                                                                       tmp_path):
    """The crash of issue 12: a preview like ``[/tmp/…/a.txt: …]`` or a command's ``[/x]``
    made the context inspector's table raise MarkupError and closed the workbench."""
    (tmp_path / "a.txt").write_text("alpha\n")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": str(tmp_path / "a.txt")}),
                          ToolCall("shell", {"command": "printf '[/x] done'"})]),
        Reply(text="[/x] read it"))
    app = app_for(fake_provider, tmp_path, approval_mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "read it")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2)
        await type_prompt(pilot, "/context")
        screen = await screen_on(pilot, ContextInspector)
        await until(pilot, lambda: screen.loaded)  # counted off the event loop
        texts = [row[4] for row in table_text(screen.query_one(DataTable))]
        assert any("[/x] done" in text for text in texts)
        assert any("[/x] read it" in text for text in texts)
        assert any("alpha" in text for text in texts)
        assert_terminal_safe(app)
        await pilot.press("escape")
        assert app.is_running


async def test_context_shows_hostile_messages_and_tool_results_literally(
        fake_provider, tmp_path, monkeypatch):
    text_samples = {name: text for name, text in SHORT.items()
                    if not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text)}
    (tmp_path / "hostile.txt").write_text("\n".join(text_samples.values()) + "\n")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": str(tmp_path / "hostile.txt")})]),
        Reply(text=SHORT_HOSTILE))  # litellm cuts a stream repeating one chunk (x * 5000)
    app = app_for(fake_provider, tmp_path, approval_mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        tripwire = Tripwire(app, monkeypatch)
        await type_prompt(pilot, HOSTILE["click action"] + HOSTILE["osc title"])
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2)
        await type_prompt(pilot, "/context")
        screen = await screen_on(pilot, ContextInspector)
        await until(pilot, lambda: screen.loaded)  # counted off the event loop
        texts = "\n".join(row[4] for row in table_text(screen.query_one(DataTable)))
        for sample in ("[/x] closing a tag",  # the model's answer
                       "[@click=app.quit]press me[/]␛]0;pwned title␇after",  # the prompt
                       "[bold]neve"):  # the file read
            assert sample in texts
        assert_terminal_safe(app)
        for key in ("p", "down", "p", "escape"):
            await pilot.press(key)
        assert tripwire.calls == [] and app.is_running


# -- the session browser -----------------------------------------------------------------


def record_hostile_sessions(project: Path) -> dict[str, str]:
    """One session per sample: its prompt, answer, model, tool call and edited file carry
    it. Returns session id to sample."""
    sessions = {}
    for index, (name, sample) in enumerate(HOSTILE.items()):
        session_id = f"s{index:02d}"
        store = SessionStore.create(session_id, project=project, model=f"openai/{sample}"[:200])
        edited = file_name(name, sample)
        with store:
            store.append({"type": "user_message", "text": sample})
            store.append({"type": "tool_call", "id": "c1", "name": "write_file",
                          "summary": sample[:200],
                          "args": {"file_path": edited, "content": sample}})
            store.append({"type": "tool_result", "id": "c1", "name": "write_file", "ok": True,
                          "output": f"Wrote {edited}\n{sample}"})
            store.append({"type": "assistant_message", "text": sample, "tool_calls": []})
            store.append({"type": "user_message", "text": f"again: {sample}"})
            store.append({"type": "error", "message": sample})
        sessions[session_id] = sample
    return sessions


async def test_session_browser_shows_hostile_sessions_literally(tmp_path, monkeypatch):
    sessions = record_hostile_sessions(tmp_path / "proj [bold]\x1b[31mred")
    app = ScreenHost(SessionBrowser())
    async with app.run_test(size=SIZE) as pilot:
        tripwire = Tripwire(app, monkeypatch)
        await settle(pilot)
        table = app.screen.query_one("#sessions", DataTable)
        rows = dict(zip([str(key.value) for key in table.rows], table_text(table), strict=True))
        assert set(rows) == set(sessions)
        for session_id, sample in sessions.items():
            title, project, model = rows[session_id][:3]
            assert project == "proj [bold]…"
            if sample in ONE_LINE.values():
                shown = visible(sample)
                assert shown.startswith(title.rstrip("…")) and len(title) >= min(8, len(shown))
                assert visible(sample.rpartition("/")[2]).startswith(model.rstrip("…"))
        assert_terminal_safe(app)

        for session_id, sample in sessions.items():
            table.move_cursor(row=table.get_row_index(session_id), animate=False)
            await settle(pilot)
            preview = app.screen.query_one("#preview", Markdown)
            assert not UNSAFE.search(preview.source.replace("\t", ""))
            if sample in ONE_LINE.values() and "[" in sample:
                assert sample in preview.source or visible(sample) in preview.source
            assert_terminal_safe(app)
        table.move_cursor(row=table.get_row_index("s03"), animate=False)  # the click action
        await settle(pilot)
        assert "[@click=app.quit]press me[/]" in plain(app.screen.query_one("#preview"))

        table.focus()  # the single-key actions work in the table
        await pilot.press("t")
        picker = await screen_on(pilot, TurnPicker)
        prompts = options_text(picker.query_one("#turns", OptionList))
        assert prompts == ["  0 [@click=app.quit]press me[/]",
                           "  1 again: [@click=app.quit]press me[/]"]
        assert_terminal_safe(app)
        await pilot.press("escape")
        await screen_on(pilot, SessionBrowser)

        table.move_cursor(row=table.get_row_index("s13"), animate=False)  # the OSC title
        await settle(pilot)
        await pilot.press("d")
        confirm = await screen_on(pilot, ConfirmDelete)
        assert plain(confirm.query_one("#confirm-what")).startswith("␛]0;pwned title␇after\n")
        assert_terminal_safe(app)
        await pilot.press("n")
        await screen_on(pilot, SessionBrowser)
        assert tripwire.calls == [] and app.is_running and app.answers == []


# -- the approval modal ------------------------------------------------------------------


HOSTILE_COMMAND = ("printf %s '" + HOSTILE["click action"] + HOSTILE["ansi colour"]
                   + HOSTILE["osc title"] + HOSTILE["bidi override"] + HOSTILE["closing tag"]
                   + "'")
"""A one-line command (the edit field is one line) carrying markup, escapes and bidi."""


def command_request() -> ApprovalRequest:
    parts = tuple(PartVerdict(text, Verdict.ASK, f"unknown: {text}") for text in SHORT.values())
    return ApprovalRequest(
        "c1", "shell", "execute", f"shell: {HOSTILE_COMMAND}", f"runs {SHORT_HOSTILE}",
        CommandDetails(HOSTILE_COMMAND, HOSTILE["file path in brackets"]), parts=parts,
        rules=(f"shell({HOSTILE['click action']} {HOSTILE['osc 52 clipboard']})",),
        editable=True)


async def test_approval_of_a_hostile_command_shows_it_literally(monkeypatch):
    screen = ApprovalScreen(command_request())
    app = ScreenHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        tripwire = Tripwire(app, monkeypatch)
        await pilot.pause()
        assert plain(screen.query_one("#summary", Label)).startswith(
            "printf %s '[@click=app.quit]press me[/]␛[31mred")
        assert plain(screen.query_one("#why")).startswith("Needs approval: runs closing tag: "
                                                          "[/x] closing a tag")
        assert "<U+202E>" in plain(screen.query_one("#command"))
        assert plain(screen.query_one("#working-dir")) == (
            "working dir: [notes.txt: 3 lines] [/etc/passwd]")
        parts = "\n".join(plain(part) for part in screen.query(".part-text"))
        assert "[red on white blink]alarm[/]" in parts and "␛]52;c;" in parts
        assert "[@click=app.quit]press me[/] ␛]52;c;cm0gLXJmIH4K␇copied?" in plain(
            screen.query_one("#keys"))
        assert_terminal_safe(app)
        await pilot.press("a")  # the rule shown in the scope question
        assert "␛]52" in plain(screen.query_one("#keys"))
        assert_terminal_safe(app)
        await pilot.press("escape", "e")
        editor = screen.query_one("#edit-command", Input)
        assert "\x1b" not in editor.value and "␛[31mred" in editor.value
        assert_terminal_safe(app)
        await pilot.press("end", "!", "enter")
        await pilot.pause()
    assert tripwire.calls == []
    # The edit keeps the command's own bytes: only the person's "!" changed.
    assert app.answers == [RunEdited(HOSTILE_COMMAND + "!")]


async def test_approval_of_a_hostile_edit_shows_it_literally(monkeypatch):
    content = SHORT_HOSTILE + "\n"
    path = "src/" + file_name("osc title", HOSTILE["osc title"] + HOSTILE["closing tag"])
    request = ApprovalRequest("c1", "write_file", "edit", f"write_file: {path}",
                              HOSTILE["unbalanced tags"], EditDetails(path, "", content,
                                                                     HOSTILE["emoji code"]),
                              editable=True)
    screen = ApprovalScreen(request)
    app = ScreenHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        tripwire = Tripwire(app, monkeypatch)
        await pilot.pause()
        assert plain(screen.query_one("#details")) == HOSTILE["emoji code"]
        lines = screen.query_one(DiffView).plain_lines(130)
        assert any("␛]0;pwned title␇after[∕x] closing" in line for line in lines)  # the name
        shown = "\n".join(lines)
        for sample in ("[@click=app.quit]press me[/]", "[link=https://evil.example]docs",
                       "␛[2J␛[H", "invoice_<U+202E>gnp.exe", "pass<U+200B>word"):
            assert sample in shown
        assert_terminal_safe(app)
        await pilot.press("e")
        editor = screen.query_one("#edit-content", TextArea)
        assert "\x1b" not in editor.text and "␛]52;c;" in editor.text
        assert_terminal_safe(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert tripwire.calls == []
    assert app.answers == [WriteEdited(content)]  # written as it was, escapes and all


async def test_approval_of_hostile_arguments_shows_them_literally(monkeypatch):
    request = ApprovalRequest("c1", HOSTILE["click action"], "info",
                              f"{HOSTILE['link']}: fetch", HOSTILE["osc 8 link"],
                              ArgumentDetails(SHORT_HOSTILE))
    screen = ApprovalScreen(request)
    app = ScreenHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        tripwire = Tripwire(app, monkeypatch)
        await pilot.pause()
        assert plain(screen.query_one("#tool-name")) == "[@click=app.quit]press me[/]"
        arguments = plain(screen.query_one("#arguments"))
        assert "[@click=app.bell()]ring[/]" in arguments and "nul␀ bell␇" in arguments
        assert plain(screen.query_one("#why")).startswith("Needs approval: ␛]8;;https://")
        assert_terminal_safe(app)
        await pilot.press("n")
        await pilot.pause()
    assert tripwire.calls == [] and len(app.answers) == 1


# -- compaction, diff review, rewind ------------------------------------------------------


async def test_the_approval_inbox_shows_hostile_calls_literally(monkeypatch):
    import asyncio

    from agent_tui.tui.screens.inbox import InboxScreen
    from agent_tui.tui.workbench.approver import PendingApproval, TuiApprover

    host = ScreenHost(Screen())
    async with host.run_test(size=SIZE) as pilot:
        tripwire = Tripwire(host, monkeypatch)
        approver = TuiApprover(host, front_session=lambda: "front")
        loop = asyncio.get_running_loop()
        for number, session in enumerate(("front", HOSTILE["osc title"]), 1):
            approver.pending.append(PendingApproval(number, session, command_request(), None,
                                                    loop.create_future()))
        host.push_screen(InboxScreen(approver))
        screen = await screen_on(pilot, InboxScreen)
        rows = table_text(screen.query_one(DataTable))
        assert rows[0][1] == "▶ front" and rows[0][3].startswith(
            "shell: printf %s '[@click=app.quit]press me[/]␛[31mred")
        assert rows[1][1] == "␛]0;pwned title␇after"  # another session, named literally
        assert "closing tag: [/x]" in plain(screen.query_one("#inbox-detail"))
        assert_terminal_safe(host)
        await pilot.press("n")
        await pilot.pause()
        assert approver.pending[0].session_id != "front"
    assert tripwire.calls == []


async def test_compaction_shows_the_model_summary_literally(monkeypatch):
    app = ScreenHost(CompactionScreen(ALL_HOSTILE))
    async with app.run_test(size=SIZE) as pilot:
        tripwire = Tripwire(app, monkeypatch)
        await pilot.pause()
        summary = app.screen.query_one(TextArea).text
        assert "\x1b" not in summary and "␛[31mred" in summary and "<U+202E>" in summary
        assert_terminal_safe(app)
        await pilot.press("ctrl+s")  # applied unchanged: the summary as the model wrote it
        await pilot.pause()
    assert tripwire.calls == [] and app.answers == [ALL_HOSTILE]


async def test_diff_review_shows_a_hostile_file_literally(tmp_path, monkeypatch):
    name = "src/" + file_name("closing tag", HOSTILE["closing tag"] + HOSTILE["ansi colour"])
    before = "first\n" + "\n".join(f"line {i}" for i in range(20)) + "\n"
    after = before.replace("line 3\n", SHORT_HOSTILE.replace("\0", "0") + "\n")
    found = [FileChange(name, before.encode(), after.encode(), 0o100644, 0o100644)]
    app = ScreenHost(DiffReviewScreen(tmp_path, found, "Changes [/x] in this session"))
    async with app.run_test(size=SIZE) as pilot:
        tripwire = Tripwire(app, monkeypatch)
        await settle(pilot)
        files = options_text(app.screen.query_one("#files", OptionList))
        assert files[0].startswith("• src/closing_tag=[∕x] closing a tag that was never "
                                   "opened␛[31mred␛[0m") or files[0].startswith(
            "  src/closing_tag=[∕x] closing a tag")
        assert "Changes [/x] in this session" in plain(app.screen.query_one("#review-title"))
        lines = "\n".join(app.screen.query_one(DiffView).plain_lines(130))
        for sample in ("[@click=app.quit]press me[/]", "␛]52;c;cm0gLXJmIH4K␇copied?",
                       "invoice_<U+202E>gnp.exe", ":warning: :smile:"):
            assert sample in lines
        assert_terminal_safe(app)
        await pilot.press("j", "k", "q")
        await pilot.pause()
    assert tripwire.calls == []


async def test_rewind_shows_hostile_prompts_and_files_literally(monkeypatch):
    rows = [TurnRow(n, sample, [file_name(name, sample)])
            for n, (name, sample) in enumerate(SHORT.items())]
    app = ScreenHost(RewindScreen(rows))
    async with app.run_test(size=SIZE) as pilot:
        tripwire = Tripwire(app, monkeypatch)
        await pilot.pause()
        options = options_text(app.screen.query_one("#rewind-turns", OptionList))
        assert options[3].startswith("  3  [@click=app.quit]press me[/]  click_action=")
        assert options[13].startswith(" 13  ␛]0;pwned title␇after")
        for _ in range(len(rows)):
            assert_terminal_safe(app)
            assert "Turn" in plain(app.screen.query_one("#rewind-files"))
            await pilot.press("up")
        await pilot.press("escape")
        await pilot.pause()
    assert tripwire.calls == [] and app.answers == [None]


# -- sessions list/show and export --------------------------------------------------------


def test_sessions_list_and_show_print_no_escape(tmp_path, capsys):
    sessions = record_hostile_sessions(tmp_path / "proj \x1b]0;title\x07")
    for argv in (["list"], ["list", "--json"], ["list", "--search", "click"]):
        assert sessions_cli.main(argv) == 0
        out = capsys.readouterr().out
        assert not UNSAFE.search(out.replace("\n", "").replace("\t", "")), argv
    assert sessions_cli.main(["list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {s["model"] for s in listed} == {f"openai/{sample}"[:200] for sample in sessions.values()}
    for session_id, sample in sessions.items():
        assert sessions_cli.main(["show", session_id]) == 0
        out = capsys.readouterr().out
        assert not UNSAFE.search(out.replace("\n", "").replace("\t", ""))
        assert visible(sample) in out or sample.replace("\r", "␍") not in out
        assert sessions_cli.main(["show", session_id, "--json"]) == 0
        out = capsys.readouterr().out
        assert not UNSAFE.search(out.replace("\n", ""))
        shown = json.loads(out)  # the same data, escaped
        assert shown["events"][0]["text"] == sample
    assert sessions_cli.main(["show", "s03"]) == 0
    assert "[@click=app.quit]press me[/]" in capsys.readouterr().out
    assert sessions_cli.main(["show", "no-such \x1b[2J"]) == 1
    assert "\x1b" not in capsys.readouterr().err


def test_export_writes_escapes_visibly(tmp_path):
    sessions = record_hostile_sessions(tmp_path / "proj")
    for session_id, sample in sessions.items():
        markdown = to_markdown(read_events(session_id))
        assert not UNSAFE.search(markdown.replace("\n", "").replace("\t", ""))
        if sample in ONE_LINE.values():
            assert f"# {visible(sample)[:80]}" in markdown or f"# {visible(sample[:80])}" \
                in markdown
    assert "␛]52;c;cm0gLXJmIH4K␇copied?" in to_markdown(read_events("s11"))
