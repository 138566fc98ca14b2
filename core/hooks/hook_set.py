"""What a loaded hook is, and the set of them a session runs."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

HOOK_EVENTS: tuple[str, ...] = (
    "PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart",
)
"""The events a hook can run on, in Claude Code's spelling."""

TOOL_EVENTS: frozenset[str] = frozenset({"PreToolUse", "PostToolUse"})
"""The events whose hooks have a ``matcher`` for the tool's name."""

DEFAULT_TIMEOUT_S = 60.0
"""Seconds a hook may run when its entry names no ``timeout``."""

_SHOWN_COMMAND = 80
"""Characters of a command quoted in messages."""


@dataclass(frozen=True, slots=True)
class Hook:
    """One command to run on one event.

    Attributes:
        event: One of :data:`HOOK_EVENTS`.
        command: Run with ``bash -c`` in the project folder.
        matcher: A regular expression the whole tool name must match (tool events only);
            None matches every tool.
        timeout: Seconds before the hook's process group is killed.
        source: The config file the hook came from.
        index: The entry's number (from 1) among the file's ``[[hooks.<event>]]`` entries.
    """

    event: str
    command: str
    matcher: str | None
    timeout: float
    source: Path
    index: int

    @property
    def entry(self) -> str:
        """The entry as the file spells it, ``[[hooks.PreToolUse]] #2``."""
        return f"[[hooks.{self.event}]] #{self.index}"

    def describe(self) -> str:
        """The hook as messages name it: ``hook `cmd` (PreToolUse, from FILE)``."""
        command = " ".join(self.command.split())
        if len(command) > _SHOWN_COMMAND:
            command = command[: _SHOWN_COMMAND - 1] + "…"
        return f"hook `{command}` ({self.event}, from {self.source})"

    def matches(self, tool_name: str) -> bool:
        """Whether this hook runs for ``tool_name`` (always, without a matcher)."""
        return self.matcher is None or re.fullmatch(self.matcher, tool_name) is not None


@dataclass(slots=True)
class HookSet:
    """The hooks a session runs, user hooks first, and what was wrong while loading them.

    Attributes:
        hooks: Every loaded hook, in the order they run in (user file, then project file,
            each in file order).
        warnings: One message per skipped file or entry, each naming it and the fix.
    """

    hooks: tuple[Hook, ...] = ()
    warnings: list[str] = field(default_factory=list)

    def for_event(self, event: str, tool_name: str | None = None) -> list[Hook]:
        """The hooks to run for ``event``.

        Args:
            event: One of :data:`HOOK_EVENTS`.
            tool_name: For tool events, keep only hooks whose matcher takes this name;
                None keeps them all.
        """
        return [h for h in self.hooks
                if h.event == event and (tool_name is None or h.matches(tool_name))]

    def __bool__(self) -> bool:
        return bool(self.hooks)
