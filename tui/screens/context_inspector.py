"""``/context``: every item in the model's context with its tokens, and actions on an item."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label

from ...core.context.window import ContextError
from ..outside_text import outside_text, visible
from ..widgets.measured_table import MeasuredTable

INSTRUCTION_ROW = -2
"""The index of a row showing an instruction file inside the system prompt."""


class ContextInspector(ModalScreen[None]):
    """The context of ``agent``: system prompt, tool schemas, each message and tool result.

    Keys act on the highlighted item: ``p`` pin or unpin (compaction keeps it verbatim and
    thinning leaves it alone), ``h`` dehydrate (a tool result goes to a fragment the agent
    can ``rehydrate``), ``x`` drop (out of the context; the history stays valid). Only while
    the agent is idle: the workbench opens it then.
    """

    DEFAULT_CSS = """
    ContextInspector { align: center middle; }
    ContextInspector > Vertical {
        width: 95%; height: 90%; border: round $primary; background: $surface; padding: 0 1;
    }
    ContextInspector #context-total { text-style: bold; }
    ContextInspector DataTable { height: 1fr; }
    ContextInspector #context-help { color: $text-muted; }
    """

    BINDINGS = [
        Binding("p", "pin", "pin / unpin"),
        Binding("h", "dehydrate", "dehydrate"),
        Binding("x", "drop", "drop"),
        Binding("escape,q", "close", "close"),
    ]

    def __init__(self, agent: Any) -> None:
        super().__init__()
        self.agent = agent
        self._indices: list[int] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("", id="context-total")
            table: DataTable[str | Text] = MeasuredTable(cursor_type="row", zebra_stripes=True)
            table.add_columns("#", "kind", "tokens", "", "text")
            yield table
            yield Label("p pin/unpin · h dehydrate (tool results) · x drop · Esc close",
                        id="context-help")

    def on_mount(self) -> None:
        self.refresh_items()
        self.query_one(DataTable).focus()

    def refresh_items(self) -> None:
        """Recount and redraw every item."""
        agent = self.agent
        tools = agent.registry.schemas() if agent.native_tools else None
        items = agent.context.items(agent.messages, tools)
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        self._indices = []
        for item in items:
            marks = ("📌" if item.pinned else "") + ("💧" if item.dehydrated else "")
            # DataTable reads str cells as markup: a preview (a file path, a command's
            # "[/x]") goes in as literal Text, or it crashes the screen or vanishes.
            table.add_row(str(item.index) if item.index >= 0 else "", item.kind,
                          f"{item.tokens:,}", marks, outside_text(item.preview[:200]))
            self._indices.append(item.index)
            if item.kind == "system":
                self._add_instruction_rows(table)
        total = sum(item.tokens for item in items)
        window = agent.provider.context_window()
        self.query_one("#context-total", Label).update(
            f"{total:,} tokens of {window:,} ({total / window:.0%}) in {len(items)} items")
        if items:
            table.move_cursor(row=min(row, len(items) - 1))

    def _add_instruction_rows(self, table: DataTable[str | Text]) -> None:
        """The files loaded into the system prompt (AGENTS.md…), each with its tokens."""
        knowledge = getattr(self.agent, "knowledge", None)
        for loaded in knowledge.instructions.files if knowledge else ():
            tokens = self.agent.context.ledger.tokens({"role": "system", "content": loaded.text})
            table.add_row("", "  file", f"{tokens:,}", "",
                          outside_text(f"{loaded.label}: {loaded.path}"))
            self._indices.append(INSTRUCTION_ROW)

    def _act(self, action: str) -> None:
        table = self.query_one(DataTable)
        if not self._indices:
            return
        index = self._indices[table.cursor_row]
        context, messages = self.agent.context, self.agent.messages
        try:
            if index == INSTRUCTION_ROW:
                raise ContextError("this file is part of the system prompt: edit the file "
                                   "itself; it is read again between turns")
            if index < 0:
                raise ContextError("the tool schemas cannot be changed here")
            if action == "pin":
                pinned = index in context.pinned_indices(messages)
                (context.unpin if pinned else context.pin)(messages, index)
                self.notify("Unpinned." if pinned else "Pinned: compaction keeps it.")
            elif action == "dehydrate":
                fragment = context.dehydrate(messages, index)
                self.notify(f"Dehydrated into fragment {fragment}.")
            else:
                freed = context.drop(messages, index)
                self.notify(f"Dropped: {freed:,} tokens freed.")
        except ContextError as exc:
            self.notify(visible(str(exc)), severity="warning", markup=False)
        self.refresh_items()

    def action_pin(self) -> None:
        self._act("pin")

    def action_dehydrate(self) -> None:
        self._act("dehydrate")

    def action_drop(self) -> None:
        self._act("drop")

    def action_close(self) -> None:
        self.dismiss(None)
