"""Line and character helpers of the file tools: lines as editors count them, and what an
encoding cannot hold.

Decoding, binary sniffing, encodings and atomic writes are ``core.text_files``.
"""

from __future__ import annotations

import re

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Split ``text`` into lines without their endings, as editors count them.

    Any of ``\\r\\n``, ``\\r`` and ``\\n`` ends a line; a final line break does not start a
    new, empty line, so ``"a\\nb\\n"`` has two lines and ``""`` has none.
    """
    lines = _LINE_BREAK.split(text)
    if lines[-1] == "":
        lines.pop()
    return lines


def line_starts(text: str) -> list[int]:
    """The offset where each line of ``text`` begins (line breaks as in ``split_lines``).

    ``bisect.bisect_right(line_starts(text), offset)`` is the 1-based line of ``offset``.
    """
    return [0, *(match.end() for match in _LINE_BREAK.finditer(text))]


def unencodable(text: str, encoding: str) -> str:
    """The distinct characters of ``text`` that ``encoding`` cannot hold, in order of use."""
    found: dict[str, None] = {}
    for char in text:
        if char not in found:
            try:
                char.encode(encoding)
            except UnicodeEncodeError:
                found[char] = None
    return "".join(found)
