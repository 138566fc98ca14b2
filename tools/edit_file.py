"""The edit_file tool: replace text in a file, found exactly or by a forgiving match.

old_text is looked for in tiers (``edit_matching.py``): exactly, then ignoring whitespace,
then read once more as over-escaped text; with ``edit_correction = "model"``, a text found
nowhere is sent once to the model with the nearest regions of the file, before the person is
asked. Each tier used is reported. The change itself goes through ``FileChangeInvocation``
(``files.py``): read-before-edit, encoding, line endings and the atomic write are shared with
str_replace.
"""

from __future__ import annotations

import asyncio
import json
import re
from bisect import bisect_right
from dataclasses import dataclass, replace

from pydantic import AliasChoices, Field

from ..core.text.text_files import TextFile
from .base import Tool, ToolArgumentError, ToolContext, ToolKind
from .edit_matching import (
    Found,
    IndentationRefused,
    find,
    line_of,
    nearest,
    quote_candidates,
)
from .fileio import line_starts, split_lines
from .files import (
    REDO_EDIT,
    EditError,
    FileChangeInvocation,
    FileParams,
    display_path,
    edit_snippet,
    load_for_edit,
    refuse_unseen,
)
from .names import ToolName

CORRECTION_PROMPT = """\
An edit of the file {shown} failed: its old_text occurs nowhere in the file, not even when
whitespace is ignored. Correct it against the file.

What the edit is for: {instruction}

The old_text that was not found:
<old_text>
{old}
</old_text>

The new_text meant to replace it:
<new_text>
{new}
</new_text>

The regions of the file most like old_text (line numbers are not part of the file):
{regions}

Answer with one JSON object and nothing else:
{{"old_text": "<text copied exactly from the file, without line numbers>",
  "new_text": "<the replacement, adjusted to the same change>"}}
If none of the regions is what the edit meant, answer {{"old_text": null}}."""


class EditFileParams(FileParams):
    """Arguments of edit_file."""

    old_text: str = Field(
        validation_alias=AliasChoices("old_text", "old_string"),
        description="The exact text to replace, including whitespace and indentation, "
                    "without read_file's line-number prefixes. Must occur exactly once "
                    "unless replace_all is true or expected_replacements says how often.")
    new_text: str = Field(
        validation_alias=AliasChoices("new_text", "new_string"),
        description="The text to put in its place.")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence of old_text (default false).")
    expected_replacements: int | None = Field(
        default=None, ge=1,
        description="How many occurrences there are; all of them are replaced, and "
                    "a different count is an error.")
    instruction: str | None = Field(
        default=None,
        description="What the edit is meant to do, in a sentence (used to correct "
                    "an old_text that does not match).")


@dataclass(frozen=True, slots=True)
class EditOutcome:
    """The result of ``apply_edit``.

    Attributes:
        text: The whole new text of the file.
        count: How many occurrences were replaced.
        changed: The (first, last) 1-based lines of each replacement in ``text``.
        tier: How old_text was found (``ToolResult.edit_tier``).
        note: What the tier tolerated, for the model ("" for an exact match).
    """

    text: str
    count: int
    changed: list[tuple[int, int]]
    tier: str = "exact"
    note: str = ""


def apply_edit(text: str, old: str, new: str, *, replace_all: bool = False,
               expected: int | None = None, newline: str = "\n",
               shown: str = "the file") -> EditOutcome:
    """Replace ``old`` by ``new`` in ``text``, exactly as edit_file does.

    ``old`` is found in tiers (``edit_matching.find``). Without ``replace_all`` or
    ``expected`` it must be found once; with ``expected`` exactly that many times.

    Raises:
        EditError: ``old`` equals ``new``, is missing or ambiguous (with the nearest regions
            or the places found, and a stronger model suggested), or new_text's indentation
            cannot be carried over.
    """
    if old == new:
        raise EditError("old_text and new_text are identical, so the edit would change "
                        "nothing; put the replacement text in new_text")
    try:
        found = find(text, old, new, newline)
    except IndentationRefused as exc:
        raise EditError(exc.message, suggest_escalation=True,
                        escalation_reason=f"edit_file's indentation did not fit {shown}") \
            from None
    if found is None:
        raise EditError(_not_found(text, old, shown), suggest_escalation=True,
                        escalation_reason=f"edit_file's old_text is not in {shown}")
    count = len(found.matches)
    if expected is not None and count != expected:
        raise EditError(
            f"expected {expected} occurrence(s) of old_text in {shown} but found {count} "
            f"({_places(text, found)}); nothing was written. Fix expected_replacements or "
            "make old_text match just the places meant",
            suggest_escalation=True,
            escalation_reason=f"edit_file found {count} of {expected} expected places")
    if count > 1 and not replace_all and expected is None:
        raise EditError(
            f"old_text matches {count} times in {shown} ({_places(text, found)}); nothing "
            "was written. Include more surrounding lines in old_text to make it unique, or "
            "set replace_all=true (or expected_replacements) to replace every occurrence",
            suggest_escalation=True,
            escalation_reason=f"edit_file's old_text is ambiguous in {shown}")
    return _replaced(text, found)


def _replaced(text: str, found: Found) -> EditOutcome:
    pieces: list[str] = []
    offsets: list[tuple[int, int]] = []
    previous = 0
    shift = 0
    for match in found.matches:
        pieces += [text[previous:match.start], match.replacement]
        offsets.append((match.start + shift, len(match.replacement)))
        shift += len(match.replacement) - (match.end - match.start)
        previous = match.end
    pieces.append(text[previous:])
    result = "".join(pieces)
    starts = line_starts(result)
    last_line = max(len(split_lines(result)), 1)

    def line(offset: int) -> int:
        return min(bisect_right(starts, offset), last_line)

    changed = [(line(off), line(off + max(size - 1, 0))) for off, size in offsets]
    return EditOutcome(result, len(found.matches), changed, found.tier, found.note)


def _places(text: str, found: Found) -> str:
    numbers = [str(line_of(text, m.start)) for m in found.matches]
    listed = ", ".join(numbers[:20]) + (", ..." if len(numbers) > 20 else "")
    return f"starting at lines {listed}"


def _not_found(text: str, old: str, shown: str) -> str:
    """old_text is nowhere: say so, with the regions of the file most like it."""
    message = (f"old_text not found in {shown}, not even ignoring whitespace or reading it "
               "as over-escaped text; nothing was written.")
    candidates = nearest(text, old)
    if not candidates:
        return (f"{message} Nothing in the file resembles it: read the file again with "
                "read_file and copy the text exactly, without the line-number prefixes")
    return (f"{message} The nearest text in the file:\n{quote_candidates(text, candidates)}\n"
            "If one of these is what you meant, copy it exactly into old_text (without the "
            "line-number prefixes) and redo the edit; otherwise read the file again with "
            "read_file")


class EditFileTool(Tool):
    """Replaces text in a file."""

    name = ToolName.EDIT_FILE
    kind = ToolKind.EDIT
    description = (
        "Replace text in a file you have read with read_file (a file changed on disk since "
        "must be read again). Copy old_text exactly from read_file's output, with its "
        "whitespace and indentation but without the line-number prefixes; it must occur "
        "once unless replace_all is true (or expected_replacements gives the count); "
        "include a few surrounding lines to make it unique. Small drift (spaces, "
        "indentation, line endings, text escaped twice) is tolerated and reported; when "
        "nothing matches, the nearest lines of the file are shown."
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
    corrected = False
    """The model corrected old_text and new_text in ``prepare`` (tier ``model``)."""

    def describe(self) -> str:
        """E.g. ``edit_file src/a.py``."""
        suffix = " (replace all)" if self.params.replace_all else ""
        return f"edit_file {display_path(self.ctx, self.path)}{suffix}"

    def change(self, original: TextFile, shown: str) -> EditOutcome:
        """Replace old_text by new_text."""
        p = self.params
        outcome = apply_edit(original.text, p.old_text, p.new_text, replace_all=p.replace_all,
                             expected=p.expected_replacements, newline=original.newline,
                             shown=shown)
        if self.corrected:
            return replace(outcome, tier="model", note=(
                "old_text matched nowhere, so the model was asked once to correct it against "
                f"the file; the corrected old_text was {p.old_text!r}"))
        return outcome

    def report(self, outcome: EditOutcome, shown: str) -> str:
        """Where the edit landed, how old_text was found, and the lines around it."""
        first, last = outcome.changed[0][0], outcome.changed[-1][1]
        where = f"line {first}" if first == last else f"lines {first}-{last}"
        count = "1 occurrence" if outcome.count == 1 else f"{outcome.count} occurrences"
        note = f" Note: {outcome.note}." if outcome.note else ""
        return (f"Edited {shown}: replaced {count}, changing {where}.{note} The file now "
                f"reads:\n{edit_snippet(outcome.text, outcome.changed)}")

    async def prepare(self) -> None:
        """With ``edit_correction = "model"``: when old_text matches nowhere, ask the model
        once to correct it against the nearest regions, so the person approves the
        corrected edit. Without a correction that matches exactly once, nothing changes."""
        await self._correct()
        await super().prepare()

    async def _correct(self) -> None:
        if getattr(self.ctx.settings, "edit_correction", "off") != "model" \
                or self.ctx.run_subagent is None:
            return
        shown = display_path(self.ctx, self.path)
        try:
            _, original = load_for_edit(self.path, shown)
            self.change(original, shown)
            return  # it applies (or fails for another reason): nothing to correct
        except EditError as exc:
            if not exc.message.startswith("old_text not found"):
                return
        candidates = nearest(original.text, self.params.old_text)
        if not candidates:
            return
        prompt = CORRECTION_PROMPT.format(
            shown=shown, instruction=self.params.instruction or "(not given)",
            old=self.params.old_text, new=self.params.new_text,
            regions=quote_candidates(original.text, candidates))
        answer = await self.ctx.run_subagent(prompt, [])
        corrected = _parse_correction(answer)
        if corrected is None:
            return
        old, new = corrected
        found = await asyncio.to_thread(find, original.text, old, new, original.newline)
        if found is None or found.tier != "exact" or len(found.matches) != 1:
            return
        self.params = self.params.model_copy(update={"old_text": old, "new_text": new})
        self.corrected = True


def _parse_correction(answer: str) -> tuple[str, str] | None:
    """(old_text, new_text) from the model's JSON answer, or None."""
    match = re.search(r"\{.*\}", answer, re.S)
    if match is None:
        return None
    try:
        value = json.loads(match.group(0))
    except json.JSONDecodeError:
        return None
    old, new = value.get("old_text"), value.get("new_text")
    if not isinstance(old, str) or not isinstance(new, str) or not old or old == new:
        return None
    return old, new
