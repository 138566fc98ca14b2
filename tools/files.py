"""The file tools write_file and edit_file, and the helpers every file tool shares.

read_file lives in ``read_file.py``, str_replace in ``diff_edit.py``.
"""

from __future__ import annotations

import asyncio
import shlex
import stat
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, Field

from .base import (
    Confirmation,
    Invocation,
    OutputCallback,
    Tool,
    ToolArgumentError,
    ToolContext,
    ToolKind,
    ToolParams,
    ToolResult,
)
from .fileio import (
    BINARY_SAMPLE_BYTES,
    TextFile,
    atomic_write_text,
    decode_text,
    is_binary,
    line_starts,
    split_lines,
    to_newline,
)

MAX_LINE_CHARS = 2_000
"""Characters of one line read_file shows before it truncates the line."""
MAX_FILE_BYTES = 64 * 1024 * 1024
"""Files larger than this are not loaded for editing; the model is pointed at the shell."""
EDIT_CONTEXT_LINES = 3
"""Unchanged lines shown around each edit in edit_file's result."""
EDIT_SNIPPET_LINES = 60
"""Lines edit_file's result shows at most."""


def display_path(ctx: ToolContext, path: Path) -> str:
    """``path`` relative to the project folder when it is inside it, else absolute."""
    try:
        return str(path.relative_to(ctx.workdir))
    except ValueError:
        return str(path)


def number_line(number: int, line: str) -> str:
    """Format one line of output as ``    42: text``, truncating very long lines."""
    if len(line) > MAX_LINE_CHARS:
        line = (f"{line[:MAX_LINE_CHARS]} [... line truncated: {len(line):,} characters in "
                f"total; read it whole with a character range (start/end)]")
    return f"{number:>6}: {line}"


def file_problem(path: Path, shown: str, *, max_bytes: int | None = MAX_FILE_BYTES) -> str | None:
    """Why ``path`` cannot be read as a file, or None when it can.

    Args:
        path: The file.
        shown: How to name it in messages.
        max_bytes: Larger files are refused; None accepts any size (streaming readers).
    """
    try:
        st = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return (f"file not found: {shown}. Check the path; list the folder with the shell "
                f"tool, e.g. `ls {shlex.quote(str(path.parent))}`")
    except OSError as exc:
        return f"cannot access {shown}: {exc.strerror or exc}"
    if stat.S_ISDIR(st.st_mode):
        return (f"{shown} is a directory, not a file. List its contents with the shell tool, "
                f"e.g. `ls -la {shlex.quote(shown)}`")
    if not stat.S_ISREG(st.st_mode):
        return (f"{shown} is not a regular file (a device, pipe or socket); only regular files "
                "can be read or edited")
    if max_bytes is not None and st.st_size > max_bytes:
        return (f"{shown} is {st.st_size:,} bytes, too large to load (limit "
                f"{max_bytes:,}). Look at parts of it with the shell tool, e.g. "
                f"`head -n 100`, `sed -n '1000,1100p'` or `grep -n PATTERN`")
    return None


def load_text(path: Path, shown: str) -> tuple[TextFile, int] | str:
    """The decoded file and its size, or an error message: missing, binary, unreadable."""
    problem = file_problem(path, shown)
    if problem:
        return problem
    try:
        data = path.read_bytes()
    except OSError as exc:
        return f"cannot read {shown}: {exc.strerror or exc}"
    if is_binary(data[:BINARY_SAMPLE_BYTES]):
        return (f"{shown} is a binary file ({len(data):,} bytes), not text, so it cannot be "
                f"shown or edited as text. Inspect it with the shell tool, e.g. "
                f"`file {shlex.quote(shown)}` or `xxd {shlex.quote(shown)} | head`")
    return decode_text(data), len(data)


def load_for_edit(path: Path, shown: str) -> TextFile:
    """The text file an edit tool changes.

    Raises:
        EditError: it cannot be read as text; the message says why and what to do.
    """
    loaded = load_text(path, shown)
    if isinstance(loaded, str):
        if loaded.startswith("file not found"):
            loaded += "; to create a new file use write_file"
        raise EditError(loaded)
    return loaded[0]


def encoding_for(text: str, preferred: str) -> str:
    """``preferred`` if it can encode ``text``, else UTF-8 (a latin-1 file gaining emoji)."""
    try:
        text.encode(preferred)
    except UnicodeEncodeError:
        return "utf-8"
    return preferred


def path_field() -> Any:
    """The ``file_path`` field every file tool has, also accepted as ``path``."""
    return Field(
        validation_alias=AliasChoices("file_path", "path"),
        description="Path of the file, absolute or relative to the project folder; "
                    "`~` is expanded.",
    )


# --------------------------------------------------------------------------- write_file


class WriteFileParams(ToolParams):
    """Arguments of write_file."""

    file_path: str = path_field()
    content: str = Field(description="The complete new content of the file.")
    create_directories: bool = Field(
        default=True, description="Create missing parent folders (default true).")


class WriteFileTool(Tool):
    """Creates a file or replaces its whole content."""

    name = "write_file"
    kind = ToolKind.EDIT
    description = (
        "Create a file or replace its whole content. Missing parent folders are created "
        "unless create_directories is false. An existing file keeps its encoding, byte "
        "order mark and line endings. To change part of a file, prefer edit_file."
    )
    Params = WriteFileParams

    def create_invocation(self, params: WriteFileParams, ctx: ToolContext) -> WriteFileInvocation:
        """Make the invocation."""
        return WriteFileInvocation(self, params, ctx)


@dataclass(frozen=True, slots=True)
class _WritePlan:
    """What write_file will put on disk, decided once for confirmation and execution."""

    existing: TextFile | None
    binary_size: int | None
    text: str
    encoding: str
    bom: bool


class WriteFileInvocation(Invocation[WriteFileParams]):
    """One write_file call."""

    @property
    def path(self) -> Path:
        """The file, resolved against the project folder."""
        return self.ctx.resolve(self.params.file_path)

    def describe(self) -> str:
        """E.g. ``write_file notes.md``."""
        return f"write_file {display_path(self.ctx, self.path)}"

    def locations(self) -> list[Path]:
        """The file written."""
        return [self.path]

    def confirmation(self) -> Confirmation:
        """The whole file before and after."""
        plan = self._plan()
        details = (f"replaces a binary file of {plan.binary_size:,} bytes"
                   if plan.binary_size is not None else "")
        return Confirmation(
            kind="edit", title=f"Write {display_path(self.ctx, self.path)}", path=self.path,
            before=plan.existing.text if plan.existing else "", after=plan.text,
            details=details)

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Write the file in a worker thread."""
        return await asyncio.to_thread(self._write)

    def _plan(self) -> _WritePlan:
        content = self.params.content
        try:
            data = self.path.read_bytes()
        except OSError:
            return _WritePlan(None, None, content, encoding_for(content, "utf-8"), False)
        if is_binary(data[:BINARY_SAMPLE_BYTES]):
            return _WritePlan(None, len(data), content, "utf-8", False)
        existing = decode_text(data)
        text = content if "\r\n" in content else to_newline(content, existing.newline)
        if existing.bom and text.startswith("\ufeff"):
            text = text[1:]
        encoding = encoding_for(text, existing.encoding)
        return _WritePlan(existing, None, text, encoding, existing.bom and encoding == "utf-8")

    def _write(self) -> ToolResult:
        path, shown = self.path, display_path(self.ctx, self.path)
        if path.is_dir():
            return ToolResult.failure(
                f"{shown} is a directory; pass the path of a file (inside it, for example)")
        parent = path.parent
        if not parent.is_dir():
            if parent.exists():
                return ToolResult.failure(
                    f"cannot create {shown}: {parent} is a file, not a folder; choose another path")
            if not self.params.create_directories:
                return ToolResult.failure(
                    f"the folder {parent} does not exist; call write_file with "
                    "create_directories=true or create the folder first")
            try:
                parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                return ToolResult.failure(
                    f"cannot create the folder {parent}: {exc.strerror or exc}; "
                    "choose a writable path")
        existed = path.exists()
        plan = self._plan()
        try:
            written = atomic_write_text(path, plan.text, encoding=plan.encoding, bom=plan.bom)
        except (OSError, UnicodeError) as exc:
            return ToolResult.failure(
                f"cannot write {shown}: {getattr(exc, 'strerror', None) or exc}; the file is "
                "unchanged. Check the path and its permissions")
        note = ""
        if plan.existing and plan.encoding != plan.existing.encoding:
            note = f"; re-encoded from {plan.existing.encoding} to {plan.encoding}"
        return ToolResult(
            f"Wrote {written} bytes to {shown} ({'overwritten' if existed else 'created'}{note})")


# --------------------------------------------------------------------------- edit_file


class EditFileParams(ToolParams):
    """Arguments of edit_file."""

    file_path: str = path_field()
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


class EditError(Exception):
    """An edit that cannot be applied; the message tells the model what to do instead."""

    def __init__(self, message: str, *, suggest_escalation: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.suggest_escalation = suggest_escalation


@dataclass(frozen=True, slots=True)
class EditOutcome:
    """The result of ``apply_edit``.

    Attributes:
        text: The whole new text of the file.
        count: How many occurrences were replaced.
        changed: The (first, last) 1-based lines of each replacement in ``text``.
    """

    text: str
    count: int
    changed: list[tuple[int, int]]


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


def edit_snippet(text: str, changed: list[tuple[int, int]]) -> str:
    """Numbered lines around each change, gaps marked, at most ``EDIT_SNIPPET_LINES``."""
    lines = split_lines(text)
    if not lines:
        return "(the file is now empty)"
    windows: list[list[int]] = []
    for first, last in changed:
        lo, hi = max(first - EDIT_CONTEXT_LINES, 1), min(last + EDIT_CONTEXT_LINES, len(lines))
        if windows and lo <= windows[-1][1] + 1:
            windows[-1][1] = max(windows[-1][1], hi)
        else:
            windows.append([lo, hi])
    out: list[str] = []
    shown = 0
    for lo, hi in windows:
        if out:
            out.append("   ...")
        for number in range(lo, hi + 1):
            if shown == EDIT_SNIPPET_LINES:
                out.append("[... more changed lines; read_file shows the whole file]")
                return "\n".join(out)
            out.append(number_line(number, lines[number - 1]))
            shown += 1
    return "\n".join(out)


class EditFileTool(Tool):
    """Replaces exact text in a file."""

    name = "edit_file"
    kind = ToolKind.EDIT
    description = (
        "Replace exact text in a file. old_text must match the file exactly, including "
        "whitespace and indentation (copy it from read_file output without the line-number "
        "prefixes), and must occur once unless replace_all is true; include a few "
        "surrounding lines to make it unique. The result shows the edited lines."
    )
    Params = EditFileParams

    def validate(self, params: EditFileParams, ctx: ToolContext) -> None:
        """Reject an empty old_text."""
        if params.old_text == "":
            raise ToolArgumentError(
                "old_text is empty; pass the exact text to replace. To create a file or "
                "replace all of its content, use write_file")

    def create_invocation(self, params: EditFileParams, ctx: ToolContext) -> EditFileInvocation:
        """Make the invocation."""
        return EditFileInvocation(self, params, ctx)


class EditFileInvocation(Invocation[EditFileParams]):
    """One edit_file call."""

    @property
    def path(self) -> Path:
        """The file, resolved against the project folder."""
        return self.ctx.resolve(self.params.file_path)

    def describe(self) -> str:
        """E.g. ``edit_file src/a.py``."""
        suffix = " (replace all)" if self.params.replace_all else ""
        return f"edit_file {display_path(self.ctx, self.path)}{suffix}"

    def locations(self) -> list[Path]:
        """The file edited."""
        return [self.path]

    def confirmation(self) -> Confirmation | None:
        """The whole file before and after; None when the edit cannot apply (execute fails)."""
        shown = display_path(self.ctx, self.path)
        try:
            loaded, outcome = self._prepare(shown)
        except EditError:
            return None
        return Confirmation(kind="edit", title=f"Edit {shown}", path=self.path,
                            before=loaded.text, after=outcome.text)

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Apply the edit in a worker thread."""
        return await asyncio.to_thread(self._edit)

    def _prepare(self, shown: str) -> tuple[TextFile, EditOutcome]:
        text_file = load_for_edit(self.path, shown)
        p = self.params
        outcome = apply_edit(text_file.text, p.old_text, p.new_text, replace_all=p.replace_all,
                             newline=text_file.newline, shown=shown)
        return text_file, outcome

    def _edit(self) -> ToolResult:
        shown = display_path(self.ctx, self.path)
        try:
            loaded, outcome = self._prepare(shown)
        except EditError as exc:
            return ToolResult.failure(exc.message, suggest_escalation=exc.suggest_escalation)
        encoding = encoding_for(outcome.text, loaded.encoding)
        try:
            atomic_write_text(self.path, outcome.text, encoding=encoding,
                              bom=loaded.bom and encoding == "utf-8")
        except (OSError, UnicodeError) as exc:
            return ToolResult.failure(
                f"cannot write {shown}: {getattr(exc, 'strerror', None) or exc}; the file is "
                "unchanged. Check its permissions")
        first, last = outcome.changed[0][0], outcome.changed[-1][1]
        where = f"line {first}" if first == last else f"lines {first}-{last}"
        count = "1 occurrence" if outcome.count == 1 else f"{outcome.count} occurrences"
        return ToolResult(
            f"Edited {shown}: replaced {count}, changing {where}. The file now reads:\n"
            f"{edit_snippet(outcome.text, outcome.changed)}")
