"""What the workbench writes to the terminal per frame: only what changed.

Textual turns each frame into terminal bytes itself: every updated region is rewritten
whole, and every styled run of text carries its own colour sequence and a reset. While an
answer streams, the conversation scrolls on every flush, so every row of its pane changes
and some 35 rows of truecolor text were rewritten 20 times a second (3 MB for a
2,000-word answer).

:class:`FrameWriter` keeps what each terminal cell shows (the previous frames' result)
and turns Textual's update into the difference:

- cells that already show what the update draws are not written again;
- when a band of rows moved up or down (the conversation scrolled), the band is scrolled
  on the terminal and only the cells that still differ are written: the rows that are
  new, and the cells beside the pane (the side panel) that the full-width scroll moved.
  The scroll is a scroll region (DECSTBM) and delete or insert lines (DL, IL: VT102, as
  curses does it), which every terminal since the VT102 has; a scroll region narrower
  than the screen (DECSLRM) is not, so the side panel moves and is written back;
- a colour sequence is written only when the colour changes, and only what changed
  (the foreground alone, say), not a full sequence and a reset around every run.

The terminal shows the same as after Textual's own bytes. Cells the writer cannot vouch
for are unknown and are written whenever Textual draws them: all of them after a full
repaint (Textual's ``LayoutUpdate``: start, resize, ``refresh()``), after a suspend or
resume (an external editor), and a grapheme whose width terminals disagree on (an emoji
with a variation selector, a joined sequence) with the cell after it.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from operator import ne
from typing import TYPE_CHECKING, TypeVar, cast

from rich.cells import split_graphemes
from rich.color import ColorSystem
from textual._compositor import ChopsUpdate, CompositorUpdate, LayoutUpdate
from textual.strip import Strip

if TYPE_CHECKING:
    from collections.abc import Iterable

    from rich.console import Console, RenderableType
    from rich.segment import Segment
    from rich.style import Style
    from textual.app import App

__all__ = ["FrameUpdate", "FrameWriter"]

_C = TypeVar("_C", str, "str | None")

Cell = str | None
"""The text a cell shows ("" for the right half of a wide character), None if unknown."""


def _cells_of(text: str) -> tuple[str, list[Cell], list[tuple[int, int]]]:
    """What ``text`` draws: the zero-width characters it starts with (they join the cell
    before it), its cells, and (offset, width) of each grapheme terminals may show at
    another width than rich measures (several code points: a variation selector, a joined
    emoji)."""
    spans, _ = split_graphemes(text)
    leading = ""
    cells: list[Cell] = []
    doubts: list[tuple[int, int]] = []
    for begin, stop, width in spans:
        grapheme = text[begin:stop]
        if width == 0:  # only at the start: split_graphemes joins it to the grapheme before
            leading += grapheme
            continue
        if len(grapheme) > 1:
            doubts.append((len(cells), width))
        cells.append(grapheme)
        if width == 2:
            cells.append("")
    return leading, cells, doubts


# A scroll is used only when it saves at least this many cells' writes: a scroll costs
# about 20 bytes of sequences, a rewritten cell one byte or more.
_MIN_SCROLL_GAIN = 24
# Unchanged cells between two changed ones are rewritten rather than jumped over when
# the gap is at most this wide (a cursor move is 6-8 bytes).
_JOIN_GAP = 6
# How many lines' and texts' cells are kept between frames (a few frames' worth).
_STRIPS_KEPT = 1024
# A band narrower than this (a scroll bar) is not worth scrolling.
_MIN_SCROLL_WIDTH = 8


def _sgr_parts(parameters: str) -> tuple[frozenset[str], str, str]:
    """(attributes, foreground, background) of SGR parameters as Textual writes them:
    attributes first, then a foreground colour, then a background colour."""
    codes = parameters.split(";") if parameters else []
    attributes: set[str] = set()
    foreground = background = ""
    index = 0
    while index < len(codes):
        code = codes[index]
        if code in ("38", "48"):
            length = 3 if codes[index + 1 : index + 2] == ["5"] else 5
            colour = ";".join(codes[index : index + length])
            if code == "38":
                foreground = colour
            else:
                background = colour
            index += length
            continue
        number = int(code)
        if 30 <= number <= 39 or 90 <= number <= 97:
            foreground = code
        elif 40 <= number <= 49 or 100 <= number <= 107:
            background = code
        else:
            attributes.add(code)
        index += 1
    return frozenset(attributes), foreground, background


@lru_cache(maxsize=4096)
def sgr_change(current: str, wanted: str) -> str:
    """The shortest SGR sequence this writer uses to go from the SGR parameters
    ``current`` (already in effect) to ``wanted``: only what differs when nothing has to
    be switched off, else a reset and ``wanted`` whole."""
    if not wanted:
        return "\x1b[0m"
    if not current:
        return f"\x1b[{wanted}m"
    now, want = _sgr_parts(current), _sgr_parts(wanted)
    if not now[0] <= want[0]:
        return f"\x1b[0;{wanted}m"
    codes = sorted(want[0] - now[0], key=int)
    if want[1] != now[1]:
        codes.append(want[1] or "39")
    if want[2] != now[2]:
        codes.append(want[2] or "49")
    if not codes:
        return ""
    return f"\x1b[{';'.join(codes)}m"


class FrameUpdate(CompositorUpdate):
    """Textual's update, rendered as the difference from what the terminal shows."""

    def __init__(
        self, writer: FrameWriter, update: LayoutUpdate | ChopsUpdate, size: tuple[int, int]
    ) -> None:
        self.writer = writer
        self.update = update
        self.size = size

    def render_segments(self, console: Console) -> str:
        """The bytes that make the terminal show the frame."""
        return self.writer.render(self.update, self.size, console._color_system)


class FrameWriter:
    """Keeps what the terminal shows and writes each frame as the difference.

    ``size`` is the screen's (width, height); a change of size forgets everything.
    """

    def __init__(self) -> None:
        self.width = 0
        self.height = 0
        self._texts: list[list[Cell]] = []
        self._styles: list[list[str]] = []
        self._links: dict[str, Style] = {}
        self._ansi: dict[Style, str] = {}
        self._cells: dict[str, tuple[str, list[Cell], list[tuple[int, int]]]] = {}
        self._strips: dict[
            tuple[Segment, ...], tuple[str, list[Cell], list[str], list[tuple[int, int]]]
        ] = {}
        self._older_strips = self._strips.copy()
        self._following = False
        self._unknown = True
        self._color_system = ColorSystem.TRUECOLOR
        self.frames = 0
        """Frames written."""
        self.scrolls = 0
        """Frames that scrolled a band of rows on the terminal instead of rewriting it."""
        self.full_repaints = 0
        """Frames that rewrote every cell (nothing known, or Textual's full update)."""

    def forget(self) -> None:
        """Nothing on the terminal is known any more (it was cleared, or someone else drew)."""
        self._texts = [[None] * self.width for _ in range(self.height)]
        self._styles = [[""] * self.width for _ in range(self.height)]
        self._unknown = True

    def wrap(self, app: App[object], renderable: RenderableType | None) -> RenderableType | None:
        """``renderable`` as ``app`` should display it: a compositor update becomes a
        :class:`FrameUpdate`; anything else passes through. The first call starts following
        the app's suspend and resume (the terminal is someone else's in between)."""
        if not isinstance(renderable, (LayoutUpdate, ChopsUpdate)):
            if renderable is not None:  # drawn some other way: what it covers is unknown
                self.forget()
            return renderable
        if not self._following and app.is_running:
            self._following = True
            for signal in (app.app_suspend_signal, app.app_resume_signal):
                signal.subscribe(app, lambda _app: self.forget(), immediate=True)
        size = app.screen.outer_size
        # Textual's display takes its compositor's updates, which rich's types do not name.
        return cast("RenderableType", FrameUpdate(self, renderable, (size.width, size.height)))

    # -- one frame

    def render(
        self,
        update: LayoutUpdate | ChopsUpdate,
        size: tuple[int, int],
        color_system: ColorSystem | None = None,
    ) -> str:
        """The terminal bytes for ``update`` on a screen of ``size`` (width, height); what
        the terminal shows after them is kept."""
        color_system = color_system or ColorSystem.TRUECOLOR
        self._color_system = color_system
        if size != (self.width, self.height) or isinstance(update, LayoutUpdate):
            self.width, self.height = size
            self.forget()
        self.frames += 1
        target_texts = list(self._texts)
        target_styles = list(self._styles)
        doubtful: list[tuple[int, int, int]] = []
        touched: dict[int, tuple[int, int]] = {}
        for y, x, strip, stop in self._writes(update):
            if not 0 <= y < self.height:
                continue
            texts, styles = target_texts[y], target_styles[y]
            if texts is self._texts[y]:
                texts = target_texts[y] = list(texts)
                styles = target_styles[y] = list(styles)
            end = self._draw(texts, styles, x, strip, stop, color_system, y, doubtful)
            lo, hi = touched.get(y, (x, end))
            touched[y] = (min(lo, x), max(hi, end))
        if not touched:
            return ""
        out: list[str] = []
        if isinstance(update, ChopsUpdate) and len(touched) > 2:
            self._scroll(target_texts, target_styles, touched, out)
        if self._unknown:
            self.full_repaints += 1
            self._unknown = False
        self._emit(target_texts, target_styles, touched, {y for y, _, _ in doubtful}, out)
        for y, x, width in doubtful:
            for column in range(x, min(x + width + 1, self.width)):
                self._texts[y][column] = None
        return "".join(out)

    def _writes(
        self, update: LayoutUpdate | ChopsUpdate
    ) -> Iterable[tuple[int, int, Strip, int | None]]:
        """(row, column, strip, the column it is cut at or None) for each strip the update
        draws, as Textual renders it."""
        if isinstance(update, LayoutUpdate):
            for y, line in enumerate(update.strips, update.region.y):
                x = update.region.x
                for strip in line:
                    yield y, x, strip, None
                    x += strip.cell_length
            return
        for y, x1, x2 in update.spans:
            chops = cast("dict[int, Strip | None]", update.chops[y])
            for end, (x, chop) in zip(update.chop_ends[y], chops.items(), strict=False):
                if chop is None or x > x2 or end <= x1:
                    continue
                strip = chop
                # Textual crops such a strip; cut here instead, so that the strip is one
                # whose cells are known already.
                yield y, x, strip, None if x2 > x >= x1 and end <= x2 else min(end, x2)

    def _style_key(self, style: Style | None, color_system: ColorSystem) -> str:
        """The SGR parameters of ``style`` ("" for none); a style with a link gets a key of
        its own, rendered as Textual renders it."""
        if style is None:
            return ""
        key = self._ansi.get(style)
        if key is None:
            if len(self._ansi) > _STRIPS_KEPT:
                self._ansi.clear()
            key = Strip.render_ansi(style, color_system)
            if style.link:
                key = f"{key}\x00{style.link_id}\x00{style.link}"
                self._links[key] = style
            self._ansi[style] = key
        return key

    def _draw(
        self,
        texts: list[Cell],
        styles: list[str],
        x: int,
        strip: Strip,
        stop: int | None,
        color_system: ColorSystem,
        y: int,
        doubtful: list[tuple[int, int, int]],
    ) -> int:
        """Puts ``strip`` at column ``x`` of one row, cut at column ``stop`` if given;
        returns the column after it."""
        width = self.width
        if 0 < x < width and texts[x] == "":  # drawn over the right half of a wide character
            texts[x - 1] = None
        # The same lines come back frame after frame (one row further up), so the cells
        # of a run of segments are worked out once. Kept by content, not by strip: a kept
        # strip would keep Textual's caches of it alive. Two generations: the lines of the
        # last few frames stay, older ones go.
        segments = tuple(strip)
        drawn = self._strips.get(segments)
        if drawn is None:
            drawn = self._older_strips.get(segments)
            if drawn is None:
                drawn = self._cells_of_strip(strip, color_system)
            if len(self._strips) >= _STRIPS_KEPT:
                self._older_strips, self._strips = self._strips, {}
            self._strips[segments] = drawn
        leading, cells, keys, doubts = drawn
        if leading:
            joined = x - 1 if x < 2 or texts[x - 1] != "" else x - 2
            if 0 <= joined < width and texts[joined]:
                texts[joined] = cast("str", texts[joined]) + leading
                doubtful.append((y, joined, 1))
        n = len(cells)
        limit = width if stop is None else min(stop, width)
        if x + n > limit:  # cut
            n = max(0, limit - x)
            half = n < len(cells) and cells[n] == ""
            if half and stop is not None and n:  # Textual's crop makes it a space
                return self._draw(
                    texts, styles, x, strip.crop(0, n), None, color_system, y, doubtful
                )
            cells, keys = cells[:n], keys[:n]
            if half and n:
                cells[-1] = None  # half a wide character at the screen's edge: unknown
        texts[x : x + n] = cells
        styles[x : x + n] = keys
        for offset, cells_wide in doubts:
            if offset < n:
                doubtful.append((y, x + offset, cells_wide))
        x += n
        if x < width and texts[x] == "":  # the right half of a wide character left alone
            texts[x] = None
        return x

    def _cells_of_strip(
        self, strip: Strip, color_system: ColorSystem
    ) -> tuple[str, list[Cell], list[str], list[tuple[int, int]]]:
        """(the zero-width characters ``strip`` starts with, its cells, their style keys,
        (offset, width) of its doubtful graphemes)."""
        cells: list[Cell] = []
        keys: list[str] = []
        doubts: list[tuple[int, int]] = []
        strip_leading = ""
        for text, style, control in strip:
            if control or not text:
                continue
            key = self._style_key(style, color_system)
            if text.isascii():
                cells += text
                keys += [key] * len(text)
                continue
            cached = self._cells.get(text)
            if cached is None:
                if len(self._cells) > _STRIPS_KEPT:
                    self._cells.clear()
                cached = self._cells[text] = _cells_of(text)
            leading, text_cells, text_doubts = cached
            if leading:  # joins the cell before: in this strip, or the one before it
                joined = len(cells) - 1
                while joined >= 0 and cells[joined] == "":
                    joined -= 1
                if joined >= 0 and cells[joined]:
                    cells[joined] = cast("str", cells[joined]) + leading
                    doubts.append((joined, 1))
                elif not cells:
                    strip_leading += leading
            offset = len(cells)
            cells += text_cells
            keys += [key] * len(text_cells)
            doubts += [(offset + at, wide) for at, wide in text_doubts]
        return strip_leading, cells, keys, doubts

    # -- the scroll of a band

    def _scroll(
        self,
        texts: list[list[Cell]],
        styles: list[list[str]],
        touched: dict[int, tuple[int, int]],
        out: list[str],
    ) -> None:
        """Scrolls the band of touched rows on the terminal if a move of its rows makes
        fewer cells differ; the kept rows move with it."""
        bands = Counter(touched.values())
        (x1, x2), _ = bands.most_common(1)[0]
        rows = sorted(y for y, span in touched.items() if span == (x1, x2))
        top, bottom = rows[0], rows[-1]
        if bottom - top < 2 or len(rows) != bottom - top + 1 or x2 - x1 < _MIN_SCROLL_WIDTH:
            return
        old_texts = self._texts
        changed = sum(texts[y][x1:x2] != old_texts[y][x1:x2] for y in rows)
        if changed < 3:
            return
        # Rows are matched by their text; the colours are compared for the rows that move.
        old_at: dict[tuple[Cell, ...], int] = {}
        for y in rows:
            old_at.setdefault(tuple(old_texts[y][x1:x2]), y)
        votes: Counter[int] = Counter()
        for y in rows:
            row = tuple(texts[y][x1:x2])
            old = old_at.get(row)
            if old is not None and old != y and None not in row:
                votes[old - y] += 1
        if not votes:
            return
        shift, count = votes.most_common(1)[0]
        if count < 2:
            return
        # The scroll region: the rows that moved, and the rows the move brings in.
        matched = [
            y
            for y in range(max(top, top - shift), min(bottom, bottom - shift) + 1)
            if texts[y][x1:x2] == self._texts[y + shift][x1:x2]
            and styles[y][x1:x2] == self._styles[y + shift][x1:x2]
        ]
        if len(matched) < 2:
            return
        if shift > 0:
            top, bottom = matched[0], min(bottom, matched[-1] + shift)
        else:
            top, bottom = max(top, matched[0] + shift), matched[-1]
        moved_texts = self._shifted(self._texts, top, bottom, shift, " ")
        moved_styles = self._shifted(self._styles, top, bottom, shift, "")
        before = sum(
            self._differing(texts[y], styles[y], self._texts[y], self._styles[y])
            for y in range(top, bottom + 1)
        )
        after = sum(
            self._differing(texts[y], styles[y], moved_texts[y - top], moved_styles[y - top])
            for y in range(top, bottom + 1)
        )
        if before - after < _MIN_SCROLL_GAIN:
            return
        # With the default colours set, the lines a scroll brings in are blank everywhere.
        lines = abs(shift)
        out.append(f"\x1b[{top + 1};{bottom + 1}r\x1b[{top + 1};1H")
        out.append(f"\x1b[{lines}M" if shift > 0 else f"\x1b[{lines}L")
        out.append("\x1b[r")
        self._texts[top : bottom + 1] = moved_texts
        self._styles[top : bottom + 1] = moved_styles
        for y in range(top, bottom + 1):
            touched[y] = (0, self.width)
        self.scrolls += 1

    def _shifted(
        self, rows: list[list[_C]], top: int, bottom: int, shift: int, blank: _C
    ) -> list[list[_C]]:
        """Rows ``top``..``bottom`` as the terminal shows them after scrolling by ``shift``
        (positive: up)."""
        height = bottom - top + 1
        moved: list[list[_C]] = []
        for y in range(top, bottom + 1):
            source = y + shift
            if top <= source <= bottom:
                moved.append(list(rows[source]))
            else:
                moved.append([blank] * self.width)
        assert len(moved) == height
        return moved

    @staticmethod
    def _differing(
        texts: list[Cell], styles: list[str], old_texts: list[Cell], old_styles: list[str]
    ) -> int:
        """How many cells of a row differ (an unknown cell counts as differing)."""
        # An estimate: a cell whose text and colour both differ counts twice.
        return int(sum(map(ne, texts, old_texts)) + sum(map(ne, styles, old_styles)))

    # -- bytes

    def _emit(
        self,
        texts: list[list[Cell]],
        styles: list[list[str]],
        touched: dict[int, tuple[int, int]],
        doubtful_rows: set[int],
        out: list[str],
    ) -> None:
        """Writes the cells of touched rows that differ from what the terminal shows."""
        sgr = ""
        cursor = (-1, -1)
        for y in sorted(touched):
            new_texts, new_styles = texts[y], styles[y]
            old_texts, old_styles = self._texts[y], self._styles[y]
            if new_texts == old_texts and new_styles == old_styles and None not in old_texts:
                continue
            new_texts = list(new_texts)
            for x1, x2 in self._changed_spans(new_texts, new_styles, old_texts, old_styles):
                if cursor != (y, x1):
                    out.append(f"\x1b[{y + 1};{x1 + 1}H")
                x = x1
                while x < x2:
                    key = new_styles[x]
                    run = x + 1
                    in_doubt = False
                    if y in doubtful_rows:  # the cursor is placed again after a doubtful grapheme
                        if len(cast("str", new_texts[x])) > 1:
                            in_doubt = True
                            while run < x2 and new_texts[run] == "":
                                run += 1
                        else:
                            while (
                                run < x2
                                and new_styles[run] == key
                                and len(cast("str", new_texts[run])) <= 1
                            ):
                                run += 1
                    else:
                        while run < x2 and new_styles[run] == key:
                            run += 1
                    text = "".join(cast("list[str]", new_texts[x:run]))
                    link = self._links.get(key)
                    if link is not None:
                        if sgr:
                            out.append("\x1b[0m")
                            sgr = ""
                        out.append(Strip.render_style(link, text, self._color_system))
                    else:
                        if key != sgr:
                            out.append(sgr_change(sgr, key))
                            sgr = key
                        out.append(text)
                    if in_doubt and run < x2:
                        out.append(f"\x1b[{y + 1};{run + 1}H")
                    x = run
                cursor = (y, x2)
            self._texts[y] = new_texts
            self._styles[y] = list(new_styles)
        if sgr:
            out.append("\x1b[0m")

    def _changed_spans(
        self, texts: list[Cell], styles: list[str], old_texts: list[Cell], old_styles: list[str]
    ) -> list[tuple[int, int]]:
        """Column spans to write: each starts and ends on whole characters (old and new)
        and holds no cell of unknown content; nearby spans are joined."""
        width = self.width
        spans: list[tuple[int, int]] = []
        x = 0
        while x < width:
            new = texts[x]
            if new is None or (new == old_texts[x] and styles[x] == old_styles[x]):
                x += 1
                continue
            start = x
            while (
                x < width
                and texts[x] is not None
                and (texts[x] != old_texts[x] or styles[x] != old_styles[x])
            ):
                x += 1
            # whole characters, in the new row and in what the terminal shows
            while (
                start > 0
                and (texts[start] == "" or old_texts[start] == "")
                and texts[start - 1] is not None
            ):
                start -= 1
            if texts[start] == "":  # the left half is unknown: so is this half
                texts[start] = None
                start += 1
                if start >= x:
                    continue
            while x < width and (texts[x] == "" or old_texts[x] == "") and texts[x] is not None:
                x += 1
            if (
                spans
                and start - spans[-1][1] <= _JOIN_GAP
                and all(cell is not None for cell in texts[spans[-1][1] : start])
            ):
                spans[-1] = (spans[-1][0], x)
            else:
                spans.append((start, x))
        return spans
