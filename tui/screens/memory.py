"""``/memory``: what is loaded into the prompt, and the memories to browse, search, edit and
delete."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Label, TextArea

from ...core.text.counts import counted
from ..outside_text import outside_text
from ..widgets.keys_in_order import LineInput, TextEditor
from ..widgets.measured_table import MeasuredTable
from .edit_text import for_editor, from_editor

LISTED = 500
"""Memories listed when no search is typed (the most recently changed)."""


class MemoryScreen(ModalScreen[None]):
    """The files loaded into the system prompt (with their tokens), then the project's and
    the person's memories.

    Keys: type in the search box to search (hybrid, as ``memory_search``); ↓ or Tab to the
    list; Enter edits the highlighted memory's value below (Ctrl+S saves, Esc leaves the
    editor); ``n`` a new memory (key, then value); ``d`` deletes the highlighted one (``d``
    again to confirm); Esc or ``q`` closes.
    """

    DEFAULT_CSS = """
    MemoryScreen { align: center middle; }
    MemoryScreen > Vertical {
        width: 95%; height: 92%; border: round $primary; background: $surface; padding: 0 1;
    }
    MemoryScreen .memory-title { text-style: bold; }
    MemoryScreen #loaded { height: auto; max-height: 8; }
    MemoryScreen #memories { height: 1fr; }
    MemoryScreen #editor-row { height: 8; display: none; }
    MemoryScreen #editor-row.-editing { display: block; }
    MemoryScreen #new-key { width: 30; }
    MemoryScreen #value { width: 1fr; }
    MemoryScreen #memory-status { color: $text-muted; }
    """

    BINDINGS = [
        Binding("escape", "back", "close / leave the editor"),
        Binding("q", "close", "close", show=False),
        Binding("n", "new", "new memory"),
        Binding("d", "delete", "delete"),
        Binding("ctrl+s", "save", "save", priority=True),
    ]

    def __init__(self, instructions: Any, memory: Any,
                 count_tokens: Callable[[list[dict[str, Any]]], int] | None = None) -> None:
        """Args:
            instructions: The loaded instruction files (``core.memory.Instructions``).
            memory: The project's memories (``core.memory.ProjectMemory``), or None.
            count_tokens: The model's token counter (None: about four characters a token).
        """
        super().__init__()
        self.instructions = instructions
        self.memory = memory
        self.count_tokens = count_tokens
        self._shown: list[Any] = []
        self._editing: Any = None  # the memory whose value the editor holds; None: a new one
        self._confirm_delete: Any = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Loaded into the system prompt", classes="memory-title")
            loaded: DataTable[str | Text] = MeasuredTable(id="loaded", cursor_type="row")
            loaded.add_columns("what", "file", "tokens")
            yield loaded
            yield Label("Memories (memory_set, memory_search)", classes="memory-title")
            yield LineInput(placeholder="search memories…", id="search")
            table: DataTable[str | Text] = MeasuredTable(id="memories", cursor_type="row",
                                                         zebra_stripes=True)
            table.add_columns("scope", "key", "value")
            yield table
            with Horizontal(id="editor-row"):
                yield LineInput(placeholder="key", id="new-key")
                yield TextEditor(id="value", soft_wrap=True)
            yield Label("", id="memory-status")

    def on_mount(self) -> None:
        loaded = self.query_one("#loaded", DataTable)
        for item in self.instructions.files:
            loaded.add_row(item.label, outside_text(str(item.path)), f"{self._tokens(item):,}")
        if not self.instructions.files:
            loaded.add_row("nothing", Text("no AGENTS.md, CLAUDE.md or GEMINI.md found; /init "
                                           "writes one", style="dim"), "")
        for problem in self.instructions.problems:
            loaded.add_row(Text("problem", style="bold red"), outside_text(problem), "")
        self.refresh_memories("")
        self.query_one("#memories", DataTable).focus()

    def _tokens(self, item: Any) -> int:
        if self.count_tokens is None:
            return max(1, len(item.text) // 4)
        return int(self.count_tokens([{"role": "system", "content": item.text}]))

    # -- listing and searching -----------------------------------------------------------

    @work(exclusive=True, group="memory-list", exit_on_error=False)
    async def refresh_memories(self, query: str) -> None:
        """List the memories, or those matching ``query``, off the event loop."""
        status = self.query_one("#memory-status", Label)
        if self.memory is None:
            status.update("This session keeps no memory.")
            return
        try:
            if query.strip():
                results = await asyncio.to_thread(self.memory.search, query, 50)
                rows = [(hit.memory, f"{hit.score:.2f}") for hit in results.found]
                said = f"{len(rows)} found ({results.mode} search)"
                if results.note:
                    said += f"; {results.note}"
            else:
                memories = await asyncio.to_thread(self.memory.list, LISTED)
                rows = [(memory, "") for memory in memories]
                said = counted(len(rows), "memory")
        except ValueError:
            rows, said = [], "type words to search"
        except Exception as exc:  # the database: said, never a crash of the screen
            rows, said = [], f"cannot read the memories: {exc}"
        table = self.query_one("#memories", DataTable)
        table.clear()
        self._shown = [memory for memory, _score in rows]
        for memory, score in rows:
            value = memory.value.replace("\n", " ")
            table.add_row(self.memory.label(memory), outside_text(memory.key),
                          outside_text((f"[{score}] " if score else "") + value[:160]))
        status.update(outside_text(said + " · Enter edit · n new · d delete · Esc close"))

    @on(Input.Changed, "#search")
    def _search(self, event: Input.Changed) -> None:
        self.refresh_memories(event.value)

    @on(Input.Submitted, "#search")
    def _to_list(self) -> None:
        self.query_one("#memories", DataTable).focus()

    # -- editing -----------------------------------------------------------------------

    @on(DataTable.RowSelected, "#memories")
    def _edit(self, event: DataTable.RowSelected) -> None:
        if 0 <= event.cursor_row < len(self._shown):
            self._open_editor(self._shown[event.cursor_row])

    def _open_editor(self, memory: Any) -> None:
        self._editing = memory
        row = self.query_one("#editor-row")
        row.add_class("-editing")
        key = self.query_one("#new-key", Input)
        key.value = for_editor(memory.key) if memory else ""
        key.disabled = memory is not None
        value = self.query_one("#value", TextArea)
        value.text = for_editor(memory.value) if memory else ""
        (value if memory else key).focus()
        self._say("editing: Ctrl+S saves, Esc leaves the editor")

    def action_new(self) -> None:
        if self.memory is not None and not self._in_editor():
            self._open_editor(None)

    def _in_editor(self) -> bool:
        return self.query_one("#editor-row").has_class("-editing")

    def _close_editor(self) -> None:
        self.query_one("#editor-row").remove_class("-editing")
        self._editing = None
        self.query_one("#memories", DataTable).focus()

    async def action_save(self) -> None:
        if not self._in_editor() or self.memory is None:
            return
        memory = self._editing
        typed = self.query_one("#value", TextArea).text
        if memory is not None:
            key, scope = memory.key, self.memory.label(memory)
            value = from_editor(typed, memory.value)
        else:
            key, scope, value = self.query_one("#new-key", Input).value.strip(), "project", typed
        try:
            await asyncio.to_thread(self.memory.set, key, value, scope)
        except Exception as exc:  # a bad key or value, or the database: said, never lost
            self._say(f"not saved: {exc}")
            return
        self._close_editor()
        self._say(f"saved {key}")
        self.refresh_memories(self.query_one("#search", Input).value)

    async def action_delete(self) -> None:
        if self._in_editor() or self.memory is None or not self._shown:
            return
        table = self.query_one("#memories", DataTable)
        memory = self._shown[min(table.cursor_row, len(self._shown) - 1)]
        if self._confirm_delete is not memory:
            self._confirm_delete = memory
            self._say(f"press d again to delete {memory.key}")
            return
        self._confirm_delete = None
        await asyncio.to_thread(self.memory.delete, memory.key, self.memory.label(memory))
        self._say(f"deleted {memory.key}")
        self.refresh_memories(self.query_one("#search", Input).value)

    def _say(self, text: str) -> None:
        self.query_one("#memory-status", Label).update(outside_text(text))

    def action_back(self) -> None:
        if self._in_editor():
            self._close_editor()
        else:
            self.dismiss(None)

    def action_close(self) -> None:
        if not self._in_editor() and not isinstance(self.focused, Input):
            self.dismiss(None)
