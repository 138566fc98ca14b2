"""The conversation pane: user and assistant blocks, with tool calls inline.

A long session is not a long list of mounted widgets: ``ConversationView`` keeps the newest
``MAX_MOUNTED`` blocks mounted and stands an ``EarlierMarker`` in for the rest. An unmounted
block is kept as its (unmounted) widget object, which goes on holding its state, and is
rebuilt with ``revive()`` when the person scrolls back to it. A resumed session's earlier
blocks never become widgets until then: they wait as ``BlockRecord``s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from textual import events, on
from textual.await_remove import AwaitRemove
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.scrollbar import ScrollBar
from textual.widget import Widget
from textual.widgets import Static

from .blocks import Block, NoticeBlock, UserBlock
from .one_layout import SizedInOnePass
from .scroll_bar import RowsScrollBar
from .tool_block import ToolBlock

__all__ = [
    "Block",
    "BlockRecord",
    "ConversationView",
    "EarlierMarker",
    "NoticeBlock",
    "ToolBlock",
    "UserBlock",
]
"""The pane and the blocks it shows: the blocks live in blocks.py and tool_block.py, and are
named here too, as the conversation's vocabulary."""


class BlockRecord:
    """A block not built yet: what it takes to make its widget when it is first shown.

    A resumed session of thousands of blocks shows only the last screens; building a widget
    for every earlier block would cost seconds for blocks nobody may scroll back to.
    """

    __slots__ = ("_build",)

    def __init__(self, build: Callable[[], Widget]) -> None:
        self._build = build

    def revive(self) -> Widget:
        """The block's widget, built now."""
        return self._build()


class EarlierMarker(Static, can_focus=True):
    """Stands at the top for the blocks that are not mounted; Enter or a click shows more."""

    DEFAULT_CSS = """
    EarlierMarker {
        width: 1fr;
        padding: 0 1;
        color: $text-muted;
        text-align: center;
    }
    EarlierMarker:focus {
        background: $boost;
    }
    """
    BINDINGS = [Binding("enter", "press", "Show earlier", show=False)]

    class Pressed(Message):
        """The person asked for earlier blocks."""

    def show_count(self, count: int) -> None:
        """Say how many blocks are above."""
        noun = "block" if count == 1 else "blocks"
        self.update(f"▲ {count:,} earlier {noun} — scroll up or press Enter to show more")

    def action_press(self) -> None:
        self.post_message(self.Pressed())

    def on_click(self) -> None:
        self.action_press()


class ConversationView(SizedInOnePass, VerticalScroll):
    """The transcript; follows the newest block unless the person scrolled up.

    While the newest is followed, only the newest blocks that fill ``KEEP_SCREENS`` screens
    (at most ``MAX_MOUNTED``) stay mounted, so adding and scrolling cost about the same at
    1,000 blocks as at 10. Older blocks wait, unmounted, behind
    an ``EarlierMarker`` and come back ``PAGE`` at a time when the person scrolls to the top,
    presses Enter on the marker or moves up past the first block (k).
    """

    MAX_MOUNTED = 60
    """Blocks kept mounted while the newest is followed."""
    KEEP_SCREENS = 2
    """While following, keep only the newest blocks that fill this many screens."""
    PAGE = 20
    """Blocks mounted back at a time when the person scrolls up to them."""
    RESTORE_MOUNTED = 12
    """Blocks of a resumed session mounted before its first frame; more follow after it."""

    BINDINGS = [
        Binding("j,down", "focus_next_block", "Next block", show=False),
        Binding("k,up", "focus_previous_block", "Previous block", show=False),
    ]

    def __init__(self, *children: Widget, **kwargs: Any) -> None:
        super().__init__(*children, **kwargs)
        self._earlier: list[Any] = []
        self._marker: EarlierMarker | None = None
        self._showing = False
        self._following = True
        self._resized_before = False
        self._live: Widget | None = None

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """The pane's scroll bar: it moves with every frame of a followed stream, so it is
        drawn without Rich and repaints only the rows that changed."""
        if self._vertical_scrollbar is None:
            self._vertical_scrollbar = RowsScrollBar(
                vertical=True, name="vertical", thickness=self.scrollbar_size_vertical)
            self._vertical_scrollbar.display = False
            self.app._start_widget(self, self._vertical_scrollbar)
        return self._vertical_scrollbar

    @property
    def earlier_count(self) -> int:
        """How many blocks are above the mounted ones, not mounted."""
        return len(self._earlier)

    async def add(self, widget: Widget) -> None:
        """Append a block (above the live line, if one is shown) and keep the newest in
        view."""
        follow = self._following or self.is_vertical_scroll_end or self.max_scroll_y == 0
        await self.mount(widget, before=self._live_line())
        if follow:
            await self._trim()
            self.scroll_end(animate=False)

    def show_live(self, line: Widget) -> None:
        """Show ``line`` at the end, below the blocks added after it too, until
        :meth:`hide_live` (what a running prompt waits for, where its answer will appear)."""
        if line is self._live_line():
            return
        self.hide_live()
        follow = self._following or self.is_vertical_scroll_end or self.max_scroll_y == 0
        self._live = line
        self.mount(line)
        if follow:
            self.call_after_refresh(self.scroll_end, animate=False)

    def hide_live(self) -> None:
        """Take the live line away (the answer streams in its place, or the prompt ended)."""
        if (line := self._live_line()) is not None:
            line.remove()
        self._live = None

    def _live_line(self) -> Widget | None:
        """The live line while it is among the children (emptying the pane removes it)."""
        return self._live if self._live is not None and self._live.parent is self else None

    async def add_many(self, widgets: list[Widget],
                       earlier: list[BlockRecord] | tuple[()] = ()) -> None:
        """Append many blocks (a resumed session), mounting only the newest.

        ``earlier`` are blocks older than ``widgets``, not built yet; they are built when
        the person scrolls back to them.
        """
        keep = widgets[-self.RESTORE_MOUNTED:]
        if earlier or len(widgets) > len(keep):
            # Everything mounted now is older than the blocks that will not be mounted.
            older = self._blocks()
            self._earlier.extend(older)
            await self.remove_children(older)
            self._earlier.extend(earlier)
            self._earlier.extend(widgets[: len(widgets) - len(keep)])
        await self.mount_all(keep)
        await self._update_marker()
        self._following = True
        self.scroll_end(animate=False)
        self.call_after_refresh(self._fill_screens if self._earlier else self._trim)

    async def _fill_screens(self) -> None:
        """After the first frame of a resumed session, mount the earlier blocks that the
        newest ones need to fill ``KEEP_SCREENS`` screens (as a followed session keeps)."""
        blocks = self._blocks()
        if not blocks or not self._earlier:
            return
        height = sum(map(_rows, blocks))
        budget = self.KEEP_SCREENS * max(1, self.scrollable_content_region.height)
        if height >= budget:
            return
        per_block = max(1.0, height / len(blocks))
        wanted = min(self.MAX_MOUNTED - len(blocks), int((budget - height) / per_block) + 1)
        if wanted > 0:
            await self.show_earlier(wanted)
            if self._following:
                self.scroll_end(animate=False)

    def follow(self) -> None:
        """Keep the newest text in view while it streams, unless the person scrolled up.

        Whether they did is what the scroll position last said (``watch_scroll_y``), not
        how far the end is now: one flush of streamed text can add many lines at once.
        """
        if not self._following:
            return
        if self.max_scroll_y > 0 and not self.is_anchored:
            # Anchored, the pane keeps the end in view within the layout pass that grows
            # the answer, not in a scroll after it: one frame per draw instead of two.
            self.anchor()
        elif not self.is_anchored:
            self.scroll_end(animate=False)

    def end_stream(self) -> None:
        """The streamed answer is complete: drop the anchor, keep the end in view."""
        if self.is_anchored:
            self.anchor(False)
            if self._following:
                self.scroll_end(animate=False)

    async def discard(self, blocks: Iterable[Widget]) -> None:
        """Take ``blocks`` off the transcript, mounted or waiting above."""
        blocks = list(blocks)
        gone = {id(block) for block in blocks}
        self._earlier = [block for block in self._earlier if id(block) not in gone]
        mounted = [block for block in blocks if block.parent is self]
        if mounted:
            await self.remove_children(mounted)
        await self._update_marker()

    def remove_children(self, selector: Any = "*") -> AwaitRemove:
        """Remove blocks; removing them all also forgets the unmounted ones."""
        if selector == "*":
            self._earlier.clear()
            self._marker = None
        return super().remove_children(selector)

    async def show_earlier(self, count: int | None = None) -> int:
        """Mount up to ``count`` (``PAGE``) earlier blocks above, keeping the view still.

        Returns:
            How many blocks were mounted.
        """
        if self._showing or not self._earlier or self._marker is None:
            return 0
        self._showing = True
        try:
            taken = self._earlier[-(count or self.PAGE):]
            del self._earlier[-len(taken):]
            anchor = next(iter(self._blocks()), None)
            offset = anchor.virtual_region.y - self.scroll_y if anchor else 0
            await self.mount_all([block.revive() for block in taken], after=self._marker)
            await self._update_marker()
            if anchor is not None:
                self.call_after_refresh(self._keep_in_place, anchor, offset)
            return len(taken)
        finally:
            self._showing = False

    def _keep_in_place(self, anchor: Widget, offset: float) -> None:
        if anchor.parent is self:
            self.scroll_to(y=anchor.virtual_region.y - offset, animate=False, immediate=True)

    async def _trim(self) -> None:
        """Unmount the oldest blocks the newest do not need to fill ``KEEP_SCREENS``.

        Layout costs grow with every mounted widget (a Markdown block is a dozen), so
        what stays mounted is sized by the screen, not by the length of the session.
        """
        blocks = self._blocks()
        budget = self.KEEP_SCREENS * max(1, self.scrollable_content_region.height)
        height = 0
        keep = 0
        for block in reversed(blocks):
            if keep >= self.MAX_MOUNTED or height >= budget:
                break
            keep += 1
            height += _rows(block)
        old = blocks[: len(blocks) - keep]
        if not old:
            return
        self._earlier.extend(old)
        await self.remove_children(old)
        await self._update_marker()

    async def _update_marker(self) -> None:
        if self._marker is not None and self._marker.parent is not self:
            self._marker = None
        if not self._earlier:
            if self._marker is not None:
                await self._marker.remove()
                self._marker = None
            return
        if self._marker is None:
            self._marker = EarlierMarker()
            await self.mount(self._marker, before=0)
        self._marker.show_count(len(self._earlier))

    @on(EarlierMarker.Pressed)
    async def _on_marker_pressed(self) -> None:
        await self.show_earlier()

    @on(ToolBlock.ImagesLoaded)
    def _on_images_loaded(self) -> None:
        # A block grew after it was added: the newest stays in view if it was followed.
        if self._following:
            self.scroll_end(animate=False)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        # Only the person and our own scroll_end move scroll_y; growing content does not.
        self._following = new_value >= self.max_scroll_y - 1
        if new_value <= 0 < old_value and self._earlier:
            self.call_later(self.show_earlier)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        if self.scroll_y <= 0 and self._earlier:
            self.call_later(self.show_earlier)

    def on_resize(self, event: events.Resize) -> None:
        # A narrower pane wraps every block taller: the scroll position stays where it was,
        # so the end the person was reading would slide out of view. The first size is not a
        # resize: what a conversation shows when it opens is left to whoever fills it.
        if self._following and self._resized_before:
            self.scroll_end(animate=False)
        self._resized_before = True

    def _blocks(self) -> list[Widget]:
        return [w for w in self.children if w.can_focus and w is not self._marker]

    async def _move(self, step: int) -> None:
        blocks = self._blocks()
        if not blocks:
            return
        focused = self.app.focused
        index = blocks.index(focused) if focused in blocks else (len(blocks) if step < 0 else -1)
        if index + step < 0 and self._earlier:
            mounted = await self.show_earlier()
            blocks = self._blocks()
            index += mounted
        target = blocks[max(0, min(len(blocks) - 1, index + step))]
        target.focus()
        target.scroll_visible(animate=False)

    async def action_focus_next_block(self) -> None:
        await self._move(1)

    async def action_focus_previous_block(self) -> None:
        await self._move(-1)


def _rows(block: Widget) -> int:
    """The rows a mounted block takes in the conversation, its top margin included."""
    return block.outer_size.height + block.styles.margin.top
