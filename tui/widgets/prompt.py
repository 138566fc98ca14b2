"""The prompt: multi-line input, Enter sends, Ctrl+J (or Alt+Enter) adds a line, history.

Typing ``/`` at the start opens slash-command completion and ``@`` opens a fuzzy file picker
over the project; the pop-up (``CompletionList``) floats just above the prompt.
"""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Literal

from textual import events, on, work
from textual.message import Message
from textual.widgets import TextArea

from ..outside_text import visible
from ..workbench.bindings import PROMPT_BINDINGS
from ..workbench.clipboard_images import pasted_paths
from ..workbench.commands import SLASH_COMMANDS
from .completion import (
    CompletionList,
    command_option,
    file_option,
    list_project_files,
    rank,
)
from .keys_in_order import run_own_binding
from .vi_keys import ViKeys, ViMode

DEFAULT_COMMANDS = SLASH_COMMANDS
"""The slash commands offered when no ``commands`` are given (the workbench's list)."""

PLACEHOLDER = "Ask anything · / commands · @ files · ? keys"
"""What the empty prompt box of the workbench shows."""

SHELL_MODE = "! shell: Enter runs the command; its output goes with your next prompt"
"""The prompt's border title while its text starts with ``!``."""

SHOWN = 10
"""How many completions the pop-up shows."""

FILES_STALE_AFTER = 30.0
"""Seconds after which the file list is read again when the picker opens."""

RANK_IN_THREAD_OVER = 5_000
"""File lists longer than this are ranked off the UI thread."""

_SLASH = re.compile(r"^(/\S*)$")
_AT = re.compile(r"(?:^|\s)@(\S*)$")

CompletionKind = Literal["command", "file"]


def prompt_text(text: str) -> str:
    """``text`` as the prompt box may hold it: line ends as newlines, escape sequences,
    control and invisible characters as visible pictures.

    The text area draws its text as it is: a pasted (or recalled) escape sequence would reach
    the terminal raw, so the box shows it visibly, and sends what it shows.
    """
    return visible(text.replace("\r\n", "\n").replace("\r", "\n"))


class PromptInput(TextArea):
    """Where the person types; up/down at the first/last line walk the history.

    While the completion pop-up is open, up/down move its highlight, Tab or Enter insert the
    highlighted completion and Esc closes it. Enter on a command that takes no argument
    (its help does not show ``/name ARG``) runs it straight away.

    Its editing keys (Backspace, the arrows, Ctrl+U…) take effect in the order they were
    typed, however many arrive at once (:mod:`.keys_in_order`).

    ``?`` typed into the empty box asks for the keys (:class:`KeysWanted`), as in other
    terminal agents; typed after anything else it is a question mark.

    With :attr:`vi_mode` on, vi's keys edit it (:mod:`.vi_keys`); its border names the mode.
    """

    BINDINGS = PROMPT_BINDINGS

    class Submitted(Message):
        """The person pressed Enter on a non-empty prompt."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class KeysWanted(Message):
        """The person typed ``?`` into the empty prompt: show them the keys."""

    class ImageWanted(Message):
        """The person pressed Ctrl+V: attach the clipboard's image (the workbench reads it)."""

    def __init__(self, *, commands: dict[str, str] | None = None,
                 workdir: Path | None = None, **kwargs) -> None:
        """A prompt completing ``commands`` after ``/`` and ``workdir``'s files after ``@``.

        Args:
            commands: Slash command names (with the ``/``) to one-line help; defaults to
                ``DEFAULT_COMMANDS``.
            workdir: The project folder for the file picker; defaults to the current one.
            **kwargs: Passed to ``TextArea``.
        """
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus",
                         **kwargs)
        self.prompt_history: list[str] = []
        self._history_index: int | None = None
        self.commands = dict(DEFAULT_COMMANDS if commands is None else commands)
        """Slash command names to their one-line help."""
        self.workdir = workdir
        """The project folder the file picker lists; ``None`` means the current folder."""
        self.completion = CompletionList(self, classes="prompt-completion")
        """The pop-up; mounted just before the prompt in the prompt's container."""
        self._kind: CompletionKind | None = None
        self._query = ""
        self._files: list[str] | None = None
        self._files_read_at = 0.0
        self._dismissed: str | None = None
        self.vi: ViKeys | None = None
        """vi's state while vi mode is on (None: off)."""

    @property
    def vi_mode(self) -> bool:
        """Whether vi keys edit the prompt (the ``vi_mode`` setting)."""
        return self.vi is not None

    @vi_mode.setter
    def vi_mode(self, on: bool) -> None:
        if on and self.vi is None:
            self.vi = ViKeys(self, on_mode=self._show_vi_mode)
            self._show_vi_mode(self.vi.mode)
        elif not on and self.vi is not None:
            self.vi = None
            self.border_subtitle = ""

    def _show_vi_mode(self, mode: ViMode) -> None:
        self.border_subtitle = mode.upper()
        self.set_class(mode == "normal", "-vi-normal")

    def _on_mount(self) -> None:
        # A sibling, not a child: a TextArea lays out no children. The list's CSS keeps it
        # out of the container's layout and lifts it above the prompt. Not awaited, so
        # TextArea's own mount handler runs in the same turn as before.
        if self.parent is not None:
            self.parent.mount(self.completion, before=self)

    def _on_unmount(self) -> None:
        if self.completion.is_mounted:
            self.completion.remove()

    async def _on_key(self, event: events.Key) -> None:
        if self.completion.is_open and self._completion_key(event.key):
            event.prevent_default()
            event.stop()
            return
        if event.key == "enter":
            event.prevent_default()
            event.stop()
            self._submit()
            return
        if event.character == "?" and not self.text and not self.read_only:
            event.prevent_default()
            event.stop()
            self.post_message(self.KeysWanted())
            return
        if self.vi is not None and not self.read_only and self._vi_key(event):
            event.prevent_default()
            event.stop()
            return
        if event.key == "up" and self.cursor_location[0] == 0 and self.prompt_history:
            event.prevent_default()
            event.stop()
            self._walk_history(-1)
            return
        if event.key == "down" and self._history_index is not None and (
                self.cursor_location[0] == self.document.line_count - 1):
            event.prevent_default()
            event.stop()
            self._walk_history(1)
            return
        if await run_own_binding(self, event):
            return
        await super()._on_key(event)

    async def _on_paste(self, event: events.Paste) -> None:
        event.prevent_default()  # instead of TextArea's, which inserts the text as it came
        if self.read_only:
            return
        text = pasted_paths(event.text) or event.text  # file:// URIs: the path route attaches
        if result := self._replace_via_keyboard(prompt_text(text), *self.selection):
            self.move_cursor(result.end_location)
            self.focus()

    def _vi_key(self, event: events.Key) -> bool:
        """Give ``event`` to vi (k and j on the first and last line walk the history, as
        the arrows do); True when it was used."""
        assert self.vi is not None
        if self.vi.mode == "normal" and event.character in ("k", "j"):
            row = self.cursor_location[0]
            if event.character == "k" and row == 0 and self.prompt_history:
                self._walk_history(-1)
                return True
            if (event.character == "j" and self._history_index is not None
                    and row == self.document.line_count - 1):
                self._walk_history(1)
                return True
        return self.vi.handle(event)

    def action_newline(self) -> None:
        self.insert("\n")

    def action_paste_image(self) -> None:
        """Ask for the clipboard's image (:mod:`..workbench.clipboard_images`)."""
        if not self.read_only:
            self.post_message(self.ImageWanted())

    def action_search_history(self) -> None:
        """Search the project's earlier prompts (:mod:`..screens.history_search`); the one
        chosen replaces the prompt's text, to edit and send."""
        from ..screens.history_search import HistorySearch

        self.close_completion()
        self.app.push_screen(HistorySearch(self.prompt_history, self.workdir or Path.cwd()),
                             self._recalled)

    def _recalled(self, text: str | None) -> None:
        if text is not None:
            self._history_index = None
            self.text = prompt_text(text)
            self.move_cursor(self.document.end)
        self.focus()

    def _submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        if not self.prompt_history or self.prompt_history[-1] != text:
            self.prompt_history.append(text)
        self._history_index = None
        self.close_completion()
        self.clear()
        if self.vi is not None and self.vi.mode != "insert":
            self.vi.set_mode("insert")  # each prompt starts in insert mode, as in a shell
        self.post_message(self.Submitted(text))

    def _walk_history(self, step: int) -> None:
        index = len(self.prompt_history) if self._history_index is None else self._history_index
        index += step
        if index >= len(self.prompt_history):
            self._history_index = None
            self.text = ""
            return
        self._history_index = max(0, index)
        self.text = self.prompt_history[self._history_index]
        self.move_cursor(self.document.end)

    # -- completion --------------------------------------------------------------------

    def close_completion(self) -> None:
        """Close the pop-up until the text changes again."""
        self._kind = None
        self.completion.close()

    def _completion_key(self, key: str) -> bool:
        """Handle a key while the pop-up is open; True when it was used."""
        if key in ("up", "down"):
            self.completion.move(-1 if key == "up" else 1)
        elif key == "escape":
            self.close_completion()
            self._dismissed = self.text
        elif key in ("tab", "enter"):
            value = self.completion.value
            if value is None:
                return False
            submit = key == "enter" and self._kind == "command" and not self._takes_argument(
                value)
            self._accept(value, suffix="" if submit else " ")
            if submit:
                self._submit()
        else:
            return False
        return True

    def _takes_argument(self, command: str) -> bool:
        return f"{command} " in self.commands.get(command, "")

    def _accept(self, value: str, suffix: str = " ") -> None:
        """Replace the ``/query`` or ``@query`` before the cursor with ``value`` + ``suffix``."""
        row, column = self.cursor_location
        start = (0, 0) if self._kind == "command" else (row, column - len(self._query) - 1)
        self.close_completion()
        self.replace(value + suffix, start, (row, column))

    @on(CompletionList.Picked)
    def _picked(self, message: CompletionList.Picked) -> None:
        message.stop()
        if self._kind is not None:
            self._accept(message.value)
            self.focus()

    @on(TextArea.Changed)
    def _show_shell_mode(self) -> None:
        # `!command` runs in the shell (core.runtime.direct_commands): the box says so.
        shell = self.document.get_line(0).lstrip().startswith("!")
        if shell != self.has_class("-shell"):
            self.set_class(shell, "-shell")
            self.border_title = SHELL_MODE if shell else None

    @on(TextArea.Changed)
    @on(TextArea.SelectionChanged)
    def _refresh_completion(self) -> None:
        recalled = self._history_index is not None and (
            self.text == self.prompt_history[self._history_index])
        row, column = self.cursor_location
        before = self.document.get_line(row)[:column]
        if self._dismissed is not None and self.text != self._dismissed:
            self._dismissed = None
        if recalled or self._dismissed is not None or not self.selection.is_empty:
            self.close_completion()
        elif row == 0 and (match := _SLASH.match(before)):
            self._complete_commands(match.group(1))
        elif match := _AT.search(before):
            self._complete_files(match.group(1))
        else:
            self.close_completion()

    def _complete_commands(self, query: str) -> None:
        if self._kind == "command" and self._query == query and self.completion.is_open:
            return
        self._kind, self._query = "command", query
        names = rank(query, self.commands, SHOWN)
        self.completion.show("commands", [command_option(name, self.commands[name])
                                          for name in names])

    def _complete_files(self, query: str) -> None:
        if self._kind == "file" and self._query == query and self.completion.is_open:
            return
        opening = self._kind != "file"
        self._kind, self._query = "file", query
        if self._files is None or (
                opening and time.monotonic() - self._files_read_at > FILES_STALE_AFTER):
            self._read_files()
        if self._files is None:
            return
        if len(self._files) > RANK_IN_THREAD_OVER:
            self._rank_files(query, self._files)
        else:
            self._show_files(query, rank(query, self._files, SHOWN))

    def _show_files(self, query: str, paths: list[str]) -> None:
        if self._kind == "file" and self._query == query:
            self.completion.show("files", [file_option(path) for path in paths])

    @work(exclusive=True, group="prompt-files", exit_on_error=False)
    async def _read_files(self) -> None:
        """List the project's files off the UI thread, then refresh the picker."""
        workdir = self.workdir or Path.cwd()
        self._files = await asyncio.to_thread(list_project_files, workdir)
        self._files_read_at = time.monotonic()
        if self._kind == "file":
            self._kind = None  # so the refresh below is not skipped as unchanged
            self._refresh_completion()

    @work(exclusive=True, group="prompt-rank", exit_on_error=False)
    async def _rank_files(self, query: str, files: list[str]) -> None:
        """Rank a long file list off the UI thread."""
        self._show_files(query, await asyncio.to_thread(rank, query, files, SHOWN))
