"""``/context``: every item in the model's context with its tokens, and actions on an item."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import DataTable, Label

from ...core.context.window import ContextError
from ..outside_text import outside_text, visible
from ..widgets.measured_table import MeasuredTable
from ..widgets.waiting import TICK_S, Awaited, WaitingLine, now

INSTRUCTION_ROW = -2
"""The index of a row showing an instruction file inside the system prompt."""
REPO_MAP_INDEX = -3
"""The repository map's row (``core.context.repo_map.REPO_MAP_INDEX``)."""

A_MOMENT_S = 0.2
"""A load that takes longer than this shows the loading line (a quick one does not flash it)."""


def _cut(text: Text) -> Text:
    """``text`` on one line, ending in … where the table ends."""
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


@dataclass(frozen=True, slots=True)
class _Counted:
    """What one count found: the items, the instruction files' rows, the window."""

    items: list[Any]
    files: list[tuple[str, int]]  # (label: path, tokens)
    window: int


class ContextInspector(ModalScreen[None]):
    """The context of the session's agent: system prompt, tool schemas, each message and
    tool result.

    It opens at once: the agent is built (the model library loaded, on first use) and the
    tokens counted off the event loop, a spinner line saying which while it takes longer
    than a moment; :attr:`loaded` is True once the table shows the count. Keys act on the
    highlighted item: ``p`` pin or unpin (compaction keeps it verbatim and thinning leaves
    it alone; the repository map is kept as it is, no longer rebuilt), ``h`` dehydrate (a
    tool result goes to a fragment the agent can ``rehydrate``), ``x`` drop (out of the
    context; the history stays valid; the repository map for the rest of the session).
    Only while the agent is idle: the workbench opens it then.

    Args:
        agent: Gives the session's agent (the workbench's ``ensure_agent``).
    """

    DEFAULT_CSS = """
    ContextInspector { align: center middle; }
    ContextInspector > Vertical {
        width: 95%; height: 90%; border: round $primary; background: $surface; padding: 0 1;
    }
    ContextInspector #context-total { text-style: bold; }
    ContextInspector DataTable { height: 1fr; }
    ContextInspector #context-help { color: $text-muted; }
    ContextInspector WaitingLine { margin-top: 0; display: none; }
    ContextInspector WaitingLine.-shown { display: block; }
    """

    BINDINGS = [
        Binding("p", "pin", "pin / unpin"),
        Binding("h", "dehydrate", "dehydrate"),
        Binding("x", "drop", "drop"),
        Binding("escape,q", "close", "close"),
    ]

    def __init__(self, agent: Callable[[], Awaitable[Any]]) -> None:
        super().__init__()
        self._get_agent = agent
        self.agent: Any = None
        self.loaded = False
        """The table shows the latest count."""
        self._indices: list[int] = []
        self._awaited = Awaited("starting the agent", now())
        self._ticker: Timer | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("", id="context-total")
            yield WaitingLine(self._awaited, now())
            table: DataTable[str | Text] = MeasuredTable(cursor_type="row", zebra_stripes=True,
                                                         fitted_column=-1)
            table.add_columns("#", "kind", "tokens", "", "text")
            yield table
            yield Label("p pin/unpin · h dehydrate (tool results) · x drop · Esc close",
                        id="context-help")

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()
        self._ticker = self.set_interval(TICK_S, self._tick)
        self.refresh_items()

    def _tick(self) -> None:
        """Show the loading line, spinner and time, once a load takes more than a moment."""
        line = self.query_one(WaitingLine)
        moment = now()
        line.set_class(not self.loaded and moment - self._awaited.since > A_MOMENT_S, "-shown")
        if line.has_class("-shown"):
            line.show(self._awaited, moment)

    def _loading(self, what: str) -> None:
        self._awaited = Awaited(what, self._awaited.since)

    @work(exclusive=True, group="context")
    async def refresh_items(self) -> None:
        """Recount and redraw every item (the count off the event loop)."""
        self.loaded = False
        self._awaited = Awaited("starting the agent", now())
        if self._ticker is not None:
            self._ticker.resume()
        if self.agent is None and "litellm" not in sys.modules:
            self._loading("loading the model library")  # the agent's first use: seconds
        try:
            if self.agent is None:
                self.agent = await self._get_agent()
            self._loading("counting tokens")
            counted = await asyncio.to_thread(self._count)
        except Exception as exc:  # noqa: BLE001 - the screen says what failed instead
            self.query_one("#context-total", Label).update(outside_text(
                f"Could not count the context: {exc}. Press Esc, then check /model."))
        else:
            self._show(counted)
        self.loaded = True
        self.query_one(WaitingLine).remove_class("-shown")
        if self._ticker is not None:
            self._ticker.pause()

    def _count(self) -> _Counted:
        """Count every item (in a thread: a long session's tokens take a while)."""
        agent = self.agent
        tools = agent.registry.schemas() if agent.native_tools else None
        items = agent.context.items(agent.messages, tools)
        repo_map = getattr(agent, "repo_map", None)
        if repo_map is not None and repo_map.last is None:
            repo_map.refresh(agent.messages)  # before the first turn: what it will send
        if repo_map is not None and (map_item := repo_map.context_item()) is not None:
            items.append(map_item)  # sent last, after the history
        knowledge = getattr(agent, "knowledge", None)
        files = [(f"{loaded.label}: {loaded.path}",
                  agent.context.ledger.tokens({"role": "system", "content": loaded.text}))
                 for loaded in (knowledge.instructions.files if knowledge else ())]
        return _Counted(items, files, agent.provider.context_window())

    def _show(self, counted: _Counted) -> None:
        items = counted.items
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        self._indices = []
        for item in items:
            marks = ("📌" if item.pinned else "") + ("💧" if item.dehydrated else "")
            # DataTable reads str cells as markup: a preview (a file path, a command's
            # "[/x]") goes in as literal Text, or it crashes the screen or vanishes.
            table.add_row(str(item.index) if item.index >= 0 else "", item.kind,
                          f"{item.tokens:,}", marks, _cut(outside_text(item.preview[:200])))
            self._indices.append(item.index)
            if item.kind == "system":
                self._add_instruction_rows(table, counted.files)
        total = sum(item.tokens for item in items)
        window = counted.window
        registry = getattr(self.agent, "registry", None)
        lean = "; the lean tool set (a small window)" if getattr(registry, "lean", False) else ""
        self.query_one("#context-total", Label).update(
            f"{total:,} tokens of {window:,} ({total / window:.0%}) in {len(items)} items{lean}")
        if items:
            table.move_cursor(row=min(row, len(items) - 1))

    def _add_instruction_rows(self, table: DataTable[str | Text],
                              files: list[tuple[str, int]]) -> None:
        """The files loaded into the system prompt (AGENTS.md…), each with its tokens."""
        for name, tokens in files:
            table.add_row("", "  file", f"{tokens:,}", "", _cut(outside_text(name)))
            self._indices.append(INSTRUCTION_ROW)

    def _act(self, action: str) -> None:
        table = self.query_one(DataTable)
        if self.agent is None or not self._indices:
            return
        index = self._indices[table.cursor_row]
        context, messages = self.agent.context, self.agent.messages
        try:
            if index == REPO_MAP_INDEX:
                self._act_on_map(action)
            elif index == INSTRUCTION_ROW:
                raise ContextError("this file is part of the system prompt: edit the file "
                                   "itself; it is read again between turns")
            elif index < 0:
                raise ContextError("the tool schemas cannot be changed here")
            elif action == "pin":
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

    def _act_on_map(self, action: str) -> None:
        """Pin (keep as it is), unpin or drop the repository map."""
        repo_map = self.agent.repo_map
        if action == "pin":
            pinned = repo_map.toggle_pin()
            self.notify("Pinned: the repository map stays as it is." if pinned else
                        "Unpinned: the repository map is rebuilt between turns.")
        elif action == "dehydrate":
            raise ContextError("only tool results can be dehydrated; drop the repository "
                               "map instead.")
        else:
            freed = repo_map.drop()
            self.notify(f"Dropped the repository map for this session: {freed:,} tokens "
                        "freed. repo_map_tokens = 0 in config.toml turns it off for good.")

    def action_pin(self) -> None:
        self._act("pin")

    def action_dehydrate(self) -> None:
        self._act("dehydrate")

    def action_drop(self) -> None:
        self._act("drop")

    def action_close(self) -> None:
        self.dismiss(None)
