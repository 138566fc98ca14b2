"""A task's lane: the calls of the ``task`` tool's sub-agent, drawn inside the task's block.

The workbench keeps a :class:`LaneCall` for each child call where it keeps a block for any
other call, so the reports of a call (approval, result) reach it the same way; the call
changes its line in the lane and the task's block redraws.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from textual.content import Content

from ..outside_text import outside_content

if TYPE_CHECKING:
    from ...core.events import ToolCallStarted

SHOWN_WHILE_RUNNING = 4
"""The latest calls a running task's lane shows (the earlier ones counted)."""

ICONS = {"pending": "…", "approval": "?", "running": "⋯", "ok": "✓", "error": "✗",
         "denied": "⊘", "cancelled": "⊗"}
FAILED = ("error", "denied", "cancelled")


class Lane:
    """The child calls of one task, in the order they started."""

    def __init__(self) -> None:
        self.calls: list[LaneCall] = []
        self.shown: Callable[[], None] | None = None
        """Redraws the block that shows the lane (the latest one built)."""

    def changed(self) -> None:
        """A call started or changed: redraw the block showing the lane, if any."""
        if self.shown is not None:
            self.shown()

    def content(self, *, ended: bool, expanded: bool) -> Content | None:
        """The lane's lines: every call when ``expanded``, the latest while the task runs,
        one count once it ``ended``; None when it made no call."""
        calls = self.calls
        if not calls:
            return None
        if ended and not expanded:
            failed = sum(call.status in FAILED for call in calls)
            count = f"{len(calls)} call{'' if len(calls) == 1 else 's'}"
            return Content.assemble(("  └ ", "dim"), count,
                                    (f", {failed} failed" if failed else "", "$error"))
        shown = calls if expanded else calls[-SHOWN_WHILE_RUNNING:]
        lines = [Content.styled(f"  └ … {len(calls) - len(shown)} earlier", "dim")] \
            if len(shown) < len(calls) else []
        lines += [call.line() for call in shown]
        return Content("\n").join(lines)


class LaneCall:
    """One child call of a task, reported to as a tool block is (see ``ToolBlock``)."""

    def __init__(self, lane: Lane, name: str, summary: str) -> None:
        self.lane = lane
        self.tool_name = name
        self.summary = summary or name
        self.status = "pending"
        self.duration: float | None = None

    @classmethod
    def under(cls, host: Any, event: ToolCallStarted) -> LaneCall:
        """The call ``event`` started, added to the lane of ``host`` (the task's block, or
        its record in a resumed session; a lane of its own when the task is not shown)."""
        lane = host.lane if isinstance(getattr(host, "lane", None), Lane) else Lane()
        call = cls(lane, event.name, event.summary)
        lane.calls.append(call)
        lane.changed()
        return call

    def line(self) -> Content:
        """Its line in the lane: icon, summary, how long it took."""
        took = f"  {self.duration:.1f}s" if self.duration is not None else ""
        icon = (ICONS.get(self.status, "·"), "$error bold" if self.status in FAILED else "bold")
        return Content.assemble(("  └ ", "dim"), icon, " ", outside_content(self.summary),
                                (took, "dim"))

    def set_status(self, status: str, *, duration: float | None = None,
                   output: str | None = None, note: str | None = None) -> None:
        """A new status (its output shows in the tool log, not in the lane)."""
        self.status = status
        if duration is not None:
            self.duration = duration
        self.lane.changed()

    def show_edited(self, summary: str, args: Any) -> None:
        """The person edited the call before it ran: its line says what runs."""
        self.summary = f"edited: {summary or self.tool_name}"
        self.lane.changed()

    def add_output(self, text: str) -> None:
        """Live output: shown in the tool log, not in the lane."""

    def show_images(self, image_files: Sequence[str]) -> None:
        """Images the call saved: shown in the tool log's row, not in the lane."""
