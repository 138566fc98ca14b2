"""Text file helpers shared by the file tools: decoding, binary sniffing and atomic writes."""

from __future__ import annotations

import codecs
import contextlib
import os
import re
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

BINARY_SAMPLE_BYTES = 4096
"""How much of a file ``is_binary`` looks at."""

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_BARE_LF = re.compile(r"(?<!\r)\n")
# Control characters that do not occur in ordinary text (tab, LF, FF, CR and ESC do).
_CONTROL_BYTES = frozenset(range(0x20)) - {0x08, 0x09, 0x0A, 0x0C, 0x0D, 0x1B} | {0x7F}


@dataclass(frozen=True, slots=True)
class TextFile:
    """A decoded text file.

    Attributes:
        text: The content, line endings as they are in the file.
        encoding: ``utf-8`` or, when the bytes are not valid UTF-8, ``latin-1``.
        bom: True when the file starts with a UTF-8 byte order mark (not part of ``text``).
        newline: The dominant line ending: ``"\\n"``, ``"\\r\\n"`` or ``"\\r"`` (``"\\n"`` when
            the file has no line break).
    """

    text: str
    encoding: str
    bom: bool
    newline: str


def decode_text(data: bytes) -> TextFile:
    """Decode file bytes as UTF-8 (with or without BOM), falling back to latin-1."""
    bom = data.startswith(codecs.BOM_UTF8)
    try:
        text, encoding = data[len(codecs.BOM_UTF8) if bom else 0:].decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        # latin-1 decodes any bytes (a stray BOM included) and writes them back unchanged.
        text, encoding, bom = data.decode("latin-1"), "latin-1", False
    return TextFile(text=text, encoding=encoding, bom=bom, newline=detect_newline(text))


def read_text(path: str | os.PathLike[str]) -> TextFile:
    """Read and decode a text file; see ``decode_text``.

    Raises:
        OSError: The file cannot be read.
    """
    return decode_text(Path(path).read_bytes())


def detect_newline(text: str) -> str:
    """The most frequent line ending of ``text``; ``"\\n"`` on a tie or without line breaks."""
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    cr = text.count("\r") - crlf
    if crlf > lf and crlf >= cr:
        return "\r\n"
    if cr > lf and cr > crlf:
        return "\r"
    return "\n"


def split_lines(text: str) -> list[str]:
    """Split ``text`` into lines without their endings, as editors count them.

    Any of ``\\r\\n``, ``\\r`` and ``\\n`` ends a line; a final line break does not start a
    new, empty line, so ``"a\\nb\\n"`` has two lines and ``""`` has none.
    """
    lines = _LINE_BREAK.split(text)
    if lines[-1] == "":
        lines.pop()
    return lines


def line_starts(text: str) -> list[int]:
    """The offset where each line of ``text`` begins (line breaks as in ``split_lines``).

    ``bisect.bisect_right(line_starts(text), offset)`` is the 1-based line of ``offset``.
    """
    return [0, *(match.end() for match in _LINE_BREAK.finditer(text))]


def to_newline(text: str, newline: str) -> str:
    """Turn every bare ``\\n`` of ``text`` into ``newline``; existing ``\\r\\n`` stay."""
    if newline == "\n":
        return text
    return _BARE_LF.sub(lambda _: newline, text)


def is_binary(sample: bytes) -> bool:
    """Guess whether ``sample`` (the start of a file) is binary rather than text.

    Binary means a NUL byte in the first 4 KB, or more than 30% non-printable bytes there:
    control characters other than tab, line breaks, form feed, backspace and escape, and,
    when the sample is not UTF-8, the C1 controls 0x80-0x9F of latin-1.
    """
    sample = sample[:BINARY_SAMPLE_BYTES]
    if not sample:
        return False
    if b"\0" in sample:
        return True
    non_printable = sum(1 for byte in sample if byte in _CONTROL_BYTES)
    if not _is_utf8_prefix(sample):
        non_printable += sum(1 for byte in sample if 0x80 <= byte <= 0x9F)
    return non_printable > 0.3 * len(sample)


def _is_utf8_prefix(sample: bytes) -> bool:
    """True when ``sample`` is valid UTF-8, allowing a sequence cut off at the end."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(sample, final=False)
    except UnicodeDecodeError:
        return False
    return True


def encode_text(text: str, *, encoding: str = "utf-8", bom: bool = False,
                newline: str | None = None) -> bytes:
    """The bytes of ``text`` as a file holds them.

    Args:
        text: The content.
        encoding: The codec to encode ``text`` with.
        bom: Start with a UTF-8 byte order mark.
        newline: If given, every bare ``\\n`` of ``text`` becomes this line ending.

    Raises:
        UnicodeEncodeError: ``text`` has a character ``encoding`` cannot hold.
    """
    if newline is not None:
        text = to_newline(text, newline)
    data = text.encode(encoding)
    return codecs.BOM_UTF8 + data if bom else data


def unencodable(text: str, encoding: str) -> str:
    """The distinct characters of ``text`` that ``encoding`` cannot hold, in order of use."""
    found: dict[str, None] = {}
    for char in text:
        if char not in found:
            try:
                char.encode(encoding)
            except UnicodeEncodeError:
                found[char] = None
    return "".join(found)


def atomic_write_text(
    path: str | os.PathLike[str],
    text: str,
    *,
    encoding: str = "utf-8",
    bom: bool = False,
    newline: str | None = None,
) -> int:
    """Replace a file's content with ``text`` so that a crash never leaves it half-written.

    ``encode_text`` makes the bytes, ``atomic_write_bytes`` writes them.

    Returns:
        The number of bytes written.

    Raises:
        OSError: The file or its temporary sibling cannot be written; the target is unchanged.
        UnicodeEncodeError: ``text`` cannot be encoded in ``encoding``; nothing was written.
    """
    data = encode_text(text, encoding=encoding, bom=bom, newline=newline)
    atomic_write_bytes(path, data)
    return len(data)


TEMP_MARK = ".agent-tui-"
"""Part of every temporary file's name: ``.NAME.agent-tui-PID-RANDOM.tmp``."""
WRITE_CHUNK_BYTES = 1024 * 1024
"""Bytes handed to one ``write`` call."""
TEMP_NAME_CHARS = 100
"""Characters of the target's name a temporary file's name keeps."""


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace a file's bytes so that a crash leaves either the old or the new content.

    The bytes go to a temporary file in the same folder (``.NAME.agent-tui-PID-RANDOM.tmp``),
    which is synced and then renamed over the target; the folder is synced last, so the
    rename survives a power cut too. An existing file keeps its mode bits (and, where
    permitted, its owner and group); a new one gets 0o644 less the umask. A symlink is
    followed: its target changes. Temporary files that a killed writer left next to the
    target are removed (those of live processes are left alone).

    Raises:
        OSError: The file or its temporary sibling cannot be written; the target is unchanged.
    """
    target = Path(os.path.realpath(path))
    try:
        old: os.stat_result | None = target.stat()
    except FileNotFoundError:
        old = None
    _remove_stale_temporaries(target)
    tmp, fd = _create_sibling(target)
    try:
        try:
            if old is not None:
                os.fchmod(fd, stat.S_IMODE(old.st_mode))
                if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
                    # Only root (or a member of the group) may; others get their own.
                    with contextlib.suppress(OSError):
                        os.fchown(fd, old.st_uid, old.st_gid)
                    # chown clears set-user-ID bits; put the mode back.
                    os.fchmod(fd, stat.S_IMODE(old.st_mode))
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_dir(target.parent)


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data``; ``os.write`` may write less than it is given."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view[:WRITE_CHUNK_BYTES])
        view = view[written:]


def temporary_prefix(target: Path) -> str:
    """The start of the names of ``target``'s temporary files.

    A very long name is cut, so that the temporary name stays within the 255 bytes most
    file systems allow.
    """
    return f".{target.name[:TEMP_NAME_CHARS]}{TEMP_MARK}"


def _create_sibling(target: Path) -> tuple[Path, int]:
    """Create a new, uniquely named temporary file next to ``target``."""
    while True:
        tmp = target.with_name(
            f"{temporary_prefix(target)}{os.getpid()}-{secrets.token_hex(4)}.tmp")
        try:
            # 0o644 here lets the kernel apply the umask for new files.
            return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue


def _remove_stale_temporaries(target: Path) -> None:
    """Delete ``target``'s temporary files whose writer is no longer running."""
    prefix = temporary_prefix(target)
    try:
        entries = [e.name for e in os.scandir(target.parent)
                   if e.name.startswith(prefix) and e.name.endswith(".tmp")]
    except OSError:
        return
    for name in entries:
        pid_text = name[len(prefix):].split("-", 1)[0]
        if not pid_text.isdigit() or _is_running(int(pid_text)):
            continue
        with contextlib.suppress(OSError):
            (target.parent / name).unlink()


def _is_running(pid: int) -> bool:
    """Whether a process ``pid`` exists (ours counts: another thread may be writing)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: it exists, under another user
        return True
    return True


def _fsync_dir(directory: Path) -> None:
    """Persist a rename; some file systems cannot open or sync folders, which is harmless."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
