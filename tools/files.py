"""The base every partial file change shares, and file helpers.

``FileChangeInvocation`` is what edit_file (``edit_file.py``) and str_replace
(``diff_edit.py``) have in common:
the read-before-edit check by content hash (``read_ledger.py``), and a write that keeps the
file's encoding, byte order mark and line endings. read_file lives in ``read_file.py``,
write_file in ``write_file.py``.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import stat
from abc import abstractmethod
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from pydantic import AliasChoices, Field

from ..core.text.durable import write_atomically
from ..core.text.text_files import (
    BINARY_SAMPLE_BYTES,
    TextFile,
    decode_text,
    encode_text,
    is_binary,
)
from .base import (
    Confirmation,
    ErrorType,
    Invocation,
    OutputCallback,
    ToolArgumentError,
    ToolContext,
    ToolParams,
    ToolResult,
)
from .fileio import split_lines, unencodable
from .syntax_check import check_edit

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


FILE_NOT_FOUND = "file not found"
"""How the message of a file that does not exist begins (``file_problem``)."""


def file_failure(problem: str) -> ToolResult:
    """The failed result of a file ``file_problem`` or ``load_bytes`` refused: ``not_found``
    when it does not exist."""
    kind = ErrorType.NOT_FOUND if problem.startswith(FILE_NOT_FOUND) else ErrorType.FAILED
    return ToolResult.failure(problem, error_type=kind)


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
        return (f"{FILE_NOT_FOUND}: {shown}. Check the path; list the folder with the shell "
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
    loaded = load_bytes(path, shown)
    if isinstance(loaded, str):
        return loaded
    return decode_text(loaded), len(loaded)


def load_bytes(path: Path, shown: str) -> bytes | str:
    """The bytes of a text file, or an error message: missing, binary, unreadable, too large."""
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
    return data


def load_for_edit(path: Path, shown: str) -> tuple[bytes, TextFile]:
    """The bytes of the file an edit tool changes, and their text.

    Raises:
        EditError: it cannot be read as text; the message says why and what to do.
    """
    loaded = load_bytes(path, shown)
    if isinstance(loaded, str):
        if loaded.startswith(FILE_NOT_FOUND):
            raise EditError(loaded + "; to create a new file use write_file",
                            error_type=ErrorType.NOT_FOUND)
        raise EditError(loaded)
    return loaded, decode_text(loaded)


def encode_like(text: str, original: TextFile, shown: str) -> bytes:
    """``text`` encoded as ``original`` is: same encoding, same byte order mark.

    Raises:
        EditError: ``text`` has characters the file's encoding cannot hold. Re-encoding the
            file would change the bytes of every other non-ASCII line, so an edit refuses.
    """
    try:
        return encode_text(text, encoding=original.encoding, bom=original.bom)
    except UnicodeEncodeError:
        chars = unencodable(text, original.encoding)
        listed = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in chars[:5])
        if original.encoding == "utf-8":  # only lone surrogates cannot be UTF-8
            raise EditError(
                f"the new text has characters that cannot be stored in a file: {listed} "
                "(lone UTF-16 surrogates). Nothing was written. Remove them, or write the "
                "intended character itself") from None
        raise EditError(
            f"{shown} is stored as {original.encoding}, not UTF-8, and the new text has "
            f"characters {original.encoding} cannot hold: {listed}. Nothing was written. "
            f"Use characters {original.encoding} has (e.g. an ASCII spelling), or convert "
            "the whole file to UTF-8 by rewriting it with write_file, which re-encodes it "
            "when it must") from None


def current_stat(path: Path) -> os.stat_result | None:
    """``path``'s stat, or None when it cannot be read."""
    try:
        return path.stat()
    except OSError:
        return None


REDO_EDIT = "redo the edit"
"""What an edit tool's refusal asks the model to do after reading the file."""
REDO_WRITE = "call write_file again (or choose a new path to create a file)"
"""What write_file's refusal asks the model to do after reading the file."""


def existing_file_refusal(ctx: ToolContext, path: Path, redo: str) -> str | None:
    """Why changing the existing file ``path`` must be refused, or None.

    A file this agent has not read, or whose bytes changed since it read them, is refused
    (``ReadLedger``). A missing or unreadable path passes: creating it needs no read, and
    the tool says why it cannot be written.
    """
    shown = display_path(ctx, path)
    st = current_stat(path)
    if st is None or not stat.S_ISREG(st.st_mode):
        return None
    if st.st_size > MAX_FILE_BYTES:
        return too_large_to_check(shown, st.st_size)
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return ctx.reads.refusal(path, data, shown, redo)


def editor_has_unsaved(ctx: ToolContext, path: Path, data: bytes) -> bool:
    """Whether the person's editor holds ``path`` with text other than ``data`` (the bytes
    on disk): unsaved changes. False where no editor can say (``ToolContext.editor_text``).
    Blocking: call it from a worker thread."""
    if ctx.editor_text is None:
        return False
    held = ctx.editor_text(path)
    if held is None:
        return False
    return _comparable(held) != _comparable(decode_text(data).text)


def _comparable(text: str) -> str:
    """Text as editors hold it: line endings and a byte order mark do not count."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def unsaved_refusal(shown: str) -> str:
    """The refusal to change a file the person has unsaved changes to in their editor."""
    return (f"{shown} has unsaved changes in the person's editor, so it was not changed: "
            "writing it would clash with them. Tell the person, ask them to save or discard "
            "their changes, then read the file again")


def unsaved_note(shown: str) -> str:
    """What ``read_file`` tells the model about a file with unsaved changes in the editor."""
    return (f"Note: the person's editor holds unsaved changes to {shown}; what is shown is "
            "the file on disk. Changing it is refused until they save or discard them.")


def too_large_to_check(shown: str, size: int) -> str:
    """The refusal to change a file over ``MAX_FILE_BYTES``, which is never read whole."""
    return (f"{shown} is {size:,} bytes, more than the {MAX_FILE_BYTES:,} the file tools "
            "read and check before changing a file, so it was not changed. Change it with "
            "the shell tool instead (e.g. `sed -i`, or a script)")


def refuse_unseen(ctx: ToolContext, file_path: str, redo: str) -> None:
    """At validation, before any approval: reject a change of a file not read as it is now.

    Raises:
        ToolArgumentError: with ``existing_file_refusal``'s message.
    """
    refusal = existing_file_refusal(ctx, ctx.resolve(file_path), redo)
    if refusal:
        raise ToolArgumentError(refusal)


def path_field() -> Any:
    """The ``file_path`` field every file tool has, also accepted as ``path``."""
    return Field(
        validation_alias=AliasChoices("file_path", "path"),
        description="Path of the file, absolute or relative to the project folder; "
                    "`~` is expanded.",
    )


class FileParams(ToolParams):
    """Arguments of a tool that changes one file: at least its ``file_path``."""

    file_path: str = path_field()


class EditError(Exception):
    """An edit that cannot be applied; the message tells the model what to do instead."""

    def __init__(self, message: str, *, suggest_escalation: bool = False,
                 escalation_reason: str | None = None,
                 error_type: ErrorType = ErrorType.FAILED) -> None:
        super().__init__(message)
        self.message = message
        self.suggest_escalation = suggest_escalation
        self.escalation_reason = escalation_reason
        self.error_type = error_type


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


class ChangedText(Protocol):
    """What a ``FileChangeInvocation`` computes: the file's whole new text, and how the
    tool found where to change it."""

    @property
    def text(self) -> str:
        """The whole new text, line endings as the file has them."""
        ...

    @property
    def tier(self) -> str:
        """How the changed text was found (``ToolResult.edit_tier``): ``exact``,
        ``whitespace``, ``unescaped`` or ``model``."""
        ...


Out = TypeVar("Out", bound=ChangedText)
P = TypeVar("P", bound=FileParams)


class FileChangeInvocation(Invocation[P], Generic[P, Out]):
    """A change of part of one existing text file: what edit_file and str_replace share.

    The file must have been read in this session and be unchanged since (its content hash,
    see ``ReadLedger``): the tool's ``validate`` checks that before any approval, and
    ``execute`` checks it again on the very bytes it edits, right before writing. The bytes
    written differ only where the text changed: encoding, byte order mark and line endings
    stay as they were. Subclasses say what the change is (``change``) and how to report it.
    """

    title: ClassVar[str]
    """The confirmation title's verb, e.g. ``Edit``."""
    no_change: ClassVar[str] = ("the change leaves {shown} exactly as it is, so nothing "
                                "was written; check what you meant to change")
    """The failure when the new text equals the old; ``{shown}`` names the file."""

    @property
    def path(self) -> Path:
        """The file, resolved against the project folder."""
        return self.ctx.resolve(self.params.file_path)

    def locations(self) -> list[Path]:
        """The file edited."""
        return [self.path]

    @abstractmethod
    def change(self, original: TextFile, shown: str) -> Out:
        """Compute the change of ``original``.

        Raises:
            EditError: it cannot apply; the message says what to do instead.
        """

    @abstractmethod
    def report(self, outcome: Out, shown: str) -> str:
        """What the model is told after ``outcome`` was written."""

    async def prepare(self) -> None:
        """Compute the change and its syntax check in a worker thread once, so that the
        approval's ``confirmation`` finds the check's result kept instead of parsing the
        file on the event loop."""
        await asyncio.to_thread(self.confirmation)

    def confirmation(self) -> Confirmation | None:
        """The whole file before and after; None when the change cannot apply (execute fails)."""
        shown = display_path(self.ctx, self.path)
        try:
            data, original = load_for_edit(self.path, shown)
            outcome = self.change(original, shown)
            new = encode_like(outcome.text, original, shown)
        except EditError:
            return None
        syntax = check_edit(self.ctx.settings, self.path, shown, data, new)
        return Confirmation(kind="edit", title=f"{self.title} {shown}", path=self.path,
                            before=original.text, after=outcome.text,
                            warnings=tuple(syntax.warnings))

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Apply the change in a worker thread."""
        return await asyncio.to_thread(self._apply)

    def _apply(self) -> ToolResult:
        path, shown = self.path, display_path(self.ctx, self.path)
        try:
            data, original = load_for_edit(path, shown)
            # Checked again on the bytes about to be edited: the file may have changed
            # while the person looked at the diff.
            refusal = self.ctx.reads.refusal(path, data, shown, REDO_EDIT)
            if refusal:
                raise EditError(refusal)
            if editor_has_unsaved(self.ctx, path, data):
                raise EditError(unsaved_refusal(shown))
            outcome = self.change(original, shown)
            if outcome.text == original.text:
                raise EditError(self.no_change.format(shown=shown))
            new = encode_like(outcome.text, original, shown)
            syntax = check_edit(self.ctx.settings, path, shown, data, new)
            if syntax.refused:
                raise EditError(syntax.refusal())
        except EditError as exc:
            return ToolResult.failure(exc.message, suggest_escalation=exc.suggest_escalation,
                                      escalation_reason=exc.escalation_reason,
                                      error_type=exc.error_type)
        try:
            write_atomically(path, new, follow_symlinks=True)
        except OSError as exc:
            return ToolResult.failure(
                f"cannot write {shown}: {exc.strerror or exc}; the file is unchanged. Check "
                "its permissions and those of its folder")
        self.ctx.reads.record(path, new, current_stat(path))
        return ToolResult(syntax.result_text(self.report(outcome, shown)),
                          edit_tier=outcome.tier, warnings=syntax.warnings)
