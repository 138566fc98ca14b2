"""The tool log: every tool call of the session, in order, with its details on selection."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.timer import Timer
from textual.widgets import DataTable, Static

from ..outside_text import outside_content, outside_text
from .measured_table import MeasuredTable
from .tool_block import EDITED_MARK, live_output, tool_output_content

LIVE_DETAIL_INTERVAL = 0.2
"""Seconds between two redraws of the selected call's detail while its output streams."""
DETAIL_OUTPUT = 8_000
"""Characters of output (its end) the detail shows: about 200 lines of the narrow side
panel, each redraw a wrap of no more (a tool block in the conversation shows 20,000)."""


@dataclass
class ToolCallRecord:
    """What the log knows of one call."""

    call_id: str
    name: str
    summary: str
    args: Any
    started: float = field(default_factory=time.time)
    status: str = "pending"
    duration: float | None = None
    output: str = ""
    note: str = ""
    """How an edit matched, a warning, a stronger model suggested (``result_note``)."""
    proposed: str = ""
    """The model's proposal when the person edited the call ("" when it ran as proposed);
    ``summary`` and ``args`` are then the edit's."""


class ToolLog(Vertical):
    """A table of calls (time, tool, arguments, status, duration) and the selected call."""

    DEFAULT_CSS = """
    ToolLog { height: 1fr; }
    ToolLog DataTable { height: 1fr; min-height: 4; }
    ToolLog #tool-earlier { color: $text-muted; padding: 0 1; }
    ToolLog #tool-detail-scroll { height: 1fr; border-top: solid $panel; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.records: dict[str, ToolCallRecord] = {}
        """Each call by its id (a reused id: the latest call)."""
        self._rows: dict[str, ToolCallRecord] = {}  # by row key: unique, ids may repeat
        self._row_of: dict[str, str] = {}  # a call's id -> its latest row key
        self._selected: str | None = None  # a row key
        self._live_detail: Timer | None = None

    def compose(self) -> ComposeResult:
        table: MeasuredTable[str] = MeasuredTable(
            cursor_type="row", zebra_stripes=True, id="tool-table", fitted_column=2)
        table.add_columns("time", "tool", "arguments", "status", "took")
        earlier = Static("", id="tool-earlier")
        earlier.display = False
        yield earlier
        yield table
        with VerticalScroll(id="tool-detail-scroll"):
            yield Static("Select a call to see its arguments and output.", id="tool-detail")

    @property
    def table(self) -> DataTable[str]:
        return self.query_one("#tool-table", DataTable)

    def clear(self) -> None:
        """Forget every call (a new session begins)."""
        self.records.clear()
        self._rows.clear()
        self._row_of.clear()
        self._selected = None
        self.query_one("#tool-earlier", Static).display = False
        self.table.clear()
        self.query_one("#tool-detail", Static).update(
            "Select a call to see its arguments and output.")

    def add_call(self, call_id: str, name: str, summary: str, args: Any, *,
                 status: str = "pending", duration: float | None = None, output: str = "",
                 note: str = "", proposed: str = "", follow: bool = True,
                 started: float | None = None) -> None:
        """A new call (``follow``: move the cursor to it; off when loading many at once),
        started at ``started`` (a resumed call's recorded time; default: now)."""
        record = ToolCallRecord(call_id, name, summary, args, status=status,
                                duration=duration, output=output, note=note,
                                proposed=proposed, started=started or time.time())
        self.records[call_id] = record
        # Some providers number calls afresh each turn (call_0, call_1…): a reused id gets
        # a row of its own, and the id means its latest call from then on.
        row = call_id if call_id not in self._rows else f"{call_id}#{len(self._rows)}"
        self._rows[row] = record
        self._row_of[call_id] = row
        self.table.add_row(*self._cells(record), key=row)
        if follow:
            self.table.move_cursor(row=self.table.row_count - 1)

    def note_earlier(self, count: int) -> None:
        """Say that ``count`` earlier calls of a resumed session are not listed."""
        note = self.query_one("#tool-earlier", Static)
        note.update(f"{count:,} earlier calls: see the transcript or /export")
        note.display = True

    def update_call(self, call_id: str, *, status: str | None = None,
                    duration: float | None = None, output: str | None = None,
                    more_output: str = "", note: str | None = None) -> None:
        """Change a call's status, duration, output or note (live output appends)."""
        record = self.records.get(call_id)
        if record is None:
            return
        row = self._row_of[call_id]
        if note is not None:
            record.note = note
        if status is not None:
            record.status = status
        if duration is not None:
            record.duration = duration
        if output is not None:
            record.output = output
        if more_output:
            record.output = live_output(record.output, more_output)
        if status is not None or duration is not None or note is not None:
            # Columns fit what the rows show now: a status or a duration that changed is
            # measured, whether or not the table was drawn since the row was added.
            for column, value in zip(("status", "took"), self._cells(record)[3:], strict=True):
                self.table.update_cell(row, self._column_key(column), value, update_width=True)
        if self._selected == row:
            if more_output and status is None and output is None:
                # Live output redraws the detail at most LIVE_DETAIL_INTERVAL apart: a 5 MB
                # `cat` arrives in ~80 pieces, each a 20,000-character wrap otherwise.
                if self._live_detail is None:
                    self._live_detail = self.set_timer(LIVE_DETAIL_INTERVAL, self._show_live)
            else:
                self._show(record)

    def edit_call(self, call_id: str, summary: str, args: Any) -> None:
        """The person edited the call before it ran: list the edit, marked as such."""
        record = self.records.get(call_id)
        if record is None:
            return
        record.proposed = record.proposed or record.summary
        record.summary, record.args = summary, args
        row = self._row_of[call_id]
        self.table.update_cell(row, self._column_key("arguments"), self._cells(record)[2],
                               update_width=True)
        if self._selected == row:
            self._show(record)

    def _show_live(self) -> None:
        self._live_detail = None
        if self._selected is not None and self._selected in self._rows:
            self._show(self._rows[self._selected])

    def _column_key(self, label: str) -> Any:
        for key, column in self.table.columns.items():
            if str(column.label) == label:
                return key
        raise KeyError(label)

    @staticmethod
    def _cells(record: ToolCallRecord) -> tuple[str | Text, ...]:
        took = f"{record.duration:.1f}s" if record.duration is not None else ""
        # Text, not a str the table would parse as markup: `echo [/b]` is a command too,
        # and a tool name or status from another machine's log is outside text as well.
        arguments = outside_text((EDITED_MARK if record.proposed else "") + record.summary
                                 .removeprefix(f"{record.name} ")
                                 .removeprefix(f"{record.name}: ")[:60])
        arguments.no_wrap, arguments.overflow = True, "ellipsis"  # cut where the column ends
        status = record.status + (" ⚠" if "⚠" in record.note else "") + (
            " ↑" if "↑" in record.note else "")
        return (time.strftime("%H:%M:%S", time.localtime(record.started)),
                outside_text(record.name), arguments, outside_text(status), took)

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is None:
            return
        self._selected = event.row_key.value
        self._show(self._rows[self._selected])

    def _show(self, record: ToolCallRecord) -> None:
        args = record.args if isinstance(record.args, str) else json.dumps(
            record.args, indent=2, ensure_ascii=False)
        # Literal Content, never markup: output such as "[INFO]" or "[/x]" shows as it is,
        # escape sequences are shown (a command's colours kept), never sent to the terminal.
        self.query_one("#tool-detail", Static).update(Content.assemble(
            outside_content(record.name, "bold"), " · ", outside_content(record.status),
            *((" · ", outside_content(record.note, "$warning")) if record.note else ()), "\n",
            *((outside_content(f"edited by the person; the model proposed: {record.proposed}",
                               "italic"), "\n") if record.proposed else ()),
            outside_content(args, "dim"), "\n",
            tool_output_content(record.name, record.output[-DETAIL_OUTPUT:])))
