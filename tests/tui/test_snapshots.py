"""Snapshots of the main screen: idle, streaming, with todos, and in each of our themes."""

from __future__ import annotations

import time as real_time
from pathlib import Path

import pytest

from agent_tui.core.calls import pipeline as call_pipeline
from agent_tui.themes import THEMES
from agent_tui.tui.app import make_app
from agent_tui.tui.widgets import tool_log, waiting
from agent_tui.tui.widgets.prompt import PromptInput
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import Fault, Reply, ToolCall

SIZE = (120, 36)
# A fixed folder, so the status bar shows the same path on every machine.
PROJECT = Path("/tmp/agent-tui-snapshots/project")


class FixedClock:
    """The tool log's clock, frozen at 12:00:00 local time."""

    @staticmethod
    def time() -> float:
        return 0.0

    @staticmethod
    def localtime(_seconds: float):
        return real_time.struct_time((2026, 1, 1, 12, 0, 0, 3, 1, 0))

    strftime = staticmethod(real_time.strftime)


class FrozenMonotonic:
    """The engine's stopwatch, stopped: every tool call takes 0.0 s on screen."""

    @staticmethod
    def monotonic() -> float:
        return 0.0


@pytest.fixture
def project(monkeypatch):
    PROJECT.mkdir(parents=True, exist_ok=True)
    (PROJECT / "hello.txt").write_text("hello\n")
    monkeypatch.setattr(tool_log, "time", FixedClock)
    monkeypatch.setattr(call_pipeline, "time", FrozenMonotonic)
    monkeypatch.setattr(waiting, "time", FrozenMonotonic)  # every wait shown at 0.0 s
    return PROJECT


def snapshot_app(fake, **overrides):
    settings = settings_for(fake, **overrides)
    return make_app(settings, PROJECT, load_litellm=False, session_id="0123456789ab")


async def _until(pilot, condition, timeout=15.0):
    deadline = real_time.monotonic() + timeout
    while not condition():
        assert real_time.monotonic() < deadline, "timed out waiting for the app"
        await pilot.pause(0.05)


async def _steady(pilot):
    """No blinking cursor: a snapshot must not depend on the blink phase."""
    pilot.app.query_one(PromptInput).cursor_blink = False


def _submit(text):
    async def run_before(pilot):
        await _steady(pilot)
        prompt = pilot.app.query_one(PromptInput)
        prompt.text = text
        await pilot.press("enter")
    return run_before


def test_idle_main_screen(snap_compare, fake_provider, project):
    """A fresh workbench: empty conversation, an empty context bar with its 50/60/70/80 %
    marks, "No todos yet.", an empty tool log, the prompt focused at the bottom and the
    status bar reading "idle  openai/fake-model │ mode: default │ /tmp/…/project"."""
    assert snap_compare(snapshot_app(fake_provider), terminal_size=SIZE, run_before=_steady)


def test_main_screen_with_a_finished_turn_and_todos(snap_compare, fake_provider, project):
    """After one turn: the user's prompt, the agent's Markdown answer, two compact tool
    blocks (read_file and todo_write, both ✓), the todo list with one ticked and one open
    item, two rows in the tool log, and the context gauge at 2.0K / 128.0K."""
    fake_provider.script(
        Reply(text="Let me **read** it.", usage=(1200, 20),
              tool_calls=[ToolCall("read_file", {"file_path": "hello.txt"})]),
        Reply(usage=(1500, 30), tool_calls=[ToolCall(
            "todo_write", {"content": "- [x] read hello.txt\n- [ ] answer\n"})]),
        Reply(text="The file says **hello**.", usage=(1900, 100)),
    )
    submit = _submit("what does hello.txt say?")

    async def run_before(pilot):
        await submit(pilot)
        await _until(pilot, lambda: len(fake_provider.requests) == 3 and not pilot.app.busy)
        await pilot.pause(0.3)

    assert snap_compare(snapshot_app(fake_provider), terminal_size=SIZE, run_before=run_before)


def test_main_screen_while_streaming(snap_compare, fake_provider, project):
    """Mid-answer: the agent block shows the text streamed so far, with the blank rows it
    grows into below it (three rows at a time while it streams), and the status bar reads
    "⠋ openai/fake-model is answering · 0.0 s"."""
    fake_provider.script(Fault.stall(seconds=10, text="Reading the project layout first"))
    submit = _submit("map the project")

    async def run_before(pilot):
        await submit(pilot)
        await _until(pilot, lambda: "Reading" in "".join(
            b.text for b in pilot.app.query("AssistantBlock")))
        await pilot.pause(0.3)

    assert snap_compare(snapshot_app(fake_provider, stream_idle_timeout=60),
                        terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("theme", [t.name for t in THEMES])
def test_each_theme(snap_compare, fake_provider, project, theme):
    """The main screen after a short exchange in each of agent-tui's own themes (dark,
    light, high contrast): borders, the status bar and text in that theme's colours."""
    fake_provider.script(Reply(text="Hello! Ask me about **this project**.", usage=(900, 12)))
    app = snapshot_app(fake_provider, theme=theme)
    submit = _submit("hi")

    async def run_before(pilot):
        await submit(pilot)
        await _until(pilot, lambda: len(fake_provider.requests) == 1 and not pilot.app.busy)
        await pilot.pause(0.3)

    assert app.theme == theme
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)



# --------------------------------------------------------------------------- diff review

REVIEW_PROJECT = Path("/tmp/agent-tui-snapshots/review")
REVIEW_SOURCE = "".join(f"def step_{i}(x):\n    return x + {i}\n" for i in range(30))
REVIEW_EDITED = (REVIEW_SOURCE.replace("    return x + 3\n", "    return x + 3  # three\n")
                 .replace("def step_25(x):\n", "def step_25(x, z=0):\n"))


def _review_host(changes):
    """The review screen over a bare app styled like the workbench."""
    from textual import work
    from textual.app import App

    from agent_tui.themes import STYLESHEET
    from agent_tui.tui.screens.diff_review import DiffReviewScreen

    class ReviewHost(App[None]):
        CSS_PATH = str(STYLESHEET)

        def __init__(self) -> None:
            super().__init__()
            for theme in THEMES:
                self.register_theme(theme)
            self.theme = THEMES[0].name

        def on_mount(self) -> None:
            self.review()

        @work
        async def review(self) -> None:
            await self.push_screen_wait(
                DiffReviewScreen(REVIEW_PROJECT, changes, "Changes in this session"))

    return ReviewHost()


def test_diff_review_with_a_rejected_hunk(snap_compare):
    """The review screen: the title "Changes in this session · 3 files · file 1 of 3 ·
    1 rejected (reverted) · 3 to review"; the file list with "✗ app.py  +2 -2 · 1 rejected,
    1 to review" highlighted, "logo.png  binary, 7 → 7 bytes" and "notes.md  new file, +3";
    app.py side by side with Python colours: "▶ hunk 1 of 2 · line 8 → line 8" highlighted as
    the cursor, `return x + 3` on a red tint beside `return x + 3  # three` on a green one
    with "  # three" emphasised, then "─ ✗ hunk 2 of 2 · line 51 → line 51 · rejected and
    reverted: keep the signature" with its lines greyed out; the keys at the bottom and the
    line "Rejecting reverts the file on disk at once (a puts a hunk back); the model is told
    what you rejected when you close."."""
    from agent_tui.core.changes.checkpoints import FileChange

    REVIEW_PROJECT.mkdir(parents=True, exist_ok=True)
    (REVIEW_PROJECT / "app.py").write_text(REVIEW_EDITED)
    (REVIEW_PROJECT / "logo.png").write_bytes(b"\x89PNG\0\0\x02")
    (REVIEW_PROJECT / "notes.md").write_text("# Notes\n\nbuy milk\n")
    changes = [
        FileChange("app.py", REVIEW_SOURCE.encode(), REVIEW_EDITED.encode(), 0o100644, 0o100644),
        FileChange("logo.png", b"\x89PNG\0\0\x01", b"\x89PNG\0\0\x02", 0o100644, 0o100644),
        FileChange("notes.md", None, b"# Notes\n\nbuy milk\n", None, 0o100644),
    ]

    async def reject_the_second_hunk(pilot):
        await pilot.pause()
        await pilot.press("j", "r", *"keep the signature", "enter")
        await pilot.pause()
        await pilot.press("p")  # back to app.py, at its first hunk
        await pilot.pause(0.3)

    assert snap_compare(_review_host(changes), terminal_size=SIZE,
                        run_before=reject_the_second_hunk)


def test_diff_review_of_a_session_without_changes(snap_compare):
    """The review screen with nothing to review: the title "Changes in this session", "No
    changes yet." in the middle of the screen with "The files the agent changes in this
    session appear here; /diff TURN shows one turn's." under it, and the keys line reading
    only "q close"."""
    assert snap_compare(_review_host([]), terminal_size=SIZE)
