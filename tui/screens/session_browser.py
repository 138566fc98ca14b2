"""The session browser: find an earlier session, read it, then resume, fork, export or delete it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Input, Label, Markdown, OptionList, Static
from textual.widgets.option_list import Option

from ...core.sessions.export import to_markdown
from ...core.sessions.index import SessionIndex
from ...core.sessions.log import SessionError, SessionLocked, read_events, turn_starts
from ...core.sessions.summary import SessionSummary
from ..outside_text import outside_text, visible
from ..widgets.keys_in_order import LineInput
from ..widgets.markdown_run import LiteralMarkdown
from ..widgets.measured_table import MeasuredTable
from .key_help import key_help

ActionKind = Literal["resume", "fork", "export"]
"""What the caller should do with the chosen session."""

PREVIEW_LINES = 200
"""The preview shows at most this many lines of the transcript."""

TITLE_WIDTH = 34
"""Longer titles are cut in the table (the preview has them whole)."""

FORK_MARK = "↳ "
"""Before a fork's title in the table; the preview names its parent and the prompt it kept."""

FILE_PREFIX = "file:"
"""Search text starting with this looks for sessions that changed a matching file."""

SEARCH_KEYS = key_help([("type", "search"), ("↑↓", "choose"), ("enter", "resume"),
                        ("tab", "fork, export, delete…"), ("esc", "close")])
"""The key line while the cursor is in the search box: typed letters search."""

TABLE_KEYS = key_help([("enter", "resume"), ("f", "fork"), ("t", "fork at a turn"),
                       ("x", "export"), ("d", "delete"), ("s", "sort"), ("/", "search"),
                       ("esc", "close")])
"""The key line while the table has the cursor: single keys act on the highlighted row."""


@dataclass(frozen=True, slots=True)
class BrowserAction:
    """What the person chose in the :class:`SessionBrowser`.

    Attributes:
        kind: ``resume``, ``fork`` or ``export``.
        session_id: The chosen session.
        turn: For a fork, keep only the turns before this one (None: the whole session).
    """

    kind: ActionKind
    session_id: str
    turn: int | None = None


@dataclass(frozen=True, slots=True)
class _Column:
    """One table column: its heading, its cell text and how it sorts."""

    label: str
    width: int
    cell: Callable[[SessionSummary], str]
    sort_key: Callable[[SessionSummary], Any]
    descending: bool
    justify: Literal["left", "right"] = "left"


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp)) if stamp else ""


def _clip(text: str, width: int) -> str:
    """``text`` (from a session log: shown literally) cut to ``width`` characters."""
    text = visible(text)
    return text if len(text) <= width else text[: width - 1] + "…"


def _tokens(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    if count >= 100_000:
        return f"{count / 1000:.0f}k"
    if count >= 1000:
        return f"{count / 1000:.1f}k"
    return str(count)


COLUMNS: dict[str, _Column] = {
    "title": _Column("title", TITLE_WIDTH, lambda s: _clip(FORK_MARK * bool(s.parent) + s.title,
                                                           TITLE_WIDTH),
                     lambda s: s.title.casefold(), False),
    "project": _Column("project", 12, lambda s: _clip(Path(s.project).name, 12),
                       lambda s: (s.project, -s.updated), False),
    "model": _Column("model", 16, lambda s: _clip(s.model.rpartition("/")[2], 16),
                     lambda s: (s.model, -s.updated), False),
    "updated": _Column("updated", 16, lambda s: _when(s.updated), lambda s: s.updated, True),
    "prompts": _Column("prompts", 7, lambda s: str(s.prompts), lambda s: s.prompts, True,
                       "right"),
    "tokens": _Column("tokens", 6, lambda s: _tokens(s.total_tokens),
                      lambda s: s.total_tokens, True, "right"),
    "cost": _Column("cost", 6, lambda s: "" if s.cost is None else f"${s.cost:.2f}",
                    lambda s: -1.0 if s.cost is None else s.cost, True, "right"),
}
"""The table's columns, left to right, by key."""

SORT_CYCLE: tuple[str, ...] = ("updated", "title", "project", "model", "prompts", "tokens",
                               "cost")
"""The order ``s`` steps through the sort columns."""

KEPT_COLUMNS: tuple[str, ...] = ("title", "model", "updated")
"""The columns a narrow table keeps (80 columns shows these); the others are left out, the
rightmost first, until the table fits (the preview names them all)."""


def fitting_columns(room: int) -> dict[str, _Column]:
    """The columns a table ``room`` cells wide shows, each its width and its padding."""
    shown = dict(COLUMNS)
    for key in reversed(COLUMNS):
        if sum(column.width + 2 for column in shown.values()) <= room:
            break
        if key not in KEPT_COLUMNS:
            del shown[key]
    return shown


class ConfirmDelete(ModalScreen[bool]):
    """Asks whether to delete one session for good; ``y`` is yes, ``n`` or ``escape`` no."""

    CSS_PATH = "session_browser.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "delete"),
        Binding("n,escape", "answer(False)", "keep"),
    ]

    def __init__(self, summary: SessionSummary) -> None:
        """Ask about ``summary``'s session."""
        super().__init__()
        self.summary = summary

    def compose(self) -> ComposeResult:
        """The question and the keys."""
        with Vertical(id="confirm-dialog"):
            yield Label("Delete this session?", id="confirm-title")
            yield Static(outside_text(f"{self.summary.title}\n{self.summary.id}: its log and "
                                      "files are removed from disk; this cannot be undone."),
                         id="confirm-what")
            yield Static(key_help([("y", "delete"), ("n/esc", "keep it")]), id="confirm-keys")

    def action_answer(self, yes: bool) -> None:
        """Dismiss with the answer."""
        self.dismiss(yes)


class TurnPicker(ModalScreen["int | None"]):
    """Picks the turn of a session to fork before; ``enter`` picks, ``escape`` goes back.

    Lists every turn (its number and the first line of its prompt), newest last and
    highlighted; dismisses with the turn's number.
    """

    CSS_PATH = "session_browser.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "back")]

    def __init__(self, session_id: str, events: list[dict[str, Any]]) -> None:
        """List the turns of ``events``, the records of session ``session_id``."""
        super().__init__()
        self.session_id = session_id
        self.prompts = [str(events[i].get("text", "")) for i in turn_starts(events)]

    def compose(self) -> ComposeResult:
        """The turns and the keys."""
        with Vertical(id="turn-dialog"):
            yield Label("Fork before which turn?", id="turn-title")
            yield Static("The copy keeps the turns above the one you pick; its prompt comes "
                         "back in the prompt box to edit. The original stays as it is.",
                         id="turn-what")
            yield OptionList(*(Option(Text.assemble((f"{n:>3} ", "bold"), _clip(
                (prompt.strip().splitlines() or [""])[0], 70)), id=str(n))
                for n, prompt in enumerate(self.prompts)), id="turns")
            yield Static(key_help([("enter", "fork before it"), ("esc", "back")]),
                         id="turn-keys")

    def on_mount(self) -> None:
        """Highlight the newest turn."""
        turns = self.query_one("#turns", OptionList)
        if self.prompts:
            turns.highlighted = len(self.prompts) - 1
        turns.focus()

    @on(OptionList.OptionSelected, "#turns")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(int(event.option.id or 0))

    def action_back(self) -> None:
        """Go back to the browser without forking."""
        self.dismiss(None)


class SessionBrowser(Screen["BrowserAction | None"]):
    """A searchable, sortable table of the recorded sessions with a transcript preview.

    It opens in the search box: typing searches (``file:`` too), the arrows move the
    highlight in the table, ``enter`` resumes. The single-key actions act only in the table
    (``tab`` or ``enter`` after a search), where ``/`` goes back to the search; the key line
    says which keys work where. Dismisses with a :class:`BrowserAction` (``enter`` resume,
    ``f`` fork, ``t`` fork before a turn picked in a :class:`TurnPicker`, ``x`` export) or
    None (``escape``, or ``q`` in the table); doing the action is the caller's job. ``d``
    deletes the highlighted session after a :class:`ConfirmDelete` (a session open in an
    agent-tui is refused with a note). Search text is matched against message text, or,
    after ``file:``, against the paths of the files a session changed.

    Visual state: ``-narrow`` / ``-wide`` (horizontal breakpoints) put the preview below
    or beside the table; ``-empty`` on the screen when no session is listed.
    """

    CSS_PATH = "session_browser.tcss"
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-narrow"), (160, "-wide")]

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close", show=False),
        Binding("q", "close", "close", show=False),
        Binding("f", "choose('fork')", "fork", show=False),
        Binding("t", "fork_at_turn", "fork at a turn", show=False),
        Binding("x", "choose('export')", "export", show=False),
        Binding("d", "delete", "delete", show=False),
        Binding("s", "cycle_sort", "sort", show=False),
        Binding("slash", "focus_search", "search", show=False),
        # Reached only from the search box (the table moves its own cursor): the arrows
        # move the highlight while the cursor stays in the search.
        Binding("down", "move_highlight(1)", show=False),
        Binding("up", "move_highlight(-1)", show=False),
    ]

    def __init__(self, index_path: Path | None = None, project: Path | None = None) -> None:
        """Browse the sessions.

        Args:
            index_path: The index's SQLite file (default: the one under the sessions dir).
            project: List only this project's sessions (search always looks at all).
        """
        super().__init__()
        self.index_path = index_path
        self.project = project
        self.index: SessionIndex | None = None
        self.sort = "updated"
        self.summaries: list[SessionSummary] = []
        self.shown_columns: dict[str, _Column] = COLUMNS
        """The columns the table has room for (``fitting_columns``)."""
        self.searched = ""
        """The search text the table is being filled for."""
        self.listed: str | None = None
        """The search text the table shows the results of (None until they are shown)."""
        self.resume_when_listed = False
        """Enter came before the results of the search: resume once they are shown."""

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        """The search box, the table and the preview, then the status and the keys."""
        # Back in the search (``/``), typing refines it rather than replacing it.
        yield LineInput(placeholder="search messages, or file:foo.py", id="search",
                        select_on_focus=False)
        with Horizontal(id="body"):
            yield MeasuredTable(id="sessions", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="preview-pane"):
                # Links in another machine's transcript are not followed on a click; its
                # HTML is shown as written, as in the conversation.
                yield LiteralMarkdown("", id="preview", open_links=False)
        with Horizontal(id="footer"):
            yield Static("Loading sessions…", id="status", markup=False)
            yield Static(SEARCH_KEYS, id="keys")

    def on_mount(self) -> None:
        """Open the index off the event loop and list the sessions; typing searches."""
        self._set_columns()
        self.query_one("#search", Input).focus()
        self.load()

    @on(events.DescendantFocus)
    def _show_keys(self) -> None:
        """The key line names the keys that work where the cursor is."""
        in_table = isinstance(self.focused, DataTable)
        self.query_one("#keys", Static).update(TABLE_KEYS if in_table else SEARCH_KEYS)

    def on_unmount(self) -> None:
        """Close the index."""
        if self.index is not None:
            self.index.close()

    # ------------------------------------------------------------------ loading

    @work(exclusive=True, group="load")
    async def load(self, keep: str | None = None) -> None:
        """List the sessions the search box asks for, keeping ``keep`` highlighted."""
        text = self.query_one("#search", Input).value.strip()
        self.searched = text
        if self.index is None:
            self.index = await asyncio.to_thread(SessionIndex, self.index_path)
        index = self.index
        if text.startswith(FILE_PREFIX):
            fragment = text[len(FILE_PREFIX):].strip()
            found = await asyncio.to_thread(index.sessions_touching, fragment) if fragment \
                else await asyncio.to_thread(index.list, self.project)
        elif text:
            found = await asyncio.to_thread(index.search, text)
        else:
            found = await asyncio.to_thread(index.list, self.project)
        self.summaries = found
        self._fill(keep)
        self.listed = text
        if self.resume_when_listed and text == self.query_one("#search", Input).value.strip():
            self.resume_when_listed = False
            self.action_choose("resume")

    def _fill(self, keep: str | None = None) -> None:
        """Put the summaries in the table in the current order."""
        table = self.query_one("#sessions", DataTable)
        keep = keep or self.highlighted_id
        column = COLUMNS[self.sort]
        ordered = sorted(self.summaries, key=column.sort_key, reverse=column.descending)
        table.clear()
        for summary in ordered:
            # Text, not str: a title like "[fix]" must not be read as markup (and the
            # cells' text went through visible: no escape reaches the terminal).
            table.add_row(*(Text(c.cell(summary), justify=c.justify)
                            for c in self.shown_columns.values()), key=summary.id)
        ids = [s.id for s in ordered]
        if keep in ids:
            table.move_cursor(row=ids.index(keep), animate=False)
        self.set_class(not ordered, "-empty")
        self._show_status(len(ordered))
        if not ordered:
            self._show_preview(None)

    def _set_columns(self) -> None:
        """(Re)make the headings; the sort column carries an arrow."""
        table = self.query_one("#sessions", DataTable)
        table.clear(columns=True)
        for key, column in self.shown_columns.items():
            label = column.label
            if key == self.sort:
                label += " ▼" if column.descending else " ▲"
            # Fixed widths: the table neither jumps as results change nor waits to measure.
            table.add_column(label, width=column.width, key=key)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_columns)

    def _fit_columns(self) -> None:
        """Show the columns the table has room for (``fitting_columns``)."""
        table = self.query_one("#sessions", DataTable)
        if not table.size.width:
            return
        columns = fitting_columns(table.content_region.width
                                  - table.styles.scrollbar_size_vertical)
        if list(columns) != list(self.shown_columns):
            self.shown_columns = columns
            self._set_columns()
            self._fill()

    def _show_status(self, count: int) -> None:
        text = self.query_one("#search", Input).value.strip()
        noun = "session" if count == 1 else "sessions"
        if text.startswith(FILE_PREFIX):
            where = f" that changed files matching {text[len(FILE_PREFIX):].strip()!r}"
        elif text:
            where = f" mentioning {text!r}"
        else:
            where = " of this project" if self.project is not None else ""
        status = f"{count} {noun}{where}, sorted by {self.sort}"
        if not count and not text:
            status = "No sessions recorded yet: they appear here once you send a prompt."
        elif not count:
            status = f"No sessions{where}: try other words, or clear the search."
        self.query_one("#status", Static).update(status)

    # ------------------------------------------------------------------ preview

    @property
    def highlighted_id(self) -> str | None:
        """The id of the highlighted session, if any."""
        table = self.query_one("#sessions", DataTable)
        if not table.row_count:
            return None
        row_key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        return str(row_key.value) if row_key.value is not None else None

    @on(DataTable.RowHighlighted, "#sessions")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_preview(str(event.row_key.value))

    @work(exclusive=True, group="preview")
    async def _show_preview(self, session_id: str | None) -> None:
        """Show the session's transcript, its first :data:`PREVIEW_LINES` lines."""
        preview = self.query_one("#preview", Markdown)
        if session_id is None:
            await preview.update("")
            return
        try:
            log = await asyncio.to_thread(read_events, session_id)
        except SessionError as exc:
            await preview.update(f"*Cannot read this session: {visible(str(exc))}*")
            return
        lines = to_markdown(log).splitlines()
        if len(lines) > PREVIEW_LINES:
            lines = [*lines[:PREVIEW_LINES], "", f"*… {len(lines) - PREVIEW_LINES} more lines: "
                     "press x to export the whole transcript.*"]
        try:
            await preview.update("\n".join(lines))
            self.query_one("#preview-pane", VerticalScroll).scroll_home(animate=False)
        except NoMatches:
            return  # the person chose a session and the browser closed while this loaded

    # ------------------------------------------------------------------ search and sort

    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        event.stop()
        if event.value.strip() != self.searched:  # not for the Changed the Input posts at start
            self.load()

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        """Enter in the search resumes the highlighted session of the search's results."""
        event.stop()
        if self.listed == event.value.strip():
            self.action_choose("resume")
        else:  # typed faster than the search ran: resume what it finds
            self.resume_when_listed = True

    def action_focus_search(self) -> None:
        """Put the cursor in the search box."""
        self.query_one("#search", Input).focus()

    def action_move_highlight(self, rows: int) -> None:
        """Move the table's highlight by ``rows`` (from the search box)."""
        table = self.query_one("#sessions", DataTable)
        if table.row_count:
            row = max(0, min(table.cursor_row + rows, table.row_count - 1))
            table.move_cursor(row=row, animate=False)

    def action_cycle_sort(self) -> None:
        """Sort by the next column."""
        self._sort_by(SORT_CYCLE[(SORT_CYCLE.index(self.sort) + 1) % len(SORT_CYCLE)])

    @on(DataTable.HeaderSelected, "#sessions")
    def _header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        self._sort_by(str(event.column_key.value))

    def _sort_by(self, key: str) -> None:
        keep = self.highlighted_id
        self.sort = key
        self._set_columns()
        self._fill(keep)

    # ------------------------------------------------------------------ choices

    @on(DataTable.RowSelected, "#sessions")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_choose("resume")

    def action_choose(self, kind: ActionKind) -> None:
        """Dismiss with ``kind`` for the highlighted session."""
        session_id = self.highlighted_id
        if session_id is None:
            self.notify("No session is selected: clear the search or press esc.",
                        severity="warning")
            return
        self.dismiss(BrowserAction(kind, session_id))

    @work(exclusive=True, group="turns")
    async def action_fork_at_turn(self) -> None:
        """Pick a turn of the highlighted session, then dismiss with a fork before it."""
        session_id = self.highlighted_id
        if session_id is None:
            self.notify("No session is selected: clear the search or press esc.",
                        severity="warning")
            return
        try:
            log = await asyncio.to_thread(read_events, session_id)
        except SessionError as exc:
            self.notify(visible(f"Cannot read this session: {exc}"), severity="error",
                        markup=False)
            return
        if not turn_starts(log.events):
            self.notify("This session has no turns yet; press f to fork it whole.",
                        severity="warning")
            return
        turn = await self.app.push_screen_wait(TurnPicker(session_id, log.events))
        if turn is not None:
            self.dismiss(BrowserAction("fork", session_id, turn))

    def action_close(self) -> None:
        """Leave without choosing."""
        self.dismiss(None)

    @work(exclusive=True, group="delete")
    async def action_delete(self) -> None:
        """Ask, then delete the highlighted session and list the rest."""
        session_id = self.highlighted_id
        summary = next((s for s in self.summaries if s.id == session_id), None)
        if summary is None or self.index is None:
            return
        if not await self.app.push_screen_wait(ConfirmDelete(summary)):
            return
        try:
            await asyncio.to_thread(self.index.delete, summary.id)
        except SessionLocked as exc:
            self.notify(visible(f"{exc}. Close that agent-tui first, or fork the session "
                                "instead."), title="Not deleted", severity="error", markup=False)
            return
        except SessionError as exc:
            self.notify(visible(f"Could not delete the session: {exc}"), severity="error",
                        markup=False)
        else:
            self.notify(visible(f"Deleted session {summary.id}."), timeout=3, markup=False)
        table = self.query_one("#sessions", DataTable)
        row = table.cursor_row
        self.summaries = [s for s in self.summaries if s.id != summary.id]
        self._fill()
        if table.row_count:
            table.move_cursor(row=min(row, table.row_count - 1), animate=False)

