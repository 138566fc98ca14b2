"""The workbench's approver: one modal at a time, the others queued and counted.

It speaks only the engine's approval exchange: a request (data) in, a decision out. It
tells the app what happens through two messages, posted to the app:

- :class:`ApprovalNeeded` before the modal opens (the app marks the call as waiting and
  rings when the window is not focused);
- :class:`RulesRemembered` after "always allow" rules were saved for a project or every
  project (the app adds them to its settings, so a new agent keeps them).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual.message import Message

from ..core.approval import (
    SCOPE_WORDS,
    ApprovalRequest,
    Decision,
    Previewer,
    RememberedRules,
)

if TYPE_CHECKING:
    from textual.app import App

    from .screens.approval import ApprovalScreen


class ApprovalNeeded(Message):
    """A call waits for the person's approval; its modal opens next.

    Attributes:
        request: The request the modal shows.
        call_id: The call's id (``request.call_id``).
    """

    def __init__(self, request: ApprovalRequest) -> None:
        super().__init__()
        self.request = request
        self.call_id = request.call_id


class RulesRemembered(Message):
    """"Always allow" rules were saved in the user config (or could not be).

    Attributes:
        saved: The rules, their scope, and the file written or why it was not.
    """

    def __init__(self, saved: RememberedRules) -> None:
        super().__init__()
        self.saved = saved


class TuiApprover:
    """Asks the person through ``ApprovalScreen``; concurrent requests wait their turn.

    The open modal's "N more waiting" follows the queue as requests arrive and leave.
    """

    def __init__(self, app: App) -> None:
        self.app = app
        self._lock = asyncio.Lock()
        self._waiting = 0
        self._screen: ApprovalScreen | None = None

    @property
    def waiting(self) -> int:
        """Requests queued behind the open modal."""
        return self._waiting

    def _set_waiting(self, count: int) -> None:
        self._waiting = count
        if self._screen is not None:
            self._screen.waiting = count

    async def ask(self, request: ApprovalRequest, preview: Previewer | None = None) -> Decision:
        """Show the modal (from a worker) and return the person's decision."""
        from .screens.approval import ApprovalScreen

        self._set_waiting(self._waiting + 1)
        try:
            await self._lock.acquire()
        finally:
            self._set_waiting(self._waiting - 1)
        try:
            self.app.post_message(ApprovalNeeded(request))
            self._screen = ApprovalScreen(request, waiting=self._waiting, preview=preview)
            decision: Decision = await self.app.push_screen_wait(self._screen)
            return decision
        finally:
            self._screen = None
            self._lock.release()

    def remembered(self, saved: RememberedRules) -> None:
        """Say where the rules were saved (or why they were not), and tell the app."""
        rules = ", ".join(saved.rules)
        if saved.error is not None:
            self.app.notify(f"Could not save {rules} ({saved.error}); it applies until "
                            "agent-tui exits. Check that the config folder is writable.",
                            severity="error")
        else:
            self.app.notify(f"Always allowed in {SCOPE_WORDS[saved.scope]}: {rules} "
                            f"(saved in {saved.path})", timeout=4)
        self.app.post_message(RulesRemembered(saved))

    async def review_summary(self, summary: str) -> str:
        """Let the person read and edit the compaction summary (unless configured off)."""
        settings = getattr(self.app, "settings", None)
        if settings is not None and not settings.review_compaction:
            return summary
        from .screens.compaction import CompactionScreen

        async with self._lock:
            return await self.app.push_screen_wait(CompactionScreen(summary))
