"""Asking the person on the terminal, line by line, for a headless run that has one
(``agent-tui --planning`` on a terminal): the call, what it changes, yes or no.

Outside text is shown with its control characters as pictures (``␛``), never acted on.
"""

from __future__ import annotations

import asyncio
import difflib
import sys
from typing import TextIO

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
from ...core.events import EventSink
from ..outside_text import visible

DIFF_LINES = 80
"""Lines of an edit's diff shown before the question."""


def on_terminal() -> bool:
    """Whether a person can answer on this terminal (stdin and stderr are terminals)."""
    return sys.stdin.isatty() and sys.stderr.isatty()


def read_answer(err: TextIO, question: str) -> str:
    """One line the person types after ``question``, lower-cased ("" at the end of input)."""
    err.write(question)
    err.flush()
    return sys.stdin.readline().strip().lower()


def shown_request(request: ApprovalRequest) -> str:
    """What the person reads before answering: the call, what it does, why it asks."""
    details = request.details
    lines = [request.summary]
    if isinstance(details, CommandDetails):
        lines = [details.command if details.working_dir in ("", ".")
                 else f"{details.command}   (in {details.working_dir})"]
    elif isinstance(details, EditDetails) and details.after is not None:
        diff = list(difflib.unified_diff(
            details.before.splitlines(), details.after.splitlines(),
            f"a/{details.path}", f"b/{details.path}", lineterm=""))
        lines += diff[:DIFF_LINES]
        if len(diff) > DIFF_LINES:
            lines.append(f"… {len(diff) - DIFF_LINES} more diff lines")
    elif isinstance(details, ArgumentDetails):
        lines.append(details.arguments)
    lines.append(f"  needs your approval: {request.reason}")
    return "\n".join(lines)


class TerminalApprover:
    """Asks the person on the terminal (yes or no, once) for each call that needs approval.

    Args:
        err: Where the request and the question go.
    """

    def __init__(self, err: TextIO) -> None:
        self.err = err
        self.emit: EventSink | None = None
        """Set by the agent, as on :class:`~agent_tui.core.approval.HeadlessApprover`."""

    async def ask(self, request: ApprovalRequest, preview: Previewer | None = None) -> Decision:
        """Show the call; allow it once on ``y``, refuse it on anything else."""
        self.err.write("\n" + visible(shown_request(request)) + "\n")
        answer = await asyncio.to_thread(read_answer, self.err, "Allow it? [y/N] ")
        return Allow() if answer in ("y", "yes") else Deny("the person said no")

    def remembered(self, saved: RememberedRules) -> None:
        """Never called: this approver allows once only."""

    async def review_summary(self, summary: str) -> str:
        """Nobody reviews a summary here: it applies as written."""
        return summary
