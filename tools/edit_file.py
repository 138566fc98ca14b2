"""The edit_file tool: replace text in a file, found exactly or by a forgiving match.

The change itself goes through ``FileChangeInvocation`` (``files.py``): read-before-edit,
encoding, line endings and the atomic write are shared with str_replace.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from pydantic import AliasChoices, Field

from ..core.text_files import TextFile, to_newline
from .base import Tool, ToolArgumentError, ToolContext, ToolKind
from .fileio import line_starts, split_lines
from .files import (
    REDO_EDIT,
    EditError,
    FileChangeInvocation,
    FileParams,
    display_path,
    edit_snippet,
    refuse_unseen,
)
from .names import ToolName


class EditFileParams(FileParams):
    """Arguments of edit_file."""

    old_text: str = Field(
        validation_alias=AliasChoices("old_text", "old_string"),
        description="The exact text to replace, including whitespace and indentation, "
                    "without read_file's line-number prefixes. Must occur exactly once "
                    "unless replace_all is true.")
    new_text: str = Field(
        validation_alias=AliasChoices("new_text", "new_string"),
        description="The text to put in its place.")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence of old_text (default false).")


@dataclass(frozen=True, slots=True)
class EditOutcome:
    """The result of ``apply_edit``.

    Attributes:
        text: The whole new text of the file.
        count: How many occurrences were replaced.
        changed: The (first, last) 1-based lines of each replacement in ``text``.
        tier: How old_text was found (``ToolResult.edit_tier``).
    """

    text: str
    count: int
    changed: list[tuple[int, int]]
    tier: str = "exact"


def apply_edit(text: str, old: str, new: str, *, replace_all: bool = False,
               newline: str = "\n", shown: str = "the file") -> EditOutcome:
    """Replace ``old`` by ``new`` in ``text``, exactly as edit_file does.

    In a file whose line ending ``newline`` is not ``\\n``, an ``old`` with bare ``\\n``
    that is not found is retried with the file's line ending, and a ``new`` without
    ``\\r\\n`` gets the file's line ending.

    Raises:
        EditError: ``old`` equals ``new``, is missing, or is ambiguous without ``replace_all``.
    """
    if old == new:
        raise EditError("old_text and new_text are identical, so the edit would change "
                        "nothing; put the replacement text in new_text")
    positions = _find_all(text, old)
    if not positions and newline != "\n" and "\n" in old:
        converted = to_newline(old, newline)
        positions = _find_all(text, converted)
        old = converted
    if not positions:
        raise EditError(
            f"old_text not found in {shown}. It must match the file exactly, including "
            "whitespace, indentation and line breaks; read the file again with read_file and "
            "copy the text exactly, without the line-number prefixes",
            suggest_escalation=True)
    if len(positions) > 1 and not replace_all:
        starts = line_starts(text)
        numbers = [str(bisect_right(starts, pos)) for pos in positions]
        listed = ", ".join(numbers[:20]) + (", ..." if len(numbers) > 20 else "")
        raise EditError(
            f"old_text matches {len(positions)} times in {shown} (starting at lines {listed}); "
            "include more surrounding lines in old_text to make it unique, or set "
            "replace_all=true to replace every occurrence")
    if newline != "\n" and "\r\n" not in new:
        new = to_newline(new, newline)
    pieces: list[str] = []
    offsets: list[int] = []
    previous = 0
    shift = len(new) - len(old)
    for index, pos in enumerate(positions):
        pieces += [text[previous:pos], new]
        offsets.append(pos + index * shift)
        previous = pos + len(old)
    pieces.append(text[previous:])
    result = "".join(pieces)
    starts = line_starts(result)
    last_line = max(len(split_lines(result)), 1)

    def line_of(offset: int) -> int:
        return min(bisect_right(starts, offset), last_line)

    changed = [(line_of(off), line_of(off + max(len(new) - 1, 0))) for off in offsets]
    return EditOutcome(text=result, count=len(positions), changed=changed)


def _find_all(text: str, needle: str) -> list[int]:
    """Start offsets of the non-overlapping occurrences of ``needle``, as ``str.replace``."""
    found: list[int] = []
    pos = text.find(needle)
    while pos != -1:
        found.append(pos)
        pos = text.find(needle, pos + len(needle))
    return found


class EditFileTool(Tool):
    """Replaces exact text in a file."""

    name = ToolName.EDIT_FILE
    kind = ToolKind.EDIT
    description = (
        "Replace exact text in a file you have read with read_file (a file changed on disk "
        "since must be read again). old_text must match the file exactly, including "
        "whitespace and indentation (copy it from read_file output without the line-number "
        "prefixes), and must occur once unless replace_all is true; include a few "
        "surrounding lines to make it unique. The result shows the edited lines."
    )
    Params = EditFileParams

    def validate(self, params: EditFileParams, ctx: ToolContext) -> None:
        """Reject an empty old_text, and a file not read or changed since."""
        if params.old_text == "":
            raise ToolArgumentError(
                "old_text is empty; pass the exact text to replace. To create a file or "
                "replace all of its content, use write_file")
        refuse_unseen(ctx, params.file_path, REDO_EDIT)

    def create_invocation(self, params: EditFileParams, ctx: ToolContext) -> EditFileInvocation:
        """Make the invocation."""
        return EditFileInvocation(self, params, ctx)


class EditFileInvocation(FileChangeInvocation[EditFileParams, EditOutcome]):
    """One edit_file call."""

    title = "Edit"

    def describe(self) -> str:
        """E.g. ``edit_file src/a.py``."""
        suffix = " (replace all)" if self.params.replace_all else ""
        return f"edit_file {display_path(self.ctx, self.path)}{suffix}"

    def change(self, original: TextFile, shown: str) -> EditOutcome:
        """Replace old_text by new_text."""
        p = self.params
        return apply_edit(original.text, p.old_text, p.new_text, replace_all=p.replace_all,
                          newline=original.newline, shown=shown)

    def report(self, outcome: EditOutcome, shown: str) -> str:
        """Where the edit landed and the lines around it."""
        first, last = outcome.changed[0][0], outcome.changed[-1][1]
        where = f"line {first}" if first == last else f"lines {first}-{last}"
        count = "1 occurrence" if outcome.count == 1 else f"{outcome.count} occurrences"
        return (f"Edited {shown}: replaced {count}, changing {where}. The file now reads:\n"
                f"{edit_snippet(outcome.text, outcome.changed)}")
