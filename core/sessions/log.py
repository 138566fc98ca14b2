"""The append-only session log: one JSONL file per session, fsync'd event by event.

A session lives in ``paths.session_dir(id)``: ``events.jsonl`` (a ``session`` header
record, then one event record a line) and ``lock`` (held by the one process that may
write it). Every record is redacted, written in one ``os.write`` on an ``O_APPEND`` fd and
fsync'd before :meth:`SessionStore.append` returns, so an event the person has seen is on
disk. A crash can leave at most the last line torn; :func:`read_events` skips it with a
warning and :meth:`SessionStore.open` cuts it off (keeping a copy) before appending.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import paths
from ..safety.redaction import env_secrets, redact
from ..text.durable import sync_folder, write_atomically

LOG_NAME = "events.jsonl"
LOCK_NAME = "lock"
MODEL_CHOSEN = "model_chosen"
"""The record of a model chosen after the header was written (:meth:`SessionStore.record_model`)."""
_TAIL_CHUNK = 64 * 1024


class SessionError(Exception):
    """A session cannot be read or written; the message says why and what to do."""


class SessionNotFound(SessionError):
    """No session has this id."""

    def __init__(self, session_id: str) -> None:
        super().__init__(
            f"no session {session_id!r} in {paths.sessions_dir()}; "
            "`agent-tui sessions list` shows the sessions there are"
        )
        self.session_id = session_id


class SessionLocked(SessionError):
    """Another process holds the session's lock."""

    def __init__(self, session_id: str, pid: int | None) -> None:
        holder = f"pid {pid}" if pid is not None else "pid unknown"
        super().__init__(
            f"session {session_id} is open in another agent-tui ({holder}); "
            "resume a fork with --fork or close the other one"
        )
        self.session_id = session_id
        self.pid = pid


def encode_record(record: Mapping[str, object]) -> bytes:
    """One JSONL line: compact JSON, UTF-8, ending in a newline.

    Lone surrogates (undecodable bytes kept by ``surrogateescape``) are written as ``\\udcXX``
    escapes, which read back as the same string; values JSON cannot hold become strings.
    """
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str)
    return (text + "\n").encode("utf-8", "backslashreplace")


# --- the lock ---------------------------------------------------------------------------


class SessionLock:
    """An exclusive ``flock`` on a session's ``lock`` file, holding the owner's pid.

    The lock belongs to the open file, so it is released when the process dies, however
    it dies; the fd is not inherited by child processes.
    """

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.path = paths.session_dir(session_id) / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock or raise :class:`SessionLocked` naming the holder's pid."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _read_pid(fd)
            os.close(fd)
            raise SessionLocked(self.session_id, pid) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        """Let go of the lock (a second call does nothing)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)
        finally:
            os.close(fd)  # closing the fd releases the flock

    def __enter__(self) -> SessionLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _read_pid(fd: int) -> int | None:
    try:
        return int(os.pread(fd, 32, 0).decode().strip())
    except (OSError, ValueError):
        return None


# --- reading ----------------------------------------------------------------------------


@dataclass(slots=True)
class SessionLog:
    """A session's records as read from its JSONL file.

    Attributes:
        session_id: The session's id.
        header: The first record (``type == "session"``); empty if it was unreadable.
        events: Every readable record after the header, in order. Event indexes (for
            :func:`fork`) count from 0 here.
        warnings: What was skipped and why, for the person to see on resume.
        size: Bytes of the file up to the end of its last complete line.
    """

    session_id: str
    header: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    size: int = 0

    @property
    def parent(self) -> tuple[str, int] | None:
        """The session and event index this one was forked from, if it was."""
        value = self.header.get("parent")
        if isinstance(value, list | tuple) and len(value) == 2:
            return str(value[0]), int(value[1])
        return None


def log_path(session_id: str) -> Path:
    """Where a session's JSONL file is."""
    return paths.session_dir(session_id) / LOG_NAME


def read_events(session_id: str) -> SessionLog:
    """Read a session's log; bad data is skipped with a warning, never raised.

    Raises:
        SessionNotFound: The session has no log file.
    """
    try:
        data = log_path(session_id).read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        raise SessionNotFound(session_id) from None
    return parse_log(session_id, data)


def parse_log(session_id: str, data: bytes) -> SessionLog:
    """Parse the bytes of a session's JSONL file (see :func:`read_events`)."""
    log = SessionLog(session_id, {})
    end = data.rfind(b"\n") + 1
    if end < len(data):
        log.warnings.append(_torn_warning(len(data) - end))
    log.size = end
    lines = data[:end].split(b"\n")
    lines.pop()  # the empty string after the last newline
    records = _loads_all(lines)
    if records is None:
        records = [_loads_line(line, number, log.warnings) for number, line in enumerate(lines, 1)]
    if records and records[0] is not None and records[0].get("type") == "session":
        log.header = records[0]
        records = records[1:]
    elif data:
        log.warnings.append(
            "the session header (line 1) is missing or unreadable; "
            "the events after it are shown as they are"
        )
    log.events = [r for r in records if r is not None]
    return log


def _loads_all(lines: list[bytes]) -> list[dict[str, Any] | None] | None:
    """All lines in one ``json.loads`` call (the fast path), or None if any is bad."""
    if not lines:
        return []
    try:
        records: list[dict[str, Any] | None] = json.loads(b"[" + b",".join(lines) + b"]")
    except ValueError:
        return None
    if len(records) != len(lines) or not all(isinstance(r, dict) for r in records):
        return None  # a line held two values or a non-object: sort it out line by line
    return records


def _loads_line(line: bytes, number: int, warnings: list[str]) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except ValueError:
        record = None
    if isinstance(record, dict):
        return record
    warnings.append(
        f"line {number} of the session log is not a valid event "
        f"({len(line)} bytes); it was skipped, the events around it are intact"
    )
    return None


def _torn_warning(skipped: int) -> str:
    return (
        f"the last event was cut off by a crash; {skipped} bytes skipped; "
        "everything before it is intact"
    )


# --- writing ----------------------------------------------------------------------------


class SessionStore:
    """The writer of one session's log; at most one per session across all processes.

    Build one with :meth:`create` (a new session) or :meth:`open` (resume and append).
    Use it as a context manager or call :meth:`close`.

    Attributes:
        session_id: The session's id.
        path: Its ``events.jsonl``.
        warnings: What :meth:`open` had to repair (a torn last line), for the person.
    """

    def __init__(self, session_id: str, lock: SessionLock, fd: int) -> None:
        self.session_id = session_id
        self.path = log_path(session_id)
        self.warnings: list[str] = []
        self._lock = lock
        self._fd: int | None = fd
        self._size = os.fstat(fd).st_size
        self._secrets = env_secrets()
        self._mutex = threading.Lock()

    @classmethod
    def create(
        cls,
        session_id: str,
        *,
        project: Path,
        model: str,
        title: str | None = None,
        parent: tuple[str, int] | None = None,
    ) -> SessionStore:
        """Start a new session and write its header.

        Raises:
            SessionError: A session with this id already has a log.
        """
        folder = paths.session_dir(session_id)
        folder.mkdir(parents=True, exist_ok=True)
        lock = SessionLock(session_id)
        lock.acquire()
        try:
            fd = os.open(
                folder / LOG_NAME, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o600
            )
        except FileExistsError:
            lock.release()
            raise SessionError(
                f"session {session_id} already exists; open it to resume or pick another id"
            ) from None
        store = cls(session_id, lock, fd)
        header = {
            "type": "session",
            "id": session_id,
            "project": str(Path(project).resolve()),
            "model": model,
            "created": time.time(),
            "parent": list(parent) if parent else None,
            "title": title,
        }
        store._write(encode_record(header))
        sync_folder(folder)  # make the new file's name durable too
        return store

    @classmethod
    def open(cls, session_id: str) -> SessionStore:
        """Open an existing session to append to it, cutting off a torn last line.

        Raises:
            SessionNotFound: No such session.
            SessionLocked: Another process has it open.
        """
        path = log_path(session_id)
        if not path.is_file():
            raise SessionNotFound(session_id)
        lock = SessionLock(session_id)
        lock.acquire()
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND)
            warning = _cut_torn_tail(fd, path)
        except BaseException:
            lock.release()
            raise
        store = cls(session_id, lock, fd)
        if warning:
            store.warnings.append(warning)
        return store

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._fd is None

    def hide(self, secrets: Iterable[str]) -> None:
        """Redact ``secrets`` too from now on (e.g. an ``--api-key`` of no known key shape)."""
        found = set(self._secrets) | {s for s in secrets if s}
        self._secrets = tuple(sorted(found, key=len, reverse=True))

    def append(self, record: Mapping[str, object]) -> None:
        """Redact ``record``, write it as one line and fsync it before returning.

        A ``ts`` (Unix time) is added when the record has none; the caller's dict is not
        changed.

        Raises:
            SessionError: The store is closed or the disk refused the write (nothing of
                this record is left in the file then).
        """
        data = dict(record)
        data.setdefault("ts", time.time())
        self._write(encode_record(redact(data, self._secrets)))

    def record_model(self, model: str) -> None:
        """Record the session's model, chosen after its header was written (the workbench
        opens its session before first-run setup asks for one): the index and ``sessions
        list`` show it as the session's model when the header has none."""
        self.append({"type": MODEL_CHOSEN, "model": model})

    def read(self) -> SessionLog:
        """This session's log as it is on disk now."""
        return read_events(self.session_id)

    def close(self) -> None:
        """Close the file and release the lock (a second call does nothing)."""
        with self._mutex:
            if self._fd is None:
                return
            fd, self._fd = self._fd, None
            os.close(fd)
            self._lock.release()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self, line: bytes) -> None:
        with self._mutex:
            if self._fd is None:
                raise SessionError(f"session {self.session_id} is closed; open it again to append")
            fd, start = self._fd, self._size
            view = memoryview(line)
            try:
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
                os.fsync(fd)
            except OSError as error:
                # A half-written line would glue itself to the next one: take it back.
                try:
                    os.ftruncate(fd, start)
                except OSError:
                    pass
                raise SessionError(
                    f"could not save an event of session {self.session_id} to {self.path}: "
                    f"{error.strerror or error}; free some disk space or check the folder's "
                    "permissions, then go on"
                ) from error
            self._size = start + len(line)


def _cut_torn_tail(fd: int, path: Path) -> str | None:
    """Truncate the file after its last newline, saving what follows in ``torn-<ts>.bin``."""
    size = os.fstat(fd).st_size
    end = size
    while end > 0:
        start = max(0, end - _TAIL_CHUNK)
        chunk = os.pread(fd, end - start, start)
        newline = chunk.rfind(b"\n")
        if newline >= 0:
            end = start + newline + 1
            break
        end = start
    if end == size:
        return None
    torn = os.pread(fd, size - end, end)
    keep = path.with_name(f"torn-{time.time_ns()}.bin")
    write_atomically(keep, torn, new_file_mode=0o666)
    os.ftruncate(fd, end)
    os.fsync(fd)
    return _torn_warning(size - end).replace("skipped", f"cut off and kept in {keep.name}")


# --- forks ------------------------------------------------------------------------------


def fork(source_id: str, upto_event_index: int, *, new_id: str | None = None,
         log: SessionLog | None = None) -> str:
    """A new session holding ``source_id``'s events up to and including one index.

    The source is only read, so it may be open in another process. Its header's project,
    model and title carry over; the new header's ``parent`` is ``[source_id, index]``.

    Args:
        source_id: The session to fork.
        upto_event_index: Index into the source's :attr:`SessionLog.events`; -1 keeps none.
        new_id: The new session's id; a fresh one by default.
        log: The source's log when the caller has read it already (it is read otherwise).

    Returns:
        The new session's id.

    Raises:
        SessionNotFound: No such source.
        SessionError: The index is outside the source's events.
    """
    log = read_events(source_id) if log is None else log
    if not -1 <= upto_event_index < len(log.events):
        raise SessionError(
            f"session {source_id} has {len(log.events)} events; "
            f"cannot fork after event {upto_event_index}"
        )
    new_id = new_id or paths.new_session_id()
    header = log.header
    with SessionStore.create(
        new_id,
        project=Path(header.get("project") or "."),
        model=str(header.get("model") or ""),
        title=header.get("title"),
        parent=(source_id, upto_event_index),
    ) as store:
        events = log.events[: upto_event_index + 1]
        if events:  # one write and one fsync for the lot; they were redacted already
            store._write(b"".join(encode_record(e) for e in events))
    return new_id


def turn_starts(events: list[dict[str, Any]]) -> list[int]:
    """Where each turn begins: the indexes of the ``user_message`` records, in order.

    Turn N (counting from 0) is the N-th prompt of the session and what followed it.
    """
    return [i for i, event in enumerate(events) if event.get("type") == "user_message"]


def fork_before_turn(source_id: str, turn: int | None = None, *,
                     log: SessionLog | None = None) -> str:
    """Fork ``source_id`` keeping the turns before ``turn`` (None: the whole session).

    ``log`` is the source's log when the caller has read it already.

    Raises:
        SessionNotFound: No such source.
        SessionError: The session has no such turn.
    """
    log = read_events(source_id) if log is None else log
    if turn is None:
        return fork(source_id, len(log.events) - 1, log=log)
    starts = turn_starts(log.events)
    if not 0 <= turn <= len(starts):
        raise SessionError(
            f"session {source_id} has turns 0 to {len(starts) - 1}; pick one of them "
            f"(or {len(starts)} to keep them all)")
    upto = starts[turn] - 1 if turn < len(starts) else len(log.events) - 1
    return fork(source_id, upto, log=log)
