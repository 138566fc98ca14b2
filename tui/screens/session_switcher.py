"""The session switcher (F9): the workbench's open sessions, front and background."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from ..outside_text import outside_text, visible
from ..widgets.measured_table import MeasuredTable
from .key_help import key_help

if TYPE_CHECKING:
    from ..workbench.background import BackgroundSessions
    from ..workbench.session import WorkbenchSession

KEYS = (("j/k", "move"), ("enter", "bring to the front"), ("c", "stop its prompt"),
        ("x", "close it (stays resumable)"), ("i", "approval inbox"), ("esc", "back"))

NARROW_BELOW = 100
"""Below this many terminal columns the table leaves out files and waiting (the title counts
waiting calls), so the prompt keeps room."""

STATE_STYLES = {"running": "bold green", "waiting": "bold yellow", "failed": "bold red",
                "cancelled": "italic", "done": "", "idle": "dim"}


def _clip(text: str, width: int) -> str:
    text = visible(text)
    return text if len(text) <= width else text[: width - 1] + "…"


def _tally(session: WorkbenchSession) -> tuple[str, str, str]:
    """A session's model calls, cost and changed files, as the table's cells."""
    cost = session.usage.cost if session.usage is not None else None
    return (str(session.model_calls), "" if cost is None else f"${cost:.4f}",
            str(len(session.changed)))


class SessionSwitcher(ModalScreen["str | None"]):
    """Every open session with its state, model calls, cost, changed files and waiting
    calls; returns the session to bring to the front (None: stay).

    Args:
        sessions: The workbench's background sessions (the front one is the app's).
    """

    CSS_PATH = "inbox.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "move(1)", "next", show=False),
        Binding("k", "move(-1)", "previous", show=False),
        Binding("enter", "choose", "bring to the front", show=False, priority=True),
        Binding("c", "stop", "stop its prompt", show=False),
        Binding("x", "close_session", "close it", show=False),
        Binding("i", "inbox", "approval inbox", show=False),
        Binding("escape", "back", "back", show=False),
        Binding("q", "back", "back", show=False),
    ]

    def __init__(self, sessions: BackgroundSessions) -> None:
        super().__init__()
        self._ready = False  # the table exists (is_mounted is false during on_mount)
        self.sessions = sessions
        self._ids: list[str] = []
        self._narrow = False

    def compose(self) -> ComposeResult:
        with Vertical(id="inbox"):
            yield Static("", id="inbox-title")
            yield MeasuredTable(id="sessions", cursor_type="row", zebra_stripes=True,
                                fitted_column=-1)
            yield Static(key_help(KEYS), id="inbox-keys")

    def on_mount(self) -> None:
        table = self.query_one("#sessions", DataTable)
        self._narrow = self.app.size.width < NARROW_BELOW
        table.add_columns("session", "state", "model calls", "cost",
                          *(() if self._narrow else ("files", "waiting")), "prompt")
        self.sessions.watch(self)
        self._ready = True
        self.show_sessions()
        table.focus()

    def on_unmount(self) -> None:
        self.sessions.watch(None)

    def show_sessions(self) -> None:
        """Show the sessions as they are now, the cursor kept on the same one."""
        if not self._ready:
            return
        app = self.sessions.app
        table = self.query_one("#sessions", DataTable)
        current = self.current()
        approver = app.approver if app.has_approver else None
        self._ids = [app.session_id, *self.sessions.sessions]
        table.clear()
        front_state = ("waiting" if approver and approver.session_waiting(app.session_id)
                       else "running") if app.busy else "idle"
        table.add_row(*self._cells(f"▶ {app.session_id}", front_state, self.sessions.front,
                                   approver.session_waiting(app.session_id) if approver else 0,
                                   app.front_title()))
        for session in self.sessions.sessions.values():
            table.add_row(*self._cells(
                session.session_id, self.sessions.state(session), session,
                approver.session_waiting(session.session_id) if approver else 0,
                session.last or session.title))
        if current in self._ids:
            table.move_cursor(row=self._ids.index(current))
        running = self.sessions.running()
        title = (f"Open sessions: {len(self._ids)} ({running} running in the background)"
                 if len(self._ids) > 1 else
                 "Open sessions: only this one. /bg PROMPT starts one in the background.")
        self.query_one("#inbox-title", Static).update(outside_text(title))

    def _cells(self, name: str, state: str, session: WorkbenchSession, waiting: int,
               prompt: str) -> list[str | Text]:
        """One session's row: the prompt last, cut with … where the table ends."""
        calls, cost, files = _tally(session)
        return [Text(name), Text(state, STATE_STYLES.get(state, "")), calls, cost,
                *(() if self._narrow else (files, str(waiting))),
                Text(_clip(prompt, 200), overflow="ellipsis", no_wrap=True)]

    def current(self) -> str | None:
        """The session under the cursor."""
        if not self._ids:
            return None
        row = self.query_one("#sessions", DataTable).cursor_row
        return self._ids[min(max(row, 0), len(self._ids) - 1)]

    def action_move(self, delta: int) -> None:
        table = self.query_one("#sessions", DataTable)
        table.move_cursor(row=min(max(table.cursor_row + delta, 0), len(self._ids) - 1))

    def action_choose(self) -> None:
        """Bring the session under the cursor to the front."""
        self.dismiss(self.current())

    def action_stop(self) -> None:
        """Stop the running prompt of the session under the cursor (and its queued ones)."""
        session_id = self.current()
        if session_id == self.sessions.app.session_id:
            self.sessions.app.action_cancel_turn()
        elif session_id is not None:
            self.sessions.cancel(session_id)

    async def action_close_session(self) -> None:
        """Close the background session under the cursor (stopped first)."""
        session_id = self.current()
        if session_id is None or session_id == self.sessions.app.session_id:
            self.notify("The front session stays open; /new starts another.", timeout=3)
            return
        await self.sessions.close(session_id)

    def action_inbox(self) -> None:
        self.dismiss(None)
        self.sessions.app.call_later(self.sessions.app.action_open_inbox)

    def action_back(self) -> None:
        self.dismiss(None)
