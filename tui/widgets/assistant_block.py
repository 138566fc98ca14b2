"""The model's answer as a Markdown block of the conversation.

Its own module, imported on first use: Markdown (markdown-it) is not needed for the
workbench's first frame.
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.widgets import Markdown


class AssistantBlock(Markdown, can_focus=True):
    """The model's text, streamed in as Markdown."""

    BINDINGS = [Binding("c", "copy", "Copy", show=False)]

    def __init__(self, text: str = "") -> None:
        super().__init__(text)
        self.text = text
        self._stream: Any = None
        self.border_title = "agent"

    async def append_text(self, fragment: str) -> None:
        """Add streamed text; Textual's Markdown stream batches the re-renders."""
        self.text += fragment
        if self._stream is None:
            self._stream = Markdown.get_stream(self)
        await self._stream.write(fragment)

    async def finish(self, text: str | None = None) -> None:
        """End the stream; ``text`` replaces the streamed text when given."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        if text is not None and text != self.text:
            self.text = text
            await self.update(text)

    def revive(self) -> AssistantBlock:
        """A fresh, mountable block showing the same text."""
        return AssistantBlock(self.text)

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.text)
        self.notify("Copied to the clipboard", timeout=2)
