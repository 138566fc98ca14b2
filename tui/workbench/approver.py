"""The workbench's approver and its approval inbox.

Every call of every session of the workbench that waits for a person lands in one queue,
in the order asked: the front session's calls open the approval modal one at a time (the
others counted, "N more waiting"); background sessions' calls wait without interrupting,
counted in the status bar. The inbox (F8, ``/inbox``) shows them all at once and answers
them with single keys, read-only ones in bulk. Calls the person leaves for later (``i`` in
the modal, or opening the inbox: every call waiting then) wait in the inbox like a
background session's: their modals do not open again by themselves, so keys typed
afterwards never answer them.

A modal that opens by itself ignores its keys for ``approval_key_guard`` seconds (the
setting), so a key typed for the prompt as it opens cannot allow or deny the call.

It speaks only the engine's approval exchange: a request (data) in, a decision out. It
tells the app what happens through messages posted to the app:

- :class:`ApprovalNeeded` when a call starts waiting (the app marks the front session's
  call as waiting and rings when the window is not focused);
- :class:`InboxChanged` when a call starts or stops waiting (the status bar's count);
- :class:`RulesRemembered` after "always allow" rules were saved for a project or every
  project (the app adds them to its settings, so a new agent keeps them).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual.message import Message

from ...core.approval import (
    SCOPE_WORDS,
    Allow,
    ApprovalRequest,
    Decision,
    Previewer,
    RememberedRules,
)

if TYPE_CHECKING:
    from textual.app import App

    from ..screens.approval import AnswerInInbox, ApprovalScreen


class ApprovalNeeded(Message):
    """A call waits for the person's approval.

    Attributes:
        request: The request.
        call_id: The call's id (``request.call_id``).
        session_id: The session whose agent asks.
    """

    def __init__(self, request: ApprovalRequest, session_id: str = "") -> None:
        super().__init__()
        self.request = request
        self.call_id = request.call_id
        self.session_id = session_id


class InboxChanged(Message):
    """A call started or stopped waiting; ``waiting`` is how many wait now."""

    def __init__(self, waiting: int) -> None:
        super().__init__()
        self.waiting = waiting


class RulesRemembered(Message):
    """"Always allow" rules were saved in the user config (or could not be).

    Attributes:
        saved: The rules, their scope, and the file written or why it was not.
    """

    def __init__(self, saved: RememberedRules) -> None:
        super().__init__()
        self.saved = saved


@dataclass(eq=False)
class PendingApproval:
    """One call waiting for a person.

    Attributes:
        number: Its place in the order calls were asked about (from 1).
        session_id: The session whose agent asks.
        request: What the call does and why it asks.
        preview: Runs the request's command in the preview sandbox (None: no preview).
        answer: Resolved with the person's decision.
        later: The person left it for the inbox: its modal does not open by itself.
    """

    number: int
    session_id: str
    request: ApprovalRequest
    preview: Previewer | None
    answer: asyncio.Future[Decision] = field(repr=False)
    later: bool = False

    @property
    def read_only(self) -> bool:
        """The call only reads or looks up (a fetch, a search, a read outside the project):
        neither a command nor a change; the inbox approves these in bulk."""
        return self.request.kind not in ("execute", "edit")


class SessionApprover:
    """The approver one session's agents use: the workbench's, with the session named."""

    def __init__(self, approver: TuiApprover, session_id: str) -> None:
        self.approver = approver
        self.session_id = session_id

    async def ask(self, request: ApprovalRequest, preview: Previewer | None = None) -> Decision:
        """Queue the call in the inbox and wait for the person's decision."""
        return await self.approver.ask_for(self.session_id, request, preview)

    def remembered(self, saved: RememberedRules) -> None:
        """As :meth:`TuiApprover.remembered`."""
        self.approver.remembered(saved)

    async def review_summary(self, summary: str) -> str:
        """As :meth:`TuiApprover.review_summary`."""
        return await self.approver.review_summary(summary)


class TuiApprover:
    """The queue of every call waiting for approval, and how the person answers them.

    Args:
        app: The workbench; ``front_session`` says which session the panes show (default:
            the app's ``session_id``).
    """

    def __init__(self, app: App, front_session: Callable[[], str] | None = None) -> None:
        self.app = app
        self._front_session = front_session or (lambda: str(getattr(app, "session_id", "")))
        self.pending: list[PendingApproval] = []
        """The calls waiting, oldest first."""
        self._numbers = itertools.count(1)
        self._screen: ApprovalScreen | None = None
        self._modal_item: PendingApproval | None = None
        self._inbox: Any = None  # the open inbox screen
        self._review_lock = asyncio.Lock()

    @property
    def waiting(self) -> int:
        """Calls waiting besides the one the modal shows."""
        return len(self.pending) - (1 if self._modal_item is not None else 0)

    def front_session(self) -> str:
        """The session the panes show; its calls open the modal."""
        return self._front_session()

    def for_session(self, session_id: str) -> SessionApprover:
        """The approver for the agents of ``session_id``."""
        return SessionApprover(self, session_id)

    async def ask_for(self, session_id: str, request: ApprovalRequest,
                      preview: Previewer | None = None) -> Decision:
        """Queue ``request`` of ``session_id`` and return the person's decision.

        A cancelled wait (the turn was stopped) takes the call out of the queue, closing
        its modal if it is open.
        """
        item = PendingApproval(next(self._numbers), session_id, request, preview,
                               asyncio.get_running_loop().create_future())
        self.pending.append(item)
        self.app.post_message(ApprovalNeeded(request, session_id))
        self._changed()
        try:
            return await item.answer
        finally:
            if item in self.pending:
                self.pending.remove(item)
                if item is self._modal_item:
                    self._close_modal()
                self._changed()

    def decide(self, item: PendingApproval, decision: Decision) -> None:
        """Answer ``item`` (from the modal or the inbox)."""
        if item in self.pending:
            self.pending.remove(item)
        if not item.answer.done():
            item.answer.set_result(decision)
        self._changed()

    def allow_read_only(self) -> int:
        """Allow once every waiting call that only reads; returns how many."""
        calls = [item for item in self.pending if item.read_only]
        for item in calls:
            self.decide(item, Allow())
        return len(calls)

    def session_waiting(self, session_id: str) -> int:
        """How many calls of ``session_id`` wait."""
        return sum(1 for item in self.pending if item.session_id == session_id)

    # -- what the person sees ------------------------------------------------------------

    def inbox_closed(self) -> None:
        """The inbox closed: the front session's next call opens its modal."""
        self._inbox = None
        self._changed()

    def refresh(self) -> None:
        """The front session changed: show its calls (and hide another session's modal)."""
        item = self._modal_item
        if item is not None and item.session_id != self._front_session():
            self._close_modal()
        self._changed()

    def _changed(self) -> None:
        self.app.post_message(InboxChanged(len(self.pending)))
        if self._screen is not None:
            self._screen.waiting = self.waiting
        if self._inbox is not None:
            self._inbox.show_pending()
        self.app.call_later(self._present)

    def _present(self) -> None:
        """Open the modal for the front session's oldest waiting call not left for later,
        if none is open."""
        if self._modal_item is not None or self._inbox is not None:
            return
        front = self._front_session()
        item = next((i for i in self.pending if i.session_id == front and not i.later), None)
        if item is None or not self.app.is_running:
            return
        from ..screens.approval import ApprovalScreen

        settings = getattr(self.app, "settings", None)
        guard = float(getattr(settings, "approval_key_guard", 0.0) or 0.0)
        self._modal_item = item
        self._screen = ApprovalScreen(item.request, waiting=self.waiting, preview=item.preview,
                                      key_guard=guard)
        self.app.push_screen(self._screen, lambda answer: self._modal_closed(item, answer))

    def _modal_closed(self, item: PendingApproval,
                      answer: Decision | AnswerInInbox | None) -> None:
        from ..screens.approval import AnswerInInbox

        self._screen = None
        self._modal_item = None
        if isinstance(answer, AnswerInInbox):
            self._leave_for_later()
            waiting = len(self.pending)
            self.app.notify("The call waits in the approval inbox: F8 answers it." if waiting < 2
                            else f"{waiting} calls wait in the approval inbox: F8 answers them.",
                            timeout=4, markup=False)
            self._changed()
        elif answer is not None:
            self.decide(item, answer)
        else:
            self._changed()

    def open_inbox(self) -> None:
        """Open the inbox screen (F8, ``/inbox``)."""
        if self._inbox is not None:
            return
        self._leave_for_later()
        self._close_modal()
        from ..screens.inbox import InboxScreen

        self._inbox = InboxScreen(self)
        self.app.push_screen(self._inbox)

    def _leave_for_later(self) -> None:
        """Every call waiting now is answered from the inbox: no modal opens for it."""
        for item in self.pending:
            item.later = True

    def _close_modal(self) -> None:
        """Close the open modal, its call left waiting (only from the top: dismissing
        pops whatever screen is on top)."""
        screen = self._screen
        if screen is not None and self.app.screen is screen:
            screen.dismiss(None)
        else:
            self._screen = self._modal_item = None

    # -- the rest of the exchange ----------------------------------------------------------

    def remembered(self, saved: RememberedRules) -> None:
        """Say where the rules were saved (or why they were not), and tell the app."""
        rules = ", ".join(saved.rules)
        if saved.error is not None:
            self.app.notify(f"Could not save {rules} ({saved.error}); it applies until "
                            "agent-tui exits. Check that the config folder is writable.",
                            severity="error", markup=False)
        else:
            self.app.notify(f"Always allowed in {SCOPE_WORDS[saved.scope]}: {rules} "
                            f"(saved in {saved.path})", timeout=4, markup=False)
        self.app.post_message(RulesRemembered(saved))

    async def review_summary(self, summary: str) -> str:
        """Let the person read and edit the compaction summary (unless configured off)."""
        settings = getattr(self.app, "settings", None)
        if settings is not None and not settings.review_compaction:
            return summary
        from ..screens.compaction import CompactionScreen

        async with self._review_lock:
            return await self.app.push_screen_wait(CompactionScreen(summary))
