"""A part of a document generated from a declaration: the text between two marker lines,
rewritten in place, so a README's table and the code that declares it cannot drift."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path


def with_part(text: str, begin: str, end: str, body: str) -> str:
    """``text`` with the part between the ``begin`` and ``end`` markers replaced by ``body``.

    Raises:
        ValueError: ``text`` has no such part.
    """
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        raise ValueError(f"no {begin!r} … {end!r} part to fill in")
    return f"{text[:start]}{begin}\n{body}\n{text[stop:]}"


def rewrite_parts(paths: Iterable[Path], begin: str, end: str, body: str, what: str) -> int:
    """Rewrite the marked part of each file in ``paths`` with ``body``, saying so on stdout
    (``wrote the WHAT in PATH``); 0, for a ``python3 -m`` entry point."""
    for path in paths:
        text = path.read_text(encoding="utf-8")
        path.write_text(with_part(text, begin, end, body), encoding="utf-8")
        sys.stdout.write(f"wrote the {what} in {path}\n")
    return 0
