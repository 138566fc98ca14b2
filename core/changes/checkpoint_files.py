"""Putting a project's files back as a checkpoint holds them: write, recreate or remove.

Writes are atomic (``core.text.durable``: temporary sibling, fsync, rename), so a crash leaves a
file either as it was or as restored. Nothing is written through a symlinked folder: a turn that swapped
a folder for a link out of the project cannot make a restore write outside it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from ..text.durable import write_atomically
from .shadow_git import SYMLINK_MODE

EXECUTABLE_MODE = 0o100755


class UnsafePath(OSError):
    """A folder on the way to a file is a symlink or not a folder."""


def remove_file(root: Path, rel: str) -> None:
    """Remove ``root/rel`` (a file or a link, never followed) and the folders it empties."""
    target = _checked_target(root, rel)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(target)
    _prune_empty_parents(root, target.parent)


def put_file(root: Path, rel: str, data: bytes, git_mode: int) -> None:
    """Make ``root/rel`` hold ``data`` with the kind and executable bit of ``git_mode``.

    A symlink mode makes a link whose target is ``data``. An existing regular file keeps
    its permission bits apart from the executable ones.

    Raises:
        OSError: The file cannot be written (``UnsafePath`` for a symlinked folder).
    """
    target = _checked_target(root, rel)
    _make_parents(root, target.parent)
    try:
        current = os.lstat(target)
    except FileNotFoundError:
        current = None
    if current is not None and stat.S_ISDIR(current.st_mode):
        os.rmdir(target)  # only an empty folder may give way to a file
        current = None
    if git_mode == SYMLINK_MODE:
        if current is not None:
            os.unlink(target)
        os.symlink(os.fsdecode(data), target)
        return
    executable = git_mode == EXECUTABLE_MODE
    # A regular file's bits stay (a new file's come from the umask); only the x bits follow git.
    write_atomically(target, data, new_file_mode=0o666,
                     mode=lambda bits: bits | (bits & 0o444) >> 2 if executable else bits & ~0o111)


def _checked_target(root: Path, rel: str) -> Path:
    """``root/rel``, refusing paths that climb out or pass through a symlinked folder."""
    parts = Path(rel).parts
    if not parts or Path(rel).is_absolute() or ".." in parts or ".git" in parts:
        raise UnsafePath(f"{rel!r} is not a path inside the project")
    folder = root
    for part in parts[:-1]:
        folder = folder / part
        try:
            mode = os.lstat(folder).st_mode
        except FileNotFoundError:
            break
        if not stat.S_ISDIR(mode):
            raise UnsafePath(f"{folder.relative_to(root)} is a symlink or a file, not a "
                             "folder; move it away and restore again")
    return root.joinpath(*parts)


def _make_parents(root: Path, folder: Path) -> None:
    if folder != root:
        folder.mkdir(parents=True, exist_ok=True)


def _prune_empty_parents(root: Path, folder: Path) -> None:
    while folder != root and root in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent
