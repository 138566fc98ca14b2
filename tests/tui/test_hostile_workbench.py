"""The live workbench over hostile text: the model's answers, tool arguments and output, file
names, todos, errors and the completion list all carry every sample of ``HOSTILE``.

Nothing may crash, each sample must show literally (escape sequences as visible pictures),
no app action may run and no ESC byte may reach the terminal.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Markdown, Static

from agent_tui.core.calls import pipeline as call_pipeline
from agent_tui.core.events import ErrorEvent, StreamRestart
from agent_tui.core.safety.preview import CommandPreview
from agent_tui.core.safety.preview_changes import FileChange
from agent_tui.tui.cli.headless import run_headless
from agent_tui.tui.outside_text import outside_text, visible
from agent_tui.tui.widgets import tool_log
from agent_tui.tui.widgets.assistant_block import AssistantBlock
from agent_tui.tui.widgets.command_preview import CommandPreviewView
from agent_tui.tui.widgets.conversation import NoticeBlock, ToolBlock, UserBlock
from agent_tui.tui.widgets.markdown_run import StreamedRun
from agent_tui.tui.widgets.panels import StatusBar, TodoPane
from agent_tui.tui.widgets.prompt import PromptInput
from agent_tui.tui.widgets.tool_log import ToolLog
from agent_tui.tui.workbench.bridge import EventBridge
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import Fault, Reply, ToolCall
from tests.tui.hostile_text import ALL_HOSTILE, HOSTILE, SHORT_HOSTILE
from tests.tui.test_app import app_for, type_prompt, until
from tests.tui.test_snapshots import FixedClock, FrozenMonotonic

SIZE = (120, 40)
SHORT = {name: text for name, text in HOSTILE.items() if name != "long line"}
"""The samples that fit in a file name, a table cell or a line of the status bar."""
TEXT_FILE_SAMPLES = {name: text for name, text in SHORT.items()
                     if not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text)}
"""The samples a text file may hold: read_file calls a file with control bytes binary."""
ALLOWED_CLICKS = re.compile(r"^link\('https?://[^'\\]*'\)$")
"""The only click action hostile text may bring on screen: a Markdown link to a web address
(a written-out URL is a link too), which opens in the browser and runs no app action."""


# -- what the screen shows ----------------------------------------------------------------


def hostile_file_name(name: str, text: str) -> str:
    """A file name carrying ``text`` (no ``/`` or NUL, within the file system's limit)."""
    return (name.replace(" ", "_") + "=" + text.replace("/", "∕").replace("\0", "0"))[:120]


def plain(widget: Widget) -> str:
    """The text a widget shows (a Markdown block: all its blocks' text)."""
    if isinstance(widget, Markdown):
        return "\n".join(plain(child) for child in widget.query(Static))
    return str(widget.render())


def squash(text: str) -> str:
    """``text`` with runs of white space as one space (Markdown joins lines)."""
    return re.sub(r"\s+", " ", text).strip()


def screen_strips(app: App[Any]) -> list[Strip]:
    """The screen as the terminal would get it: every line's segments."""
    return app.screen._compositor.render_strips()


def assert_terminal_safe(app: App[Any]) -> None:
    """No ESC or other control byte in the screen's text, and no click action but ours."""
    for strip in screen_strips(app):
        for segment in strip:
            assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", segment.text), repr(segment.text)
            action = segment.style.meta.get("@click") if segment.style else None
            assert action is None or ALLOWED_CLICKS.match(str(action)), action


class Tripwire:
    """Counts the app actions hostile text might reach for (bell, quit, screen dismissal)."""

    def __init__(self, app: App[Any], monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[str] = []
        self.opened: list[str] = []
        for name in ("bell", "action_bell", "action_quit", "exit"):
            monkeypatch.setattr(app, name, self._record(name))
        monkeypatch.setattr(app, "open_url", lambda url, **_: self.opened.append(url))

    def _record(self, name: str) -> Any:
        def called(*args: Any, **kwargs: Any) -> None:
            self.calls.append(name)
        return called


# -- the workbench through a turn --------------------------------------------------------


def write_hostile_project(folder: Path) -> list[str]:
    """Files in ``folder`` named with each short sample and holding every sample."""
    (folder / "hostile.txt").write_text(ALL_HOSTILE + "\n")
    names = [hostile_file_name(name, text) for name, text in SHORT.items()]
    for name in names:
        (folder / name).write_text("\n".join(TEXT_FILE_SAMPLES.values()) + "\n")
    return names


LONG_ANSWER_LINE = " ".join(f"word{i}" for i in range(1000))
"""The long line of an answer: litellm cuts a stream that repeats one chunk (``x`` * 5000)."""
ANSWER_SAMPLES = {**HOSTILE, "long line": LONG_ANSWER_LINE}
"""What the model answers: every sample, the long line made of words."""


def answer_of_every_sample() -> str:
    """The model's answer: each sample a paragraph of its own, and a link of ours."""
    return "\n\n".join([*ANSWER_SAMPLES.values(), "[ok](https://example.com/ok)"])


async def test_a_turn_full_of_hostile_text_shows_it_literally(fake_provider, tmp_path,
                                                                monkeypatch):
    names = write_hostile_project(tmp_path)
    todos = "\n".join(f"- [ ] {text}" for text in SHORT.values())
    fake_provider.script(
        Reply(text=answer_of_every_sample()),
        Reply(text=SHORT_HOSTILE, tool_calls=[
            ToolCall("shell", {"command": "cat hostile.txt"}),
            ToolCall("read_file", {"file_path": names[3]}),
            ToolCall("read_file", {"file_path": "missing " + SHORT["click action"]}),
            ToolCall("todo_write", {"content": todos}),
        ]),
        Reply(text="done"),
        Fault.server_error(400, message=SHORT_HOSTILE),
    )
    app = app_for(fake_provider, tmp_path, approval_mode="yolo",
                  model="openai/" + SHORT["osc title"])
    async with app.run_test(size=SIZE) as pilot:
        trip = Tripwire(app, monkeypatch)
        await type_prompt(pilot, SHORT_HOSTILE)
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1)
        await pilot.pause(0.2)

        # The person's prompt and the model's answer: each sample shown literally.
        # (The prompt box itself turned the carriage return and form feed into new lines.)
        user = app.query(UserBlock).first()
        assert HOSTILE["click action"] in user.text and plain(user) == visible(user.text)
        answer = squash(plain(app.query_one(AssistantBlock)))
        for name, text in ANSWER_SAMPLES.items():
            shown = squash(visible(text))
            if name == "rich markup escape":
                shown = shown.replace("\\[", "[").replace("\\\\", "\\")  # Markdown's
            assert shown in answer, name
        assert_terminal_safe(app)

        await type_prompt(pilot, "use the tools")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 3)
        await type_prompt(pilot, "and now fail")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 4)
        bridge = EventBridge(app, secrets=())
        bridge(StreamRestart(attempt=1, delay=0.0, reason=SHORT_HOSTILE))
        bridge(ErrorEvent(SHORT_HOSTILE))
        await pilot.pause(0.3)

        blocks = list(app.query(ToolBlock))
        assert [b.status for b in blocks] == ["ok", "ok", "error", "ok"]
        for block in blocks:
            block.action_toggle()
        await pilot.pause()
        shell, read, missing, _ = (plain(b) for b in blocks)
        for text in HOSTILE.values():
            assert outside_text(text, ansi=True).plain in shell
        for text in TEXT_FILE_SAMPLES.values():
            assert visible(text) in read
        assert visible(names[3]) in read
        assert visible(SHORT["click action"]) in missing

        log = app.query_one(ToolLog)
        assert log.table.row_count == 4
        rows = [[str(getattr(cell, "plain", cell)) for cell in log.table.get_row_at(i)]
                for i in range(4)]
        assert visible(names[3])[:40] in rows[1][2]
        log.table.move_cursor(row=0)
        await pilot.pause()
        detail = plain(log.query_one("#tool-detail", Static))
        for text in SHORT.values():
            assert outside_text(text, ansi=True).plain in detail

        todo_text = plain(app.query_one(TodoPane))
        for text in SHORT.values():  # (a carriage return or form feed ends a todo line)
            for piece in text.splitlines():
                assert visible(piece).strip() in todo_text

        notices = "\n".join(plain(n) for n in app.query(NoticeBlock))
        assert visible(SHORT_HOSTILE) in notices  # the error event, as it came
        assert "\\x1b" not in notices
        assert visible(SHORT["osc title"]) in plain(app.query_one(StatusBar))

        # Nothing ran, nothing crashed, nothing raw reaches the terminal.
        assert app.is_running and trip.calls == [] and trip.opened == []
        for widget in app.query("*"):
            if isinstance(widget, Static | Markdown):
                assert "\x1b" not in plain(widget)
        app.conversation.scroll_home(animate=False)
        await pilot.pause()
        assert_terminal_safe(app)
        app.conversation.scroll_end(animate=False)
        await pilot.pause()
        assert_terminal_safe(app)


async def test_markdown_links_open_only_http_and_never_run_app_actions(
        fake_provider, tmp_path, monkeypatch):
    fake_provider.script(Reply(text="[quit](app.quit)\n\n[bell](javascript:app.bell())\n\n"
                                    "[file](file:///etc/passwd)\n\n"
                                    "[ok](https://example.com/ok)"))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        trip = Tripwire(app, monkeypatch)
        await type_prompt(pilot, "links")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1)
        await pilot.pause(0.2)
        # The four paragraphs are drawn in one run, a blank line between two.
        run = app.query_one(AssistantBlock).query_one(StreamedRun)
        assert len(run.parts) == 4
        for line in (0, 2, 4, 6):
            await pilot.click(run, offset=(1, line))
            await pilot.pause()
        assert trip.opened == ["https://example.com/ok"]
        assert app.is_running and trip.calls == []


async def test_completion_list_shows_hostile_file_names_and_commands_literally(
        fake_provider, tmp_path, monkeypatch):
    names = write_hostile_project(tmp_path)
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        trip = Tripwire(app, monkeypatch)
        prompt = app.query_one(PromptInput)
        prompt.focus()
        await pilot.press("@")
        await until(pilot, lambda: prompt.completion.option_count > 0)
        shown = []
        for name, text in SHORT.items():
            prompt.text = "@" + hostile_file_name(name, text).split("=")[0]
            prompt.move_cursor(prompt.document.end)
            await pilot.pause(0.1)
            shown += [str(prompt.completion.get_option_at_index(i).prompt)
                      for i in range(prompt.completion.option_count)]
            assert_terminal_safe(app)
        for name in names:
            folder, _, base = name.rpartition("/")
            assert any(visible(base) in line for line in shown), name
        assert not any("\x1b" in line for line in shown)

        prompt.commands = {f"/{name.replace(' ', '-')}": text for name, text in SHORT.items()}
        prompt.text = "/"
        prompt.move_cursor(prompt.document.end)
        await pilot.pause(0.1)
        lines = [str(prompt.completion.get_option_at_index(i).prompt)
                 for i in range(prompt.completion.option_count)]
        assert any(visible(SHORT["click action"]) in line for line in lines)
        assert not any("\x1b" in line for line in lines)
        assert_terminal_safe(app)

        # Picking a hostile name inserts the real name, for the model to read.
        prompt.text = "@osc_title"
        prompt.move_cursor(prompt.document.end)
        await pilot.pause(0.1)
        await pilot.press("tab")
        assert prompt.text.startswith(hostile_file_name("osc title", SHORT["osc title"]))

        # Pasted text shows (and is sent) with its escapes visible.
        prompt.text = ""
        app.post_message(events.Paste(ALL_HOSTILE))  # as the terminal sends it
        await pilot.pause(0.2)
        assert prompt.text == visible(ALL_HOSTILE.replace("\r", "\n"))
        assert_terminal_safe(app)
        assert app.is_running and trip.calls == []


class PreviewHost(App[None]):
    def compose(self) -> ComposeResult:
        yield CommandPreviewView()


async def test_command_preview_shows_hostile_output_and_paths_literally(monkeypatch):
    name = hostile_file_name("click action", SHORT["click action"])
    diff = "\n".join(["--- a", "+++ b", "@@ -1 +1 @@", *(f"+{t}" for t in SHORT.values())])
    preview = CommandPreview(command="cat", changes=(FileChange(name, "created", diff),),
                             output=SHORT_HOSTILE, exit_code=0, timed_out=False,
                             left_running=(SHORT["osc 52 clipboard"],), duration_s=0.1)
    app = PreviewHost()
    async with app.run_test(size=SIZE) as pilot:
        trip = Tripwire(app, monkeypatch)
        view = app.query_one(CommandPreviewView)
        view.show_preview(preview)
        await pilot.pause()
        shown = plain(view.query_one("#preview-body", Static))
        assert visible(name) in shown
        for text in SHORT.values():  # (a carriage return or form feed ends a line)
            for piece in text.splitlines():
                assert visible(piece) in shown  # the diff
                assert outside_text(piece, ansi=True).plain in shown  # the output
        view.show_unavailable(SHORT_HOSTILE)
        await pilot.pause()
        assert visible(SHORT_HOSTILE) in plain(view.query_one("#preview-body", Static))
        assert_terminal_safe(app)
        assert app.is_running and trip.calls == []


# -- headless ------------------------------------------------------------------------------


@pytest.mark.parametrize("output_format", ["text", "json", "stream-json"])
async def test_headless_writes_no_escape_to_the_terminal(fake_provider, tmp_path,
                                                          output_format):
    names = write_hostile_project(tmp_path)
    fake_provider.script(
        Reply(text=SHORT_HOSTILE, tool_calls=[
            ToolCall("shell", {"command": "cat hostile.txt; exit 3"}),
            ToolCall("read_file", {"file_path": "missing " + SHORT["osc title"]}),
            ToolCall("read_file", {"file_path": names[9]}),
        ]),
        Reply(text=answer_of_every_sample()),
    )
    out, err = io.StringIO(), io.StringIO()
    settings = settings_for(fake_provider, approval_mode="yolo")
    await run_headless(settings, tmp_path, SHORT_HOSTILE, output_format, out, err)
    assert "\x1b" not in out.getvalue()
    assert "\x1b" not in err.getvalue()
    assert visible(names[9]) in err.getvalue() or output_format != "text"
    if output_format == "text":
        assert squash(visible(HOSTILE["click action"])) in squash(out.getvalue())
    else:
        lines = [json.loads(line) for line in out.getvalue().splitlines()]
        assert lines[-1]["type"] == "result"  # JSON keeps the text exact, \x1b as \u001b
        assert HOSTILE["ansi cursor"] in lines[-1]["text"]


# -- the snapshot --------------------------------------------------------------------------

SNAPSHOT_PROJECT = Path("/tmp/agent-tui-snapshots/hostile")


def test_snapshot_transcript_full_of_hostile_text(snap_compare, fake_provider, monkeypatch):
    """A person sees every hostile sample as plain characters. At the top, the end of the
    "you" block: ":warning: :smile: :thumbs_up:", "[notes.txt: 3 lines] [/etc/passwd]", the
    escape sequences as "␛[31mred␛[0m…", "␛]52;c;…␇copied?", "␛]0;pwned title␇after", the
    control characters as pictures (the carriage return and form feed began new lines in the
    prompt box), "invoice_<U+202E>gnp.exe…", "pass<U+200B>word…". Then the "agent" block
    with the tags as paragraphs: "[/x] closing…", "[@click=app.quit]press me[/]",
    "[link=https://evil.example]docs[/link]" (only the address underlined, as Markdown links
    a written URL), "[red on white blink]alarm[/]" unstyled, ":warning:" with no emoji.
    Below, the expanded "✓ shell: cat hostile.txt" block: its arguments, then every sample
    one a line, "red" in red and "bold green" in green, every other escape as a picture,
    "Exit code: 0". On the right the todos as open items ("☐ [/x] closing a tag…"), the tool
    log's two rows (shell, todo_write) and the todo_write call's details. Nothing is styled
    by the samples' own tags: no bold, blink, link or emoji from them."""
    SNAPSHOT_PROJECT.mkdir(parents=True, exist_ok=True)
    (SNAPSHOT_PROJECT / "hostile.txt").write_text(SHORT_HOSTILE + "\n")
    monkeypatch.setattr(tool_log, "time", FixedClock)
    monkeypatch.setattr(call_pipeline, "time", FrozenMonotonic)
    lines = [text for name, text in SHORT.items() if name != "invalid utf-8, decoded"]
    fake_provider.script(
        Reply(text="\n\n".join(lines[:8]), tool_calls=[
            ToolCall("shell", {"command": "cat hostile.txt"}),
            ToolCall("todo_write", {"content": "\n".join(f"- [ ] {t}" for t in lines[:6])}),
        ]),
        Reply(text="\n\n".join(lines[8:])),
    )
    app_settings = settings_for(fake_provider, approval_mode="yolo")
    from agent_tui.tui.app import make_app

    app = make_app(app_settings, SNAPSHOT_PROJECT, load_litellm=False, session_id="0123456789ab")

    async def run_before(pilot):
        pilot.app.query_one(PromptInput).cursor_blink = False
        prompt = pilot.app.query_one(PromptInput)
        prompt.text = "\n".join(lines)
        await pilot.press("enter")
        await until(pilot, lambda: len(fake_provider.requests) == 2 and not pilot.app.busy)
        block = pilot.app.query(ToolBlock).first()
        block.action_toggle()
        block.scroll_visible(animate=False, top=True)
        await pilot.pause(0.3)

    assert snap_compare(app, terminal_size=(140, 60), run_before=run_before)
