"""The str_replace tool: apply a unified diff to one file, tolerant of the usual drift.

Each hunk's context and removed lines are looked for in the file: exactly first, then
ignoring trailing whitespace, then ignoring all surrounding whitespace (context lines keep
the file's own text; added lines are re-indented line by line as the matched lines show,
``indentation.py``, or the hunk is refused). The ``@@ -a,b +c,d @@``
numbers are only hints that pick the nearest of several matches. Every hunk is placed before
anything is written, so a hunk that fails leaves the file untouched.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import Field

from ..core.text.text_files import TextFile
from .base import (
    Tool,
    ToolArgumentError,
    ToolContext,
    ToolKind,
)
from .files import (
    REDO_EDIT,
    EditError,
    FileChangeInvocation,
    FileParams,
    display_path,
    edit_snippet,
    refuse_unseen,
)
from .indentation import IndentationMismatch, map_indentation
from .names import ToolName

_HUNK_HEADER = re.compile(r"^@@+ *(?:-(\d+)(?:,(\d+))? +\+(\d+)(?:,(\d+))?)? *@@+(.*)$")
_LINE = re.compile(r"([^\r\n]*)(\r\n|\r|\n|$)")
_FILE_HEADERS = ("diff --git ", "index ", "new file mode", "deleted file mode")
LOOKED_FOR_LINES = 5
"""Lines of a failing hunk quoted in the error."""


# --------------------------------------------------------------------------- parsing


@dataclass(slots=True)
class Hunk:
    """One hunk of a diff.

    Attributes:
        number: 1-based position in the diff.
        header: The ``@@`` line, or ``(no @@ header)``.
        hint: The old-file line the header names (1-based), or None.
        lines: (tag, text) in order; tag `` `` (context), ``-`` (removed) or ``+`` (added).
    """

    number: int
    header: str
    hint: int | None
    lines: list[tuple[str, str]] = field(default_factory=list)

    @property
    def old(self) -> list[str]:
        """Context and removed lines: what must be found in the file."""
        return [text for tag, text in self.lines if tag != "+"]

    @property
    def new(self) -> list[str]:
        """Context and added lines: what replaces it."""
        return [text for tag, text in self.lines if tag != "-"]

    @property
    def changes(self) -> tuple[int, int]:
        """(lines added, lines removed)."""
        return (sum(tag == "+" for tag, _ in self.lines),
                sum(tag == "-" for tag, _ in self.lines))


def parse_diff(diff: str) -> list[Hunk]:
    """Split a unified diff into hunks; ``---``/``+++`` headers and ``@@`` lines optional.

    A diff without ``@@`` lines is one hunk. Lines without a `` ``, ``-`` or ``+`` prefix
    count as context (models often drop the space of blank context lines).

    Raises:
        EditError: The diff has no hunk with any line.
    """
    raw = diff.split("\n")
    if raw and raw[-1] == "":
        raw.pop()
    hunks: list[Hunk] = []
    current: Hunk | None = None
    for index, line in enumerate(raw):
        line = line.removesuffix("\r")
        header = _HUNK_HEADER.match(line)
        if header:
            hint = int(header.group(1)) if header.group(1) else None
            current = Hunk(len(hunks) + 1, line.strip(), hint)
            hunks.append(current)
            continue
        following = raw[index + 1] if index + 1 < len(raw) else ""
        if (line.startswith("--- ") and following.startswith("+++ ")) or (
                line.startswith("+++ ") and index and raw[index - 1].startswith("--- ")):
            continue
        if current is None:
            if line.startswith(_FILE_HEADERS) or line.startswith(("--- ", "+++ ")):
                continue
            current = Hunk(1, "(no @@ header)", None)
            hunks.append(current)
        if line.startswith("\\"):  # "\ No newline at end of file"
            continue
        tag, text = (line[0], line[1:]) if line[:1] in (" ", "-", "+") else (" ", line)
        current.lines.append((tag, text))
    hunks = [h for h in hunks if h.lines]
    if not hunks:
        raise EditError("the diff has no lines to apply; send hunks of ` context`, `-removed` "
                        "and `+added` lines, each hunk after an `@@ ... @@` line")
    return hunks


# --------------------------------------------------------------------------- matching


_PASSES: list[tuple[str, Callable[[str], str]]] = [
    ("exact", lambda s: s),
    ("ignoring trailing whitespace", str.rstrip),
    ("ignoring indentation and trailing whitespace", str.strip),
]


@dataclass(frozen=True, slots=True)
class _Placement:
    """Where a hunk goes: file lines ``[first, first + length)`` become ``lines``."""

    hunk: Hunk
    first: int
    length: int
    lines: list[str]
    fuzzy: str | None


def _new_lines(hunk: Hunk, found: list[str], exact: bool, first: int, shown: str) -> list[str]:
    """The hunk's new lines; after a match that ignored indentation, context lines keep the
    file's text and added lines are re-indented line by line as the file indents (or the
    hunk is refused, naming the lines that disagree)."""
    if exact:
        return hunk.new
    added = [text for tag, text in hunk.lines if tag == "+"]
    try:
        mapped = iter(map_indentation(list(zip(hunk.old, found, strict=True)), added))
    except IndentationMismatch as exc:
        raise EditError(_indentation_refusal(hunk, found, first, added, exc, shown),
                        suggest_escalation=True,
                        escalation_reason=f"the indentation of a diff did not fit {shown}") \
            from None
    out: list[str] = []
    position = 0  # index into ``found``, the file's lines for the hunk's old lines
    for tag, _text in hunk.lines:
        if tag == "+":
            out.append(next(mapped))
            continue
        if tag == " ":
            out.append(found[position])
        position += 1
    return out


def _added(hunk: Hunk, new: list[str]) -> list[str]:
    """The added lines among ``new``, new lines of ``hunk`` (context and added, in order)."""
    tags = [tag for tag, _ in hunk.lines if tag != "-"]
    return [line for tag, line in zip(tags, new, strict=True) if tag == "+"]


def _indentation_refusal(hunk: Hunk, found: list[str], first: int, added: list[str],
                         exc: IndentationMismatch, shown: str) -> str:
    """Which hunk, which lines disagree and what to do, for the model."""
    quoted = [f"    diff: {hunk.old[i]!r}  file line {first + i + 1}: {found[i]!r}"
              for i in exc.conflicts[:4]]
    quoted += [f"    diff: +{added[i]!r}" for i in exc.unmappable[:4]]
    return (f"hunk {hunk.number} ({hunk.header}) matched {shown} at line {first + 1} only "
            f"with its indentation ignored, and its indentation cannot be carried over "
            f"line by line: {exc.reason}.\n" + "\n".join(quoted) +
            "\nNothing was written. Read the lines again with read_file and copy their "
            "indentation exactly (spaces or tabs, as the file has them)")


def _place(hunk: Hunk, lines: list[str], allowed: range, taken: list[range],
           shown: str) -> _Placement:
    """Find where ``hunk`` applies among ``lines``, or raise ``EditError`` naming it."""
    size = len(hunk.old)
    if size == 0:
        return _place_insertion(hunk, lines, shown)
    for name, norm in _PASSES:
        wanted = [norm(line) for line in hunk.old]
        candidates = [
            i for i in range(allowed.start, allowed.stop - size + 1)
            if norm(lines[i]) == wanted[0]
            and all(norm(lines[i + k]) == wanted[k] for k in range(1, size))
            and not any(i < t.stop and t.start < i + size for t in taken)
        ]
        if not candidates:
            continue
        chosen = _nearest(hunk, candidates, shown)
        found = lines[chosen:chosen + size]
        exact = name == "exact"
        new = _new_lines(hunk, found, exact, chosen, shown)
        note = None if exact else name
        if not exact and _added(hunk, new) != _added(hunk, hunk.new):
            note = f"{name}, its added lines re-indented the way the file indents"
        return _Placement(hunk, chosen, size, new, note)
    raise EditError(_not_found(hunk, lines, shown), suggest_escalation=True,
                    escalation_reason=f"a hunk of a diff was not found in {shown}")


def _nearest(hunk: Hunk, candidates: list[int], shown: str) -> int:
    """The candidate nearest the hunk's line hint; ambiguity is an error."""
    if len(candidates) == 1:
        return candidates[0]
    listed = ", ".join(str(c + 1) for c in candidates[:20])
    hint = hunk.hint
    if hint is not None:
        ranked = sorted(candidates, key=lambda c: abs(c + 1 - hint))
        if abs(ranked[0] + 1 - hint) != abs(ranked[1] + 1 - hint):
            return ranked[0]
    raise EditError(
        f"hunk {hunk.number} ({hunk.header}) matches {len(candidates)} places in {shown} "
        f"(starting at lines {listed}); nothing was written. Add more context lines to the "
        "hunk, give its `@@ -LINE` number, or pass start/end (a character range) to say "
        "where it applies")


def _place_insertion(hunk: Hunk, lines: list[str], shown: str) -> _Placement:
    """A hunk of only added lines goes after the hinted line (``@@ -N,0 ...``)."""
    if hunk.hint is None and lines:
        raise EditError(
            f"hunk {hunk.number} ({hunk.header}) has only added lines and no line number, so "
            f"there is nothing to find in {shown}; nothing was written. Add a few context "
            "lines around the addition, or give `@@ -LINE,0 +LINE,N @@`")
    after = min(hunk.hint or 0, len(lines))
    return _Placement(hunk, after, 0, list(hunk.new), None)


def _not_found(hunk: Hunk, lines: list[str], shown: str) -> str:
    """Say which hunk failed, what it looked for and where its first line does occur."""
    quoted = "\n".join(f"    {line}" for line in hunk.old[:LOOKED_FOR_LINES])
    more = f"\n    ... ({len(hunk.old) - LOOKED_FOR_LINES} more)" \
        if len(hunk.old) > LOOKED_FOR_LINES else ""
    first = next((line.strip() for line in hunk.old if line.strip()), "")
    where = [str(i + 1) for i, line in enumerate(lines) if first and line.strip() == first]
    hint = (f" Its first line occurs at line(s) {', '.join(where[:10])}, but the lines after "
            "it differ." if where else "")
    return (f"hunk {hunk.number} ({hunk.header}) does not apply to {shown}: these lines "
            f"were not found in order:\n{quoted}{more}\n{hint.strip()}\nNothing was written. "
            "Read the file again with read_file and copy the context and removed lines "
            "exactly (without the line-number prefixes)").replace("\n\n", "\n")


# --------------------------------------------------------------------------- applying


@dataclass(frozen=True, slots=True)
class DiffOutcome:
    """The result of ``apply_diff``.

    Attributes:
        text: The whole new text of the file.
        hunks: How many hunks were applied.
        added: Lines added.
        removed: Lines removed.
        changed: (first, last) 1-based lines of each hunk's new lines in ``text``.
        fuzzy: Notes on hunks that matched only ignoring whitespace (and whether their
            added lines were re-indented).
    """

    text: str
    hunks: int
    added: int
    removed: int
    changed: list[tuple[int, int]]
    fuzzy: list[str]

    @property
    def tier(self) -> str:
        """``exact`` when every hunk matched exactly, else ``whitespace``."""
        return "whitespace" if self.fuzzy else "exact"


def _char_range_lines(pairs: list[tuple[str, str]], start: int | None,
                      end: int | None) -> range:
    """The line indexes touched by the character range ``[start, end)``."""
    if start is None and end is None:
        return range(len(pairs))
    offsets: list[int] = []
    offset = 0
    for content, ending in pairs:
        offsets.append(offset)
        offset += len(content) + len(ending)
    lo = max(bisect_right(offsets, start or 0) - 1, 0)
    hi = len(pairs) if end is None else bisect_left(offsets, end)
    return range(lo, min(max(hi, lo + 1), len(pairs)))


def _split_with_endings(text: str) -> list[tuple[str, str]]:
    """Lines of ``text`` with their own endings, as ``split_lines`` counts them."""
    pairs = [(m.group(1), m.group(2)) for m in _LINE.finditer(text)]
    while pairs and pairs[-1] == ("", ""):
        pairs.pop()
    return pairs


def apply_diff(text: str, diff: str, *, newline: str = "\n", start: int | None = None,
               end: int | None = None, shown: str = "the file") -> DiffOutcome:
    """Apply a unified diff to ``text`` exactly as str_replace does.

    Args:
        text: The file's content, line endings as in the file.
        diff: The unified diff (see ``parse_diff``).
        newline: The line ending new lines get (the file's dominant one).
        start: With ``end``, a character range of ``text``; hunks must match lines it touches.
        end: See ``start``.
        shown: The file's name for messages.

    Raises:
        EditError: A hunk is missing, ambiguous or overlaps another; nothing is applied.
    """
    hunks = parse_diff(diff)
    pairs = _split_with_endings(text)
    lines = [content for content, _ in pairs]
    allowed = _char_range_lines(pairs, start, end)
    placements: list[_Placement] = []
    for hunk in hunks:
        taken = [range(p.first, p.first + p.length) for p in placements]
        placements.append(_place(hunk, lines, allowed, taken, shown))
    placements.sort(key=lambda p: p.first)
    out: list[tuple[str, str]] = []
    changed: list[tuple[int, int]] = []
    cursor = 0
    for placement in placements:
        out += pairs[cursor:placement.first]
        if out and out[-1][1] == "" and placement.lines:  # inserting after an unterminated last line
            out[-1] = (out[-1][0], newline)
        end_of_block = placement.first + placement.length
        final_ending = pairs[end_of_block - 1][1] if placement.length and \
            end_of_block == len(pairs) else newline
        first_line = len(out) + 1
        out += [(line, newline) for line in placement.lines]
        if placement.lines and end_of_block == len(pairs):
            out[-1] = (out[-1][0], final_ending)
        changed.append((first_line, max(len(out), first_line)))
        cursor = end_of_block
    out += pairs[cursor:]
    added = sum(p.hunk.changes[0] for p in placements)
    removed = sum(p.hunk.changes[1] for p in placements)
    fuzzy = [f"hunk {p.hunk.number} matched {p.fuzzy}" for p in placements if p.fuzzy]
    return DiffOutcome("".join(c + e for c, e in out), len(hunks), added, removed, changed,
                       fuzzy)


# --------------------------------------------------------------------------- the tool


class StrReplaceParams(FileParams):
    """Arguments of str_replace."""

    diff: str = Field(
        description="A unified diff of this one file: hunks of ` context`, `-removed` and "
                    "`+added` lines, each after an `@@ -OLD,N +NEW,M @@` line (the numbers "
                    "are hints; `---`/`+++` headers are optional).")
    start: int | None = Field(
        default=None, ge=0,
        description="First character (0-indexed) of the part of the file the hunks "
                    "must match in, to pick one of several matches.")
    end: int | None = Field(
        default=None, ge=0,
        description="End (0-indexed, exclusive) of that character range.")


class StrReplaceTool(Tool):
    """Applies a unified diff to a file."""

    name = ToolName.STR_REPLACE
    kind = ToolKind.EDIT
    description = (
        "Apply a unified diff to one file you have read with read_file (a file changed on "
        "disk since must be read again). Give each change as a hunk with 2-3 unchanged "
        "context lines around the `-`/`+` lines, copied from read_file without the "
        "line-number prefixes; several hunks may go in one diff. Small whitespace "
        "differences are tolerated; when a hunk matches several places, the one nearest "
        "its `@@ -LINE` number wins, or start/end (a character range) narrow the search. "
        "If any hunk fails nothing is written."
    )
    Params = StrReplaceParams

    def validate(self, params: StrReplaceParams, ctx: ToolContext) -> None:
        """Reject an empty diff, a reversed range, and a file not read or changed since."""
        if not params.diff.strip():
            raise ToolArgumentError("diff is empty; send a unified diff with at least one hunk")
        if params.start is not None and params.end is not None and params.end < params.start:
            raise ToolArgumentError(
                f"end ({params.end}) is before start ({params.start}); send end >= start")
        refuse_unseen(ctx, params.file_path, REDO_EDIT)

    def create_invocation(self, params: StrReplaceParams, ctx: ToolContext) -> StrReplaceInvocation:
        """Make the invocation."""
        return StrReplaceInvocation(self, params, ctx)


class StrReplaceInvocation(FileChangeInvocation[StrReplaceParams, DiffOutcome]):
    """One str_replace call."""

    title = "Apply a diff to"
    no_change = ("the diff changes nothing in {shown} (its added and removed lines are the "
                 "same); nothing was written")

    def describe(self) -> str:
        """E.g. ``str_replace src/a.py``."""
        return f"str_replace {display_path(self.ctx, self.path)}"

    def change(self, original: TextFile, shown: str) -> DiffOutcome:
        """Apply the diff's hunks."""
        p = self.params
        return apply_diff(original.text, p.diff, newline=original.newline, start=p.start,
                          end=p.end, shown=shown)

    def report(self, outcome: DiffOutcome, shown: str) -> str:
        """How many hunks and lines changed, and the lines around them."""
        hunks = "1 hunk" if outcome.hunks == 1 else f"{outcome.hunks} hunks"
        notes = "".join(f"; {note}" for note in outcome.fuzzy)
        return (f"Applied {hunks} to {shown}: +{outcome.added} -{outcome.removed} lines{notes}. "
                f"The file now reads:\n{edit_snippet(outcome.text, outcome.changed)}")
