"""The conversation's blocks of text: what the person typed, and agent-tui's own notices.

``Block`` is what every focusable block of the conversation is: ``c`` copies its text.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Static

from ..outside_text import outside_text, visible


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
    """What the person typed, and a line per image it attaches (``📎 name``)."""

    def __init__(self, text: str, *, queued: bool = False,
                 images: tuple[str, ...] = ()) -> None:
        chips = "".join(f"\n📎 {name}" for name in images)
        super().__init__(outside_text(text + chips), classes="queued" if queued else "")
        self.text = text
        self.images = images
        self.border_title = "you (queued)" if queued else "you"
        self._revived: UserBlock | None = None

    def mark_sent(self) -> None:
        """The queued message has been sent to the agent."""
        self.remove_class("queued")
        self.border_title = "you"
        if self._revived is not None:
            self._revived.mark_sent()

    def revive(self) -> UserBlock:
        """A fresh, mountable copy; later changes to this block reach it too."""
        self._revived = UserBlock(self.text, queued=self.has_class("queued"),
                                  images=self.images)
        return self._revived

    def copy_text(self) -> str:
        return visible(self.text)


class NoticeBlock(Static):
    """A line from agent-tui itself (cancelled, errors, retries).

    A notice often quotes outside text (an error from the provider, a file name), so it is
    given as literal Text (``AgentApp.notice`` builds it with ``outside_text``), never markup.
    """

    def revive(self) -> NoticeBlock:
        """A fresh, mountable copy."""
        return NoticeBlock(self.content, classes=" ".join(self.classes),
                           markup=self._render_markup)
