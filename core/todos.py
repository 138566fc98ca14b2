"""The session's todo list: markdown checkboxes in a file the engine owns.

The agent keeps it through the ``todo_read`` and ``todo_write`` tools; the engine tells the
front end about each change and puts the list back into a compacted context.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path

from .text.text_files import atomic_write_text

_ITEM = re.compile(r"^\s*[-*] \[(?P<mark>[ xX])\] \S")


class TodoStore:
    """The todo list of one session, kept in a markdown file; ``on_change`` hears each write."""

    def __init__(self, path: Path, on_change: Callable[[str], None] | None = None) -> None:
        self.path = path
        self.on_change = on_change

    def read(self) -> str:
        """The list as written last ("" when there is none)."""
        try:
            return self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return ""

    def save(self, content: str) -> None:
        """Replace the list on disk, atomically (blocking: call it from a thread)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path, content)

    async def write(self, content: str) -> None:
        """Save the list off the event loop, then tell ``on_change`` on the loop."""
        await asyncio.to_thread(self.save, content)
        if self.on_change is not None:
            self.on_change(content)


def summarize(content: str) -> tuple[int, int]:
    """(items, done) of a markdown checkbox list."""
    marks = [m.group("mark") for line in content.splitlines() if (m := _ITEM.match(line))]
    return len(marks), sum(1 for mark in marks if mark in "xX")
