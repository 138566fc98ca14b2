"""The read_file tool: a page of a text file, by lines or characters, streamed from disk.

A page never needs the whole file decoded: lines are cut from the bytes as they are read,
and reading stops after the page. The total line count is exact for files whose lines can be
counted within ``COUNT_BUDGET_BYTES`` (8 MB, a few milliseconds); past that the header says
"at least N lines" (those counted so far) with an estimate from the average line length.

Reading a file records its content hash in the agent's read ledger, which the edit tools
check (see ``ReadLedger``): the first read of a file the edit tools could change (up to
``MAX_FILE_BYTES``) hashes all of it; later pages of the unchanged file do not.
"""

from __future__ import annotations

import asyncio
import codecs
import io
import os
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import BinaryIO

from pydantic import Field

from ..core.text.text_files import BINARY_SAMPLE_BYTES, is_binary
from .base import (
    Invocation,
    OutputCallback,
    Tool,
    ToolArgumentError,
    ToolContext,
    ToolKind,
    ToolParams,
    ToolResult,
)
from .files import (
    MAX_FILE_BYTES,
    MAX_LINE_CHARS,
    display_path,
    editor_has_unsaved,
    file_failure,
    file_problem,
    number_line,
    path_field,
    unsaved_note,
)
from .images import read_images, sniff_image
from .names import ToolName
from .syntax_check import syntax_checker

MAX_LINES = 2_000
"""Lines read_file shows at most in one call."""
MAX_OUTPUT_CHARS = 200_000
"""Characters read_file returns at most in one call, whatever the line count."""
COUNT_BUDGET_BYTES = 8 * 1024 * 1024
"""Bytes read_file scans to count lines (and characters) beyond the page it shows."""
CHUNK_BYTES = 1024 * 1024
"""How much is read from disk at a time."""

_BREAK = re.compile(rb"\r\n|\r|\n")


# --------------------------------------------------------------------------- streaming


def _chunks(handle: BinaryIO) -> Iterator[bytes]:
    """The file's bytes in chunks that never end in ``\\r``, so no ``\\r\\n`` is split."""
    while chunk := handle.read(CHUNK_BYTES):
        while chunk.endswith(b"\r"):
            more = handle.read(1)
            if not more:
                break
            chunk += more
        yield chunk


def _count_breaks(chunk: bytes) -> int:
    """Line breaks in ``chunk``: ``\\n``, ``\\r\\n`` and bare ``\\r``, as ``split_lines``."""
    count = chunk.count(b"\n")
    if b"\r" in chunk:
        count += chunk.count(b"\r") - chunk.count(b"\r\n")
    return count


def _unterminated(last_byte: bytes) -> int:
    """1 when a file whose last byte is ``last_byte`` ends in a line without a line break."""
    return int(last_byte not in (b"", b"\n", b"\r"))


@dataclass(slots=True)
class _Count:
    """How many lines (or characters) a file has, as far as it was scanned.

    Attributes:
        known: The count so far; exact when ``exact``, else a lower bound.
        exact: True when the scan reached the end of the file.
        estimate: For an inexact count, the total extrapolated from what was scanned.
    """

    known: int
    exact: bool
    estimate: int = 0

    def text(self, unit: str) -> str:
        """E.g. ``3,000 lines`` or ``at least 90,000 lines (about 681,000 estimated)``."""
        if self.exact:
            return f"{self.known:,} {unit}"
        return f"at least {self.known:,} {unit} (about {self.estimate:,} estimated)"


@dataclass(slots=True)
class _LinePage:
    """Lines cut from a file, and what is known of the rest."""

    lines: list[bytes]
    more: bool
    total: _Count


def _read_lines(handle: BinaryIO, first: int, want: int, size: int) -> _LinePage:
    """Lines ``first`` .. ``first + want - 1`` (1-based) of an open file, without endings.

    Reads only up to the page, then counts the remaining line breaks while fewer than
    ``COUNT_BUDGET_BYTES`` have been scanned.
    """
    chunks = _chunks(handle)
    scanned = 0
    done = 0  # lines that ended before ``buf[pos:]``
    buf, pos, last = b"", 0, b""
    for chunk in chunks:
        scanned += len(chunk)
        last = chunk[-1:]
        breaks = _count_breaks(chunk)
        if done + breaks < first - 1:
            done += breaks
            continue
        skip = first - 1 - done
        if skip:
            pos = next(islice(_BREAK.finditer(chunk), skip - 1, None)).end()
        buf, done = chunk, first - 1
        break
    if not buf:  # the file ends before line ``first``
        return _LinePage([], False, _Count(done + _unterminated(last), True))
    lines: list[bytes] = []
    pending: list[bytes] = []
    eof = False
    while not eof and len(lines) < want:
        match = _BREAK.search(buf, pos)
        if match:
            pending.append(buf[pos:match.start()])
            lines.append(b"".join(pending))
            pending, pos = [], match.end()
            continue
        pending.append(buf[pos:])
        chunk = next(chunks, b"")
        if not chunk:
            eof = True
            if any(pending):
                lines.append(b"".join(pending))
            break
        scanned += len(chunk)
        buf, pos = chunk, 0
    counted = done + len(lines)
    if eof:
        return _LinePage(lines, False, _Count(counted, True))
    # Count what follows the page: complete lines, plus a last one without a line break.
    rest, last = buf[pos:], buf[-1:]
    more = bool(rest)
    counted += _count_breaks(rest)
    while scanned < COUNT_BUDGET_BYTES:
        chunk = next(chunks, b"")
        if not chunk:
            return _LinePage(lines, more, _Count(counted + _unterminated(last), True))
        more = True
        scanned += len(chunk)
        counted += _count_breaks(chunk)
        last = chunk[-1:]
    if scanned >= size:  # the budget ran out exactly at the end of the file
        return _LinePage(lines, more, _Count(counted + _unterminated(last), True))
    estimate = max(counted, round(counted * size / scanned))
    return _LinePage(lines, True, _Count(counted, False, estimate))


@dataclass(slots=True)
class _CharPage:
    """Characters ``start`` .. ``start + len(text)`` of a file, and its size in characters."""

    text: str
    total: _Count
    lines: _Count


def _read_chars(handle: BinaryIO, start: int, end: int | None, size: int) -> _CharPage:
    """Characters ``[start, end)`` of an open file (at most ``MAX_OUTPUT_CHARS``), as UTF-8.

    The file is decoded incrementally; after the range, decoding goes on only to count
    characters and lines, while fewer than ``COUNT_BUDGET_BYTES`` have been scanned.

    A UTF-8 byte order mark is not counted. When the bytes scanned are not UTF-8, the file
    is read as latin-1 (one byte, one character), as ``text_files.decode_text`` does; bytes past
    the scan are assumed to agree with it.
    """
    stop = start + MAX_OUTPUT_CHARS if end is None else min(end, start + MAX_OUTPUT_CHARS)
    decoder = codecs.getincrementaldecoder("utf-8")()
    pieces: list[str] = []
    chars = breaks = scanned = 0
    last = b""
    first_chunk = True
    for chunk in _chunks(handle):
        scanned += len(chunk)
        breaks += _count_breaks(chunk)
        last = chunk[-1:]
        if first_chunk and chunk.startswith(codecs.BOM_UTF8):
            chunk = chunk[len(codecs.BOM_UTF8):]
        first_chunk = False
        try:
            text = decoder.decode(chunk)
        except UnicodeDecodeError:
            return _latin1_chars(handle, start, end, size)
        lo, hi = chars, chars + len(text)
        if hi > start and lo < stop:
            pieces.append(text[max(start - lo, 0):min(stop, hi) - lo])
        chars = hi
        if chars >= stop and scanned >= COUNT_BUDGET_BYTES:
            if scanned < size:
                estimate = round(chars * size / scanned)
                line_estimate = round(breaks * size / scanned)
                return _CharPage("".join(pieces), _Count(chars, False, estimate),
                                 _Count(breaks, False, line_estimate))
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return _latin1_chars(handle, start, end, size)
    lines = breaks + _unterminated(last)
    return _CharPage("".join(pieces), _Count(chars, True), _Count(lines, True))


def _latin1_chars(handle: BinaryIO, start: int, end: int | None, size: int) -> _CharPage:
    """Characters of a latin-1 file: bytes, so the range is a seek away."""
    handle.seek(start)
    stop = min(size if end is None else end, start + MAX_OUTPUT_CHARS)
    data = handle.read(max(stop - start, 0))
    handle.seek(0)
    breaks, last = 0, b""
    for chunk in _chunks(handle):  # latin-1 files are rare and small; count them whole
        breaks += _count_breaks(chunk)
        last = chunk[-1:]
    lines = breaks + _unterminated(last)
    return _CharPage(data.decode("latin-1"), _Count(size, True), _Count(lines, True))


def _decode_lines(lines: list[bytes]) -> list[str]:
    """Decode lines as UTF-8, or all of them as latin-1 when any is not UTF-8."""
    try:
        return [line.decode("utf-8") for line in lines]
    except UnicodeDecodeError:
        return [line.decode("latin-1") for line in lines]


# --------------------------------------------------------------------------- the tool


class ReadFileParams(ToolParams):
    """Arguments of read_file."""

    file_path: str = path_field()
    start_line: int | None = Field(
        default=None, ge=1,
        description="First line to show, 1-indexed, inclusive. Not with start/end.")
    end_line: int | None = Field(
        default=None, ge=1,
        description="Last line to show, 1-indexed, inclusive. Not with start/end.")
    start: int | None = Field(
        default=None, ge=0,
        description="Character range: first character, 0-indexed, inclusive. "
                    "Not with start_line/end_line.")
    end: int | None = Field(
        default=None, ge=0,
        description="Character range: end, 0-indexed, exclusive. Not with start_line/end_line.")


class ReadFileTool(Tool):
    """Reads a text file, whole or a range of lines or characters, with numbered lines."""

    name = ToolName.READ_FILE
    kind = ToolKind.READ
    description = (
        "Read a text file. Lines are numbered like `    42: text`; the number, colon and "
        "space are not part of the file. Without a range the file is shown from the top, "
        f"up to {MAX_LINES:,} lines of up to {MAX_LINE_CHARS:,} characters; a longer file "
        "ends in a 'partial view' note saying how to read on. Pass start_line/end_line "
        "(1-indexed, inclusive) for a range of lines, or start/end (0-indexed, end "
        "exclusive) for a range of characters. Images are handed to read_image; other "
        "binary files and directories are rejected (list folders with the shell tool)."
    )
    Params = ReadFileParams

    def validate(self, params: ReadFileParams, ctx: ToolContext) -> None:
        """Reject mixed or reversed ranges."""
        lines = params.start_line is not None or params.end_line is not None
        chars = params.start is not None or params.end is not None
        if lines and chars:
            raise ToolArgumentError(
                "read_file takes either a line range (start_line/end_line) or a character "
                "range (start/end), not both; send only one of them")
        if (params.start_line is not None and params.end_line is not None
                and params.end_line < params.start_line):
            raise ToolArgumentError(
                f"end_line ({params.end_line}) is before start_line ({params.start_line}); "
                "send end_line >= start_line")
        if params.start is not None and params.end is not None and params.end < params.start:
            raise ToolArgumentError(
                f"end ({params.end}) is before start ({params.start}); send end >= start")

    def create_invocation(self, params: ReadFileParams, ctx: ToolContext) -> ReadFileInvocation:
        """Make the invocation."""
        return ReadFileInvocation(self, params, ctx)


class ReadFileInvocation(Invocation[ReadFileParams]):
    """One read_file call."""

    @property
    def path(self) -> Path:
        """The file, resolved against the project folder."""
        return self.ctx.resolve(self.params.file_path)

    def describe(self) -> str:
        """E.g. ``read_file src/a.py:10-20``."""
        p = self.params
        shown = display_path(self.ctx, self.path)
        if p.start_line is not None or p.end_line is not None:
            return f"read_file {shown}:{p.start_line or 1}-{p.end_line or 'end'}"
        if p.start is not None or p.end is not None:
            return f"read_file {shown} chars {p.start or 0}-{p.end if p.end is not None else 'end'}"
        return f"read_file {shown}"

    def locations(self) -> list[Path]:
        """The file read."""
        return [self.path]

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Read the file in a worker thread so a large file does not stall the event loop."""
        return await asyncio.to_thread(self.read)

    def read(self) -> ToolResult:
        """Read the page synchronously (what ``execute`` runs in a thread)."""
        path, shown = self.path, display_path(self.ctx, self.path)
        problem = file_problem(path, shown, max_bytes=None)
        if problem:
            return file_failure(problem)
        try:
            with path.open("rb") as handle:
                source, size = self._seen(handle)
                sample = source.read(BINARY_SAMPLE_BYTES)
                if sniff_image(sample[:12]):
                    return self._image(path, shown)
                if is_binary(sample):
                    return ToolResult.failure(
                        f"{shown} is a binary file ({size:,} bytes), not text, so it cannot "
                        f"be shown as text. Inspect it with the shell tool, e.g. "
                        f"`file {shlex.quote(shown)}` or `xxd {shlex.quote(shown)} | head`")
                source.seek(0)
                if self.params.start is not None or self.params.end is not None:
                    result = self._chars(source, shown, size)
                else:
                    result = self._lines(source, shown, size)
                if result.ok and self.ctx.editor_text is not None and size <= MAX_FILE_BYTES:
                    source.seek(0)
                    if editor_has_unsaved(self.ctx, path, source.read()):
                        result.llm_content = f"{unsaved_note(shown)}\n{result.llm_content}"
                return result
        except OSError as exc:
            return ToolResult.failure(f"cannot read {shown}: {exc.strerror or exc}")

    def _seen(self, handle: BinaryIO) -> tuple[BinaryIO, int]:
        """What to page from, and its size; records the file's hash in the read ledger.

        A file small enough to edit is read whole once: its hash is taken from the very
        bytes the page is cut from, so what the ledger says the agent saw is what it saw.
        Whatever page of it is shown, the whole file counts as read. When the ledger already
        holds the file with an unchanged ``stat``, it is paged from disk without hashing
        again (a stale entry can only refuse an edit, see ``ReadLedger``). Larger files are
        paged from disk and not recorded: the edit tools do not load them.
        """
        st = os.fstat(handle.fileno())
        if st.st_size > MAX_FILE_BYTES or self.ctx.reads.is_current(self.path, st):
            return handle, st.st_size
        data = handle.read()
        self.ctx.reads.record(self.path, data, st)
        syntax_checker.warm(self.path, data)  # an edit usually follows a read
        return io.BytesIO(data), len(data)

    def _image(self, path: Path, shown: str) -> ToolResult:
        result = read_images(self.ctx, [path])
        note = f"{shown} is an image, so read_file handed it to read_image"
        result.llm_content = (f"Error: {note}: {result.error}" if result.error
                              else f"[{note}]\n{result.llm_content}")
        return result

    def _lines(self, handle: BinaryIO, shown: str, size: int) -> ToolResult:
        p = self.params
        first = p.start_line or 1
        wanted = MAX_LINES if p.end_line is None else min(p.end_line - first + 1, MAX_LINES)
        page = _read_lines(handle, first, wanted, size)
        total = page.total
        about = f"{shown}: {size:,} bytes, {total.text('lines')}"
        if not page.lines:
            if total.known == 0 and first == 1:
                return ToolResult(f"[{about}]\n(the file is empty)")
            return ToolResult.failure(
                f"start_line={first} is past the end of {shown}, which has {total.known:,} "
                f"lines; pass a start_line from 1 to {total.known}")
        if first == 1 and page.lines[0].startswith(codecs.BOM_UTF8):
            page.lines[0] = page.lines[0][len(codecs.BOM_UTF8):]
        out: list[str] = []
        used = 0
        for number, line in enumerate(_decode_lines(page.lines), start=first):
            row = number_line(number, line)
            if out and used + len(row) > MAX_OUTPUT_CHARS:
                break
            out.append(row)
            used += len(row) + 1
        last = first + len(out) - 1
        past_page = len(out) < len(page.lines) or page.more
        partial = past_page and (p.end_line is None or last < p.end_line)
        header = f"[{about}"
        if p.start_line is not None or p.end_line is not None or partial:
            header += f"; showing lines {first}-{last}"
        if partial:
            header += " (partial view)"
        body = "\n".join([header + "]", *out])
        if partial:
            more = f"start_line={last + 1}" + (f", end_line={p.end_line}" if p.end_line else "")
            of = f"{total.known:,}" if total.exact else f"at least {total.known:,}"
            body += (f"\n[partial view: showing lines {first}-{last} of {of}. "
                     f"To read on, call read_file with {more}]")
        return ToolResult(body)

    def _chars(self, handle: BinaryIO, shown: str, size: int) -> ToolResult:
        first, end = self.params.start or 0, self.params.end
        page = _read_chars(handle, first, end, size)
        total = page.total
        about = f"{shown}: {size:,} bytes, {page.lines.text('lines')}"
        if first >= total.known and not (total.known == 0 and first == 0):
            return ToolResult.failure(
                f"start={first} is past the end of {shown}, which has "
                f"{total.text('characters')}; pass a start from 0 to {max(total.known - 1, 0)}")
        text = page.text[:MAX_OUTPUT_CHARS]
        shown_end = first + len(text)
        of = f"{total.known:,}" if total.exact else f"at least {total.known:,}"
        header = f"[{about}; showing characters {first}-{shown_end} of {of}"
        wanted_end = total.known if end is None else end
        if shown_end < wanted_end and (shown_end < total.known or not total.exact):
            more = f"start={shown_end}" + (f", end={end}" if end is not None else "")
            return ToolResult(
                f"{header} (partial view)]\n{text}\n[partial view: showing characters "
                f"{first}-{shown_end} of {of}. To read on, call read_file with {more}]")
        return ToolResult(f"{header}]\n{text}")
