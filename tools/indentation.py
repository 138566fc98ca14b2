"""Carrying a model's lines over to a file that indents differently, line by line or not at all.

When an edit's text matched the file only once indentation was ignored (str_replace's hunks,
edit_file's whitespace tier), the new lines the model wrote are indented the model's way. The
lines that matched say how the model's indentation maps onto the file's; every new line is
mapped by that correspondence, or the edit is refused. A guess that is right for one line and
wrong for the next would write a file that reads fine and runs wrong.

The rules:

1. If every matched line is indented exactly as in the file, the new lines stay as written.
2. Each indentation the model wrote maps to the file's indentation of the lines it matched;
   one written indentation that matched two file indentations is a conflict. Two written
   indentations that matched one file indentation, or that the file nests the other way
   round, are not: a new line still goes where the matched lines written like it are (the
   model put it beside them); only computing an unseen indentation needs more (rule 4).
3. A new line whose indentation was seen gets its mapping; blank lines stay as written.
4. An indentation not seen is computed only when it is safe: every indentation involved is
   only spaces or only tabs, and the matched lines show at least two written widths, which
   fix ``file width = a * written width + b`` (in characters of each side's kind, so four
   spaces may map to one tab); every seen pair must fit it (else a conflict) and the result
   must be a whole, non-negative width. With one written width the map is ambiguous
   (shifted or re-scaled?), so the line cannot be mapped. Seen pairs that fit no such map
   are only a conflict when a line needs the map: a line at a seen indentation goes where
   the matched lines at that indentation are.
5. Mixed indentation (tabs and spaces in one line) is only mapped when it was seen.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction


class IndentationMismatch(Exception):
    """The written text's indentation cannot be mapped consistently onto the file's.

    Attributes:
        reason: One sentence for people and the model (no line numbers; callers add them).
        conflicts: Indexes into ``pairs`` of the pairs that disagree with each other.
        unmappable: Indexes into ``lines`` of the lines whose indentation cannot be mapped.
    """

    def __init__(self, reason: str, *, conflicts: Sequence[int] = (),
                 unmappable: Sequence[int] = ()) -> None:
        super().__init__(reason)
        self.reason = reason
        self.conflicts = list(conflicts)
        self.unmappable = list(unmappable)


def indent_of(line: str) -> str:
    """The leading spaces and tabs of ``line``."""
    return line[:len(line) - len(line.lstrip(" \t"))]


def describe(indent: str) -> str:
    """``4 spaces``, ``1 tab``, ``no indentation`` or ``a mix of 2 tabs and 3 spaces``."""
    if not indent:
        return "no indentation"
    tabs, spaces = indent.count("\t"), indent.count(" ")
    if tabs and spaces:
        return f"a mix of {_count(tabs, 'tab')} and {_count(spaces, 'space')}"
    return _count(tabs, "tab") if tabs else _count(spaces, "space")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _pure(indent: str) -> str | None:
    """The one character ``indent`` is made of, ``""`` for none, None when mixed."""
    kinds = set(indent)
    if len(kinds) > 1:
        return None
    return next(iter(kinds), "")


def map_indentation(pairs: Sequence[tuple[str, str]], lines: Sequence[str]) -> list[str]:
    """Re-indent ``lines`` (written by the model) the way the file indents.

    Args:
        pairs: (written line, file line) for lines known to correspond: a hunk's context
            and removed lines and the file lines they matched, or old_text's lines and the
            file lines they matched.
        lines: The written lines to carry over (added lines, new_text's lines).

    Raises:
        IndentationMismatch: the pairs disagree, or a line cannot be mapped safely.
    """
    seen = [(index, indent_of(w), indent_of(f)) for index, (w, f) in enumerate(pairs)
            if w.strip() and f.strip()]
    if all(w == f for _, w, f in seen):
        return list(lines)
    mapping: dict[str, str] = {}
    first_of: dict[str, int] = {}
    for index, written, in_file in seen:
        if written in mapping and mapping[written] != in_file:
            raise IndentationMismatch(
                f"lines the text indents by {describe(written)} are indented in the file by "
                f"{describe(mapping[written])} and by {describe(in_file)}",
                conflicts=[first_of[written], index])
        mapping.setdefault(written, in_file)
        first_of.setdefault(written, index)
    linear: _Linear | None = None
    linear_known = False
    out: list[str] = []
    unmappable: list[int] = []
    for index, line in enumerate(lines):
        if not line.strip():
            out.append(line)
            continue
        written = indent_of(line)
        mapped = mapping.get(written)
        if mapped is None:
            if not linear_known:
                linear, linear_known = _linear_map(mapping, first_of), True
            mapped = _extrapolate(written, linear)
        if mapped is None:
            unmappable.append(index)
            continue
        out.append(mapped + line[len(written):])
    if unmappable:
        written = indent_of(lines[unmappable[0]])
        known = ", ".join(f"{describe(w)} -> {describe(f)}" for w, f in mapping.items())
        raise IndentationMismatch(
            f"the text indents a new line by {describe(written)}, which none of the lines "
            f"that matched shows, and the lines that matched ({known}) do not fix how such a "
            "line maps onto the file's indentation. Copy the file's indentation exactly, or "
            "include a context line at that indentation level", unmappable=unmappable)
    return out


class _Linear:
    """``file width = slope * written width + offset``, in characters of each side's kind."""

    def __init__(self, written_char: str, file_char: str, slope: Fraction,
                 offset: Fraction) -> None:
        self.written_char, self.file_char = written_char, file_char
        self.slope, self.offset = slope, offset


def _linear_map(mapping: dict[str, str], first_of: dict[str, int]) -> _Linear | None:
    """The affine map the seen indentations fix, None when they fix none.

    Raises:
        IndentationMismatch: the seen indentations do not fit one map.
    """
    pure_written = {_pure(w) for w in mapping}
    pure_file = {_pure(f) for f in mapping.values()}
    kinds_written = {kind for kind in pure_written if kind}
    kinds_file = {kind for kind in pure_file if kind}
    if None in pure_written or None in pure_file or len(kinds_written) > 1 \
            or len(kinds_file) > 1:
        return None
    widths = sorted({len(w): len(f) for w, f in mapping.items()}.items())
    if len(widths) < 2:
        return None
    (w0, f0), (w1, f1) = widths[0], widths[-1]
    slope = Fraction(f1 - f0, w1 - w0)
    offset = f0 - slope * w0
    if slope <= 0:
        return None
    for written, in_file in mapping.items():
        if slope * len(written) + offset != len(in_file):
            conflicting = [first_of[w] for w in mapping]
            raise IndentationMismatch(
                "the lines that matched are indented in the file in a way no consistent "
                f"re-indentation of the text gives ({describe(written)} in the text is "
                f"{describe(in_file)} in the file, unlike the others)",
                conflicts=conflicting)
    return _Linear(next(iter(kinds_written), " "), next(iter(kinds_file), " "), slope, offset)


def _extrapolate(written: str, linear: _Linear | None) -> str | None:
    """The file's indentation for a written one not seen, when the map says it safely."""
    if linear is None:
        return None
    kind = _pure(written)
    if kind is None or (kind and kind != linear.written_char):
        return None
    width = linear.slope * len(written) + linear.offset
    if width.denominator != 1 or width < 0:
        return None
    return linear.file_char * int(width)
