"""The workbench's approver: one modal at a time, the others queued and counted."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ..core.approval import ApprovalRequest, ApprovalResponse, preview_event
from ..core.safety.preview import CommandPreview

if TYPE_CHECKING:
    from textual.app import App

    from .screens.approval import ApprovalScreen


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

    async def ask(self, request: ApprovalRequest) -> ApprovalResponse:
        """Show the modal (from a worker) and return the person's answer."""
        from .screens.approval import ApprovalScreen

        self._set_waiting(self._waiting + 1)
        try:
            await self._lock.acquire()
        finally:
            self._set_waiting(self._waiting - 1)
        try:
            on_ask = getattr(self.app, "on_approval_needed", None)
            if on_ask is not None:
                on_ask(request)
            self._screen = ApprovalScreen(
                request, waiting=self._waiting, rules=suggested_rules(request),
                on_preview=lambda preview: self._log_preview(request, preview))
            response: ApprovalResponse = await self.app.push_screen_wait(self._screen)
            remember = getattr(self.app, "remember_rule", None)
            if response.remember and response.scope in ("project", "user") and remember:
                remember(response)  # session rules are kept by the agent itself
            return response
        finally:
            self._screen = None
            self._lock.release()

    def _log_preview(self, request: ApprovalRequest, preview: CommandPreview) -> None:
        """Record the preview in the session's log, as headless ``--preview`` does."""
        agent = getattr(self.app, "agent", None)
        if agent is not None:
            agent.emit(preview_event(request.call_id, preview))

    async def review_summary(self, summary: str) -> str:
        """Let the person read and edit the compaction summary (unless configured off)."""
        settings = getattr(self.app, "settings", None)
        if settings is not None and not settings.review_compaction:
            return summary
        from .screens.compaction import CompactionScreen

        async with self._lock:
            return await self.app.push_screen_wait(CompactionScreen(summary))


def suggested_rules(request: ApprovalRequest) -> tuple[str, ...]:
    """The rules "allow always" would save: the permission check's proposal (one per part
    of a command that needs one, e.g. ``shell(npm test)``), else one for the call's file."""
    if request.rules or request.parts or request.any_mode:
        return request.rules
    invocation = request.invocation
    path = getattr(invocation.params, "file_path", None)
    if isinstance(path, str):
        return (f"{invocation.tool.name}({path})",)
    return ()
