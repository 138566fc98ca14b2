"""The rows of a side-by-side diff and what goes in their cells: pairs of line numbers from
``core.changes.hunks``, the characters that differ within a changed pair, syntax colours,
and text made displayable (control characters as pictures, invisible characters as their
code points, tabs expanded): a file's lines, its name and the hunk titles come from outside.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from fnmatch import fnmatch
from functools import lru_cache
from pathlib import PurePath

from pygments.lexers import get_all_lexers
from rich.cells import cell_len
from textual.content import Content
from textual.highlight import highlight

from ...core.changes.hunks import Hunk
from ...tools.fileio import split_lines
from ..outside_text import visible

TAB_SIZE = 4
"""Cells a tab expands to."""
HIGHLIGHT_BLOCK = 128
"""Lines of a file highlighted together, when one of them first comes into view."""
MIN_CODE_WIDTH = 8
"""The narrowest a side's code column gets, however narrow the widget."""
INTRALINE_MAX_CHARS = 2_000
"""Longer changed lines are tinted whole: matching their characters would cost too much."""
INTRALINE_MIN_RATIO = 0.3
"""Pairs of lines less alike than this are tinted whole: emphasis everywhere is noise."""


@lru_cache(maxsize=256)
def language_for(path: str) -> str:
    """The pygments lexer alias for ``path``'s file name, or ``"text"`` when none fits.

    Matches pygments' own file name patterns without loading plugin lexers: pygments'
    ``get_lexer_for_filename`` scans every installed package's entry points on first use,
    a pause long enough to see.
    """
    name = PurePath(path).name
    for _, aliases, patterns, _ in get_all_lexers(plugins=False):
        if aliases and any(fnmatch(name, pattern) for pattern in patterns):
            return aliases[0]
    return "text"


@dataclass(frozen=True, slots=True)
class Row:
    """One row of the diff: a pair of line numbers (either may be missing) or a collapsed run.

    Attributes:
        left: The 1-based line of the old file on the left, if any.
        right: The 1-based line of the new file on the right, if any.
        changed: Whether the row is part of a change (tinted) or context.
        skipped: For a collapsed run, how many unchanged lines it stands for.
        hunk: The index of the hunk the row belongs to (-1 for a collapsed run).
        title: The row is the hunk's title line (when the view shows them).
    """

    left: int | None = None
    right: int | None = None
    changed: bool = False
    skipped: int = 0
    hunk: int = -1
    title: bool = False



def displayable(text: str) -> list[str]:
    """The lines of ``text``, tabs expanded, control characters shown as symbols (␛) and
    invisible ones (bidi overrides, zero-width spaces) as their code points.

    A file's escape sequences must not reach the terminal, what a person reads must be what
    is there, and every character must take the cells the layout counts.
    """
    return [visible(line.expandtabs(TAB_SIZE)) for line in split_lines(text)]


def diff_rows(hunks: Sequence[Hunk], before_count: int, titles: bool) -> list[Row]:
    """Pair the lines of each hunk, context included, and collapse the runs between them."""
    rows: list[Row] = []
    shown_to = 0  # lines of the before-text accounted for so far
    for hunk in hunks:
        a_start = hunk.opcodes[0][1]
        if a_start > shown_to:
            rows.append(Row(skipped=a_start - shown_to))
        if titles:
            rows.append(Row(hunk=hunk.index, title=True))
        for tag, i1, i2, j1, j2 in hunk.opcodes:
            if tag == "equal":
                rows.extend(Row(i + 1, j + 1, hunk=hunk.index)
                            for i, j in zip(range(i1, i2), range(j1, j2), strict=True))
                continue
            for k in range(max(i2 - i1, j2 - j1)):
                i, j = i1 + k, j1 + k
                rows.append(Row(i + 1 if i < i2 else None, j + 1 if j < j2 else None, True,
                                 hunk=hunk.index))
        shown_to = hunk.opcodes[-1][2]
    if rows and shown_to < before_count:
        rows.append(Row(skipped=before_count - shown_to))
    return rows


def intraline(old: str, new: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The character spans that differ between a changed pair of lines, on each side.

    Empty when the lines are too long or too unlike for emphasis to help.
    """
    if old == new or len(old) + len(new) > INTRALINE_MAX_CHARS:
        return [], []
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    if matcher.ratio() < INTRALINE_MIN_RATIO:
        return [], []
    left: list[tuple[int, int]] = []
    right: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            left.append((i1, i2))
        if j2 > j1:
            right.append((j1, j2))
    return left, right


def fold_count(text: str, width: int) -> int:
    """How many screen lines ``text`` folds onto at ``width`` cells (as ``Content.fold``)."""
    cells = cell_len(text)
    if cells <= width:
        return 1
    if cells == len(text):  # no wide characters: plain arithmetic
        return -(-cells // max(width, 2))
    return len(Content(text).fold(width))


def highlight_lines(lines: list[str], language: str) -> list[Content]:
    """``lines`` with syntax colours (theme variables), one Content each."""
    if not lines:
        return []
    highlighted = highlight("\n".join(lines), language=language, tab_size=TAB_SIZE).split(
        "\n", allow_blank=True
    )
    # highlight() drops trailing empty lines; put them back.
    highlighted += [Content("")] * (len(lines) - len(highlighted))
    if [line.plain for line in highlighted] != lines:
        # The lexer split a line on a character that is no line break here (U+2028):
        # plain text keeps the rows level with their line numbers.
        return [Content(line) for line in lines]
    return highlighted


def title_content(text: str, width: int) -> Content:
    """A header cell: ``text`` (a file name: shown literally) cut to ``width`` cells and
    padded out."""
    return (
        Content(visible(f" {text}"))
        .truncate(width, ellipsis=True, pad=True)
        .stylize(".diff-view--header")
    )


def centred(text: str, width: int) -> Content:
    """A full-width line with ``text`` in the middle, as for collapsed runs."""
    # Not Content.center: in textual 8.2.8 it pads the right by the full remaining width.
    content = Content(text).truncate(width, ellipsis=True)
    left = (width - content.cell_length) // 2
    return content.pad(left, width - left - content.cell_length).stylize(".diff-view--skipped")
