"""The approval inbox: every call waiting for a person, from every session, in one queue."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from ...core.approval import Allow, Deny
from ..outside_text import outside_text, visible
from ..widgets.measured_table import MeasuredTable
from .key_help import key_help

KEYS = (("j/k", "move"), ("y", "allow once"), ("n", "deny"), ("a", "always allow (session)"),
        ("d/enter", "details"), ("r", "allow every read-only call"), ("esc", "close"))


def _clip(text: str, width: int) -> str:
    text = visible(text)
    return text if len(text) <= width else text[: width - 1] + "…"


class InboxScreen(ModalScreen[None]):
    """The calls waiting for approval, oldest first, answered with single keys.

    ``d`` (or enter) opens a call in the full approval modal (its diff or command, editing,
    preview, hunks); ``a`` allows the call and, for the rest of its session, what its rules
    cover; ``r`` allows once every call that only reads (fetches, searches, reads outside
    the project). The list follows the queue while it is open.

    Args:
        approver: The workbench's approver, whose queue this shows
            (:class:`~agent_tui.tui.workbench.approver.TuiApprover`; not imported here: it opens this
            screen).
    """

    CSS_PATH = "inbox.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "move(1)", "next", show=False),
        Binding("k", "move(-1)", "previous", show=False),
        Binding("y", "allow_once", "allow once", show=False),
        Binding("n", "deny", "deny", show=False),
        Binding("a", "allow_always", "always allow", show=False),
        Binding("d", "details", "details", show=False),
        Binding("enter", "details", "details", show=False, priority=True),
        Binding("r", "allow_read_only", "allow read-only calls", show=False),
        Binding("escape", "close", "close", show=False),
        Binding("q", "close", "close", show=False),
    ]

    def __init__(self, approver: Any) -> None:
        super().__init__()
        self._ready = False  # the table exists (is_mounted is false during on_mount)
        self.approver = approver
        self._rows: list[Any] = []  # PendingApproval

    def compose(self) -> ComposeResult:
        with Vertical(id="inbox"):
            yield Static("", id="inbox-title")
            yield MeasuredTable(id="calls", cursor_type="row", zebra_stripes=True)
            yield Static("", id="inbox-detail")
            yield Static(key_help(KEYS), id="inbox-keys")

    def on_mount(self) -> None:
        table = self.query_one("#calls", DataTable)
        table.add_columns("#", "session", "tool", "what")
        self._ready = True
        self.show_pending()
        table.focus()

    def on_unmount(self) -> None:
        self.approver.inbox_closed()

    def show_pending(self) -> None:
        """Show the queue as it is now, keeping the cursor on the same call if it waits."""
        if not self._ready:
            return
        table = self.query_one("#calls", DataTable)
        current = self.current()
        self._rows = list(self.approver.pending)
        table.clear()
        front = self.approver.front_session()
        describe = getattr(self.app, "session_label", None)
        for item in self._rows:
            session = describe(item.session_id) if callable(describe) else item.session_id
            if item.session_id == front:
                session = f"▶ {session}"
            tool = Text(visible(item.request.tool))
            if item.read_only:
                tool.append(" (read-only)", "italic")
            table.add_row(str(item.number), Text(_clip(session, 24)), tool,
                          Text(_clip(item.request.summary, 60)))
        if current in self._rows:
            table.move_cursor(row=self._rows.index(current))
        count = len(self._rows)
        read_only = sum(1 for item in self._rows if item.read_only)
        title = (f"Approval inbox: {count} call{'s' * (count != 1)} waiting"
                 + (f", {read_only} read-only" if read_only else "") if count
                 else "Approval inbox: nothing waits for approval.")
        self.query_one("#inbox-title", Static).update(outside_text(title))
        self._show_detail()

    def current(self) -> Any:
        """The call under the cursor (a ``PendingApproval``), or None."""
        if not self._rows:
            return None
        row = self.query_one("#calls", DataTable).cursor_row
        return self._rows[min(max(row, 0), len(self._rows) - 1)]

    def _show_detail(self) -> None:
        item = self.current()
        text = "" if item is None else f"{item.request.summary}\nNeeds approval: " \
                                       f"{item.request.reason}"
        self.query_one("#inbox-detail", Static).update(outside_text(text))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    # -- answers -------------------------------------------------------------------------

    def action_move(self, delta: int) -> None:
        table = self.query_one("#calls", DataTable)
        if self._rows:
            table.move_cursor(row=min(max(table.cursor_row + delta, 0), len(self._rows) - 1))

    def _answer(self, decision: Any) -> None:
        if (item := self.current()) is not None:
            self.approver.decide(item, decision)

    def action_allow_once(self) -> None:
        """Allow the call under the cursor, this once."""
        self._answer(Allow())

    def action_deny(self) -> None:
        """Refuse the call under the cursor."""
        self._answer(Deny())

    def action_allow_always(self) -> None:
        """Allow the call and, for the rest of its session, what its rules cover."""
        item = self.current()
        if item is None:
            return
        if not item.request.rules:
            self.notify("No rule can always allow this call; y allows it once.",
                        severity="warning", timeout=4)
            return
        self.approver.decide(item, Allow("session", item.request.rules))

    def action_allow_read_only(self) -> None:
        """Allow once every waiting call that only reads."""
        count = self.approver.allow_read_only()
        self.notify(f"Allowed {count} read-only call{'s' * (count != 1)}." if count
                    else "No read-only call waits.", timeout=3)

    def action_details(self) -> None:
        """Open the call under the cursor in the full approval modal."""
        from .approval import AnswerInInbox, ApprovalScreen

        item = self.current()
        if item is None:
            return

        def answered(answer: Any) -> None:
            if answer is not None and not isinstance(answer, AnswerInInbox):
                self.approver.decide(item, answer)

        self.app.push_screen(ApprovalScreen(item.request, waiting=len(self._rows) - 1,
                                           preview=item.preview), answered)

    def action_close(self) -> None:
        self.dismiss(None)
