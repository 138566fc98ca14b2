"""The model's reasoning in the conversation: a block that streams it, then folds away.

While the model reasons, the block shows the last lines of its reasoning, dimmed, redrawn at
most every ``REDRAW_INTERVAL`` seconds however fast it streams (a redraw draws those lines,
never the whole text). When the answer starts (its first text, or the response's end), the
block folds to one line; Enter or a click unfolds it to the whole reasoning, like a tool
call's block.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.binding import Binding
from textual.content import Content
from textual.widget import Widget

from ..outside_text import outside_content, visible
from .blocks import Block

if TYPE_CHECKING:
    from ...core.events import Thinking, ThinkingDelta

REDRAW_INTERVAL = 0.05
"""Seconds streamed reasoning waits to be drawn: at most 20 redraws a second."""
STREAMED_LINES = 6
"""Lines of the reasoning shown while it streams (its end)."""
STREAMED_CHARACTERS = 800
"""Characters of the reasoning's end those lines are taken from."""


class ThinkingBlock(Block):
    """The model's reasoning of one response: its end while it streams, then one line that
    expands (Enter, a click) to all of it.

    The conversation may unmount the block and build a copy (``revive()``) when the person
    scrolls back: text still streaming reaches that copy too.
    """

    DEFAULT_CSS = """
    ThinkingBlock {
        padding: 0 1;
        color: $text-muted;
    }
    ThinkingBlock:focus {
        background: $boost;
    }
    """

    BINDINGS = [Binding("enter", "toggle", "Expand", show=False)]

    def __init__(self, text: str = "", *, streaming: bool = False) -> None:
        super().__init__("")
        self.text = text
        self.streaming = streaming
        self.expanded = False
        self._revived: ThinkingBlock | None = None
        self._redraw: asyncio.TimerHandle | None = None
        self._draw()

    def add_text(self, text: str) -> None:
        """More streamed reasoning; drawn within ``REDRAW_INTERVAL``."""
        self.text += text
        if self._revived is not None:
            self._revived.add_text(text)
        if self._redraw is None and self.is_mounted:
            self._redraw = asyncio.get_running_loop().call_later(REDRAW_INTERVAL, self._draw)

    def fold(self, text: str | None = None) -> None:
        """The answer started: one line from now on (``text``: the whole reasoning, when
        the stream's pieces are not all of it)."""
        if text is not None:
            self.text = text
        self.streaming = False
        self.expanded = False
        self._draw()
        if self._revived is not None:
            self._revived.fold(text)

    def revive(self) -> ThinkingBlock:
        """A fresh, mountable copy in the latest state; later text reaches it too."""
        copy = ThinkingBlock(self.text, streaming=self.streaming)
        if self.expanded:
            copy.action_toggle()
        self._revived = copy
        return copy

    def on_mount(self) -> None:
        self._draw()

    def action_toggle(self) -> None:
        self.expanded = not self.expanded
        self._draw()

    def on_click(self) -> None:
        self.action_toggle()

    def copy_text(self) -> str:
        return visible(self.text)

    def _draw(self) -> None:
        if self._redraw is not None:
            self._redraw.cancel()
            self._redraw = None
        if self.streaming:
            tail = self.text[-STREAMED_CHARACTERS:].strip("\n").splitlines()[-STREAMED_LINES:]
            head = Content.styled("✻ thinking…", "italic $text-muted")
            body = "\n".join(tail) if tail else ""
        else:
            words = len(self.text.split())
            arrow = "▾" if self.expanded else "▸"
            head = Content.assemble(
                f"{arrow} ",
                ("thinking", "italic"),
                (f" · {words:,} word{'' if words == 1 else 's'}", "dim"),
            )
            body = self.text.strip("\n") if self.expanded else ""
        # The reasoning is the model's text: literal Content, never markup.
        self.update(
            Content.assemble(head, "\n", outside_content(body, "dim italic")) if body else head
        )


class ThinkingView:
    """The reasoning blocks of a conversation: the one streaming, folded when the answer
    starts, and whole ones (a resumed session, a replay).

    Args:
        add: Adds a block to the conversation (built now, or kept as a record in a restore).
    """

    def __init__(self, add: Callable[[Callable[[], Widget]], Awaitable[None]]) -> None:
        self._add = add
        self.block: ThinkingBlock | None = None
        """The block of the response under way, until its ``Thinking`` event."""

    async def show(self, event: ThinkingDelta | Thinking) -> None:
        """A piece of reasoning (``ThinkingDelta``), or a response's whole (``Thinking``)."""
        block = self.block
        if event.type == "thinking_delta":
            if block is None or (not block.is_attached and block._revived is None):
                # (Detached and never revived: the panes were emptied meanwhile.)
                self.block = block = ThinkingBlock(streaming=True)
                await self._add(lambda: block)
            block.add_text(event.text)
            return
        self.block = None
        if block is not None:
            block.fold(event.text)
        elif event.text.strip():
            await self._add(partial(ThinkingBlock, event.text))

    def fold(self) -> None:
        """The answer starts: the reasoning streamed so far folds to one line."""
        if self.block is not None and self.block.streaming:
            self.block.fold()


def show_thinking(view: Any, event: ThinkingDelta | Thinking) -> Awaitable[None]:
    """The event view's handler of reasoning events (``view.thinking`` shows them)."""
    return view.thinking.show(event)
