"""Approval through the ACP client: each request becomes a ``session/request_permission``.

The client shows the call (its title, a diff or the command) with the options agent-tui
offers: allow once, always allow in this session (when a rule can allow such calls), reject.
A cancelled prompt answers every open request with ``cancelled``: the call is refused.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from acp import text_block, tool_content, tool_diff_content
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

from ...core.approval import (
    Allow,
    ApprovalRequest,
    ArgumentDetails,
    CommandDetails,
    Decision,
    Deny,
    EditDetails,
    Previewer,
    RememberedRules,
)
from .updates import tool_kind

ALLOW_ONCE, ALLOW_SESSION, REJECT = "allow_once", "allow_session", "reject_once"
"""The ids of the options agent-tui offers."""


def permission_options(request: ApprovalRequest) -> list[PermissionOption]:
    """What the person may answer: "always" only where a rule can allow such calls."""
    options = [PermissionOption(option_id=ALLOW_ONCE, name="Allow once", kind="allow_once")]
    if request.rules and not request.any_mode:
        options.append(PermissionOption(
            option_id=ALLOW_SESSION, kind="allow_always",
            name=f"Always allow in this session: {', '.join(request.rules)}"))
    options.append(PermissionOption(option_id=REJECT, name="Reject", kind="reject_once"))
    return options


def permission_call(request: ApprovalRequest, workdir: Path) -> ToolCallUpdate:
    """The call as the client shows it while it asks: an edit as a diff, a command with
    where it runs and why it needs asking, anything else with its arguments."""
    details = request.details
    why = request.reason + "".join(f"\n⚠ {warning}" for warning in request.warnings)
    content: list[Any]
    if isinstance(details, EditDetails) and details.after is not None:
        path = str((workdir / details.path).resolve())
        content = [tool_diff_content(path, details.after, details.before or None),
                   tool_content(text_block(why))]
    elif isinstance(details, CommandDetails):
        parts = "".join(f"\n- `{part.text}`: {part.reason}" for part in request.parts)
        content = [tool_content(text_block(
            f"```sh\n{details.command}\n```\nin {details.working_dir}: {why}{parts}"))]
    elif isinstance(details, ArgumentDetails):
        content = [tool_content(text_block(f"```json\n{details.arguments}\n```\n{why}"))]
    else:
        content = [tool_content(text_block(why))]
    return ToolCallUpdate(tool_call_id=request.call_id, title=request.summary,
                          kind=tool_kind(request.tool), status="pending", content=content)


def decision_of(outcome: Any, request: ApprovalRequest) -> Decision:
    """The decision an answer to :func:`permission_options` means."""
    if not isinstance(outcome, AllowedOutcome):
        return Deny("the person cancelled the prompt")
    if outcome.option_id == ALLOW_ONCE:
        return Allow()
    if outcome.option_id == ALLOW_SESSION and request.rules and not request.any_mode:
        return Allow("session", request.rules)
    return Deny()


class AcpApprover:
    """Asks the ACP client to approve each call that needs it.

    Args:
        ask_client: Sends ``session/request_permission`` (the call, the options) and
            returns the client's outcome; it sends the session's pending updates first, so
            the call is on the client's screen before the question.
        workdir: The project folder (an edit's path is sent absolute).
    """

    def __init__(self, ask_client: Callable[[ToolCallUpdate, list[PermissionOption]],
                                            Awaitable[Any]], workdir: Path) -> None:
        self.ask_client = ask_client
        self.workdir = workdir

    async def ask(self, request: ApprovalRequest, preview: Previewer | None = None) -> Decision:
        """The client's answer; a client that fails to answer refuses the call."""
        outcome = await self.ask_client(permission_call(request, self.workdir),
                                        permission_options(request))
        return decision_of(outcome, request)

    def remembered(self, saved: RememberedRules) -> None:
        """Never called: "always" lasts for the session, which saves nothing."""

    async def review_summary(self, summary: str) -> str:
        """A compaction summary applies as the model wrote it: ACP has no place to edit it."""
        return summary
