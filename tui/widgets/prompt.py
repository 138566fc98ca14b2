"""The prompt: multi-line input, Enter sends, Ctrl+J (or Alt+Enter) adds a line, history."""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea


class PromptInput(TextArea):
    """Where the person types; up/down at the first/last line walk the history."""

    BINDINGS = [
        Binding("ctrl+j,alt+enter,shift+enter", "newline", "New line", show=False),
    ]

    class Submitted(Message):
        """The person pressed Enter on a non-empty prompt."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, **kwargs) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus",
                         **kwargs)
        self.prompt_history: list[str] = []
        self._history_index: int | None = None

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.prevent_default()
            event.stop()
            self._submit()
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
        await super()._on_key(event)

    def action_newline(self) -> None:
        self.insert("\n")

    def _submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        if not self.prompt_history or self.prompt_history[-1] != text:
            self.prompt_history.append(text)
        self._history_index = None
        self.clear()
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
