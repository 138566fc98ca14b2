"""agent-tui's own steps in a turn, shown as blocks like a tool call's: a check after the
turn's edits (``lint_command``, ``test_command``) and the turn's auto-commit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...core import events as ev


@dataclass(frozen=True, slots=True)
class Step:
    """What a step's block shows: as :class:`~agent_tui.tui.widgets.tool_block.ToolBlock`'s
    fields (``args`` is shown when the block is expanded, above ``output``)."""

    id: str
    summary: str
    args: str
    status: str
    output: str = ""
    note: str = ""
    duration: float | None = None


CHECK_STATUSES = {"running": "running", "passed": "ok", "failed": "error"}


def check_step(event: ev.CheckRan) -> Step:
    """A lint or test run: its command, how it ended and the end of its output."""
    if event.status in ("running", "passed"):
        note = ""  # a note is drawn as a warning: only a failure has one
    elif event.exit_code is None:
        note = "did not finish"
    else:
        note = f"exit {event.exit_code}"
    if event.feedback:
        note += " · sent to the model to fix"
    return Step(event.id, f"{event.kind}: {event.command}", f"$ {event.command}",
                CHECK_STATUSES.get(event.status, "error"), event.output, note,
                event.duration if event.status != "running" else None)


def check_wait(event: ev.CheckRan) -> str | None:
    """What the turn waits for once the check is reported; None: the model (it was sent
    the failure to fix)."""
    if event.status == "running":
        return f"running the {event.kind} command"
    return None if event.feedback else "finishing"


def commit_step(event: ev.AutoCommitted) -> Step:
    """An auto-commit: its short id and subject; expanded, the message and the files."""
    subject = event.message.splitlines()[0] if event.message else ""
    files = "\n".join(f"  {path}" for path in event.files)
    output = f"committed {len(event.files)} file{'s' if len(event.files) != 1 else ''}:\n{files}"
    note = ""
    if event.left_out:
        output += ("\nleft out (they had your own uncommitted changes):\n"
                   + "\n".join(f"  {path}" for path in event.left_out))
        note = f"{len(event.left_out)} left out"
    return Step(f"commit-{event.commit}", f"committed {event.commit[:7]} {subject}",
                event.message, "ok", output, note)
