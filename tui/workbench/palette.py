"""The command palette's entries beyond Textual's own: every slash command (and its
arguments), the project's custom commands, and the side panel's toggles."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from textual.app import SystemCommand

from ..outside_text import literal_markup
from .commands import COMMANDS


def palette_commands(app: Any) -> Iterator[SystemCommand]:
    """What the palette offers of ``app`` (:class:`~agent_tui.tui.app.AgentApp`)."""
    for entry in COMMANDS.palette(app):
        # The palette reads markup: "[FILE]" in a help line is syntax to show, not a tag.
        yield SystemCommand(
            literal_markup(entry.line),
            literal_markup(entry.help),
            lambda line=entry.line: app.call_later(app.run_slash_command, line),
        )
    for command in app.knowledge.knowledge.commands if app.knowledge.knowledge else ():
        # The palette reads markup: the file's description is escaped.
        yield SystemCommand(
            literal_markup(command.name),
            literal_markup(command.description),
            lambda name=command.name: app.edit_prompt(name + " "),
        )
    yield SystemCommand(
        "Toggle side panel", "Show or hide the side panel (F2)", app.action_toggle_side
    )
    yield SystemCommand(
        "Toggle tool log", "Show or hide the tool log (F3)", app.action_toggle_tool_log
    )
    yield SystemCommand("Toggle todos", "Show or hide the todo list (F4)", app.action_toggle_todos)
