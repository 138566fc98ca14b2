"""A resumed session's blocks and tool log rows, kept until they are shown.

:class:`RestoreBatch` is where :class:`~.event_view.EventView`'s handlers put what a resumed
session redraws: blocks as records (:class:`ToolBlockRecord` for calls, built when scrolled
back to) and the tool log's rows, of which only the newest ``RESTORED_TOOL_ROWS`` are listed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..widgets.conversation import BlockRecord, ConversationView, ToolBlock
from ..widgets.tool_block import live_output
from ..widgets.tool_lane import Lane
from ..widgets.tool_log import ToolCallRecord, ToolLog

if TYPE_CHECKING:
    from textual.widget import Widget

RESTORED_TOOL_ROWS = 100
"""Calls of a resumed session listed in the tool log (the newest); the transcript has all."""

class ToolBlockRecord(BlockRecord):
    """A resumed session's tool call, not built yet: reports change what it is built with."""

    __slots__ = ("call_id", "tool_name", "summary", "args", "status", "duration", "output",
                 "note", "image_files", "proposed", "lane")

    def __init__(self, call_id: str, name: str, summary: str, args: Any) -> None:
        super().__init__(self._widget)
        self.call_id, self.tool_name, self.summary, self.args = call_id, name, summary, args
        self.status = "pending"
        self.duration: float | None = None
        self.output = ""
        self.note = ""
        self.image_files: list[str] = []
        self.proposed = ""
        self.lane = Lane()  # a task's sub-agent's calls

    def set_status(self, status: str, *, duration: float | None = None,
                   output: str | None = None, note: str | None = None) -> None:
        """As :meth:`ToolBlock.set_status`."""
        self.status = status
        if duration is not None:
            self.duration = duration
        if output is not None:
            self.output = output
        if note is not None:
            self.note = note

    def add_output(self, text: str) -> None:
        """As :meth:`ToolBlock.add_output`."""
        self.output = live_output(self.output, text)

    def show_edited(self, summary: str, args: Any) -> None:
        """As :meth:`ToolBlock.show_edited`."""
        self.proposed = self.proposed or self.summary
        self.summary, self.args = summary, args

    def show_images(self, image_files: Sequence[str]) -> None:
        """As :meth:`ToolBlock.show_images`: the files are read when the block is shown."""
        self.image_files = list(image_files)

    def _widget(self) -> ToolBlock:
        return ToolBlock(self.call_id, self.tool_name, self.summary, self.args,
                         status=self.status, duration=self.duration, output=self.output,
                         note=self.note, image_files=self.image_files, proposed=self.proposed,
                         lane=self.lane)


class RestoreBatch:
    """Where a resumed session's handlers put blocks and tool log rows until they are shown.

    Blocks are kept as records (nothing is built); the tool log keeps each call's final
    state, and :meth:`flush` lists only the newest ``RESTORED_TOOL_ROWS``.
    """

    def __init__(self) -> None:
        self.blocks: list[BlockRecord] = []
        self.calls: dict[str, ToolCallRecord] = {}
        self.at: float | None = None
        """When the event being restored was recorded, if the log says."""

    def add_call(self, call_id: str, name: str, summary: str, args: Any) -> None:
        """As :meth:`ToolLog.add_call`, the call started when it was recorded."""
        self.calls[call_id] = ToolCallRecord(call_id, name, summary, args,
                                             started=self.at or time.time())

    def update_call(self, call_id: str, *, status: str | None = None,
                    duration: float | None = None, output: str | None = None,
                    more_output: str = "", note: str | None = None) -> None:
        """As :meth:`ToolLog.update_call`."""
        if (record := self.calls.get(call_id)) is None:
            return
        record.status = status if status is not None else record.status
        record.duration = duration if duration is not None else record.duration
        record.output = output if output is not None else record.output
        if more_output:
            record.output = live_output(record.output, more_output)
        record.note = note if note is not None else record.note

    def edit_call(self, call_id: str, summary: str, args: Any) -> None:
        """As :meth:`ToolLog.edit_call`."""
        if (record := self.calls.get(call_id)) is None:
            return
        record.proposed = record.proposed or record.summary
        record.summary, record.args = summary, args

    async def flush(self, conversation: ConversationView, tool_log: ToolLog) -> list[Widget]:
        """Show the batch: the newest blocks built and mounted, the rest as records.

        Returns:
            The widgets built and mounted now.
        """
        calls = list(self.calls.values())
        for record in calls[-RESTORED_TOOL_ROWS:]:
            tool_log.add_call(record.call_id, record.name, record.summary, record.args,
                              status=record.status, duration=record.duration,
                              output=record.output, note=record.note,
                              proposed=record.proposed, follow=False,
                              started=record.started)
        if len(calls) > RESTORED_TOOL_ROWS:
            tool_log.note_earlier(len(calls) - RESTORED_TOOL_ROWS)
        split = max(0, len(self.blocks) - ConversationView.RESTORE_MOUNTED)
        widgets = [record.revive() for record in self.blocks[split:]]
        await conversation.add_many(widgets, self.blocks[:split])
        return widgets
