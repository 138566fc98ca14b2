"""What the agent has seen of each file, so that it never edits what it has not read.

The ledger maps a file's real path (symlinks resolved) to the SHA-256 of its bytes as the
agent last saw them: read through read_file or read_many_files, or written by one of the
edit tools. An edit is allowed only when the bytes on disk still have that hash; a file
the agent never read, or one that changed since (by another program, the person, a shell
command, an undo), is refused with a message telling the model to read it again.

The hash is compared, never the modification time: a change that keeps the size and lands
within the file system's timestamp tick is still caught. The file's ``stat`` signature is
kept beside the hash only so that paging through an unchanged large file does not hash it
again on every page; a stale signature can at worst refuse one edit, never allow one.
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass
from pathlib import Path

Signature = tuple[int, int, int, int, int]
"""(device, inode, size, mtime_ns, ctime_ns) of a file."""


def signature(st: os.stat_result) -> Signature:
    """The parts of ``st`` that change whenever a file's content is replaced or written."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def digest(data: bytes) -> str:
    """The SHA-256 of ``data`` in hex."""
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class SeenFile:
    """What the agent last saw of one file.

    Attributes:
        sha256: The hash of the bytes seen.
        signature: The file's ``stat`` signature when they were seen, or None.
    """

    sha256: str
    signature: Signature | None


class ReadLedger:
    """Real path -> the hash of the bytes the agent last saw there.

    One ledger belongs to one agent (its ``ToolContext``): a sub-agent keeps its own, and a
    resumed session starts with an empty one, so the model reads files again before editing.
    Safe to use from the worker threads tools run in.
    """

    def __init__(self) -> None:
        self._seen: dict[Path, SeenFile] = {}
        self._lock = threading.Lock()

    @staticmethod
    def key(path: str | os.PathLike[str]) -> Path:
        """The ledger's key of ``path``: absolute, symlinks resolved."""
        return Path(os.path.realpath(path))

    def record(self, path: str | os.PathLike[str], data: bytes,
               st: os.stat_result | None = None) -> None:
        """Note that the agent has seen ``data`` as the content of ``path``.

        Args:
            path: The file.
            data: Its whole content, as seen (or as just written).
            st: Its ``stat`` at that moment, which lets ``is_current`` skip re-hashing.
        """
        seen = SeenFile(digest(data), signature(st) if st is not None else None)
        with self._lock:
            self._seen[self.key(path)] = seen

    def get(self, path: str | os.PathLike[str]) -> SeenFile | None:
        """What was last seen of ``path``, or None when it was never read."""
        with self._lock:
            return self._seen.get(self.key(path))

    def is_current(self, path: str | os.PathLike[str], st: os.stat_result) -> bool:
        """True when ``path`` was seen and its ``stat`` signature has not changed since.

        Only a shortcut for readers (no need to hash again); edits use ``refusal``.
        """
        seen = self.get(path)
        return seen is not None and seen.signature == signature(st)

    def forget(self, path: str | os.PathLike[str]) -> None:
        """Drop what was seen of ``path``: the next edit needs a fresh read."""
        with self._lock:
            self._seen.pop(self.key(path), None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._seen)

    def refusal(self, path: str | os.PathLike[str], data: bytes, shown: str,
                redo: str) -> str | None:
        """Why a change of ``path``, whose current bytes are ``data``, must be refused.

        Args:
            path: The existing file about to change.
            data: Its bytes on disk now.
            shown: How to name the file in the message.
            redo: What to do after reading it, e.g. ``redo the edit``.

        Returns:
            None when the agent's last view of the file is its content now; otherwise a
            message for the model. A changed file is forgotten, so that the next read
            records it afresh.
        """
        seen = self.get(path)
        if seen is None:
            return (f"{shown} has not been read in this session, so the change was refused "
                    f"and nothing was written. Read it first with read_file, then {redo}")
        if seen.sha256 != digest(data):
            self.forget(path)
            return (f"{shown} changed on disk since you last read it (by the person or "
                    "another program), so the change was refused and nothing was written. "
                    f"Read it again with read_file, then {redo} against its current content")
        return None
