"""What a checkpoint holds: the project's files a person would track, within set limits.

git lists the candidates (every file its ignore rules keep: the project's ``.gitignore``
files at every level, its ``.git/info/exclude``, and :data:`NEVER_TRACKED`); this module
then leaves out what no project tracks but git cannot name by pattern (virtual
environments, nested repositories, files over ``max_file_bytes``) and refuses a folder with
more than ``max_files`` of them, so that one snapshot's cost stays bounded.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

NEVER_TRACKED = (
    "node_modules/",
    "__pycache__/",
    ".cache/",
    ".mypy_cache/",
    ".pytest_cache/",
    ".ruff_cache/",
    ".tox/",
    ".nox/",
)
"""Folders left out of every snapshot, wherever they are (gitignore patterns): installed
packages and caches that tools rebuild, and that no project keeps in git."""

VENV_MARKER = "pyvenv.cfg"
"""The file every Python virtual environment has at its top (PEP 405)."""


class CheckpointSettings(Protocol):
    """The settings :class:`SnapshotLimits` come from."""

    checkpoint_max_files: int
    checkpoint_max_file_mb: float
    checkpoint_timeout: float


@dataclass(frozen=True, slots=True)
class SnapshotLimits:
    """How much one snapshot may hold and take.

    Attributes:
        max_files: More files than this to snapshot and checkpoints are off for the
            folder (``checkpoint_max_files``).
        max_file_bytes: Larger files are left out of the snapshots (``checkpoint_max_file_mb``).
        timeout: Seconds the loop waits for a snapshot before the turn goes on without
            it, the hashing going on in the background (``checkpoint_timeout``); also the
            time a listing of the folder may take before it counts as too big. None: no
            limit.
    """

    max_files: int = 50_000
    max_file_bytes: int = 5 * 1024 * 1024
    timeout: float | None = 5.0

    @classmethod
    def of(cls, settings: CheckpointSettings) -> SnapshotLimits:
        """The limits the ``checkpoint_*`` settings set."""
        return cls(
            settings.checkpoint_max_files,
            int(settings.checkpoint_max_file_mb * 1024 * 1024),
            settings.checkpoint_timeout,
        )


class FolderTooBig(Exception):
    """The folder holds more files to snapshot than the limit; the message says what to do.

    Attributes:
        count: How many files it holds (None when listing them took too long).
    """

    def __init__(self, message: str, count: int | None) -> None:
        super().__init__(message)
        self.count = count


@dataclass(slots=True)
class Selection:
    """The files one snapshot holds, and what it left out.

    Attributes:
        files: Project-relative paths (POSIX separators) to record, sorted.
        too_large: Files left out for their size.
        venvs: Virtual environments left out (``folder/``).
        nested: Nested repositories left out (``folder/``).
    """

    files: list[str] = field(default_factory=list)
    too_large: list[str] = field(default_factory=list)
    venvs: list[str] = field(default_factory=list)
    nested: list[str] = field(default_factory=list)


def too_big_message(count: int | None, limits: SnapshotLimits) -> str:
    """What the person is told once when a folder is too big to snapshot."""
    if count is None:
        what = f"listing its files took longer than checkpoint_timeout ({limits.timeout:g} s)"
    else:
        what = f"{count:,} files, more than checkpoint_max_files ({limits.max_files:,})"
    return (
        f"Checkpoints are off for this folder: {what}. /undo and /rewind cannot restore "
        "files in this session. Open the project's own folder, add what need not be "
        "snapshotted to .gitignore, or raise checkpoint_max_files in config.toml."
    )


def select_files(work_tree: Path, listed: list[str], limits: SnapshotLimits) -> Selection:
    """The files of ``listed`` (git's untracked listing of ``work_tree``) to snapshot.

    Raises:
        FolderTooBig: More than ``limits.max_files`` files remain.
    """
    selection = Selection()
    selection.nested = [p for p in listed if p.endswith("/")]  # how git lists a repository
    venvs = {
        p[: -len(VENV_MARKER)] for p in listed if p.endswith("/" + VENV_MARKER)
    }  # "env/pyvenv.cfg" -> "env/"
    selection.venvs = sorted(venvs)
    candidates = [p for p in listed if not p.endswith("/") and not _under(p, venvs)]
    if len(candidates) > limits.max_files:
        raise FolderTooBig(too_big_message(len(candidates), limits), len(candidates))
    readable = _readable_check()
    for rel in candidates:
        try:
            info = os.lstat(os.path.join(work_tree, rel))
        except OSError:
            continue  # gone since git listed it
        if stat.S_ISLNK(info.st_mode):
            selection.files.append(rel)
        elif stat.S_ISREG(info.st_mode):
            if info.st_size > limits.max_file_bytes:
                selection.too_large.append(rel)
            elif readable(info):  # git would stop at a file it cannot read
                selection.files.append(rel)
    selection.files.sort()
    return selection


def is_venv(work_tree: Path, folder: str) -> bool:
    """Whether ``folder`` (project-relative, ending with ``/``) is a virtual environment."""
    return os.path.isfile(os.path.join(work_tree, folder, VENV_MARKER))


def excluded(folder: str) -> str:
    """A command-line exclude pattern for exactly ``folder`` (relative, ending with ``/``)."""
    escaped = "".join("\\" + c if c in "*?[\\" else c for c in folder)
    return f"--exclude=/{escaped}"


def _readable_check() -> Callable[[os.stat_result], bool]:
    """Whether this process may read a file, from its stat alone (no more system calls)."""
    if not hasattr(os, "geteuid") or os.geteuid() == 0:
        return lambda info: True
    uid, groups = os.geteuid(), {os.getegid(), *os.getgroups()}

    def readable(info: os.stat_result) -> bool:
        if info.st_uid == uid:
            return bool(info.st_mode & stat.S_IRUSR)
        if info.st_gid in groups:
            return bool(info.st_mode & stat.S_IRGRP)
        return bool(info.st_mode & stat.S_IROTH)

    return readable


def _under(rel: str, folders: set[str]) -> bool:
    """Whether ``rel`` lies in one of ``folders`` (each ending with ``/``)."""
    if not folders:
        return False
    end = rel.find("/")
    while end != -1:
        if rel[: end + 1] in folders:
            return True
        end = rel.find("/", end + 1)
    return False
