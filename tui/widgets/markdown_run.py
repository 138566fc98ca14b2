"""Consecutive blocks of text drawn as one widget: a run.

In Textual's Markdown every block is a widget (a list item is four), and a frame that
scrolls a streamed answer lays out and draws each of them, edges and all; a new block is a
widget to mount and style. Profiled at 1,000 words a second, the frame and the mounts were
most of the event loop's time. So headings, paragraphs and lists of paragraphs (and lists
of them) that follow one another are one :class:`StreamedRun`, which draws them as
Textual's widgets would — the same text cell for cell, the same colours and styles, the
same blank lines between them — and takes more streamed text without mounting anything.
Other blocks (code, quotes, tables, rules, a list whose items hold those) stay Textual's
widgets between runs.

Textual's block classes come from its private ``_markdown`` module (``textual.widgets.
markdown`` exports only a few): textual is pinned.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from textual.await_complete import AwaitComplete
from textual.content import Content
from textual.geometry import Size
from textual.strip import Strip
from textual.style import Style
from textual.visual import Visual
from textual.widgets import Markdown
from textual.widgets._markdown import (
    MarkdownBlock,
    MarkdownH1,
    MarkdownH2,
    MarkdownH3,
    MarkdownH4,
    MarkdownH5,
    MarkdownH6,
    MarkdownHeader,
    MarkdownListItem,
    MarkdownParagraph,
)

from .answer_pages import markdown_parser
from .one_layout import RepaintsChangedRows, RepaintsGrowth, SizedInOnePass
from .streamed_markdown import STREAMED_BLOCKS, StreamedList, StreamedParagraph

if TYPE_CHECKING:
    from markdown_it.token import Token

SPACE_ABOVE: dict[type[MarkdownBlock], int] = {
    MarkdownH1: 2, MarkdownH2: 2, MarkdownH3: 1, MarkdownH4: 1, MarkdownH5: 1, MarkdownH6: 1,
}
"""Blank lines above a heading in Textual's Markdown (its top margin; paragraphs and lists
have none). Every block of a run has one blank line below it; between two blocks, the
larger of the two margins is left, as Textual's layout does."""

HEADING_CLASSES = {f"run--h{level}": level for level in range(1, 7)}

GROWTH_ROWS = 3
"""While an answer streams, the run it ends grows this many rows at a time (the rows it has
not yet filled are blank): a flush that wraps onto a new row then repaints that row alone,
and only one in this many lays out the screen and scrolls the conversation, the frame that
costs most (every row in view composed again). At 200 words/s a row fills every ~75 ms."""


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
            if isinstance(part, StreamedList) and not first:
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


def list_lines(rows: list[_Row], width: int) -> list[Content]:
    """A list's rows at ``width``: each bullet, then its paragraph wrapped beside it."""
    lines: list[Content] = []
    for row in rows:
        margin = " " * row.indent
        bullet = Content.styled(row.symbol, ".run--bullet") if row.symbol else None
        wrapped = row.content.wrap(max(1, width - row.indent - row.width)) or [Content()]
        for number, line in enumerate(wrapped):
            lead = bullet if number == 0 and bullet is not None else " " * row.width
            lines.append(Content.assemble(margin, lead, line))
    return lines


def heading_lines(block: MarkdownHeader, width: int) -> list[Content]:
    """A heading at ``width``, in its level's colour and style (an H1's lines centred as
    one block)."""
    content = block._content.stylize_before(f".run--h{block.LEVEL}")
    lines = content.wrap(max(1, width)) or [Content()]
    if block.LEVEL == 1:
        indent = (width - max(line.cell_length for line in lines)) // 2
        return [line.pad_left(indent) for line in lines] if indent > 0 else lines
    return lines


def drawn_flat(block: MarkdownBlock) -> bool:
    """Whether ``block`` (parsed, not mounted) is drawn in a run."""
    if isinstance(block, StreamedList):
        return flat_rows(block) is not None
    return isinstance(block, MarkdownHeader) or type(block) is StreamedParagraph


def block_lines(block: MarkdownBlock, width: int) -> list[Content]:
    """The lines ``block`` is drawn as in a run at ``width``."""
    if isinstance(block, MarkdownHeader):
        return heading_lines(block, width)
    if isinstance(block, StreamedList):
        return list_lines(flat_rows(block) or [], width)
    return block._content.wrap(max(1, width)) or [Content()]


class LinesFrom(Content):
    """Text that is the lines of a longer text from line ``first``: the cells it renders
    say where they are in the whole, as the whole's would (Textual's offsets, which
    selecting with the mouse reads)."""

    __slots__ = ("first",)

    def __init__(self, content: Content, first: int) -> None:
        super().__init__(content.plain, list(content.spans), content.cell_length,
                         strip_control_codes=False)
        self.first = first

    def _wrap_and_format(self, width: int, *args: Any, **kwargs: Any) -> Any:
        lines = super()._wrap_and_format(width, *args, **kwargs)
        for line in lines:
            line.y += self.first
        return lines


class StreamedRun(RepaintsChangedRows, RepaintsGrowth, SizedInOnePass, MarkdownBlock):
    """Headings, paragraphs and lists of paragraphs that follow one another, drawn as one
    widget.

    Its lines are drawn part by part and kept: a flush that adds words to the last
    paragraph renders that paragraph's lines again, and repaints only the rows that
    changed (a frame used to render the whole run, and repaint all of its rows, each time
    it grew).

    Args:
        markdown: The Markdown widget the run is part of.
        parts: The blocks it draws (parsed, never mounted), in order.
    """

    COMPONENT_CLASSES = {"run--bullet", *HEADING_CLASSES}
    DEFAULT_CSS = """
    StreamedRun > .run--bullet { color: $text-primary; }
    StreamedRun:light > .run--bullet { color: $text-secondary; }
    """ + "".join(f"""
    StreamedRun > .run--h{level} {{
        color: $markdown-h{level}-color;
        background: $markdown-h{level}-background;
        text-style: $markdown-h{level}-text-style;
    }}""" for level in HEADING_CLASSES.values())

    def __init__(self, markdown: Markdown, parts: list[MarkdownBlock]) -> None:
        super().__init__(markdown, parts[0]._token)
        self.parts = parts
        self.last = False
        """Whether the run ends its page (no blank line under it then)."""
        self._lines: dict[MarkdownBlock, tuple[int, list[Content]]] = {}
        self._drawn: tuple[int, Content, int] | None = None
        self._strips: dict[MarkdownBlock, tuple[int, Style, int, list[Strip]]] = {}
        """Each part's rendered lines (with the blank lines above it), at a width, in a
        style, from a line of the run."""
        self._rendered: tuple[int, Style, list[Strip]] | None = None
        self.growing = False
        """Whether the run ends an answer that is streaming: then its height is a multiple
        of :data:`GROWTH_ROWS` (:meth:`set_growing`)."""
        self._set_margin()

    @property
    def last_start(self) -> int:
        """The first source line of the run's last block."""
        return self.parts[-1].source_range[0]

    def _set_margin(self) -> None:
        top = SPACE_ABOVE.get(type(self.parts[0]), 0)
        self.styles.margin = (top, 0, 0 if self.last else 1, 0)

    def set_last(self, last: bool) -> None:
        """Whether the run ends its page."""
        if last != self.last:
            self.last = last
            self._set_margin()

    def set_growing(self, growing: bool) -> None:
        """Whether the run ends an answer that is streaming (rows kept ahead for its
        growth), or not (its height is its text's)."""
        if growing != self.growing:
            self.growing = growing
            self.refresh(layout=True)

    def _rows(self, lines: int) -> int:
        """The run's height for ``lines`` of text."""
        return lines + (-lines) % GROWTH_ROWS if self.growing else lines

    def _part_lines(self, part: MarkdownBlock, width: int) -> list[Content]:
        drawn = self._lines.get(part)
        if drawn is None or drawn[0] != width:
            drawn = (width, block_lines(part, width))
            self._lines[part] = drawn
        return drawn[1]

    def _drawn_lines(self, width: int) -> tuple[Content, int]:
        """The run at ``width``, and how many lines it is."""
        if self._drawn is not None and self._drawn[0] == width:
            return self._drawn[1:]
        lines: list[Content] = []
        for number, part in enumerate(self.parts):
            if number:
                lines += [Content()] * max(1, SPACE_ABOVE.get(type(part), 0))
            lines += self._part_lines(part, width)
        self._drawn = (width, Content("\n").join(lines), len(lines))
        return self._drawn[1:]

    def render(self) -> Content:
        return self._drawn_lines(self.content_region.width)[0]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._rows(self._drawn_lines(width)[1])

    def _part_strips(self, number: int, part: MarkdownBlock, width: int, style: Style,
                     first: int) -> list[Strip]:
        rendered = self._strips.get(part)
        if rendered is None or rendered[:3] != (width, style, first):
            blank = [Content()] * max(1, SPACE_ABOVE.get(type(part), 0)) if number else []
            lines = LinesFrom(Content("\n").join(blank + self._part_lines(part, width)), first)
            rendered = (width, style, first, Visual.to_strips(self, lines, width, None, style))
            self._strips[part] = rendered
        return rendered[3]

    def _rendered_strips(self, width: int) -> list[Strip]:
        """The run's lines at ``width``, rendered as Textual renders its whole text (a
        text's lines are rendered one by one), each part's kept while it is unchanged."""
        style = self.visual_style
        if self._rendered is None or self._rendered[0] != width or self._rendered[1] != style:
            strips: list[Strip] = []
            for number, part in enumerate(self.parts):
                strips += self._part_strips(number, part, width, style, len(strips))
            self._rendered = (width, style, strips)
        return self._rendered[2]

    def _drawn_whole(self) -> bool:
        # A selection is drawn over the whole text, and links are drawn plain while one
        # is being made: Textual's own rendering then.
        return self.text_selection is not None or self.screen._selecting

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if self._drawn_whole():
            line = super().render_line(y)
        else:
            strips = self._rendered_strips(width)
            line = strips[y] if y < len(strips) else Strip.blank(width,
                                                                 self.visual_style.rich_style)
        return self._shown_line(y, line)

    def take(self, parts: list[MarkdownBlock]) -> None:
        """Draw ``parts`` instead: a layout only when the run's height changes, and a
        repaint of the rows whose line changed."""
        width = self.content_region.width
        before = self.content_region.height
        first = self.parts[0]
        self.parts = parts
        self._lines = {part: self._lines[part] for part in parts if part in self._lines}
        self._strips = {part: self._strips[part] for part in parts if part in self._strips}
        self._drawn = None
        self._rendered = None
        if type(parts[0]) is not type(first):
            self._set_margin()
        if width <= 0 or not self.is_mounted or self._drawn_whole():
            self.refresh(layout=True)
            return
        self.refresh_changed(self._rendered_strips(width), width,
                             layout=self._rows(self._drawn_lines(width)[1]) != before)

    def _lines_kept(self, old: Size, new: Size) -> int:
        # Every row whose line changed was marked for a repaint (take): the others hold.
        return min(old.height, new.height)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._rendered = None

    async def _update_from_block(self, block: MarkdownBlock) -> None:
        """Take ``block``, the run's last block parsed again with more text (and what
        follows it): a run goes on this one; another block ends it."""
        if isinstance(block, StreamedRun):
            self.take(self.parts[:-1] + block.parts)
            self._copy_context(block)
        elif len(self.parts) > 1:
            self.take(self.parts[:-1])
            await self._markdown.mount(block, after=self)
        else:
            await super()._update_from_block(block)


def in_runs(markdown: Markdown, blocks: Iterable[MarkdownBlock]) -> Iterator[MarkdownBlock]:
    """``blocks`` (top-level, parsed) with each stretch of blocks drawn flat in one run."""
    run: list[MarkdownBlock] = []
    for block in blocks:
        if drawn_flat(block):
            run.append(block)
            continue
        if run:
            yield StreamedRun(markdown, run)
            run = []
        yield block
    if run:
        yield StreamedRun(markdown, run)


class LiteralMarkdown(Markdown):
    """Textual's Markdown, with the HTML in it shown as written: a block of HTML as a
    paragraph of literal text, HTML inside a line (``<kbd>``) as text."""

    def __init__(self, markdown: str | None = None, **kwargs: Any) -> None:
        # One parser for every parse (Textual's would build one for each append), the one
        # that keeps HTML inside a line as text.
        super().__init__(markdown, parser_factory=markdown_parser, **kwargs)

    def unhandled_token(self, token: Token) -> MarkdownBlock | None:
        """A block of HTML is shown as the model wrote it, a paragraph of literal text.

        Textual's Markdown makes no block of it: the HTML was not shown, and while an answer
        streamed, the text before it was lost (an append re-parses from the start of the
        last block, and hands the first block it finds to the last one shown)."""
        if token.type != "html_block":
            return super().unhandled_token(token)
        block = StreamedParagraph(self, token)
        block.set_content(Content(token.content.rstrip("\n")))
        return block


class RunMarkdown(LiteralMarkdown):
    """Textual's Markdown, its HTML shown as written, its text drawn in runs and its blocks
    taking streamed text in place (:data:`~.streamed_markdown.STREAMED_BLOCKS`)."""

    BLOCKS = STREAMED_BLOCKS

    def _parse_markdown(self, tokens: Iterable[Token]) -> Iterable[MarkdownBlock]:
        return in_runs(self, super()._parse_markdown(tokens))

    def append(self, markdown: str) -> AwaitComplete:
        """Textual's append; then a run that now follows a run (the block between them
        became text) goes on the first, as a whole parse would draw them."""
        appended = super().append(markdown)

        async def join_runs() -> None:
            await appended
            children = list(self.children)
            for before, after in zip(children, children[1:], strict=False):
                if isinstance(before, StreamedRun) and isinstance(after, StreamedRun):
                    before.take(before.parts + after.parts)
                    await after.remove()
                    return

        return AwaitComplete(join_runs())
