"""Text files as agent-tui reads and writes them: decoding, binary sniffing, encodings, line
endings and atomic text writes.

Tools read and write project files with it, and so does the engine where it reviews or
previews changes; a file written back keeps its encoding, byte order mark and line endings.
"""

from __future__ import annotations

import codecs
import os
import re
from dataclasses import dataclass
from pathlib import Path

from .durable import write_atomically

BINARY_SAMPLE_BYTES = 4096
"""How much of a file ``is_binary`` looks at."""

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


def to_newline(text: str, newline: str) -> str:
    """Turn every bare ``\\n`` of ``text`` into ``newline``; existing ``\\r\\n`` stay."""
    if newline == "\n":
        return text
    return _BARE_LF.sub(lambda _: newline, text)


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


def encoding_for(text: str, preferred: str) -> str:
    """``preferred`` if it can encode ``text``, else UTF-8 (a latin-1 file gaining emoji)."""
    try:
        text.encode(preferred)
    except UnicodeEncodeError:
        return "utf-8"
    return preferred


def atomic_write_text(
    path: str | os.PathLike[str],
    text: str,
    *,
    encoding: str = "utf-8",
    bom: bool = False,
    newline: str | None = None,
) -> int:
    """Replace a file's content with ``text`` so that a crash never leaves it half-written.

    ``encode_text`` makes the bytes; ``core.text.durable.write_atomically`` writes them, so an
    existing file keeps its mode bits and a symlink is followed (its target changes).

    Returns:
        The number of bytes written.

    Raises:
        OSError: The file or its temporary sibling cannot be written; the target is unchanged.
        UnicodeEncodeError: ``text`` cannot be encoded in ``encoding``; nothing was written.
    """
    data = encode_text(text, encoding=encoding, bom=bom, newline=newline)
    write_atomically(path, data, follow_symlinks=True)
    return len(data)
