"""What a previewed command changed: a copy of a folder compared with the folder.

The preview sandbox runs a command over a copy of the project; afterwards the copy is walked
again and each file whose inode, mode, size or times moved is compared byte by byte with the
original, then described for people: a unified diff for text, a line for binary files,
symlinks and mode changes.
"""

from __future__ import annotations

import difflib
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..text.text_files import decode_text, is_binary

MAX_DIFF_CHARS = 20_000
"""A longer diff of one file is cut with a note."""
MAX_TOTAL_DIFF_CHARS = 200_000
"""Past this many characters of diffs, further changes are listed without theirs."""
MAX_DIFF_FILE_BYTES = 1024 * 1024
"""A bigger file is reported by size, not diffed."""
ChangeKind = Literal["created", "modified", "deleted"]


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file a previewed command would change.

    Attributes:
        path: Project-relative for files in the project, absolute for ``watch`` folders.
        kind: ``created``, ``modified`` or ``deleted``.
        diff: A unified diff for text; for binary files and symlinks a line that says what
            changed (e.g. ``binary file, 120 bytes``).
    """

    path: str
    kind: ChangeKind
    diff: str


def walk_files(root: Path, skip: set[Path]) -> Iterator[tuple[str, os.stat_result]]:
    """Regular files and symlinks under ``root`` (not following links), by relative path."""
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            path = Path(entry.path)
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                if path not in skip:
                    stack.append(path)
            elif stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode):
                yield str(path.relative_to(root)), info


def compare_copy(original: Path, copy: Path, label: Callable[[str], str],
                 before: dict[str, os.stat_result], after: dict[str, os.stat_result],
                 budget: list[int]) -> list[FileChange]:
    """The changes in ``copy`` of the folder ``original``: ``before`` is the copy as made,
    ``after`` as the command left it (see :func:`walk_files`); ``label`` names a relative
    path for people; ``budget`` (one number) is the diff text still allowed, spent here."""
    changes: list[FileChange] = []
    for relative in sorted(before.keys() | after.keys()):
        old, new = before.get(relative), after.get(relative)
        old_path, new_path = original / relative, copy / relative
        if new is None:
            kind: ChangeKind = "deleted"
        elif old is None:
            kind = "created"
        elif _same_stat(old, new) or not _differs(old_path, new_path):
            continue
        else:
            kind = "modified"
        diff = _describe(label(relative), old_path if old else None,
                         new_path if new else None)
        if len(diff) > budget[0]:
            diff = "diff not shown: the preview's diff limit is reached"
        budget[0] -= len(diff)
        changes.append(FileChange(label(relative), kind, diff))
    return changes


def _same_stat(old: os.stat_result, new: os.stat_result) -> bool:
    return ((old.st_ino, old.st_mode, old.st_size, old.st_mtime_ns, old.st_ctime_ns)
            == (new.st_ino, new.st_mode, new.st_size, new.st_mtime_ns, new.st_ctime_ns))


def _differs(original: Path, copy: Path) -> bool:
    a, b = original.lstat(), copy.lstat()
    if stat.S_IFMT(a.st_mode) != stat.S_IFMT(b.st_mode) or a.st_mode != b.st_mode:
        return True
    if stat.S_ISLNK(a.st_mode):
        return os.readlink(original) != os.readlink(copy)
    return a.st_size != b.st_size or original.read_bytes() != copy.read_bytes()


def _describe(label: str, old: Path | None, new: Path | None) -> str:
    """A unified diff from ``old`` to ``new`` (None: absent), or a line saying what changed."""
    notes: list[str] = []
    old_info = old.lstat() if old else None
    new_info = new.lstat() if new else None
    if old_info and new_info and old_info.st_mode != new_info.st_mode:
        notes.append(f"mode {old_info.st_mode:o} → {new_info.st_mode:o}")
    old_text, old_note = _text(old, old_info)
    new_text, new_note = _text(new, new_info)
    if old_text is None or new_text is None:
        if old_note != new_note:
            notes.append(" → ".join(n for n in (old_note, new_note) if n))
        return "\n".join(notes)
    lines = list(difflib.unified_diff(
        old_text.splitlines(keepends=True), new_text.splitlines(keepends=True),
        fromfile=f"a/{label}" if old else "/dev/null",
        tofile=f"b/{label}" if new else "/dev/null"))
    diff = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in lines)
    if len(diff) > MAX_DIFF_CHARS:
        cut = diff.rfind("\n", 0, MAX_DIFF_CHARS) + 1
        diff = f"{diff[:cut]}… diff cut: {diff.count(chr(10), cut):,} more lines\n"
    return "\n".join(part for part in (*notes, diff.rstrip("\n")) if part)


def _text(path: Path | None, info: os.stat_result | None) -> tuple[str | None, str]:
    """``path``'s text for a diff (``""`` when absent), or None and a note saying what it is."""
    if path is None or info is None:
        return "", ""
    if stat.S_ISLNK(info.st_mode):
        return None, f"symlink to {os.readlink(path)}"
    if info.st_size > MAX_DIFF_FILE_BYTES:
        return None, f"file of {info.st_size:,} bytes, too big to diff"
    data = path.read_bytes()
    if is_binary(data):
        return None, f"binary file, {len(data):,} bytes"
    return decode_text(data).text, ""
