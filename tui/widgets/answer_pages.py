"""Where a long answer is cut into pages: between two top-level Markdown blocks, or
between two lines of a long code block.

A Markdown widget costs the layout of every block it holds each time it changes, and a
10,000-word answer is hundreds of blocks. So an answer is shown as pages of about
``PAGE_CHARS`` characters, each its own block of the conversation, which keeps only the
pages near the screen mounted. A page ends where a top-level block (a paragraph, a heading,
a whole list, a table) ends and a blank line follows, so each page renders exactly as that
stretch of the whole answer does — or, in a fenced code block longer than a page, before an
unindented line of the code at least a page into it: that page shows the code closed and the
next shows it reopened with the same fence (its :attr:`Page.opener`), so a 3,000-line file
is many pages, never one.

No Textual here: markdown-it (which Textual's Markdown uses) finds the blocks.
"""

from __future__ import annotations

from functools import cache
from typing import Any, NamedTuple

PAGE_CHARS = 2_000
"""A page is cut at the first block boundary at or after this many characters."""

_MAYBE_FENCE = frozenset(" \t`~\r\n")
"""First characters of a line that may close a code block: a page is never cut before
such a line. Known from the line's first character alone, so a stream cuts where the whole
answer does, however its pieces arrive."""


@cache
def markdown_parser() -> Any:
    """The Markdown parser Textual's Markdown widget uses ("gfm-like"), made once, which
    keeps HTML inside a line (``<kbd>``, ``<br>``) as text."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("gfm-like")
    parser.core.ruler.push("inline_html_as_text", _inline_html_as_text)
    return parser


def _inline_html_as_text(state: Any) -> None:
    """HTML inside a line is shown as the model wrote it: Textual's Markdown drops it, and
    "press <kbd>Ctrl</kbd>+<kbd>C</kbd>" read "press Ctrl+C" at best."""
    for token in state.tokens:
        for child in token.children or ():
            if child.type == "html_inline":
                child.type = "text"


class Page(NamedTuple):
    """One page: its text, as the model wrote it, and the fence line it starts inside of
    ("" when it starts outside a code block). Shown, a page with an opener starts with that
    line, and a page followed by one ends with :func:`closer` of it."""

    text: str
    opener: str = ""


def closer(opener: str) -> str:
    """The line that closes the code block ``opener`` opens (its run of backticks or
    tildes)."""
    stripped = opener.lstrip()
    mark = stripped[0] if stripped else "`"
    return mark * (len(stripped) - len(stripped.lstrip(mark)))


def shown(page: Page, next_opener: str = "") -> str:
    """The Markdown a page is drawn from: its opener, its text, the closer of a code block
    the next page goes on with."""
    head = f"{page.opener}\n" if page.opener else ""
    tail = ""
    if next_opener:
        tail = ("" if page.text.endswith("\n") else "\n") + closer(next_opener) + "\n"
    return head + page.text + tail


def block_starts(text: str) -> list[int]:
    """The offsets in ``text`` where a top-level block starts after a blank line."""
    return _cuts(text, "", 0, 0)[0]


def _cuts(text: str, opener: str, floor: int, page_chars: int) -> tuple[list[int], list[tuple[int, str]]]:
    """Where ``text`` (a page starting inside ``opener``'s code block, if any) may be cut:
    block starts after a blank line, and lines of fenced code at least ``page_chars`` into
    the code, with the fence line each is inside; offsets in ``text``, all at or after
    ``floor``."""
    head = f"{opener}\n" if opener else ""
    shown_text = head + text
    lines = shown_text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    starts: list[int] = []
    in_code: list[tuple[int, str]] = []
    for token in markdown_parser().parse(shown_text):
        if token.level != 0 or token.nesting == -1 or not token.map:
            continue
        first, end = token.map
        if 0 < first < len(lines) and not lines[first - 1].strip():
            at = offsets[first] - len(head)
            if at >= max(floor, 0) and at > 0:
                starts.append(at)
        if token.type == "fence" and page_chars:
            fence_line = lines[first].rstrip("\r\n")
            closed = end - 1 > first and lines[end - 1].strip().startswith(token.markup) and \
                not lines[end - 1].strip().strip(token.markup[0])
            last = end - 1 if closed else end
            body = offsets[first + 1] if first + 1 < len(offsets) else offsets[-1]
            for k in range(first + 2, last):
                if lines[k][:1] in _MAYBE_FENCE:
                    continue  # it may close the block (or, still arriving, turn out to)
                at = offsets[k] - len(head)
                if offsets[k] - body >= page_chars and at >= floor and at > 0:
                    in_code.append((at, fence_line))
                    break
    return starts, in_code


def split_stream(page_text: str, new: str, page_chars: int = PAGE_CHARS,
                 opener: str = "") -> list[Page]:
    """Cut streamed text into pages.

    Args:
        page_text: What the current page already shows (it is never cut again).
        new: The text that arrived since.
        page_chars: How long a page grows before it may be cut.
        opener: The fence line the current page starts inside of ("" for none).

    Returns:
        The part of ``new`` that goes on the current page (with the current page's opener),
        then each new page (a one-item list when no page is cut).
    """
    pieces: list[Page] = []
    while len(page_text) + len(new) > page_chars:
        combined = page_text + new
        floor = max(len(page_text), page_chars)
        starts, in_code = _cuts(combined, opener, floor, page_chars)
        cut = min([*starts, *(at for at, _line in in_code)], default=None)
        if cut is None:
            break
        pieces.append(Page(combined[len(page_text):cut], opener))
        opener = next((line for at, line in in_code if at == cut and cut not in starts), "")
        page_text, new = "", combined[cut:]
    pieces.append(Page(new, opener))
    return pieces


def split_pages(text: str, page_chars: int = PAGE_CHARS) -> list[Page]:
    """A whole answer as pages (one page when it is short or has no place to cut)."""
    return split_stream("", text, page_chars)
