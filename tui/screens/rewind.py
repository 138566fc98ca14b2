"""/rewind: pick a turn and go back to before it, in the conversation, the files, or both."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from ...core.changes.checkpoints import Checkpoints
from ..outside_text import outside_text, visible
from .key_help import key_help

PROMPT_WIDTH = 60
"""The first line of a prompt is cut to this many characters in the list."""

FILES_SHOWN = 3
"""How many changed files a row names before it says how many more there are."""


@dataclass(frozen=True, slots=True)
class TurnRow:
    """One turn as the rewind screen lists it.

    Attributes:
        turn: The turn's number (0 for the session's first prompt).
        prompt: The person's prompt of that turn.
        files: The files the turn changed (project-relative), empty for none.
        undone: Whether /undo or /rewind already put its files back.
    """

    turn: int
    prompt: str
    files: list[str] = field(default_factory=list)
    undone: bool = False


@dataclass(frozen=True, slots=True)
class RewindChoice:
    """What the person chose: go back to before ``turn`` in the conversation, the files or both."""

    turn: int
    conversation: bool
    files: bool


def describe_files(files: list[str]) -> str:
    """``a.py, b.py, c.py +2`` for a row, or ``no file changes``."""
    if not files:
        return "no file changes"
    shown = visible(", ".join(files[:FILES_SHOWN]))
    more = len(files) - FILES_SHOWN
    return f"{shown} +{more}" if more > 0 else shown


class RewindScreen(ModalScreen["RewindChoice | None"]):
    """Lists the session's turns, newest highlighted; single keys pick what to rewind.

    ``c`` rewinds the conversation to before the highlighted turn (in a copy of the session:
    the original stays whole), ``f`` puts the files back as they were before it (undoing
    that turn and every later one), ``b`` does both; ``escape`` leaves without a change.
    """

    CSS_PATH = "rewind.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "choose(True, False)", "conversation"),
        Binding("f", "choose(False, True)", "files"),
        Binding("b", "choose(True, True)", "both"),
        Binding("escape,q", "cancel", "cancel"),
    ]

    def __init__(self, rows: list[TurnRow], *, files_available: bool = True) -> None:
        """List ``rows``; ``files_available`` is False when checkpoints are off (no git)."""
        super().__init__()
        self.rows = rows
        self.files_available = files_available

    def compose(self) -> ComposeResult:
        """The turns, the highlighted turn's files, and the keys."""
        with Vertical(id="rewind-dialog"):
            yield Label("Rewind to before which turn?", id="rewind-title")
            yield OptionList(*(self._option(row) for row in self.rows), id="rewind-turns")
            yield Static("", id="rewind-files")
            keys = [("c", "conversation"), ("f", "files"), ("b", "both"), ("esc", "cancel")]
            if not self.files_available:
                keys = [("c", "conversation"), ("esc", "cancel")]
            yield Static(key_help(keys), id="rewind-keys")

    def on_mount(self) -> None:
        """Highlight the newest turn."""
        turns = self.query_one("#rewind-turns", OptionList)
        if self.rows:
            turns.highlighted = len(self.rows) - 1
        else:
            self.query_one("#rewind-files", Static).update("This session has no turns yet.")
        turns.focus()

    def _option(self, row: TurnRow) -> Option:
        first_line = visible((row.prompt.strip().splitlines() or [""])[0])
        if len(first_line) > PROMPT_WIDTH:
            first_line = first_line[: PROMPT_WIDTH - 1] + "…"
        label = Text.assemble((f"{row.turn:>3}  ", "bold"), first_line)
        label.append(f"  {describe_files(row.files)}", style="dim")
        if row.undone:
            label.append("  (undone)", style="italic dim")
        return Option(label, id=str(row.turn))

    @property
    def highlighted(self) -> TurnRow | None:
        """The row under the cursor."""
        index = self.query_one("#rewind-turns", OptionList).highlighted
        return self.rows[index] if index is not None and 0 <= index < len(self.rows) else None

    @on(OptionList.OptionHighlighted, "#rewind-turns")
    def _show_files(self) -> None:
        row = self.highlighted
        if row is None:
            return
        text = (f"Turn {row.turn} changed: {', '.join(row.files)}" if row.files
                else f"Turn {row.turn} changed no files.")
        later = sum(len(r.files) > 0 and not r.undone for r in self.rows if r.turn > row.turn)
        if later:
            text += f" Files also go back from {later} later turn(s) that changed files."
        # File names are literal text, never markup or escapes.
        self.query_one("#rewind-files", Static).update(outside_text(text))

    @on(OptionList.OptionSelected, "#rewind-turns")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.notify("Press c to rewind the conversation, f the files, b both.", timeout=3)

    def action_choose(self, conversation: bool, files: bool) -> None:
        """Dismiss with the highlighted turn and what to rewind."""
        row = self.highlighted
        if row is None:
            return
        if files and not self.files_available:
            self.notify("Checkpoints are off (git was not found), so files cannot be "
                        "rewound; press c for the conversation.", severity="error")
            return
        self.dismiss(RewindChoice(row.turn, conversation, files))

    def action_cancel(self) -> None:
        """Leave without rewinding anything."""
        self.dismiss(None)


def turn_rows(events: list[dict[str, Any]], checkpoints: Checkpoints | None) -> list[TurnRow]:
    """The rows for :class:`RewindScreen` from a session's log and its checkpoints.

    Blocks on git: call it off the event loop.
    """
    prompts = [str(e.get("text", "")) for e in events if e.get("type") == "user_message"]
    changed: dict[int, list[str]] = {}
    undone: set[int] = set()
    if checkpoints is not None:
        for turn in checkpoints.turns():
            changed[turn] = checkpoints.changed_paths(turn)
        undone = checkpoints.undone()
    return [TurnRow(n, prompt, changed.get(n, []), n in undone and n in changed)
            for n, prompt in enumerate(prompts)]
