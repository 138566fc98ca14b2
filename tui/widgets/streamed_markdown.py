"""Markdown blocks that take more streamed text in place.

Textual's Markdown appends by parsing from the start of its last block and handing the
first new block to the last one (``_update_from_block``). A paragraph takes its new text,
but with a layout of the whole screen even when the paragraph keeps its height; a list is
removed and mounted again, every item of it (four widgets an item, each styled anew), so a
flush into a list cost several times what one into a paragraph did.

Here a paragraph asks for a layout only when its height changes, and a list whose items
hold more than paragraphs (a code block, a quote) has its last item updated in place and
only new items mounted. Text that follows text — headings, paragraphs, lists of paragraphs —
is drawn in runs (:mod:`.markdown_run`), one widget each.

Textual's block classes come from its private ``_markdown`` module (``textual.widgets.
markdown`` exports only a few): textual is pinned.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Label, Markdown
from textual.widgets._markdown import (
    MarkdownBlock,
    MarkdownBullet,
    MarkdownBulletList,
    MarkdownFence,
    MarkdownListItem,
    MarkdownOrderedList,
    MarkdownParagraph,
)

from .one_layout import SizedInOnePass


class StreamedParagraph(MarkdownParagraph):
    """A paragraph whose new text is laid out again only when its height changes."""

    def set_content(self, content: Content) -> None:
        """Show ``content``; a layout only when it needs more or fewer lines."""
        self._content = content
        width = self.content_region.width
        if not self.is_mounted or width <= 0:
            self.update(content)
            return
        before = self.content_region.height
        self.update(content, layout=False)
        if self.get_content_height(self.content_region.size, self.app.size, width) != before:
            self.refresh(layout=True)


class StreamedList:
    """What both kinds of list share when drawn as Textual's rows (a list of paragraphs is
    drawn in a :class:`StreamedRun` instead): the last item updated in place and new items
    mounted."""

    def _symbols(self, items: list[MarkdownListItem]) -> list[str]:
        raise NotImplementedError

    async def _update_from_block(self, block: MarkdownBlock) -> None:
        """Show ``block`` (this list parsed with more text) in place when it is the same kind
        of list; else Textual builds it again."""
        if type(block) is type(self) and await self._update_items(block):
            return
        await super()._update_from_block(block)  # type: ignore[misc]

    def _rows(self) -> list[Horizontal]:
        return [child for child in self.children  # type: ignore[attr-defined]
                if isinstance(child, Horizontal)]

    async def _update_items(self, block: MarkdownBlock) -> bool:
        """Take ``block``'s items; False when the list must be built again."""
        items = [item for item in block._blocks if isinstance(item, MarkdownListItem)]
        rows = self._rows()
        symbols = self._symbols(items)
        if len(items) < len(rows) or not rows:
            return False
        shown = [row.query_one(MarkdownBullet).symbol for row in rows]
        if shown != symbols[: len(rows)]:
            return False  # renumbered (an ordered list's numbers grew a digit)
        last_row, last_item = rows[-1], items[len(rows) - 1]
        column = last_row.query_one(Vertical)
        parts, blocks = list(column.children), last_item._blocks
        if [type(part) for part in parts] != [type(block) for block in blocks[: len(parts)]]:
            return False  # the item became something else (its text a heading, say)
        for part, new in zip(parts, blocks, strict=False):
            await part._update_from_block(new)  # type: ignore[attr-defined]
        if len(blocks) > len(parts):  # an item that was only its bullet gets its text
            await column.mount_all(blocks[len(parts):])
        new_rows = []
        for item, symbol in zip(items[len(rows):], symbols[len(rows):], strict=True):
            bullet = MarkdownBullet()
            bullet.symbol = symbol
            new_rows.append(Horizontal(bullet, Vertical(*item._blocks)))
        if new_rows:
            await self.mount_all(new_rows)  # type: ignore[attr-defined]
        self._copy_context(block)  # type: ignore[attr-defined]
        return True


class StreamedBulletList(StreamedList, MarkdownBulletList):
    """A bullet list that takes more items, or more of its last one, in place."""

    def _symbols(self, items: list[MarkdownListItem]) -> list[str]:
        return [item.bullet for item in items]


class StreamedOrderedList(StreamedList, MarkdownOrderedList):
    """An ordered list that takes more items, or more of its last one, in place."""

    def _symbols(self, items: list[MarkdownListItem]) -> list[str]:
        # As MarkdownOrderedList.compose numbers them.
        if not items:
            return []
        try:
            start = int(items[0].bullet)
        except ValueError:
            start = 1
        labels = [f"{number}. " for number in range(start, start + len(items))]
        width = max(len(label) for label in labels) + 1
        return [label.rjust(width) for label in labels]


class CodeLabel(SizedInOnePass, Label):
    """The highlighted code of a :class:`StreamedFence`."""


class StreamedFence(SizedInOnePass, MarkdownFence):
    """A code block that grows with one layout pass each time, not two."""

    def compose(self) -> ComposeResult:
        # As MarkdownFence.compose (its set_content finds the label by this id).
        yield CodeLabel(self._highlighted_code, id="code-content", expand=True)


STREAMED_BLOCKS: dict[str, type[MarkdownBlock]] = {
    **Markdown.BLOCKS,
    "fence": StreamedFence,
    "code_block": StreamedFence,
    "paragraph_open": StreamedParagraph,
    "bullet_list_open": StreamedBulletList,
    "ordered_list_open": StreamedOrderedList,
}
"""Textual's Markdown blocks, with the ones above in place of theirs."""
