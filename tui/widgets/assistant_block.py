"""The model's answer as a Markdown block of the conversation.

Its own module, imported on first use: Markdown (markdown-it) is not needed for the
workbench's first frame.

The answer is outside text. Textual's Markdown shows its words as literal Content (a
``[@click=app.quit]`` in them is just text), but two things are made inert here: escape
sequences and invisible characters are made visible before the Markdown sees them, and a
link's click opens only an ``http(s)`` address in the browser (never a file, an app action or
another scheme), after saying which.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from textual import on
from textual.binding import Binding
from textual.widgets import Markdown

from ..outside_text import visible

OPENED_SCHEMES = frozenset({"http", "https"})
"""Link schemes a click opens in the browser; other links are only shown."""


class AssistantBlock(Markdown, can_focus=True):
    """The model's text, streamed in as Markdown."""

    BINDINGS = [Binding("c", "copy", "Copy", show=False)]

    def __init__(self, text: str = "") -> None:
        super().__init__(visible(text), open_links=False)
        self.text = text
        """The answer as the model wrote it (the block shows it made visible)."""
        self._stream: Any = None
        self.border_title = "agent"

    async def append_text(self, fragment: str) -> None:
        """Add streamed text; Textual's Markdown stream batches the re-renders."""
        self.text += fragment
        if self._stream is None:
            self._stream = Markdown.get_stream(self)
        # Every ESC becomes a picture, so a sequence split across fragments is safe too.
        await self._stream.write(visible(fragment))

    async def finish(self, text: str | None = None) -> None:
        """End the stream; ``text`` replaces the streamed text when given."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        if text is not None and text != self.text:
            self.text = text
            await self.update(visible(text))

    def revive(self) -> AssistantBlock:
        """A fresh, mountable block showing the same text."""
        return AssistantBlock(self.text)

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(visible(self.text))
        self.notify("Copied to the clipboard", timeout=2)

    @on(Markdown.LinkClicked)
    def _link_clicked(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        href = visible(event.href)
        if urlsplit(event.href).scheme.lower() in OPENED_SCHEMES and href == event.href:
            self.notify(f"Opening {href}", markup=False, timeout=3)
            self.app.open_url(event.href)
        else:
            self.notify(f"Not opened: {href} (only http and https links open)",
                        markup=False, severity="warning", timeout=5)
