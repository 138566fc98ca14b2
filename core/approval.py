"""Approvers: who answers when a tool call needs a person's yes.

The TUI's approver opens a modal and awaits the person; a headless run has nobody to ask,
so ``HeadlessApprover`` refuses and tells the model how the run could be allowed. Either can
first preview a command waiting for approval (:func:`preview_request`): run it in a sandbox
over a scratch copy of the project and show what it would change.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .events import ErrorEvent, EventSink, Preview
from .safety.preview import CommandPreview, PreviewUnavailable, preview_command

PREVIEW_TOOLS = frozenset({"shell", "background_process"})
"""Tools whose calls can be previewed: the ones that run a shell command."""

if TYPE_CHECKING:
    from ..tools.base import Confirmation, Invocation
    from .safety.permission_rules import Scope
    from .safety.permissions import PartVerdict


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """A call waiting for a yes or no.

    Attributes:
        call_id: The model's id of the call.
        invocation: The validated call.
        reason: Why it needs approval (e.g. "runs a command").
        confirmation: What the person must see (diff, command), if the tool says.
        parts: For a command, each simple command with its verdict.
        rules: The rules "always allow" would save (empty: none can allow it).
        any_mode: No approval mode would run it without a person (a protected file, an
            ask rule, a command that does not parse).
    """

    call_id: str
    invocation: Invocation[Any]
    reason: str
    confirmation: Confirmation | None
    parts: tuple[PartVerdict, ...] = ()
    rules: tuple[str, ...] = ()
    any_mode: bool = False


@dataclass(frozen=True, slots=True)
class ApprovalResponse:
    """The answer: allowed or not, why, and who answered.

    Attributes:
        allow: Whether the call may run.
        reason: Why (the model is told when a call is denied).
        by: ``user``, ``policy`` or ``rule``.
        remember: Rules that allow such calls from now on (``shell(git status)``).
        scope: How long ``remember`` lasts: ``once`` (not kept), ``session`` (this
            session, in memory), ``project`` (this project, saved in the user config) or
            ``user`` (every project, saved in the user config).
        edited_args: Arguments the person edited before allowing; ``"_as_write": True``
            turns an edit into a write_file of the edited content, and ``"_note"`` (a
            string) replaces the generic "the person edited this call" told to the model.
    """

    allow: bool
    reason: str = ""
    by: str = "user"
    remember: tuple[str, ...] = ()
    edited_args: dict[str, Any] | None = None
    scope: Scope = "once"


def can_preview(request: ApprovalRequest) -> bool:
    """Whether ``request`` is a command that :func:`preview_request` can run."""
    confirmation = request.confirmation
    return (request.invocation.tool.name in PREVIEW_TOOLS and confirmation is not None
            and bool(confirmation.command))


def preview_request(request: ApprovalRequest,
                    cancel: threading.Event | None = None) -> CommandPreview:
    """Preview the command of ``request`` in a sandbox over a scratch copy of its project.

    Synchronous: run it in a thread. Times out after the ``preview_timeout`` setting and
    uses the ``bwrap_path`` setting and the environment the command would get.

    Raises:
        PreviewUnavailable: the request runs no command, or bwrap is missing or cannot
            build a sandbox, or the project is too big to copy.
        PreviewCancelled: ``cancel`` was set.
    """
    confirmation = request.confirmation
    if not can_preview(request) or confirmation is None or confirmation.command is None:
        raise PreviewUnavailable(
            f"{request.invocation.tool.name} calls cannot be previewed: only shell and "
            "background_process commands can")
    ctx = request.invocation.ctx
    settings = ctx.settings
    return preview_command(
        confirmation.command, ctx.workdir, confirmation.working_dir or ctx.workdir,
        timeout_s=float(getattr(settings, "preview_timeout", 10.0)), env=ctx.env,
        bwrap=getattr(settings, "bwrap_path", None), cancel=cancel)


def preview_event(call_id: str, preview: CommandPreview) -> Preview:
    """The ``preview`` event that records ``preview`` of the call ``call_id``."""
    return Preview(
        id=call_id, command=preview.command,
        changes=[{"path": c.path, "kind": c.kind, "diff": c.diff} for c in preview.changes],
        output=preview.output, exit_code=preview.exit_code, timed_out=preview.timed_out,
        left_running=list(preview.left_running))


class Approver(Protocol):
    """Answers approval requests; the TUI asks a person, headless mode applies a policy."""

    async def ask(self, request: ApprovalRequest) -> ApprovalResponse:
        """Decide on ``request``; may wait as long as a person needs."""
        ...

    async def review_summary(self, summary: str) -> str:
        """The compaction summary as the person accepts it (possibly edited)."""
        ...


class HeadlessApprover:
    """Refuses every call that needs approval: nobody is there to give it.

    Args:
        mode: The run's approval mode (named in the refusal).
        preview: First preview each shell or background_process command (``--preview``)
            and pass the result to ``emit`` as a :class:`~agent_tui.core.events.Preview`
            (or an :class:`~agent_tui.core.events.ErrorEvent` saying why it cannot be).
        emit: Where preview events go (the agent's ``emit``, so they are logged).
    """

    def __init__(self, mode: str, *, preview: bool = False,
                 emit: EventSink | None = None) -> None:
        self.mode = mode
        self.preview = preview
        self.emit = emit

    async def review_summary(self, summary: str) -> str:
        """Nobody to review it: the summary applies as the model wrote it."""
        return summary

    async def ask(self, request: ApprovalRequest) -> ApprovalResponse:
        """Refuse, telling the model what was refused and how a person could allow it."""
        if self.preview and self.emit is not None and can_preview(request):
            await self._preview(request, self.emit)
        if request.any_mode:
            return ApprovalResponse(
                allow=False,
                by="policy",
                reason=(
                    f"this call {request.reason}; it needs a person's approval in every "
                    "approval mode, which a headless run cannot get. Do not retry it; do the "
                    "task another way if you can, or tell the user what to run themselves."
                ),
            )
        return ApprovalResponse(
            allow=False,
            by="policy",
            reason=(
                f"this call {request.reason} and needs a person's approval, which a headless "
                f"run in '{self.mode}' approval mode cannot get. Do not retry it; finish what "
                "you can without it and tell the user, who can rerun with --approval-mode "
                "auto-edit (file edits in the project) or yolo (everything)."
            ),
        )

    @staticmethod
    async def _preview(request: ApprovalRequest, emit: EventSink) -> None:
        try:
            preview = await asyncio.to_thread(preview_request, request)
        except PreviewUnavailable as exc:
            emit(ErrorEvent(f"no preview of {request.invocation.describe()}: {exc}"))
            return
        emit(preview_event(request.call_id, preview))
