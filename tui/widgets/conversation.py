"""The conversation pane: user and assistant blocks, with tool calls inline."""

from __future__ import annotations

import json
from typing import Any

from rich.markup import escape
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Markdown, Static


class Block(Static, can_focus=True):
    """A focusable block of the conversation; ``c`` copies its text."""

    BINDINGS = [Binding("c", "copy", "Copy", show=False)]

    def copy_text(self) -> str:
        """The text ``c`` copies."""
        return str(self.render())

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.copy_text())
        self.notify("Copied to the clipboard", timeout=2)


class UserBlock(Block):
    """What the person typed."""

    def __init__(self, text: str, *, queued: bool = False) -> None:
        super().__init__(escape(text), classes="queued" if queued else "")
        self.text = text
        self.border_title = "you (queued)" if queued else "you"

    def mark_sent(self) -> None:
        """The queued message has been sent to the agent."""
        self.remove_class("queued")
        self.border_title = "you"

    def copy_text(self) -> str:
        return self.text


class NoticeBlock(Static):
    """A line from agent-tui itself (cancelled, errors, retries)."""


class AssistantBlock(Markdown, can_focus=True):
    """The model's text, streamed in as Markdown."""

    BINDINGS = [Binding("c", "copy", "Copy", show=False)]

    def __init__(self) -> None:
        super().__init__("")
        self.text = ""
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

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.text)
        self.notify("Copied to the clipboard", timeout=2)


STATUS_ICONS = {"pending": "…", "approval": "?", "running": "⋯", "ok": "✓", "error": "✗",
                "denied": "⊘"}


class ToolBlock(Block):
    """One tool call: a one-line summary that expands (Enter) to its arguments and output."""

    BINDINGS = [Binding("enter", "toggle", "Expand", show=False)]

    class Toggled(Message):
        """The block was expanded or collapsed."""

    def __init__(self, call_id: str, name: str, summary: str, args: Any) -> None:
        super().__init__("")
        self.call_id = call_id
        self.tool_name = name
        self.summary = summary or name
        self.args = args
        self.status = "pending"
        self.duration: float | None = None
        self.output = ""
        self.expanded = False
        self._refresh()

    def set_status(self, status: str, *, duration: float | None = None,
                   output: str | None = None) -> None:
        """Show a new status (and the final output)."""
        self.status = status
        if duration is not None:
            self.duration = duration
        if output is not None:
            self.output = output
        self.set_class(status in ("error", "denied"), "failed")
        self._refresh()

    def add_output(self, text: str) -> None:
        """Live output of a running tool."""
        self.output += text
        if self.expanded:
            self._refresh()

    def action_toggle(self) -> None:
        self.expanded = not self.expanded
        self._refresh()

    def on_click(self) -> None:
        self.action_toggle()

    def copy_text(self) -> str:
        return f"{self.summary}\n{self.output}"

    def _refresh(self) -> None:
        icon = STATUS_ICONS.get(self.status, "·")
        took = f"  {self.duration:.1f}s" if self.duration is not None else ""
        arrow = "▾" if self.expanded else "▸"
        head = f"{arrow} [b]{icon}[/b] {escape(self.summary)}[dim]{took}[/dim]"
        if not self.expanded:
            self.update(head)
            return
        args = json.dumps(self.args, indent=2, ensure_ascii=False) if not isinstance(
            self.args, str) else self.args
        body = self.output[-20_000:]
        self.update(f"{head}\n[dim]{escape(args)}[/dim]\n{escape(body)}")


class ConversationView(VerticalScroll):
    """The transcript; follows the newest block unless the person scrolled up."""

    BINDINGS = [
        Binding("j,down", "focus_next_block", "Next block", show=False),
        Binding("k,up", "focus_previous_block", "Previous block", show=False),
    ]

    async def add(self, widget: Widget) -> None:
        """Append a block and keep the newest in view."""
        follow = self.is_vertical_scroll_end or self.max_scroll_y == 0
        await self.mount(widget)
        if follow:
            self.scroll_end(animate=False)

    def follow(self) -> None:
        """Keep the newest text in view while it streams, unless the person scrolled up."""
        if self.is_vertical_scroll_end or self.scroll_y >= self.max_scroll_y - 3:
            self.scroll_end(animate=False)

    def _blocks(self) -> list[Widget]:
        return [w for w in self.children if w.can_focus]

    def _move(self, step: int) -> None:
        blocks = self._blocks()
        if not blocks:
            return
        focused = self.app.focused
        index = blocks.index(focused) if focused in blocks else (len(blocks) if step < 0 else -1)
        target = blocks[max(0, min(len(blocks) - 1, index + step))]
        target.focus()
        target.scroll_visible(animate=False)

    def action_focus_next_block(self) -> None:
        self._move(1)

    def action_focus_previous_block(self) -> None:
        self._move(-1)
