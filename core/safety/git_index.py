"""The paths a git index holds: what ``git ls-files`` prints, read without running git.

The index (``.git/index``, format versions 2 to 4) lists every tracked path, also those not
in the working tree (deleted, or left out by a sparse checkout), so a judgement about the
names ``git ls-files`` prints reads them here rather than from the folder.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

_HEADER = struct.Struct(">4sII")
_STAT_BYTES = 40
"""ctime, mtime, dev, ino, mode, uid, gid, size: ten 32-bit fields."""


class IndexUnreadable(ValueError):
    """The index is not one agent-tui can read (another format, a split index, damage)."""


def index_paths(git_dir: Path, hash_bytes: int = 20) -> list[str]:
    """Every path in ``git_dir``'s index, as git stores it (``/``-separated, from the top).

    Args:
        git_dir: The repository's git folder.
        hash_bytes: 20 for SHA-1 repositories, 32 for SHA-256 ones.

    Raises:
        IndexUnreadable: the index cannot be read as a version 2-4 index.
    """
    try:
        data = (git_dir / "index").read_bytes()
    except FileNotFoundError:
        return []  # a repository without commits or staged files lists nothing
    except OSError as error:
        raise IndexUnreadable(str(error)) from error
    if len(data) < _HEADER.size:
        raise IndexUnreadable("too short")
    signature, version, count = _HEADER.unpack_from(data)
    if signature != b"DIRC" or version not in (2, 3, 4):
        raise IndexUnreadable(f"signature {signature!r}, version {version}")
    entries = list(_entries(data, count, version, hash_bytes))
    end = entries[-1][1] if entries else _HEADER.size
    if _has_extension(data, end, hash_bytes, b"link"):
        # A split index keeps entries in a shared file: the names here are not all of them.
        raise IndexUnreadable("a split index")
    return [name for name, _ in entries]


def _entries(data: bytes, count: int, version: int, hash_bytes: int) -> Iterator[tuple[str, int]]:
    """``(path, offset after the entry)`` for each entry."""
    at = _HEADER.size
    previous = b""
    for _ in range(count):
        start = at
        flags_at = at + _STAT_BYTES + hash_bytes
        if flags_at + 2 > len(data):
            raise IndexUnreadable("cut short")
        (flags,) = struct.unpack_from(">H", data, flags_at)
        at = flags_at + 2
        if version >= 3 and flags & 0x4000:
            at += 2
        if version == 4:
            strip, at = _varint(data, at)
            end = data.find(b"\0", at)
            if end < 0 or strip > len(previous):
                raise IndexUnreadable("a damaged path")
            name = previous[: len(previous) - strip] + data[at:end]
            at = end + 1
        else:
            end = data.find(b"\0", at)
            if end < 0:
                raise IndexUnreadable("a damaged path")
            name = data[at:end]
            at = start + ((end - start) // 8 + 1) * 8  # NUL padding to a multiple of 8
        previous = name
        yield name.decode("utf-8", "surrogateescape"), at


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """git's offset encoding (``varint.c``): the value and where the next field starts."""
    if at >= len(data):
        raise IndexUnreadable("cut short")
    byte = data[at]
    at += 1
    value = byte & 0x7F
    while byte & 0x80:
        if at >= len(data):
            raise IndexUnreadable("cut short")
        byte = data[at]
        at += 1
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, at


def _has_extension(data: bytes, at: int, hash_bytes: int, wanted: bytes) -> bool:
    """Whether the index carries the extension ``wanted`` (its extensions start at ``at``)."""
    end = len(data) - hash_bytes
    while at + 8 <= end:
        signature = data[at : at + 4]
        (size,) = struct.unpack_from(">I", data, at + 4)
        if signature == wanted:
            return True
        at += 8 + size
    return False
