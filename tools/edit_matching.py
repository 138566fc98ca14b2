"""Where edit_file's old_text is in a file: exactly, or by a forgiving match, in tiers.

1. **exact** — the text as given (in a CRLF file, with its ``\\n`` read as the file's ending);
2. **whitespace** — differing only in runs of spaces and tabs, indentation, trailing spaces
   and line endings: several lines are compared whole, one line within a line; new_text is
   re-indented as the matched lines show (``indentation.py``), or the edit is refused;
3. **unescaped** — old_text escaped one level too many (``\\n`` written as two characters,
   ``\\"``, ``\\\\``…), as models do when they quote code twice: old_text and new_text are
   read once more and tiers 1 and 2 tried again.

Each tier is tried only when the one before found nothing; what a tier tolerated is said to
the model and the person. When nothing matches, the nearest regions of the file are offered
so the model can copy the right text.
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_right
from dataclasses import dataclass

from ..core.text.text_files import to_newline
from .fileio import line_starts
from .indentation import IndentationMismatch, map_indentation

CANDIDATES = 3
"""Nearest regions offered when old_text matches nowhere."""
CANDIDATE_MIN_RATIO = 0.5
"""How alike (difflib's ratio) a region must be to be offered."""
CANDIDATE_LINES = 12
"""Lines of a candidate region quoted at most."""
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")
_ESCAPE = re.compile(r"\\([ntr\"'`\\])")
_ESCAPED = {"n": "\n", "t": "\t", "r": "\r"}


@dataclass(frozen=True, slots=True)
class Match:
    """One place old_text was found and what goes there.

    Attributes:
        start: Offset of the first character replaced.
        end: Offset after the last character replaced.
        replacement: The text put in its place (re-indented, line endings as the file's).
    """

    start: int
    end: int
    replacement: str


@dataclass(frozen=True, slots=True)
class Found:
    """Every place of one tier, how old_text was found, and what was tolerated.

    Attributes:
        matches: The places, in file order, not overlapping.
        tier: ``exact``, ``whitespace`` or ``unescaped``.
        note: What the tier tolerated, for the model ("" for exact).
    """

    matches: list[Match]
    tier: str
    note: str = ""


class IndentationRefused(Exception):
    """old_text matched ignoring indentation, and new_text cannot be carried over."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def find(text: str, old: str, new: str, newline: str = "\n") -> Found | None:
    """The matches of the first tier that finds old_text in ``text``, or None.

    Raises:
        IndentationRefused: old_text matched ignoring indentation, but the lines disagree on
            how new_text's indentation maps onto the file's.
    """
    found = _exact(text, old, new, newline) or _whitespace(text, old, new, newline)
    if found is not None:
        return found
    old_read, new_read = unescape(old), unescape(new)
    if old_read == old:
        return None
    again = _exact(text, old_read, new_read, newline) or \
        _whitespace(text, old_read, new_read, newline)
    if again is None:
        return None
    note = ("old_text was not in the file as written, but it was once its escapes were read "
            "as the characters they stand for (\\n as a line break, \\\" as \", \\\\ as \\): "
            "it was escaped one level too many. new_text was read the same way")
    if again.note:
        note += "; and " + again.note[0].lower() + again.note[1:]
    return Found(again.matches, "unescaped", note)


def unescape(text: str) -> str:
    """``text`` with one level of backslash escapes read: ``\\n``, ``\\t``, ``\\r``,
    ``\\"``, ``\\'``, ``\\```, ``\\\\``; so ``\\\\n`` becomes a backslash and an n."""
    return _ESCAPE.sub(lambda m: _ESCAPED.get(m.group(1), m.group(1)), text)


# --------------------------------------------------------------------------- tiers


def _exact(text: str, old: str, new: str, newline: str) -> Found | None:
    positions = _find_all(text, old)
    if not positions and newline != "\n" and "\n" in old:
        old = to_newline(old, newline)
        positions = _find_all(text, old)
    if not positions:
        return None
    if newline != "\n" and "\r\n" not in new:
        new = to_newline(new, newline)
    return Found([Match(p, p + len(old), new) for p in positions], "exact")


def _find_all(text: str, needle: str) -> list[int]:
    """Start offsets of the non-overlapping occurrences of ``needle``, as ``str.replace``."""
    found: list[int] = []
    pos = text.find(needle)
    while pos != -1:
        found.append(pos)
        pos = text.find(needle, pos + len(needle))
    return found


def _norm(line: str) -> str:
    return " ".join(line.split())


def _lines(text: str) -> list[tuple[int, str, str]]:
    """(offset, content, ending) of each line of ``text``."""
    out: list[tuple[int, str, str]] = []
    for m in _LINE.finditer(text):
        if m.start() == len(text):
            break
        raw = m.group(0)
        content = raw.rstrip("\r\n")
        out.append((m.start(), content, raw[len(content):]))
    return out


def _split(text: str) -> tuple[list[str], bool]:
    """Lines of model text (any line endings), and whether it ended with a line break."""
    ends = text.endswith(("\n", "\r"))
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if ends:
        lines.pop()
    return lines, ends


def _whitespace(text: str, old: str, new: str, newline: str) -> Found | None:
    old_lines, old_ends = _split(old)
    if not any(line.strip() for line in old_lines):
        return None
    if len(old_lines) == 1 and not old_ends:
        return _within_line(text, old, new, newline)
    file_lines = _lines(text)
    wanted = [_norm(line) for line in old_lines]
    size = len(wanted)
    new_lines, new_ends = _split(new)
    matches: list[Match] = []
    index = 0
    reindented = False
    while index + size <= len(file_lines):
        window = file_lines[index:index + size]
        if any(_norm(content) != want for (_, content, _), want in
               zip(window, wanted, strict=True)):
            index += 1
            continue
        pairs = list(zip(old_lines, [content for _, content, _ in window], strict=True))
        try:
            mapped = map_indentation(pairs, new_lines)
        except IndentationMismatch as exc:
            raise IndentationRefused(_refusal(exc, pairs, new_lines, index)) from None
        reindented = reindented or mapped != new_lines
        last_offset, last_content, last_ending = window[-1]
        end = last_offset + len(last_content) + (len(last_ending) if old_ends else 0)
        replacement = newline.join(mapped) + (newline if new_ends else "")
        matches.append(Match(window[0][0], end, replacement))
        index += size
    if not matches:
        return None
    note = ("old_text did not match exactly; it matched ignoring differences in spaces, "
            "tabs, indentation, trailing spaces and line endings")
    if reindented:
        note += ", and new_text was re-indented the way the file indents those lines"
    return Found(matches, "whitespace", note)


def _within_line(text: str, old: str, new: str, newline: str) -> Found | None:
    """One line of old_text inside a line: any run of spaces or tabs matches a run."""
    core = r"[ \t]+".join(re.escape(token) for token in old.split())
    indented = old[:1] in (" ", "\t")
    pattern = re.compile((r"(?m)^[ \t]*" if indented else "") + core)
    matches: list[Match] = []
    for m in pattern.finditer(text):
        replacement = new
        if indented:
            try:
                replacement = map_indentation([(old, m.group(0))], [new])[0]
            except IndentationMismatch as exc:
                raise IndentationRefused(
                    f"old_text matched {m.group(0).strip()!r} only with its indentation "
                    f"ignored, and {exc.reason}. Copy the line's indentation exactly as "
                    "read_file shows it") from None
        matches.append(Match(m.start(), m.end(), to_newline(replacement, newline)
                             if newline != "\n" else replacement))
    if not matches:
        return None
    return Found(matches, "whitespace", "old_text did not match exactly; it matched ignoring "
                 "differences in runs of spaces and tabs and in trailing spaces")


def _refusal(exc: IndentationMismatch, pairs: list[tuple[str, str]], new_lines: list[str],
             first: int) -> str:
    quoted = [f"    old_text: {pairs[i][0]!r}  file line {first + i + 1}: {pairs[i][1]!r}"
              for i in exc.conflicts[:4]]
    quoted += [f"    new_text: {new_lines[i]!r}" for i in exc.unmappable[:4]]
    return (f"old_text matched lines {first + 1}-{first + len(pairs)} only with indentation "
            f"ignored, and new_text's indentation cannot be carried over line by line: "
            f"{exc.reason}.\n" + "\n".join(quoted) + "\nNothing was written. Copy old_text "
            "and the indentation of new_text exactly as read_file shows the file")


# --------------------------------------------------------------------------- candidates


@dataclass(frozen=True, slots=True)
class Candidate:
    """A region of the file that looks like old_text: 1-based lines and how alike."""

    first: int
    last: int
    ratio: float


def nearest(text: str, old: str, limit: int = CANDIDATES) -> list[Candidate]:
    """The regions of ``text`` most like ``old`` (as many lines), best first.

    Cheap on large files: a window is scored only when one of old_text's most distinctive
    lines is close to a line of the file at the window's place (``quick_ratio`` first).
    """
    old_lines = [line for line in _split(old)[0]]
    wanted = [_norm(line) for line in old_lines]
    file_lines = [_norm(content) for _, content, _ in _lines(text)]
    size = max(1, len(wanted))
    seeds = sorted(((len(w), i) for i, w in enumerate(wanted) if w), reverse=True)[:3]
    starts: set[int] = set()
    for _, offset in seeds:
        matcher = difflib.SequenceMatcher(None, b=wanted[offset], autojunk=False)
        for index, line in enumerate(file_lines):
            if not line:
                continue
            matcher.set_seq1(line)
            if matcher.real_quick_ratio() >= 0.6 and matcher.quick_ratio() >= 0.6:
                starts.add(max(0, min(index - offset, len(file_lines) - size)))
    joined_old = "\n".join(wanted)
    scored: list[Candidate] = []
    for start in sorted(starts):
        region = "\n".join(file_lines[start:start + size])
        ratio = difflib.SequenceMatcher(None, region, joined_old, autojunk=False).ratio()
        if ratio >= CANDIDATE_MIN_RATIO:
            scored.append(Candidate(start + 1, min(start + size, len(file_lines)), ratio))
    chosen: list[Candidate] = []
    for candidate in sorted(scored, key=lambda c: (-c.ratio, c.first)):
        if all(candidate.last < c.first or candidate.first > c.last for c in chosen):
            chosen.append(candidate)
        if len(chosen) == limit:
            break
    return chosen


def quote_candidates(text: str, candidates: list[Candidate]) -> str:
    """The regions as numbered lines, as read_file shows them."""
    lines = [content for _, content, _ in _lines(text)]
    blocks = []
    for c in candidates:
        last = min(c.last, c.first + CANDIDATE_LINES - 1)
        body = "\n".join(f"{n:>6}: {lines[n - 1]}" for n in range(c.first, last + 1))
        more = f"\n   ... ({c.last - last} more lines)" if c.last > last else ""
        where = f"line {c.first}" if c.first == c.last else f"lines {c.first}-{c.last}"
        blocks.append(f"  {where} ({c.ratio:.0%} alike):\n{body}{more}")
    return "\n".join(blocks)


def line_of(text: str, offset: int) -> int:
    """The 1-based line ``offset`` falls on."""
    return bisect_right(line_starts(text), offset)
