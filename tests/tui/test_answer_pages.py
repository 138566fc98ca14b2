"""Where a long answer is cut into pages: only between whole top-level Markdown blocks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.tui.widgets.answer_pages import Page, block_starts, shown, split_pages, split_stream

PARAGRAPH = "The parser reads each line and keeps the **last** value of every `key`."
FENCE = "```python\n" + "\n".join(f"x{n} = {n}  # line" for n in range(40)) + "\n\n\nmore\n```"
LIST = "\n".join(f"- item {n} with some words in it" for n in range(30))
TABLE = "| a | b |\n|---|---|\n" + "\n".join(f"| {n} | {n * n} |" for n in range(30))
BLOCKS = [PARAGRAPH, FENCE, LIST, TABLE, "## A heading", "> quoted\n> more", "1. one\n2. two"]


def stream_pages(text: str, pieces: list[int], page_chars: int) -> list[Page]:
    """The pages a stream makes when ``text`` arrives cut at ``pieces``."""
    pages = [Page("")]
    position = 0
    for size in [*pieces, len(text)]:
        if position >= len(text):
            break
        chunk, position = text[position:position + size], position + size
        here, *later = split_stream(pages[-1].text, chunk, page_chars, opener=pages[-1].opener)
        pages[-1] = Page(pages[-1].text + here.text, pages[-1].opener)
        pages.extend(later)
    return pages


def drawn(pages: list[Page]) -> list[str]:
    """What each page shows."""
    return [shown(page, pages[i + 1].opener if i + 1 < len(pages) else "")
            for i, page in enumerate(pages)]


def check_cuts(text: str, pages: list[Page], page_chars: int) -> None:
    """Pages are the text cut between blocks, or inside a code block a page long; each
    draws as balanced Markdown; lists and tables are never cut."""
    assert "".join(page.text for page in pages) == text
    starts = set(block_starts(text))
    offset = 0
    for page, following in zip(pages, pages[1:], strict=False):
        offset += len(page.text)
        assert offset in starts or following.opener == "```python", offset
        assert len(page.text) >= page_chars or offset == 0
    for page, markdown in zip(pages, drawn(pages), strict=True):
        assert markdown.count("```") % 2 == 0, markdown
        assert not page.text.startswith(("- item 1", "| 1"))


def test_a_page_starts_where_a_block_does_or_inside_a_long_code_block() -> None:
    text = "\n\n".join(BLOCKS * 6)
    pages = split_pages(text, page_chars=300)
    assert len(pages) > 5
    check_cuts(text, pages, 300)
    assert any(page.opener for page in pages)  # the 1,000-character fence is cut


def test_a_code_block_shorter_than_a_page_is_never_cut() -> None:
    text = "\n\n".join(BLOCKS * 6)
    for page in split_pages(text, page_chars=2_000):
        assert not page.opener
        assert page.text.count("```") % 2 == 0


def test_a_huge_code_block_is_many_pages_each_a_code_block() -> None:
    code = "\n".join(f"def f{n}(x):  # {'pad ' * 8}" for n in range(3_000))
    text = f"Here is the file:\n\n```python\n{code}\n```\n\nThat is all."
    pages = split_pages(text)
    assert len(pages) > 50
    check_cuts(text, pages, 2_000)
    for markdown in drawn(pages)[1:-1]:
        assert markdown.startswith("```python\n") and markdown.endswith("```\n")
    assert drawn(pages)[-1].endswith("That is all.")


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(BLOCKS), min_size=1, max_size=30),
       st.lists(st.integers(min_value=1, max_value=400), max_size=80),
       st.sampled_from([200, 500, 2_000]))
def test_streamed_pages_are_the_pages_of_the_whole_answer(blocks, pieces, page_chars):
    text = "\n\n".join(blocks)
    streamed = stream_pages(text, pieces, page_chars)
    assert streamed == split_pages(text, page_chars)
    check_cuts(text, streamed, page_chars)


def test_a_short_answer_is_one_page() -> None:
    assert split_pages(PARAGRAPH) == [Page(PARAGRAPH)]
    assert split_stream("", PARAGRAPH) == [Page(PARAGRAPH)]
    assert split_pages("") == [Page("")]
