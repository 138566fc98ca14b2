"""Ctrl+S in the prompt: search the project's earlier prompts, as readline's reverse search.

Typing narrows the list to the prompts holding every typed word (any case, any order), the
newest first; the search key again (or ↑) steps to an older match, ↓ to a newer one; Enter
puts the highlighted prompt into the prompt box to edit and send, Esc leaves it as it was.

The prompts are this run's (the prompt box's history) and those of every earlier session of
the project (the session index, read off the event loop as the screen opens).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ..outside_text import visible
from ..widgets.keys_in_order import LineInput
from .key_help import key_help

SHOWN = 200
"""How many matches the list holds (the newest)."""
LINE_WIDTH = 110
"""A prompt's first line is cut to this many characters in the list."""


def matches(prompts: Iterable[str], query: str) -> list[str]:
    """The prompts that hold every word of ``query`` (any case, any order), in order."""
    words = query.lower().split()
    return [p for p in prompts if all(word in p.lower() for word in words)]


def project_prompts(project: Path) -> list[str]:
    """The prompts of ``project``'s sessions, newest first (the session index)."""
    from ...core.sessions.index import SessionIndex

    with SessionIndex() as index:
        return index.prompts(project)


class HistorySearch(ModalScreen["str | None"]):
    """The prompt history search: a query box over the matching prompts, newest first.

    Dismissed with the chosen prompt's text, or None (Esc).
    """

    CSS_PATH = "history_search.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s,up", "step(1)", "older", show=False, priority=True),
        Binding("down", "step(-1)", "newer", show=False, priority=True),
        Binding("escape", "dismiss(None)", "cancel", show=False),
    ]

    def __init__(self, recent: list[str], project: Path) -> None:
        """Search ``recent`` (this run's prompts, oldest first) and ``project``'s sessions."""
        super().__init__()
        self.prompts: list[str] = list(dict.fromkeys(reversed(recent)))
        """Every prompt searched, newest first, each once."""
        self.project = project
        self.found: list[str] = []
        """The matches the list shows, newest first."""

    def compose(self) -> ComposeResult:
        with Vertical(id="history-dialog"):
            yield LineInput(placeholder="type to search earlier prompts", id="history-query")
            yield OptionList(id="history-matches")
            yield Static("", id="history-count")
            yield Static(
                key_help(
                    [("ctrl+s/↑", "older"), ("↓", "newer"), ("enter", "use"), ("esc", "cancel")]
                ),
                id="history-keys",
            )

    def on_mount(self) -> None:
        self.query_one("#history-dialog").border_title = "Prompt history"
        self.query_one("#history-matches", OptionList).can_focus = False
        self.query_one(Input).focus()
        self._show()
        self._read_project()

    @work(exclusive=True, exit_on_error=False)
    async def _read_project(self) -> None:
        """Add the project's earlier prompts once the index has read them."""
        try:
            earlier = await asyncio.to_thread(project_prompts, self.project)
        except Exception as exc:  # noqa: BLE001 (the search still has this run's prompts)
            self.query_one("#history-count", Static).update(
                f"Earlier sessions could not be read ({exc}); this run's prompts only."
            )
            return
        self.prompts = list(dict.fromkeys([*self.prompts, *earlier]))
        self._show(keep=self.highlighted)

    @on(Input.Changed)
    def _query_changed(self) -> None:
        self._show()

    def _show(self, keep: str | None = None) -> None:
        """List the matches of the query; highlight ``keep`` if it is one, else the newest."""
        query = self.query_one(Input).value
        self.found = matches(self.prompts, query)[:SHOWN]
        options = self.query_one("#history-matches", OptionList)
        options.clear_options()
        options.add_options([Option(self._label(p, query)) for p in self.found])
        if self.found:
            options.highlighted = self.found.index(keep) if keep in self.found else 0
        total = len(self.prompts)
        self.query_one("#history-count", Static).update(
            f"{len(self.found)} of {total} prompts" if query else f"{total} prompts"
        )

    def _label(self, prompt: str, query: str) -> Text:
        lines = visible(prompt).strip().splitlines() or [""]
        first = lines[0] if len(lines[0]) <= LINE_WIDTH else lines[0][: LINE_WIDTH - 1] + "…"
        label = Text(first)
        label.highlight_words(query.split(), style="bold underline", case_sensitive=False)
        if len(lines) > 1:
            label.append(f"  +{len(lines) - 1} lines", style="dim")
        return label

    @property
    def highlighted(self) -> str | None:
        """The prompt under the cursor."""
        index = self.query_one("#history-matches", OptionList).highlighted
        return self.found[index] if index is not None and index < len(self.found) else None

    def action_step(self, older: int) -> None:
        """Move to an older (1) or newer (-1) match, staying at the ends."""
        options = self.query_one("#history-matches", OptionList)
        if options.highlighted is not None:
            options.highlighted = max(0, min(len(self.found) - 1, options.highlighted + older))

    @on(Input.Submitted)
    def _accept(self) -> None:
        self.dismiss(self.highlighted)

    @on(OptionList.OptionSelected)
    def _clicked(self, message: OptionList.OptionSelected) -> None:
        self.dismiss(self.found[message.option_index])
