"""Where a long answer is cut into pages: only between whole top-level Markdown blocks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.tui.answer_pages import block_starts, split_pages, split_stream

PARAGRAPH = "The parser reads each line and keeps the **last** value of every `key`."
FENCE = "```python\n" + "\n".join(f"x{n} = {n}  # line" for n in range(40)) + "\n\n\nmore\n```"
LIST = "\n".join(f"- item {n} with some words in it" for n in range(30))
TABLE = "| a | b |\n|---|---|\n" + "\n".join(f"| {n} | {n * n} |" for n in range(30))
BLOCKS = [PARAGRAPH, FENCE, LIST, TABLE, "## A heading", "> quoted\n> more", "1. one\n2. two"]


def stream_pages(text: str, pieces: list[int], page_chars: int) -> list[str]:
    """The pages a stream makes when ``text`` arrives cut at ``pieces``."""
    pages = [""]
    position = 0
    for size in [*pieces, len(text)]:
        if position >= len(text):
            break
        chunk, position = text[position:position + size], position + size
        here, *later = split_stream(pages[-1], chunk, page_chars)
        pages[-1] += here
        pages.extend(later)
    return pages


def test_a_page_starts_only_where_a_block_does() -> None:
    text = "\n\n".join(BLOCKS * 6)
    pages = split_pages(text, page_chars=300)
    assert "".join(pages) == text
    assert len(pages) > 5
    starts = set(block_starts(text))
    offset = 0
    for page in pages[:-1]:
        offset += len(page)
        assert offset in starts
    # Never inside the fence (its blank lines included), a list or a table.
    for page in pages:
        assert page.count("```") % 2 == 0
        assert not page.startswith(("x", "- item 1", "| 1"))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(BLOCKS), min_size=1, max_size=30),
       st.lists(st.integers(min_value=1, max_value=400), max_size=80),
       st.sampled_from([200, 500, 2_000]))
def test_streamed_pages_are_the_pages_of_the_whole_answer(blocks, pieces, page_chars):
    text = "\n\n".join(blocks)
    streamed = stream_pages(text, pieces, page_chars)
    assert streamed == split_pages(text, page_chars)
    starts = set(block_starts(text))
    offset = 0
    for page in streamed[:-1]:
        offset += len(page)
        assert offset in starts
        assert len(page) >= page_chars or offset == 0


def test_a_short_answer_is_one_page() -> None:
    assert split_pages(PARAGRAPH) == [PARAGRAPH]
    assert split_stream("", PARAGRAPH) == [PARAGRAPH]
    assert split_pages("") == [""]
