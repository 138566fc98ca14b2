"""Markdown blocks that take more streamed text in place.

Textual's Markdown appends by parsing from the start of its last block and handing the
first new block to the last one (``_update_from_block``). A paragraph takes its new text,
but with a layout of the whole screen even when the paragraph keeps its height; a list is
removed and mounted again, every item of it (four widgets an item, each styled anew): a
flush into a list of a few items cost 13 ms at 50 words a second, one into a paragraph 2.

Here a paragraph asks for a layout only when its height changes, and a list of paragraphs
(and lists of them) is one widget that draws its bullets and items itself, as Textual's
list of rows would: no widgets to mount when it grows, and a sixth of the widgets to lay
out and draw (a row of a list is four). At 1,000 words a second into the benchmark's
answer, a frame cost half as much. A list whose items hold anything else (a code block, a
quote) is Textual's rows, its last item updated in place and only new items mounted.

Textual's block classes come from its private ``_markdown`` module (``textual.widgets.
markdown`` exports only a few): textual is pinned.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.geometry import Size
from textual.widgets import Markdown
from textual.widgets._markdown import (
    MarkdownBlock,
    MarkdownBullet,
    MarkdownBulletList,
    MarkdownListItem,
    MarkdownOrderedList,
    MarkdownParagraph,
)


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


@dataclass(frozen=True)
class _Row:
    """One paragraph of a list drawn flat: its indent, its bullet ("" after an item's
    first paragraph) and the width kept for bullets at its level."""

    indent: int
    symbol: str
    width: int
    content: Content


def flat_rows(block: MarkdownBlock, indent: int = 0) -> list[_Row] | None:
    """The rows of list ``block`` drawn flat, or None when an item holds a block other than
    paragraphs and lists of paragraphs (or starts with a list: Textual draws that one beside
    the item's bullet)."""
    items = [item for item in block._blocks if isinstance(item, MarkdownListItem)]
    symbols = block._symbols(items)  # type: ignore[attr-defined]
    rows: list[_Row] = []
    for item, symbol in zip(items, symbols, strict=True):
        width = cell_len(symbol)
        if not item._blocks:  # only its bullet typed so far
            rows.append(_Row(indent, symbol, width, Content()))
        first = True
        for part in item._blocks:
            if isinstance(part, _StreamedList) and not first:
                nested = flat_rows(part, indent + width)  # type: ignore[arg-type]
                if nested is None:
                    return None
                rows += nested
            elif type(part) in (MarkdownParagraph, StreamedParagraph):
                rows.append(_Row(indent, symbol if first else "", width, part._content))
            else:
                return None
            first = False
    return rows


class _StreamedList:
    """What both kinds of list share: drawn flat when it can be, else as Textual's rows
    with the last item updated in place and new items mounted."""

    _flat: list[_Row] | None = None
    """The rows drawn, when the list is drawn flat (None: as Textual's widgets)."""
    _drawn: tuple[int, Content] | None = None

    def _symbols(self, items: list[MarkdownListItem]) -> list[str]:
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        self._flat = flat_rows(self)  # type: ignore[arg-type]
        if self._flat is not None:
            self._blocks.clear()  # type: ignore[attr-defined]
            return
        yield from super().compose()  # type: ignore[misc]

    def render(self) -> Content:
        if self._flat is None:
            return super().render()  # type: ignore[misc]
        return self._flat_content(self.content_region.width)  # type: ignore[attr-defined]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if self._flat is None:
            return super().get_content_height(container, viewport, width)  # type: ignore[misc]
        return self._flat_height(width)

    def _flat_height(self, width: int) -> int:
        return len(self._flat_content(width).split("\n"))

    def _flat_content(self, width: int) -> Content:
        """The rows at ``width``: each bullet, then its paragraph wrapped beside it."""
        if self._drawn is not None and self._drawn[0] == width:
            return self._drawn[1]
        lines: list[Content] = []
        for row in self._flat or ():
            margin = " " * row.indent
            bullet = Content.styled(row.symbol, ".list-bullet") if row.symbol else None
            wrapped = row.content.wrap(max(1, width - row.indent - row.width)) or [Content()]
            for number, line in enumerate(wrapped):
                lead = bullet if number == 0 and bullet is not None else " " * row.width
                lines.append(Content.assemble(margin, lead, line))
        content = Content("\n").join(lines)
        self._drawn = (width, content)
        return content

    async def _update_from_block(self, block: MarkdownBlock) -> None:
        """Show ``block`` (this list parsed with more text) in place when it is the same kind
        of list drawn the same way (flat or as rows); else Textual builds it again."""
        if type(block) is type(self) and (
                self._update_flat(block) if self._flat is not None
                else flat_rows(block) is None and await self._update_items(block)):
            return
        await super()._update_from_block(block)  # type: ignore[misc]

    def _update_flat(self, block: MarkdownBlock) -> bool:
        """Draw ``block``'s rows instead, if it can be drawn flat; a layout only when the
        list's height changes."""
        rows = flat_rows(block)
        if rows is None:
            return False
        width = self.content_region.width  # type: ignore[attr-defined]
        before = self.content_region.height  # type: ignore[attr-defined]
        self._flat, self._drawn = rows, None
        self._copy_context(block)  # type: ignore[attr-defined]
        layout = width <= 0 or self._flat_height(width) != before
        self.refresh(layout=layout)  # type: ignore[attr-defined]
        return True

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


LIST_CSS = """
{name} > .list-bullet {{ color: $text-primary; }}
{name}:light > .list-bullet {{ color: $text-secondary; }}
"""
"""The bullets of a list drawn flat, coloured as Textual's bullet widgets."""


class StreamedBulletList(_StreamedList, MarkdownBulletList):
    """A bullet list that takes more items, or more of its last one, in place."""

    COMPONENT_CLASSES = {"list-bullet"}
    DEFAULT_CSS = LIST_CSS.format(name="StreamedBulletList")

    def _symbols(self, items: list[MarkdownListItem]) -> list[str]:
        return [item.bullet for item in items]


class StreamedOrderedList(_StreamedList, MarkdownOrderedList):
    """An ordered list that takes more items, or more of its last one, in place."""

    COMPONENT_CLASSES = {"list-bullet"}
    DEFAULT_CSS = LIST_CSS.format(name="StreamedOrderedList")

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


STREAMED_BLOCKS: dict[str, type[MarkdownBlock]] = {
    **Markdown.BLOCKS,
    "paragraph_open": StreamedParagraph,
    "bullet_list_open": StreamedBulletList,
    "ordered_list_open": StreamedOrderedList,
}
"""Textual's Markdown blocks, with the ones above in place of theirs."""
