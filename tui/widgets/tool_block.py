"""A tool call in the conversation: a one-line summary that expands to its arguments and
output.

The end of a tool's output is all the panes keep and show (``SHOWN_OUTPUT``); the tool log
shows its calls with the same helpers.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from textual.binding import Binding
from textual.content import Content
from textual.message import Message

from ...core.text.visible_text import redrawn
from ...tools.names import ToolName
from ..outside_text import outside_content, visible
from .blocks import Block
from .tool_lane import Lane
from .waiting import elapsed_text

if TYPE_CHECKING:
    from .tool_image import ToolImage

COLOUR_OUTPUT_TOOLS = frozenset({ToolName.SHELL, ToolName.BACKGROUND_PROCESS})
"""Tools whose output is a command's: its colours are kept (every other escape is shown)."""


SHOWN_OUTPUT = 20_000
"""Characters of a tool's output shown (its end): the panes keep no more of live output,
so a 5 MB `cat` costs each chunk the same, not a copy of all before it."""


def tool_output_content(tool_name: str, output: str) -> Content:
    """The end of a tool's output (``SHOWN_OUTPUT``) as literal Content; a command's
    colours kept."""
    return outside_content(output[-SHOWN_OUTPUT:], ansi=tool_name in COLOUR_OUTPUT_TOOLS)


def live_output(shown: str, more: str) -> str:
    """``shown`` with live output ``more`` added, only as much as the panes show. A
    carriage return (not ending a line) redraws its line, as on a terminal: a progress
    bar's or an MCP server's progress updates leave only their latest state."""
    text = shown[-SHOWN_OUTPUT:] + more
    return (redrawn(text) if "\r" in more else text)[-SHOWN_OUTPUT:]


def progress_line(more: str) -> str | None:
    """The line a piece of live output redraws (it starts with a carriage return), or None."""
    if not more.startswith("\r"):
        return None
    return redrawn(more.rstrip("\n").rsplit("\n", 1)[-1]).strip() or None


STATUS_ICONS = {"pending": "…", "approval": "?", "running": "⋯", "ok": "✓", "error": "✗",
                "denied": "⊘", "cancelled": "⊗"}

FAILED_STATUSES = ("error", "denied", "cancelled")
"""The statuses of a call that did not do what it was asked (shown as failed)."""

EDITED_MARK = "edited: "
"""What precedes a call the person edited before it ran (its summary is the edit's)."""


class ToolBlock(Block):
    """One tool call: a one-line summary that expands (Enter) to its arguments and output.

    Images the call saved (screenshots) are drawn under the summary, expanded or not: each
    is read off the event loop when the block is first mounted, and fitted to its width.
    A ``task`` call's block draws its sub-agent's calls under the summary (its lane).

    The app keeps this object to report the call's progress even after the conversation
    has unmounted it; a copy made by ``revive()`` receives those reports too.
    """

    BINDINGS = [Binding("enter", "toggle", "Expand", show=False)]

    class Toggled(Message):
        """The block was expanded or collapsed."""

    class ImagesLoaded(Message):
        """The block's images were read: it is taller now."""

    def __init__(self, call_id: str, name: str, summary: str, args: Any, *,
                 status: str = "pending", duration: float | None = None,
                 output: str = "", note: str = "", image_files: Sequence[str] = (),
                 proposed: str = "", lane: Lane | None = None) -> None:
        super().__init__("")
        self.lane = lane if lane is not None else Lane()
        """A task's sub-agent's calls (shared with revived copies)."""
        self.lane.shown = self.lane_changed
        self.note = note
        self.call_id = call_id
        self.tool_name = name
        self.summary = summary or name
        self.args = args
        self.proposed = proposed
        """The model's proposal when the person edited the call ("" when it ran as
        proposed); ``summary`` and ``args`` are then the edit's."""
        self.status = status
        self.duration: float | None = duration
        self.output = output
        self.expanded = False
        self.progress = ""
        """The line the running call last redrew (its progress), shown beside its summary."""
        self.images: list[ToolImage] = []
        """Images the call saved, drawn under its summary (shared with revived copies)."""
        self._revived: ToolBlock | None = None
        self.running_since: float | None = None
        """When the call started running (the wait clock's), while it runs."""
        self._moment: float | None = None
        self._head_cells = 0
        self.set_class(status in FAILED_STATUSES, "failed")
        if image_files:
            self.show_images(image_files)
        else:
            self._refresh()

    def set_status(self, status: str, *, duration: float | None = None,
                   output: str | None = None, note: str | None = None) -> None:
        """Show a new status (and the final output, and a note such as how an edit
        matched or a warning)."""
        self.status = status
        if status != "running":
            self.progress = ""
        if duration is not None:
            self.duration = duration
        if output is not None:
            self.output = output
        if note is not None:
            self.note = note
        self.set_class(status in FAILED_STATUSES, "failed")
        self._refresh()
        if self._revived is not None:
            self._revived.set_status(status, duration=duration, output=output, note=note)

    def start_running(self, moment: float) -> None:
        """The call runs from ``moment`` on: its line shows for how long, as it runs."""
        self.running_since = moment
        self._moment = moment
        if self._revived is not None:
            self._revived.start_running(moment)

    def show_elapsed(self, moment: float) -> None:
        """The wait timer's tick: show how long the running call has taken at ``moment``."""
        if self.running_since is None or self.status != "running":
            return
        before = self._elapsed()
        self._moment = moment
        if self._elapsed() != before and self.is_mounted:
            self._refresh(same_height=True)
        if self._revived is not None:
            self._revived.show_elapsed(moment)

    def _elapsed(self) -> str:
        if self.running_since is None or self._moment is None or self.status != "running":
            return ""
        return elapsed_text(self._moment - self.running_since)

    def lane_changed(self) -> None:
        """A call of the task's lane started or changed."""
        self._refresh()

    def show_edited(self, summary: str, args: Any) -> None:
        """The person edited the call before it ran: show the edit, marked as such."""
        self.proposed = self.proposed or self.summary
        self.summary, self.args = summary or self.tool_name, args
        self._refresh()
        if self._revived is not None:
            self._revived.show_edited(summary, args)

    def add_output(self, text: str) -> None:
        """Live output of a running tool."""
        self.output = live_output(self.output, text)
        progress = progress_line(text)
        if progress is not None and self.status == "running":
            self.progress = progress
            self._refresh(same_height=not self.expanded)
        elif self.expanded:
            self._refresh()
        if self._revived is not None:
            self._revived.add_output(text)

    def show_images(self, image_files: Sequence[str]) -> None:
        """Draw the images the call saved (absolute paths) under the summary."""
        from .tool_image import ToolImage

        self._set_images([ToolImage(path) for path in image_files])

    def _set_images(self, images: list[ToolImage]) -> None:
        self.images = images
        self._refresh()
        if self.is_mounted:
            self._load_images()
        if self._revived is not None:
            self._revived._set_images(images)

    def revive(self) -> ToolBlock:
        """A fresh, mountable copy in the latest state; later reports reach it too."""
        copy = ToolBlock(self.call_id, self.tool_name, self.summary, self.args,
                         status=self.status, duration=self.duration, output=self.output,
                         note=self.note, proposed=self.proposed, lane=self.lane)
        copy.running_since, copy._moment = self.running_since, self._moment
        if self.images:
            copy._set_images(self.images)  # already read images are not read again
        if self.expanded:
            copy.action_toggle()
        self._revived = copy
        return copy

    def on_mount(self) -> None:
        self._load_images()

    def _load_images(self) -> None:
        if any(not image.loaded for image in self.images):
            self.run_worker(self._read_images(self.images), group="tool-images")

    async def _read_images(self, images: list[ToolImage]) -> None:
        """Read the images in a thread (a screenshot takes tens of milliseconds), then
        draw them."""
        for image in images:
            await asyncio.to_thread(image.load)
        self._refresh()
        self.post_message(self.ImagesLoaded())

    def action_toggle(self) -> None:
        self.expanded = not self.expanded
        self._refresh()

    def on_click(self) -> None:
        self.action_toggle()

    def copy_text(self) -> str:
        images = "".join(f"\n{image.path}" for image in self.images)
        return visible(f"{self.summary}{images}\n{self.output}")

    def _refresh(self, *, same_height: bool = False) -> None:
        """Draw the block; ``same_height``: only the running time changed, so no layout is
        needed while the head stays on one line."""
        icon = STATUS_ICONS.get(self.status, "·")
        running = self._elapsed()
        took = (f"  {self.duration:.1f}s" if self.duration is not None
                else f"  {running}" if running else "")
        arrow = "▾" if self.expanded else "▸"
        # Literal Content, never markup: output such as "[INFO]", "[/x]" or
        # "[@click=app.quit]" shows as it is, and escape sequences are shown, not sent.
        edited = (EDITED_MARK, "bold $warning") if self.proposed else ""
        head = Content.assemble(f"{arrow} ", (icon, "bold"), " ", edited,
                                outside_content(self.summary), (took, "dim"),
                                *(("  ", outside_content(self.progress, "$accent"))
                                  if self.progress else ()),
                                *(("  ", outside_content(self.note, "$warning")) if self.note
                                  else ()))
        lane = self.lane.content(ended=self.status not in ("pending", "approval", "running"),
                                 expanded=self.expanded)
        if lane is not None:
            head = Content.assemble(head, "\n", lane)
        body = None
        if self.expanded:
            args = json.dumps(self.args, indent=2, ensure_ascii=False) if not isinstance(
                self.args, str) else self.args
            proposal = (outside_content(f"the model proposed: {self.proposed}\n", "italic")
                        if self.proposed else "")
            body = Content.assemble(proposal, outside_content(args, "dim"), "\n",
                                    tool_output_content(self.tool_name, self.output))
        # A tick of the running time redraws the block alone: no layout of the conversation
        # unless the head wraps onto another line.
        width = self.content_region.width
        layout = not (same_height and self._head_cells <= width and head.cell_length <= width)
        self._head_cells = head.cell_length
        if self.images:
            from .tool_image import WithImages

            self.update(WithImages(head, self.images, body), layout=layout)
        else:
            self.update(head if body is None else Content.assemble(head, "\n", body),
                        layout=layout)
