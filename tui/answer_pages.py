"""Where a long answer is cut into pages: between two top-level Markdown blocks.

A Markdown widget costs the layout of every block it holds each time it changes, and a
10,000-word answer is hundreds of blocks. So an answer is shown as pages of about
``PAGE_CHARS`` characters, each its own block of the conversation, which keeps only the
pages near the screen mounted. A page ends only where a top-level block (a paragraph, a
heading, a whole list, a whole code block, a table) ends and a blank line follows, so
each page renders exactly as that stretch of the whole answer does.

No Textual here: markdown-it (which Textual's Markdown uses) finds the blocks.
"""

from __future__ import annotations

from functools import cache
from typing import Any

PAGE_CHARS = 2_000
"""A page is cut at the first block boundary at or after this many characters."""


@cache
def _parser() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("gfm-like")


def block_starts(text: str) -> list[int]:
    """The offsets in ``text`` where a top-level block starts after a blank line."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    starts = []
    for token in _parser().parse(text):
        if token.level != 0 or token.nesting == -1 or not token.map:
            continue
        first = token.map[0]
        if 0 < first < len(lines) and not lines[first - 1].strip():
            starts.append(offsets[first])
    return starts


def split_stream(page_text: str, new: str, page_chars: int = PAGE_CHARS) -> list[str]:
    """Cut streamed text into pages.

    Args:
        page_text: What the current page already shows (it is never cut again).
        new: The text that arrived since.
        page_chars: How long a page grows before it may be cut.

    Returns:
        The part of ``new`` that goes on the current page, then the text of each new page
        (a one-item list when no page is cut).
    """
    pieces = []
    while len(page_text) + len(new) > page_chars:
        combined = page_text + new
        floor = max(len(page_text), page_chars)
        cut = next((start for start in block_starts(combined) if start >= floor), None)
        if cut is None:
            break
        pieces.append(combined[len(page_text):cut])
        page_text, new = "", combined[cut:]
    pieces.append(new)
    return pieces


def split_pages(text: str, page_chars: int = PAGE_CHARS) -> list[str]:
    """A whole answer as pages (one page when it is short or has no place to cut)."""
    cuts = []
    for start in block_starts(text):
        if start - (cuts[-1] if cuts else 0) >= page_chars:
            cuts.append(start)
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
