"""The write_file tool: create a file or replace its whole content, atomically.

Replacing an existing file needs a read first, as every edit does (see ``ReadLedger``):
checked when the call is validated and again right before writing.
"""

from __future__ import annotations

import asyncio
import contextlib
import stat
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from ..core.text.durable import write_atomically
from ..core.text.text_files import (
    BINARY_SAMPLE_BYTES,
    TextFile,
    decode_text,
    encode_text,
    encoding_for,
    is_binary,
    to_newline,
)
from .base import (
    Confirmation,
    Invocation,
    OutputCallback,
    Tool,
    ToolContext,
    ToolKind,
    ToolResult,
)
from .files import (
    MAX_FILE_BYTES,
    REDO_WRITE,
    FileParams,
    current_stat,
    display_path,
    editor_has_unsaved,
    refuse_unseen,
    too_large_to_check,
    unsaved_refusal,
)
from .names import ToolName
from .syntax_check import check_edit


class WriteFileParams(FileParams):
    """Arguments of write_file."""

    content: str = Field(description="The complete new content of the file.")
    create_directories: bool = Field(
        default=True, description="Create missing parent folders (default true).")


class WriteFileTool(Tool):
    """Creates a file or replaces its whole content."""

    name = ToolName.WRITE_FILE
    kind = ToolKind.EDIT
    description = (
        "Create a file or replace its whole content. Missing parent folders are created "
        "unless create_directories is false. An existing file must have been read with "
        "read_file first (and not changed since); it keeps its encoding, byte order mark "
        "and line endings. To change part of a file, prefer edit_file."
    )
    Params = WriteFileParams

    def validate(self, params: WriteFileParams, ctx: ToolContext) -> None:
        """Reject replacing an existing file that was not read, or changed since."""
        refuse_unseen(ctx, params.file_path, REDO_WRITE)

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

    async def prepare(self) -> None:
        """Compute the confirmation's syntax check in a worker thread once (see
        ``FileChangeInvocation.prepare``)."""
        await asyncio.to_thread(self.confirmation)

    def confirmation(self) -> Confirmation:
        """The whole file before and after."""
        data = None
        st = current_stat(self.path)
        if st is not None and stat.S_ISREG(st.st_mode) and st.st_size <= MAX_FILE_BYTES:
            with contextlib.suppress(OSError):
                data = self.path.read_bytes()
        plan = self._plan(data)
        details = (f"replaces a binary file of {plan.binary_size:,} bytes"
                   if plan.binary_size is not None else "")
        new = encode_text(plan.text, encoding=plan.encoding, bom=plan.bom)
        syntax = check_edit(self.ctx.settings, self.path, display_path(self.ctx, self.path),
                            None if plan.binary_size is not None else data, new)
        return Confirmation(
            kind="edit", title=f"Write {display_path(self.ctx, self.path)}", path=self.path,
            before=plan.existing.text if plan.existing else "", after=plan.text,
            details=details, warnings=tuple(syntax.warnings))

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Write the file in a worker thread."""
        return await asyncio.to_thread(self._write)

    def _plan(self, data: bytes | None) -> _WritePlan:
        """The bytes to write over ``data``, the current content (None: no file yet)."""
        content = self.params.content
        if data is None:
            return _WritePlan(None, None, content, encoding_for(content, "utf-8"), False)
        if is_binary(data[:BINARY_SAMPLE_BYTES]):
            return _WritePlan(None, len(data), content, "utf-8", False)
        existing = decode_text(data)
        text = content if "\r\n" in content else to_newline(content, existing.newline)
        if existing.bom and text.startswith("\ufeff"):
            text = text[1:]
        encoding = encoding_for(text, existing.encoding)
        return _WritePlan(existing, None, text, encoding, existing.bom and encoding == "utf-8")

    def _prepare_folder(self, shown: str) -> str | None:
        """Create missing parent folders as asked; the reason it cannot, or None."""
        path = self.path
        if path.is_dir():
            return f"{shown} is a directory; pass the path of a file (inside it, for example)"
        parent = path.parent
        if parent.is_dir():
            return None
        if parent.exists():
            return f"cannot create {shown}: {parent} is a file, not a folder; choose another path"
        if not self.params.create_directories:
            return (f"the folder {parent} does not exist; call write_file with "
                    "create_directories=true or create the folder first")
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return (f"cannot create the folder {parent}: {exc.strerror or exc}; "
                    "choose a writable path")
        return None

    def _write(self) -> ToolResult:
        path, shown = self.path, display_path(self.ctx, self.path)
        problem = self._prepare_folder(shown)
        if problem:
            return ToolResult.failure(problem)
        st = current_stat(path)
        if st is not None and not stat.S_ISREG(st.st_mode):
            return ToolResult.failure(
                f"{shown} is not a regular file (a device, pipe or socket); write_file only "
                "replaces regular files. Choose another path")
        if st is not None and st.st_size > MAX_FILE_BYTES:
            return ToolResult.failure(too_large_to_check(shown, st.st_size))
        try:
            data: bytes | None = path.read_bytes()
        except FileNotFoundError:
            data = None
        except OSError as exc:
            return ToolResult.failure(
                f"cannot read {shown} to replace it: {exc.strerror or exc}; the file is "
                "unchanged. Check its permissions")
        if data is not None:
            # Checked again here: the file may have changed while the person looked at the
            # diff, or appeared since the call was validated.
            refusal = self.ctx.reads.refusal(path, data, shown, REDO_WRITE)
            if refusal:
                return ToolResult.failure(refusal)
            if editor_has_unsaved(self.ctx, path, data):
                return ToolResult.failure(unsaved_refusal(shown))
        plan = self._plan(data)
        new = encode_text(plan.text, encoding=plan.encoding, bom=plan.bom)
        syntax = check_edit(self.ctx.settings, path, shown,
                            None if plan.binary_size is not None else data, new)
        if syntax.refused:
            return ToolResult.failure(syntax.refusal())
        try:
            write_atomically(path, new, follow_symlinks=True)
        except OSError as exc:
            return ToolResult.failure(
                f"cannot write {shown}: {exc.strerror or exc}; the file is unchanged. Check "
                "the path and its permissions")
        self.ctx.reads.record(path, new, current_stat(path))
        note = ""
        if plan.existing and plan.encoding != plan.existing.encoding:
            note = f"; re-encoded from {plan.existing.encoding} to {plan.encoding}"
        return ToolResult(syntax.result_text(
            f"Wrote {len(new)} bytes to {shown} "
            f"({'created' if data is None else 'overwritten'}{note})"),
            warnings=syntax.warnings)
