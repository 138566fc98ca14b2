"""Durable file writes: a crash or a power cut leaves a file with its old or its new bytes.

Every whole-file write of agent-tui goes through :func:`write_atomically`: the bytes go to a
temporary sibling (``.NAME.agent-tui-PID-RANDOM.tmp``), which is synced and renamed over
the target, and the folder is synced last so that the rename survives a power cut too.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path

TEMP_MARK = ".agent-tui-"
"""Part of every temporary file's name: ``.NAME.agent-tui-PID-RANDOM.tmp``."""
WRITE_CHUNK_BYTES = 1024 * 1024
"""Bytes handed to one ``write`` call."""
TEMP_NAME_CHARS = 100
"""Characters of the target's name a temporary file's name keeps."""
NEW_FILE_MODE = 0o644
"""The permission bits of a new file, less the umask, unless the caller says otherwise."""

Mode = int | Callable[[int], int] | None
"""What permission bits a written file gets; see :func:`write_atomically`."""


def write_atomically(path: str | os.PathLike[str], data: bytes, *, mode: Mode = None,
                     new_file_mode: int = NEW_FILE_MODE, follow_symlinks: bool = False) -> None:
    """Replace the file at ``path`` so that a crash leaves either the old or the new bytes.

    Temporary files that a killed writer left next to the
    target are removed (those of live processes are left alone).

    Args:
        path: The file to write.
        data: Its new content.
        mode: None keeps the permission bits of the regular file replaced (and, where
            permitted, its owner and group); a new file gets ``new_file_mode`` less the
            umask. A function receives those bits and returns the ones to set. An int
            sets exactly those bits.
        new_file_mode: The bits a new file is created with, before the umask.
        follow_symlinks: Write the file a symlink at ``path`` points to; otherwise a
            symlink there gives way to a regular file.

    Raises:
        OSError: The file or its temporary sibling cannot be written; the target is unchanged.
    """
    target = Path(os.path.realpath(path) if follow_symlinks else path)
    try:
        old: os.stat_result | None = os.lstat(target)
    except FileNotFoundError:
        old = None
    if old is not None and not stat.S_ISREG(old.st_mode):
        old = None
    remove_stale_temporaries(target)
    tmp, fd = _create_sibling(target, new_file_mode)
    try:
        try:
            if old is not None:
                _keep_owner(fd, old)
            if mode is not None:
                wanted = mode if isinstance(mode, int) else mode(stat.S_IMODE(os.fstat(fd).st_mode))
                os.fchmod(fd, wanted)
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    sync_folder(target.parent)


def sync_folder(folder: Path) -> None:
    """Persist the names in ``folder`` (a rename, a new file).

    Some file systems cannot open or sync folders; that is harmless and ignored.
    """
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def temporary_prefix(target: Path) -> str:
    """The start of the names of ``target``'s temporary files.

    A very long name is cut, so that the temporary name stays within the 255 bytes most
    file systems allow.
    """
    return f".{target.name[:TEMP_NAME_CHARS]}{TEMP_MARK}"


def remove_stale_temporaries(target: Path) -> None:
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


def _keep_owner(fd: int, old: os.stat_result) -> None:
    """Give the new file the old one's mode bits and, where permitted, owner and group."""
    os.fchmod(fd, stat.S_IMODE(old.st_mode))
    if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
        # Only root (or a member of the group) may; others get their own.
        with contextlib.suppress(OSError):
            os.fchown(fd, old.st_uid, old.st_gid)
        # chown clears set-user-ID bits; put the mode back.
        os.fchmod(fd, stat.S_IMODE(old.st_mode))


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data``; ``os.write`` may write less than it is given."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view[:WRITE_CHUNK_BYTES])
        view = view[written:]


def _create_sibling(target: Path, new_file_mode: int) -> tuple[Path, int]:
    """Create a new, uniquely named temporary file next to ``target``."""
    while True:
        tmp = target.with_name(
            f"{temporary_prefix(target)}{os.getpid()}-{secrets.token_hex(4)}.tmp")
        try:
            # The mode here lets the kernel apply the umask for new files.
            return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, new_file_mode)
        except FileExistsError:
            continue


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
