"""The compaction review: the model's summary, editable, before it replaces the history."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea

from ..outside_text import visible
from ..widgets.keys_in_order import TextEditor
from .edit_text import for_editor, from_editor


class CompactionScreen(ModalScreen[str]):
    """Shows the summary that will replace the conversation so far; Ctrl+S applies it.

    Esc applies the summary as the model wrote it (the context must shrink either way).

    Args:
        summary: The model's summary.
        on_demand: The person asked for it (``/compact``), the context is not full.
        focus: What they asked the summary to dwell on (``/compact FOCUS``).
    """

    DEFAULT_CSS = """
    CompactionScreen { align: center middle; }
    CompactionScreen > Vertical {
        width: 90%; height: 80%; border: round $warning; background: $surface; padding: 0 1;
    }
    CompactionScreen #compaction-title { text-style: bold; color: $warning; width: 100%; }
    CompactionScreen TextArea { height: 1fr; }
    CompactionScreen #compaction-help { color: $text-muted; width: 100%; }
    """

    BINDINGS = [
        Binding("ctrl+s", "apply", "apply", priority=True),
        Binding("escape", "keep", "apply as written"),
    ]

    def __init__(self, summary: str, tokens_before: int | None = None, *,
                 on_demand: bool = False, focus: str = "") -> None:
        super().__init__()
        self.summary = summary
        self.tokens_before = tokens_before
        self.on_demand = on_demand
        self.focus = focus

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self._title(), id="compaction-title")
            # The model's words: escape sequences shown, never sent to the terminal.
            yield TextEditor(for_editor(self.summary), id="compaction-summary",
                             tab_behavior="focus")
            yield Label("Edit it if something important is missing. Ctrl+S applies your "
                        "version; Esc applies it as the model wrote it.", id="compaction-help")

    def _title(self) -> Text:
        if not self.on_demand:
            return Text("The context is nearly full: this summary will replace the "
                        "conversation so far (the latest turns and pinned items stay as they "
                        "are).")
        # The focus is the person's typing: shown literally, never read as markup.
        focus = f" (focus: {visible(self.focus)})" if self.focus else ""
        return Text(f"/compact{focus}: this summary will replace the whole conversation so "
                    "far (pinned items stay as they are).")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_apply(self) -> None:
        self.dismiss(from_editor(self.query_one(TextArea).text, self.summary))

    def action_keep(self) -> None:
        self.dismiss(self.summary)
