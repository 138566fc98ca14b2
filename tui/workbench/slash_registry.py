"""The slash-command registry: each command declared once, every listing made from it.

A :class:`SlashCommand` names the command, its argument syntax, its one-line help, its handler
and whether it may run while a turn runs. :class:`SlashRegistry` holds them in order and
renders what the workbench and the docs show: the completion list, the command palette's
entries, the ``/help`` line and the Markdown table of the README and ``tools/docs/keys.md``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

Handler = Callable[[Any, str], Awaitable[None]]
"""Runs a command: the app and the text after the name (stripped, possibly empty)."""

Choices = Callable[[Any], Iterable[tuple[str, str]]]
"""A command's palette entries per argument, given the app: ``(argument, help)`` pairs."""


class SlashHost(Protocol):
    """What the registry itself needs of the app it runs commands in."""

    busy: bool

    def notice(self, text: str, *, error: bool = False) -> None: ...

WAIT_FOR_TURN = "Wait for the turn to finish (or press Esc) {}."
"""What a command that cannot run during a turn says; ``{}`` is its ``wait_note``."""


@dataclass(frozen=True, slots=True)
class SlashCommand:
    """One slash command.

    Attributes:
        name: The command with its slash, e.g. ``/model``.
        help: The one-line help the completion list, the palette and ``/help`` show.
        summary: What it does, for the docs' table (lower case, no syntax).
        run: The handler.
        args: The argument syntax after the name (``NAME``, ``[TURN]``); empty for none.
        wait_note: Empty when the command may run while a turn runs; otherwise why it must
            wait, ending the sentence :data:`WAIT_FOR_TURN` says (``before forking``).
        in_palette: Whether the palette lists the bare command.
        choices: Palette entries per argument (``/mode yolo``), if any.
    """

    name: str
    help: str
    summary: str
    run: Handler
    args: str = ""
    wait_note: str = ""
    in_palette: bool = True
    choices: Choices | None = None

    @property
    def usage(self) -> str:
        """The name and its argument syntax: ``/fork [TURN]``."""
        return f"{self.name} {self.args}".rstrip()

    @property
    def while_busy(self) -> bool:
        """Whether the command may run while a turn runs."""
        return not self.wait_note


@dataclass(frozen=True, slots=True)
class PaletteEntry:
    """A command palette line: the text to run, its help.

    Both are agent-tui's own words (command names, modes, the built-in themes), nothing from
    outside (a model's name, a file); the palette reads markup, so the app escapes them
    (``[FILE]`` in a help line is shown, not read as a tag).
    """

    line: str
    help: str


class SlashRegistry:
    """The workbench's slash commands, in the order completion and the docs list them."""

    def __init__(self, commands: Iterable[SlashCommand]) -> None:
        self._commands = {command.name: command for command in commands}

    def __iter__(self) -> Iterator[SlashCommand]:
        return iter(self._commands.values())

    def __len__(self) -> int:
        return len(self._commands)

    def get(self, name: str) -> SlashCommand | None:
        """The command called ``name`` (with its slash), or None."""
        return self._commands.get(name)

    @property
    def names(self) -> list[str]:
        """Every command's name, in order."""
        return list(self._commands)

    def completions(self) -> dict[str, str]:
        """Name to one-line help: what the prompt's ``/`` completion offers."""
        return {command.name: command.help for command in self}

    def palette(self, app: Any) -> Iterator[PaletteEntry]:
        """The palette's entries: the bare commands, then each command's arguments."""
        for command in self:
            if command.in_palette:
                yield PaletteEntry(command.name, command.help)
        for command in self:
            for arg, help_text in command.choices(app) if command.choices else ():
                yield PaletteEntry(f"{command.name} {arg}", help_text)

    def help_line(self) -> str:
        """The ``/help`` paragraph's list: ``/name`` and its help, separated by dots."""
        return " · ".join(f"`{command.name}` {command.help}" for command in self)

    def markdown_table(self) -> str:
        """The docs' table of commands: usage and summary, one row each."""
        rows = ["| Command | What it does |", "|---|---|"]
        rows += [f"| `{_cell(command.usage)}` | {_cell(command.summary)} |" for command in self]
        return "\n".join(rows)

    async def run(self, app: SlashHost, line: str) -> None:
        """Run ``/name args``; an unknown name says what exists, a busy app why to wait."""
        name, _, arg = line.partition(" ")
        command = self.get(name)
        if command is None:
            app.notice(f"Unknown command {name}. Commands: {', '.join(self.names)}",
                       error=True)
            return
        if app.busy and not command.while_busy:
            app.notice(WAIT_FOR_TURN.format(command.wait_note), error=True)
            return
        await command.run(app, arg.strip())


def _cell(text: str) -> str:
    """Text for a Markdown table cell: a ``|`` would end the cell."""
    return text.replace("|", "\\|")
