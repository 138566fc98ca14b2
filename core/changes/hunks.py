"""Hunks: the changes between two texts, applied or reverted one by one.

A hunk is one group of changed lines with a few unchanged lines around it, as in a unified
diff. ``compute_hunks`` finds them; ``apply_hunks`` builds the before-text with only some
of them applied (ticking hunks before an edit is written); ``revert_hunks`` takes chosen
hunks back out of a text that may have changed elsewhere since (rejecting hunks after the
fact), locating each one by its lines and its context and refusing when the region itself
changed. Lines keep their endings throughout, so line endings and a missing final newline
survive every operation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

CONTEXT_LINES = 3
"""Unchanged lines kept around each hunk (and used to find it again)."""

Opcode = tuple[str, int, int, int, int]
"""A ``difflib`` opcode: ``(tag, i1, i2, j1, j2)`` over the two texts' lines."""

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def split_keepends(text: str) -> list[str]:
    """The lines of ``text`` with their endings; ``"".join`` gives ``text`` back.

    Lines break where ``tools.fileio.split_lines`` breaks them (``\\r\\n``, ``\\r``,
    ``\\n``), so line numbers agree with what the file tools show.
    """
    return _LINE.findall(text)


@dataclass(frozen=True, slots=True)
class Hunk:
    """One change between a before-text and an after-text.

    Line indices are 0-based into ``split_keepends`` of each text; ``old_start:old_end``
    are the before-lines the hunk replaces (empty for a pure insertion) and
    ``new_start:new_end`` the after-lines it puts there (empty for a pure deletion).
    Unchanged lines between two nearby changes belong to the hunk, as in a unified diff.

    Attributes:
        index: The hunk's position among the file's hunks (0-based).
        old_start: First replaced line of the before-text.
        old_end: End (exclusive) of the replaced lines.
        new_start: First line of the after-text the hunk puts in.
        new_end: End (exclusive) of those lines.
        old_lines: The replaced lines, with their endings.
        new_lines: The lines put in, with their endings.
        leading: Up to ``CONTEXT_LINES`` unchanged lines just before the hunk.
        trailing: Up to ``CONTEXT_LINES`` unchanged lines just after it.
        opcodes: The hunk's ``difflib`` opcodes, context included (for side-by-side rows).
        at_start: The leading context is cut short by the start of the file, so the
            hunk can only be at the start.
        at_end: The trailing context is cut short by the end of the file.
    """

    index: int
    old_start: int
    old_end: int
    new_start: int
    new_end: int
    old_lines: tuple[str, ...]
    new_lines: tuple[str, ...]
    leading: tuple[str, ...]
    trailing: tuple[str, ...]
    opcodes: tuple[Opcode, ...]
    at_start: bool
    at_end: bool

    @property
    def removed(self) -> int:
        """Lines of the before-text the hunk removes (unchanged lines inside not counted)."""
        return sum(i2 - i1 for tag, i1, i2, _, _ in self.opcodes if tag != "equal")

    @property
    def added(self) -> int:
        """Lines the hunk adds (unchanged lines inside not counted)."""
        return sum(j2 - j1 for tag, _, _, j1, j2 in self.opcodes if tag != "equal")

    @property
    def old_range(self) -> str:
        """Where the hunk is in the before-text, for people: ``lines 12-14``, ``after line 11``."""
        return _line_range(self.old_start, self.old_end)

    @property
    def new_range(self) -> str:
        """Where the hunk is in the after-text, for people."""
        return _line_range(self.new_start, self.new_end)

    def excerpt(self, limit: int = 6) -> list[str]:
        """Up to ``limit`` changed lines as ``- old`` / ``+ new``, endings dropped."""
        lines = [f"- {line.rstrip(chr(13) + chr(10))}" for line in self.old_lines]
        lines += [f"+ {line.rstrip(chr(13) + chr(10))}" for line in self.new_lines]
        if len(lines) > limit:
            hidden = len(lines) - limit + 1
            lines = [*lines[: limit - 1], f"… {hidden} more changed lines"]
        return lines


class HunkConflict(Exception):
    """A hunk cannot be located in the text any more: its lines or context changed since.

    Attributes:
        hunk: The hunk that could not be placed.
        message: What happened and what to do, for people.
    """

    def __init__(self, hunk: Hunk, message: str) -> None:
        super().__init__(message)
        self.hunk = hunk
        self.message = message


def compute_hunks(before: str, after: str, context: int = CONTEXT_LINES) -> list[Hunk]:
    """The hunks that turn ``before`` into ``after``, in order.

    Args:
        before: The old text.
        after: The new text.
        context: Unchanged lines kept around each hunk; changes closer together than
            twice this are one hunk.
    """
    old, new = split_keepends(before), split_keepends(after)
    if old == new:
        return []
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    hunks: list[Hunk] = []
    for group in matcher.get_grouped_opcodes(context):
        changes = [op for op in group if op[0] != "equal"]
        if not changes:
            continue
        first, last = changes[0], changes[-1]
        old_start, old_end = first[1], last[2]
        new_start, new_end = first[3], last[4]
        lead_from = group[0][1] if group[0][0] == "equal" else old_start
        trail_to = group[-1][2] if group[-1][0] == "equal" else old_end
        hunks.append(Hunk(
            index=len(hunks),
            old_start=old_start, old_end=old_end, new_start=new_start, new_end=new_end,
            old_lines=tuple(old[old_start:old_end]), new_lines=tuple(new[new_start:new_end]),
            leading=tuple(old[lead_from:old_start]), trailing=tuple(old[old_end:trail_to]),
            opcodes=tuple(group),
            # Context cut short by the file's start or end anchors the hunk there.
            at_start=lead_from == 0 and old_start - lead_from < context,
            at_end=trail_to == len(old) and trail_to - old_end < context,
        ))
    return hunks


def apply_hunks(before: str, hunks: Iterable[Hunk]) -> str:
    """``before`` with only ``hunks`` applied (each from ``compute_hunks(before, ...)``).

    Applying every hunk gives the after-text; applying none gives ``before``.

    Raises:
        ValueError: A hunk was not computed from ``before`` (its lines are not there).
    """
    lines = split_keepends(before)
    for hunk in sorted(hunks, key=lambda h: h.old_start, reverse=True):
        if tuple(lines[hunk.old_start : hunk.old_end]) != hunk.old_lines:
            raise ValueError(
                f"hunk {hunk.index + 1} ({hunk.old_range}) does not belong to this text; "
                "compute the hunks from the same before-text")
        lines[hunk.old_start : hunk.old_end] = hunk.new_lines
    return "".join(lines)


def revert_hunks(current: str, hunks: Iterable[Hunk]) -> str:
    """``current`` with ``hunks`` taken back out: their new lines become the old ones again.

    ``current`` may differ from the after-text the hunks came from, as long as each hunk's
    own lines and context are still there: each is found by its lines and context, the
    nearest place to where it was winning. Either every hunk is reverted or none is.

    Raises:
        HunkConflict: A hunk's lines or context are no longer in ``current``.
    """
    return _move(current, hunks, forward=False)


def reapply_hunks(current: str, hunks: Iterable[Hunk]) -> str:
    """``current`` with reverted ``hunks`` put back in (the inverse of ``revert_hunks``).

    Raises:
        HunkConflict: A hunk's old lines or context are no longer in ``current``.
    """
    return _move(current, hunks, forward=True)


def _move(current: str, hunks: Iterable[Hunk], *, forward: bool) -> str:
    """Replace each hunk's lines of one side by the other side's, all or nothing."""
    lines = split_keepends(current)
    placed: list[tuple[int, int, Hunk]] = []
    for hunk in hunks:
        find = hunk.old_lines if forward else hunk.new_lines
        expected = hunk.old_start if forward else hunk.new_start
        start = _locate(lines, hunk, find, expected)
        placed.append((start, start + len(find), hunk))
    placed.sort(key=lambda item: (item[0], item[1]))
    for (_, end, first), (start, _, second) in zip(placed, placed[1:], strict=False):
        if start < end:
            raise HunkConflict(second, (
                f"hunks {first.index + 1} and {second.index + 1} now overlap; "
                "revert them one at a time"))
    for start, end, hunk in reversed(placed):
        lines[start:end] = hunk.new_lines if forward else hunk.old_lines
    return "".join(lines)


def _locate(lines: list[str], hunk: Hunk, find: tuple[str, ...], expected: int) -> int:
    """Where ``find`` starts in ``lines``, framed by the hunk's context; nearest ``expected``."""
    block = (*hunk.leading, *find, *hunk.trailing)
    width, last = len(block), len(lines) - len(block)
    if hunk.at_start and hunk.at_end:
        candidates: Iterable[int] = [0] if last == 0 else []
    elif hunk.at_start:
        candidates = [0]
    elif hunk.at_end:
        candidates = [last]
    else:
        candidates = _outward(expected - len(hunk.leading), last)
    for position in candidates:
        if 0 <= position <= last and tuple(lines[position : position + width]) == block:
            return position + len(hunk.leading)
    raise HunkConflict(hunk, (
        f"the lines of hunk {hunk.index + 1} ({hunk.new_range}) or the lines around them "
        "changed since, so it cannot be placed safely; nothing was changed. Edit the file "
        "by hand, or review a later turn's changes"))


def _outward(target: int, last: int) -> Iterable[int]:
    """``0..last``, nearest ``target`` first (the lower of two equally near first)."""
    if last < 0:
        return
    target = min(max(target, 0), last)
    yield target
    for distance in range(1, max(target, last - target) + 1):
        if target - distance >= 0:
            yield target - distance
        if target + distance <= last:
            yield target + distance


def _line_range(start: int, end: int) -> str:
    """``lines a-b`` (1-based, inclusive), ``line a``, or ``after line a`` when empty."""
    if end <= start:
        return "at the start" if start == 0 else f"after line {start}"
    if end - start == 1:
        return f"line {start + 1}"
    return f"lines {start + 1}-{end}"


def hunk_numbers(hunks: Sequence[Hunk]) -> str:
    """``1, 3 and 4``: the hunks' 1-based numbers, for messages."""
    numbers = [str(h.index + 1) for h in hunks]
    if len(numbers) <= 1:
        return "".join(numbers)
    return f"{', '.join(numbers[:-1])} and {numbers[-1]}"
