"""A side-by-side diff of one file: before on the left, after on the right.

Rows come from ``core.hunks``, so the hunks a person ticks or rejects are the ones drawn;
within a changed pair of lines the characters that differ are emphasised.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Sequence

from textual.color import Color
from textual.content import Content
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.style import Style
from textual.visual import Visual

from ...core.changes.hunks import Hunk, compute_hunks
from ..outside_text import visible
from .diff_rows import (
    HIGHLIGHT_BLOCK,
    MIN_CODE_WIDTH,
    Row,
    centred,
    diff_rows,
    displayable,
    fold_count,
    highlight_lines,
    intraline,
    language_for,
    title_content,
)


class DiffView(ScrollView, can_focus=True):
    """A side-by-side diff of one file with syntax colours and changed lines tinted.

    Removed lines are tinted on the left, added lines on the right, each side with its line
    numbers; in a changed pair of lines the characters that differ are emphasised on top of
    the syntax colours. Only the hunks (changes with ``CONTEXT_LINES`` of context around
    them) are laid out; longer unchanged runs become one "⋯ N unchanged lines" row. Long
    lines wrap inside their column and the two sides of a row stay level.

    With ``hunk_titles`` each hunk starts with a title line its owner words
    (``set_hunk_labels``), e.g. a tick box or a verdict; ``current_hunk`` is drawn
    highlighted and hunks marked ``dropped`` are greyed out.

    It draws with the Line API: only the rows in view are rendered, and syntax colours are
    computed ``HIGHLIGHT_BLOCK`` lines at a time as rows come into view, so a 5,000-line
    file, even a new one, opens at once.
    """

    DEFAULT_CSS = """
    DiffView {
        height: 1fr;
        overflow-x: hidden;
        overflow-y: auto;
        & > .diff-view--header { background: $boost; color: $text; text-style: bold; }
        & > .diff-view--line-number { color: $text-muted; }
        & > .diff-view--removed { background: $error 20%; }
        & > .diff-view--added { background: $success 20%; }
        & > .diff-view--removed-sign { color: $text-error; text-style: bold; }
        & > .diff-view--added-sign { color: $text-success; text-style: bold; }
        & > .diff-view--filler { background: $background 50%; }
        & > .diff-view--skipped { color: $text-muted; text-style: italic; }
        & > .diff-view--divider { color: $text-muted; }
        & > .diff-view--removed-text { background: $error 45%; text-style: bold; }
        & > .diff-view--added-text { background: $success 45%; text-style: bold; }
        & > .diff-view--hunk { color: $text-muted; background: $boost; }
        & > .diff-view--hunk-current { color: $text; background: $accent 40%;
                                       text-style: bold; }
        & > .diff-view--dropped { color: $text-disabled; background: $surface; }
    }
    """

    COMPONENT_CLASSES = {
        "diff-view--header",
        "diff-view--line-number",
        "diff-view--removed",
        "diff-view--added",
        "diff-view--removed-sign",
        "diff-view--added-sign",
        "diff-view--filler",
        "diff-view--skipped",
        "diff-view--divider",
        "diff-view--removed-text",
        "diff-view--added-text",
        "diff-view--hunk",
        "diff-view--hunk-current",
        "diff-view--dropped",
    }

    def __init__(
        self,
        path: str,
        before: str,
        after: str,
        *,
        hunks: Sequence[Hunk] | None = None,
        hunk_titles: bool = False,
        left_title: str | None = None,
        right_title: str | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """Diff ``before`` against ``after``.

        Args:
            path: The file's name as people should read it; its extension picks the syntax.
            before: The file's content before the change ("" for a new file).
            after: The file's content after the change.
            hunks: ``compute_hunks(before, after)`` when the caller has them already.
            hunk_titles: Start each hunk with a title line (see ``set_hunk_labels``).
            left_title: The left header (default: "PATH (before)").
            right_title: The right header (default: "PATH (after)"; for a new file, which
                takes the whole width with no empty left side, "PATH (new file)").
            name: The widget's name.
            id: The widget's id.
            classes: The widget's CSS classes.
        """
        super().__init__(name=name, id=id, classes=classes)
        self.path = path
        self.is_new_file = before == ""
        self.left_title = left_title or f"{path} (before)"
        self.right_title = right_title or (
            f"{path} (new file)" if self.is_new_file else f"{path} (after)")
        self.hunks: list[Hunk] = list(compute_hunks(before, after) if hunks is None else hunks)
        """The file's hunks, in order; rows and titles refer to them by index."""
        self._language = language_for(path)
        self._before = displayable(before)
        self._after = displayable(after)
        self._rows = diff_rows(self.hunks, len(self._before), hunk_titles)
        self._labels: list[str] = [f"hunk {h.index + 1} of {len(self.hunks)}" for h in self.hunks]
        self._dropped: frozenset[int] = frozenset()
        self._current: int | None = None
        self._emphasis: dict[str, Style | str] = {}
        self._digits = max(len(str(max(len(self._before), len(self._after), 1))), 3)
        self._highlighted: dict[tuple[bool, int], list[Content]] = {}
        # Per width: the first screen line of each row (the header is screen line 0).
        self._row_starts: tuple[int, list[int], int] = (-1, [], 0)
        self._row_cache: dict[tuple[int, int], list[Content]] = {}

    def on_mount(self) -> None:
        """Restyle when the theme changes: emphasis colours are resolved per theme."""
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._restyle())

    @property
    def changed_lines(self) -> tuple[int, int]:
        """How many lines are removed and how many added."""
        removed = sum(1 for row in self._rows if row.changed and row.left is not None)
        added = sum(1 for row in self._rows if row.changed and row.right is not None)
        return removed, added

    @property
    def first_change(self) -> int | None:
        """The 1-based line of the new content where the first change is, or None."""
        last_right = 0
        for row in self._rows:
            if row.changed:
                return row.right if row.right is not None else last_right + 1
            last_right = row.right or last_right
        return None

    def plain_lines(self, width: int) -> list[str]:
        """The whole diff as plain text at ``width`` cells, one string per screen line."""
        return [line.plain for line in self._screen_lines(width)]

    def screen_lines(self, width: int) -> list[Content]:
        """The whole diff at ``width`` cells with its styles, one Content per screen line."""
        return self._screen_lines(width)

    # ------------------------------------------------------------------ hunks

    @property
    def current_hunk(self) -> int | None:
        """The hunk drawn highlighted (its title), or None."""
        return self._current

    @current_hunk.setter
    def current_hunk(self, index: int | None) -> None:
        self._current = index
        self._restyle()

    def set_hunk_labels(self, labels: Sequence[str], dropped: Collection[int] = ()) -> None:
        """Word each hunk's title line and grey out the ``dropped`` hunks.

        Args:
            labels: One title per hunk, e.g. ``[x] hunk 1 of 3 · lines 4-6``.
            dropped: Hunks that will not happen (unticked, rejected): drawn greyed out.
        """
        self._labels = list(labels)
        self._dropped = frozenset(dropped)
        self._restyle()

    def scroll_to_hunk(self, index: int) -> None:
        """Scroll so that hunk ``index`` starts near the top of the view."""
        width = self.scrollable_content_region.width
        row = next((i for i, r in enumerate(self._rows) if r.hunk == index), None)
        if row is None or width <= 0:
            return
        self._update_virtual_size()
        starts = self._layout(width)[1]
        # One line above the hunk: the collapsed run or context it follows.
        self.scroll_to(y=max(starts[row] - 1, 0), animate=False, immediate=True)

    def _restyle(self) -> None:
        self._row_cache.clear()
        self._emphasis.clear()
        self.refresh()

    def _emphasis_style(self, change: str) -> Style | str:
        """How the changed characters of a ``removed`` or ``added`` line stand out.

        Resolved against the widget's own background: a ``.class`` span in Content gets a
        partial style, whose translucent background hardly shows over the row's tint.
        """
        name = f"diff-view--{change}-text"
        style = self._emphasis.get(change)
        if style is None:
            if not self.is_mounted:
                return f".{name}"
            rich = self.get_component_rich_style(name)
            background = Color.from_rich_color(rich.bgcolor) if rich.bgcolor else None
            style = self._emphasis[change] = Style(background=background, bold=rich.bold)
        return style

    # ------------------------------------------------------------------ Line API

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """All screen lines at ``width`` (used when the view is sized ``height: auto``)."""
        return self._layout(width)[2]

    def render_lines(self, crop: Region) -> list[Strip]:
        """Lay the rows out for the current width before Textual asks for lines."""
        self._update_virtual_size()
        return super().render_lines(crop)

    def on_resize(self) -> None:
        """Re-wrap the rows for the new width."""
        self._update_virtual_size()

    def render_line(self, y: int) -> Strip:
        """Screen line ``y`` of the view, scrolled."""
        width = self.scrollable_content_region.width
        lines = self._screen_line(self.scroll_offset.y + y, width)
        style = self.get_visual_style()
        if lines is None:
            return Strip.blank(width, style.rich_style)
        return Visual.to_strips(self, lines, width, 1, style, pad=True)[0]

    def _update_virtual_size(self) -> None:
        width = self.scrollable_content_region.width
        if width <= 0:
            return
        size = Size(width, self._layout(width)[2])
        if size != self.virtual_size:
            self.virtual_size = size
            self._scroll_update(size)

    # ------------------------------------------------------------------ layout

    def _widths(self, width: int) -> tuple[int, int, int]:
        """The gutter, left code and right code widths at ``width`` cells."""
        gutter = self._digits + 3
        if self.is_new_file:  # nothing before: the new lines take the whole width
            return gutter, 0, max(width - gutter, MIN_CODE_WIDTH)
        left = max((width - 1 - 2 * gutter) // 2, MIN_CODE_WIDTH)
        right = max(width - 1 - 2 * gutter - left, MIN_CODE_WIDTH)
        return gutter, left, right

    def _layout(self, width: int) -> tuple[int, list[int], int]:
        """``(width, first screen line of each row, total screen lines)``, cached per width."""
        if self._row_starts[0] == width:
            return self._row_starts
        _, left_width, right_width = self._widths(width)
        starts: list[int] = []
        line = 1 if self._rows else 2  # the header, and "(no changes)" for an empty diff
        for row in self._rows:
            starts.append(line)
            if row.skipped or row.title:
                line += 1
                continue
            left = fold_count(self._before[row.left - 1], left_width) if row.left else 1
            right = fold_count(self._after[row.right - 1], right_width) if row.right else 1
            line += max(left, right)
        self._row_starts = (width, starts, line)
        self._row_cache.clear()
        return self._row_starts

    def _screen_lines(self, width: int) -> list[Content]:
        """Every screen line at ``width``; for tests and copying, not for drawing."""
        total = self._layout(width)[2]
        return [line for y in range(total) if (line := self._screen_line(y, width))]

    def _screen_line(self, y: int, width: int) -> Content | None:
        """Screen line ``y`` at ``width``, or None past the end."""
        _, starts, total = self._layout(width)
        if y < 0 or y >= total:
            return None
        if y == 0:
            return self._header(width)
        if not self._rows:
            return centred("(no changes)", width)
        index = bisect_right(starts, y) - 1
        key = (index, width)
        lines = self._row_cache.get(key)
        if lines is None:
            if len(self._row_cache) > 512:
                self._row_cache.clear()
            lines = self._row_cache[key] = self._render_row(self._rows[index], width)
        offset = y - starts[index]
        return lines[offset] if offset < len(lines) else centred("", width)

    def _header(self, width: int) -> Content:
        gutter, left_width, right_width = self._widths(width)
        if self.is_new_file:
            return title_content(self.right_title, gutter + right_width)
        return Content.assemble(
            title_content(self.left_title, gutter + left_width),
            (" ", ".diff-view--header"),
            title_content(self.right_title, gutter + right_width),
        )

    def _render_row(self, row: Row, width: int) -> list[Content]:
        """The screen lines of one row at ``width``."""
        if row.title:
            return [self._hunk_title(row.hunk, width)]
        if row.skipped:
            noun = "line" if row.skipped == 1 else "lines"
            return [centred(f"⋯ {row.skipped:,} unchanged {noun}", width)]
        _, left_width, right_width = self._widths(width)
        dropped = row.hunk in self._dropped
        changed = row.changed and not dropped
        spans: tuple[list[tuple[int, int]], list[tuple[int, int]]] = ([], [])
        if changed and row.left is not None and row.right is not None:
            spans = intraline(self._before[row.left - 1], self._after[row.right - 1])
        right, right_blank = self._cell(True, row.right, changed, right_width, spans[1])
        if self.is_new_file:
            lines = right
            if dropped and row.changed:
                return [line.stylize(".diff-view--dropped") for line in lines]
            return lines
        left, left_blank = self._cell(False, row.left, changed, left_width, spans[0])
        divider = Content.styled("│", ".diff-view--divider")
        lines = [
            Content.assemble(
                left[index] if index < len(left) else left_blank,
                divider,
                right[index] if index < len(right) else right_blank,
            )
            for index in range(max(len(left), len(right)))
        ]
        if dropped and row.changed:
            return [line.stylize(".diff-view--dropped") for line in lines]
        return lines

    def _hunk_title(self, index: int, width: int) -> Content:
        """A hunk's title line: its label on a full-width rule, highlighted when current."""
        label = self._labels[index] if index < len(self._labels) else f"hunk {index + 1}"
        marker = "▶" if index == self._current else "─"
        style = ".diff-view--hunk-current" if index == self._current else ".diff-view--hunk"
        # Labels carry the person's reasons and the owner's words: literal, never markup.
        text = Content(visible(f"{marker} {label} ")).truncate(width, ellipsis=True)
        return text.pad_right(width - text.cell_length, "─").stylize(style)

    def _cell(
        self, after: bool, number: int | None, changed: bool, code_width: int,
        emphasis: list[tuple[int, int]] | None = None,
    ) -> tuple[list[Content], Content]:
        """One side of a row: its screen lines (code folded to ``code_width``) and a blank.

        ``emphasis`` are the character spans of the line that differ from the other side.
        The blank, tinted like the side, pads it when the other side wraps onto more lines.
        """
        width = self._digits + 3 + code_width
        if number is None:
            filler = Content.styled(" " * width, ".diff-view--filler")
            return [filler], filler
        change = "added" if after else "removed"
        tint = f".diff-view--{change}" if changed else ""
        text = self._highlighted_line(after, number)
        for start, end in emphasis or ():
            text = text.stylize(self._emphasis_style(change), start, end)
        pieces = text.fold(code_width) if text else [Content("")]
        out: list[Content] = []
        for index, piece in enumerate(pieces):
            first = index == 0
            cell = Content.assemble(
                (f"{number:>{self._digits}} " if first else " " * (self._digits + 1),
                 ".diff-view--line-number"),
                (("+" if after else "-") if first and changed else " ",
                 f".diff-view--{change}-sign"),
                " ",
                piece.pad_right(max(code_width - piece.cell_length, 0)),
            )
            out.append(cell.stylize_before(tint) if tint else cell)
        return out, Content.styled(" " * width, tint)

    def _highlighted_line(self, after: bool, number: int) -> Content:
        """Line ``number`` (1-based) of one side with syntax colours, highlighting its block."""
        block, offset = divmod(number - 1, HIGHLIGHT_BLOCK)
        key = (after, block)
        lines = self._highlighted.get(key)
        if lines is None:
            source = self._after if after else self._before
            start = block * HIGHLIGHT_BLOCK
            lines = highlight_lines(source[start : start + HIGHLIGHT_BLOCK], self._language)
            self._highlighted[key] = lines
        return lines[offset]
