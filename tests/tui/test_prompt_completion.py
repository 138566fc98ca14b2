"""Completion in the prompt: the fuzzy matcher, ``/`` commands and the ``@`` file picker."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from agent_tui.tui.app import SLASH_COMMANDS
from agent_tui.tui.widgets.completion import (
    CompletionList,
    fuzzy_score,
    list_project_files,
    rank,
)
from agent_tui.tui.widgets.prompt import DEFAULT_COMMANDS, SHOWN, PromptInput
from tests.tui.test_app import until

# -- the matcher ------------------------------------------------------------------------------


def test_fuzzy_score_matches_subsequences_only() -> None:
    assert fuzzy_score("mdl", "/model") is not None
    assert fuzzy_score("ldm", "/model") is None
    assert fuzzy_score("MAIN", "src/main.py") is not None
    assert fuzzy_score("", "anything") is not None


def test_prefix_beats_substring_beats_scattered() -> None:
    prefix = fuzzy_score("ma", "main.py")
    substring = fuzzy_score("ma", "src/format.py")
    scattered = fuzzy_score("ma", "src/my_app.py")
    assert prefix is not None and substring is not None and scattered is not None
    assert prefix > substring > scattered


def test_basename_and_contiguous_matches_win() -> None:
    assert rank("main", ["m/a/i/n/x.py", "src/main.py", "domain_data/notes.txt"]) == [
        "src/main.py", "domain_data/notes.txt", "m/a/i/n/x.py"]
    # The tight window finds the contiguous run even after a scattered one.
    assert rank("opt", ["o_p_t/readme.md", "widgets/option_list.py"])[0] == (
        "widgets/option_list.py")


def test_rank_limits_drops_misses_and_keeps_order_among_ties() -> None:
    names = list(DEFAULT_COMMANDS)
    assert rank("/mod", names) == ["/model", "/mode"]
    assert rank("/", names, limit=3) == names[:3]
    assert rank("/zz", names) == []


def test_default_commands_mirror_the_workbench() -> None:
    assert DEFAULT_COMMANDS == SLASH_COMMANDS


# -- the project's files -----------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository with a few files and one that .gitignore hides."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("print('hi')\n")
    (tmp_path / "src" / "markup.py").write_text("")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "manual.md").write_text("")
    (tmp_path / "README.md").write_text("")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "main_generated.py").write_text("")
    (tmp_path / ".gitignore").write_text("build/\n")
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


@pytest.mark.skipif(not shutil.which("git"), reason="needs git")
def test_files_respect_gitignore(project: Path) -> None:
    files = list_project_files(project)
    assert "src/main.py" in files and "README.md" in files
    assert not any(path.startswith("build/") for path in files)


def test_files_without_git_skip_tool_folders(tmp_path: Path) -> None:
    (tmp_path / "node_modules" / "x").mkdir(parents=True)
    (tmp_path / "node_modules" / "x" / "index.js").write_text("")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "a.pyc").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("")
    assert list_project_files(tmp_path) == ["pkg/a.py"]
    assert len(list_project_files(tmp_path, limit=0)) <= 1


# -- the prompt, driven with the pilot ----------------------------------------------------------


class PromptHost(App[None]):
    """The prompt where the workbench puts it: under a conversation, in a column."""

    CSS = """
    #conversation { height: 1fr; }
    #prompt { height: auto; min-height: 3; max-height: 10; border: round $primary; }
    """
    BINDINGS = [Binding("escape", "cancel_turn", "Cancel")]

    def __init__(self, workdir: Path) -> None:
        super().__init__()
        self.workdir = workdir
        self.submitted: list[str] = []
        self.cancelled = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="left"):
            yield Static("The conversation would be here.", id="conversation")
            yield PromptInput(id="prompt", workdir=self.workdir)

    def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        self.submitted.append(message.text)

    def action_cancel_turn(self) -> None:
        self.cancelled += 1


def options(app: App[Any]) -> list[str]:
    popup = app.query_one(CompletionList)
    if not popup.is_open:
        return []
    return [str(popup.get_option_at_index(i).id) for i in range(popup.option_count)]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_slash_opens_commands_and_tab_inserts(project: Path, size: tuple[int, int]) -> None:
    app = PromptHost(project)
    async with app.run_test(size=size) as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press("/", "m", "o", "d")
        await pilot.pause()
        assert options(app) == ["/model", "/mode"]
        popup = app.query_one(CompletionList)
        # Right above the prompt, inside the screen, without pushing anything around.
        assert popup.region.bottom == prompt.region.y
        assert popup.region.y >= 0 and popup.region.height <= 12
        assert app.query_one("#conversation").region.bottom == prompt.region.y
        await pilot.press("down", "tab")
        assert prompt.text == "/mode "
        await pilot.pause()
        assert not popup.is_open
        assert app.focused is prompt and app.submitted == []


async def test_escape_closes_the_list_without_cancelling(project: Path) -> None:
    app = PromptHost(project)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("/")
        await pilot.pause()
        assert len(options(app)) == min(len(DEFAULT_COMMANDS), SHOWN)
        await pilot.press("escape")
        assert options(app) == [] and app.cancelled == 0
        assert app.query_one(PromptInput).text == "/"
        await pilot.press("left", "right")  # moving the cursor does not bring it back
        await pilot.pause()
        assert options(app) == []
        await pilot.press("escape")  # closed now: Esc reaches the app again
        assert app.cancelled == 1
        await pilot.press("m")  # typing does
        await pilot.pause()
        assert options(app)[:2] == ["/model", "/mode"]


async def test_enter_runs_a_command_without_arguments(project: Path) -> None:
    app = PromptHost(project)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("/", "h", "e", "enter")
        await pilot.pause()
        assert app.submitted == ["/help"]
        await pilot.press("/", "t", "h", "enter")
        await pilot.pause()
        assert app.query_one(PromptInput).text == "/theme "
        assert app.submitted == ["/help"]


async def test_at_picks_a_file_and_never_an_ignored_one(project: Path) -> None:
    app = PromptHost(project)
    async with app.run_test(size=(80, 24)) as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press(*"look at @ma")
        await until(pilot, lambda: bool(options(app)))
        assert options(app)[0] == "src/main.py"
        assert "build/main_generated.py" not in options(app)
        await pilot.press("enter")
        assert prompt.text == "look at src/main.py "
        assert app.submitted == []
        await pilot.pause()
        assert options(app) == []
        await pilot.press(*"@")
        await pilot.pause()
        shown = options(app)
        assert 0 < len(shown) <= 10 and not any(p.startswith("build/") for p in shown)
        await pilot.press("escape")
        assert options(app) == []


async def test_up_and_down_walk_the_list_then_history(project: Path) -> None:
    app = PromptHost(project)
    async with app.run_test(size=(80, 24)) as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press(*"@m")
        await until(pilot, lambda: len(options(app)) >= 2)
        second = options(app)[1]
        await pilot.press("down", "tab")
        assert prompt.text == f"{second} "
        await pilot.press("enter")
        assert app.submitted == [f"{second} "]
        await pilot.press("up")
        await pilot.pause()
        assert prompt.text == f"{second} " and options(app) == []


async def test_enter_with_the_list_closed_submits(project: Path) -> None:
    app = PromptHost(project)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"hello", "ctrl+j", *"world", "enter")
        assert app.submitted == ["hello\nworld"]
        await pilot.press("/", "x", "x", "enter")  # nothing matches: no list, so it submits
        assert app.submitted == ["hello\nworld", "/xx"]
        app.query_one(PromptInput).text = "/help"  # a recalled or pasted text opens it too
        await pilot.pause()
        await pilot.press("enter")
        assert app.submitted[-1] == "/help"
        await pilot.press("up")  # a recalled command does not reopen the list
        await pilot.pause()
        assert app.query_one(PromptInput).text == "/help" and options(app) == []
        await pilot.press("up")
        assert app.query_one(PromptInput).text == "/xx"


async def test_a_click_picks_a_completion(project: Path) -> None:
    app = PromptHost(project)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("/", "m", "o")
        await pilot.pause()
        popup = app.query_one(CompletionList)
        await pilot.click(CompletionList, offset=(3, 2))  # the second row: /mode
        await pilot.pause()
        assert app.query_one(PromptInput).text == "/mode "
        assert not popup.is_open and app.focused is app.query_one(PromptInput)


def test_snapshot_file_picker(snap_compare: Any, project: Path) -> None:
    """A person sees an empty area with "The conversation would be here." at the top, and
    at the bottom the prompt (a rounded box) holding "explain @ma". Just above it, flush
    with it, floats a box titled "files" listing "main.py  src" (highlighted, first),
    "markup.py  src" and "manual.md  docs": each file's name, then its folder in a muted
    colour; nothing from the ignored build/ folder appears."""

    async def type_query(pilot: Any) -> None:
        # A blinking cursor would make the picture depend on timing; keep it steadily on.
        pilot.app.query_one(PromptInput).cursor_blink = False
        await pilot.press(*"explain @ma")
        await until(pilot, lambda: len(options(pilot.app)) == 3)

    assert snap_compare(PromptHost(project), terminal_size=(100, 32), run_before=type_query)
