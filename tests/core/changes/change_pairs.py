"""Random before/after pairs of every kind a checkpoint can hold, and real files for them.

A side is a file as a checkpoint stores it, ``(bytes, git mode)``, or None when there is
no file: text with any line endings, with or without a final newline, a byte order mark,
latin-1 bytes and ``@@`` lines that look like a diff's hunk headers; empty files; binary
files; symlinks; the executable bit. ``write_side`` puts a side on disk and ``read_side``
reads it back, so a test compares what a revert left with what the checkpoint held.
"""

from __future__ import annotations

import codecs
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

PLAIN, EXECUTABLE, SYMLINK = 0o100644, 0o100755, 0o120000

Side = tuple[bytes, int] | None

_LINES = [
    "a",
    "b",
    "c",
    "@@",
    "@@ -1,2 +1,3 @@",
    "@@ hunk",
    "",
    "  x = 1",
    "\ttab",
    "é",
    "\x1b[31mred",
    "same",
    "same",
    "same",
]


@dataclass(frozen=True)
class Change:
    """A file's change as ``core.changes.checkpoints.FileChange`` gives it."""

    path: str
    before: bytes | None
    after: bytes | None
    before_mode: int | None
    after_mode: int | None
    outside: bool = False


def change_of(path: str, before: Side, after: Side, outside: bool = False) -> Change:
    """The ``Change`` of ``path`` from ``before`` to ``after``."""
    return Change(
        path,
        before[0] if before else None,
        after[0] if after else None,
        before[1] if before else None,
        after[1] if after else None,
        outside,
    )


@st.composite
def _text_pair(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """Two texts, the second an edit of the first (so they share lines and hunks)."""
    # Numbered lines between the pool's keep the edits apart: a file of several hunks.
    line = st.sampled_from(_LINES) | st.integers(0, 99).map(lambda n: f"line {n}")
    size = draw(st.integers(0, 50))
    before = draw(st.lists(line, min_size=size, max_size=size))
    after = list(before)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(after)))
        operation = draw(st.sampled_from(["insert", "delete", "replace"]))
        if operation == "insert" or at == len(after):
            after[at:at] = draw(st.lists(st.sampled_from(_LINES), min_size=1, max_size=3))
        elif operation == "delete":
            del after[at : at + draw(st.integers(1, 3))]
        else:
            after[at] = draw(st.sampled_from(_LINES))
    return _encode(draw, before), _encode(draw, after)


def _encode(draw: st.DrawFn, lines: list[str]) -> bytes:
    ending = draw(st.sampled_from(["\n", "\r\n", "\r", "mixed"]))
    if ending == "mixed":
        text = "".join(line + draw(st.sampled_from(["\n", "\r\n"])) for line in lines)
    else:
        text = "".join(line + ending for line in lines)
    if text and not draw(st.booleans()):
        text = text.rstrip("\r\n")  # no final newline
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8-sig", "latin-1"]))
    if encoding == "utf-8-sig":
        return codecs.BOM_UTF8 + text.encode()
    return text.encode(encoding)


_BINARY = st.binary(min_size=1, max_size=64).map(lambda data: b"\0" + data)
_TARGET = st.sampled_from(["a.txt", "../outside", "sub/dir", "gone", "é"]).map(str.encode)
_FILE_MODE = st.sampled_from([PLAIN, EXECUTABLE])


@st.composite
def change_pair(draw: st.DrawFn) -> tuple[Side, Side]:
    """A before and an after that differ, of one of the kinds a checkpoint holds."""
    kind = draw(
        st.sampled_from(
            ["text"] * 6
            + [
                "created",
                "deleted",
                "empty created",
                "empty deleted",
                "emptied",
                "binary",
                "symlink",
                "mode",
                "file to symlink",
                "bom only",
            ]
        )
    )
    mode = draw(_FILE_MODE)
    if kind == "text":
        old, new = draw(_text_pair().filter(lambda pair: pair[0] != pair[1]))
        return (old, mode), (new, draw(_FILE_MODE))
    if kind in ("created", "deleted"):
        text = draw(_text_pair())[1] or b"x"
        return (None, (text, mode)) if kind == "created" else ((text, mode), None)
    if kind == "empty created":
        return None, (b"", mode)
    if kind == "empty deleted":
        return (b"", mode), None
    if kind == "emptied":
        text = draw(_text_pair())[0] or b"x\n"
        return (text, mode), (b"", mode)
    if kind == "binary":
        old, new = draw(st.tuples(st.none() | _BINARY, _BINARY).filter(lambda p: p[0] != p[1]))
        return (None if old is None else (old, mode)), (new, mode)
    if kind == "symlink":
        old, new = draw(st.tuples(_TARGET, _TARGET).filter(lambda p: p[0] != p[1]))
        return (old, SYMLINK), (new, SYMLINK)
    if kind == "mode":
        text = draw(_text_pair())[0]
        return (text, PLAIN), (text, EXECUTABLE)
    if kind == "file to symlink":
        pair = ((b"plain\n", mode), (draw(_TARGET), SYMLINK))
        return pair if draw(st.booleans()) else (pair[1], pair[0])
    return (b"same\n", mode), (codecs.BOM_UTF8 + b"same\n", mode)  # bom only


def write_side(path: Path, side: Side) -> None:
    """Make ``path`` hold ``side`` (a file with its executable bit, a symlink, or nothing)."""
    if path.is_symlink() or path.exists():
        path.unlink()
    if side is None:
        return
    data, mode = side
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode == SYMLINK:
        os.symlink(os.fsdecode(data), path)
        return
    path.write_bytes(data)
    path.chmod(0o755 if mode == EXECUTABLE else 0o644)


def read_side(path: Path) -> Side:
    """What ``path`` holds now, as a side."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        return os.fsencode(os.readlink(path)), SYMLINK
    return path.read_bytes(), EXECUTABLE if info.st_mode & stat.S_IXUSR else PLAIN
