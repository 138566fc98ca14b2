"""Approvers: who answers when a tool call needs a person's yes.

The TUI's approver opens a modal and awaits the person; a headless run has nobody to ask,
so ``HeadlessApprover`` refuses and tells the model how the run could be allowed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from agent_tui.tools.base import Confirmation, Invocation

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


class Approver(Protocol):
    """Answers approval requests; the TUI asks a person, headless mode applies a policy."""

    async def ask(self, request: ApprovalRequest) -> ApprovalResponse:
        """Decide on ``request``; may wait as long as a person needs."""
        ...

    async def review_summary(self, summary: str) -> str:
        """The compaction summary as the person accepts it (possibly edited)."""
        ...


class HeadlessApprover:
    """Refuses every call that needs approval: nobody is there to give it."""

    def __init__(self, mode: str) -> None:
        self.mode = mode

    async def review_summary(self, summary: str) -> str:
        """Nobody to review it: the summary applies as the model wrote it."""
        return summary

    async def ask(self, request: ApprovalRequest) -> ApprovalResponse:
        """Refuse, telling the model what was refused and how a person could allow it."""
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
