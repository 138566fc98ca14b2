"""A SQLite index of the sessions, derived from their JSONL logs and kept in step with them.

The logs are the truth; the index (``sessions/index.sqlite``) is a cache for listing,
sorting and searching. :meth:`SessionIndex.refresh` (run when the index opens) re-reads
every log whose size or mtime changed, adds new ones and drops deleted ones, so a missing,
stale or corrupt index heals itself.
"""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import re
import shutil
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .. import paths
from .log import LOG_NAME, SessionLock, SessionNotFound, log_path, read_events
from .summary import LogDigest, SessionSummary, digest_log

SCHEMA_VERSION = 3  # 2: prompts and model_calls, where 1 had turns (model calls); 3: cache tokens
_MESSAGE_BITS = 24
_MESSAGES_PER_SESSION = 1 << _MESSAGE_BITS  # searchable messages of one session

SortKey = Literal["updated", "created", "title", "project", "model", "prompts", "model_calls",
                  "tokens", "cost"]
_ORDER_SQL: dict[str, str] = {
    "updated": "updated DESC",
    "created": "created DESC",
    "title": "title COLLATE NOCASE ASC",
    "project": "project ASC, updated DESC",
    "model": "model ASC, updated DESC",
    "prompts": "prompts DESC",
    "model_calls": "model_calls DESC",
    "tokens": "(prompt_tokens + completion_tokens) DESC",
    "cost": "cost DESC",
}

_SCHEMA = f"""
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, title TEXT NOT NULL, project TEXT NOT NULL, model TEXT NOT NULL,
    created REAL NOT NULL, updated REAL NOT NULL, prompts INTEGER NOT NULL,
    model_calls INTEGER NOT NULL,
    prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, cost REAL,
    parent TEXT, parent_event INTEGER, size INTEGER NOT NULL, mtime INTEGER NOT NULL,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0, cache_write_tokens INTEGER NOT NULL DEFAULT 0);
CREATE INDEX sessions_project ON sessions (project, updated);
CREATE TABLE files (session_id TEXT NOT NULL, path TEXT NOT NULL,
    PRIMARY KEY (session_id, path)) WITHOUT ROWID;
CREATE INDEX files_path ON files (path);
CREATE VIRTUAL TABLE messages USING fts5(
    text, session_id UNINDEXED, kind UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
PRAGMA user_version = {SCHEMA_VERSION};
"""
_COLUMNS = (
    "id, title, project, model, created, updated, prompts, model_calls, prompt_tokens, "
    "completion_tokens, cost, parent, parent_event, size, cache_read_tokens, cache_write_tokens"
)


def _fts_query(text: str) -> str | None:
    """Words of ``text`` as an FTS5 query: all must match, the last as a prefix."""
    words = re.findall(r"\w+", text)
    if not words:
        return None
    quoted = [f'"{w}"' for w in words]
    quoted[-1] += "*"
    return " ".join(quoted)


@dataclass(frozen=True, slots=True)
class RefreshReport:
    """What :meth:`SessionIndex.refresh` changed."""

    added: int = 0
    updated: int = 0
    removed: int = 0


class SessionIndex:
    """The index over all sessions under ``paths.sessions_dir()``.

    Safe to share between threads; several processes may use the same file.

    Args:
        path: The SQLite file; ``sessions_dir() / "index.sqlite"`` by default.
        refresh: Bring the index in step with the logs now (see :meth:`refresh`).
    """

    def __init__(self, path: Path | None = None, *, refresh: bool = True) -> None:
        self.path = path or paths.sessions_dir() / "index.sqlite"
        self._mutex = threading.RLock()
        self._db = self._connect()
        if refresh:
            self.refresh()

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            return self._open_db()
        except sqlite3.DatabaseError:
            # It is only a cache of the logs: a damaged file is thrown away and rebuilt.
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            return self._open_db()

    def _open_db(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                with db:
                    db.execute("BEGIN IMMEDIATE")
                    # Checked again inside the write lock: another process may have won.
                    if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                        for table in ("sessions", "files", "messages"):
                            db.execute(f"DROP TABLE IF EXISTS {table}")
                        for statement in _SCHEMA.split(";"):
                            if statement.strip():
                                db.execute(statement)
        except BaseException:
            db.close()
            raise
        return db

    def close(self) -> None:
        """Close the database."""
        with self._mutex:
            self._db.close()

    def __enter__(self) -> SessionIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- keeping in step ----------------------------------------------------------------

    def update_from_log(self, session_id: str) -> SessionSummary | None:
        """Re-read one session's log into the index; drop it if the log is gone.

        Returns:
            The session's new summary, or None when it no longer exists.
        """
        path = log_path(session_id)
        try:
            stat = path.stat()  # before reading: a log growing meanwhile is re-read next time
            log = read_events(session_id)
        except (FileNotFoundError, SessionNotFound):
            self._forget(session_id)
            return None
        digest = digest_log(log, size=stat.st_size, mtime_updated=stat.st_mtime)
        with self._mutex, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._delete_rows(session_id)
            self._insert(digest, stat.st_mtime_ns)
        return digest.summary

    def refresh(self) -> RefreshReport:
        """Re-read logs whose size or mtime changed, add new ones, drop deleted ones."""
        on_disk = _scan_logs()
        with self._mutex:
            known = {
                row[0]: (row[1], row[2])
                for row in self._db.execute("SELECT id, size, mtime FROM sessions")
            }
        added = updated = 0
        for session_id, (size, mtime) in on_disk.items():
            stored = known.get(session_id)
            if stored == (size, mtime):
                continue
            if self.update_from_log(session_id) is not None:
                added += stored is None
                updated += stored is not None
        gone = [session_id for session_id in known if session_id not in on_disk]
        for session_id in gone:
            self._forget(session_id)
        return RefreshReport(added, updated, len(gone))

    def rebuild(self) -> RefreshReport:
        """Forget everything and index every log again."""
        with self._mutex, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            for table in ("sessions", "files", "messages"):
                self._db.execute(f"DELETE FROM {table}")
        return self.refresh()

    # --- questions ----------------------------------------------------------------------

    def list(self, project: Path | None = None, order: SortKey = "updated") -> list[SessionSummary]:
        """Sessions, of one project or all, sorted by ``order`` (newest or biggest first).

        Raises:
            ValueError: ``order`` is not one of :data:`SortKey`.
        """
        if order not in _ORDER_SQL:
            raise ValueError(
                f"cannot sort sessions by {order!r}; use one of {', '.join(_ORDER_SQL)}"
            )
        params: tuple[str, ...]
        where, params = "", ()
        if project is not None:
            where, params = "WHERE project = ?", (str(Path(project).resolve()),)
        return self._summaries(
            f"SELECT {_COLUMNS} FROM sessions {where} ORDER BY {_ORDER_SQL[order]}, id", params
        )

    def get(self, session_id: str) -> SessionSummary | None:
        """One session's summary, or None."""
        found = self._summaries(f"SELECT {_COLUMNS} FROM sessions WHERE id = ?", (session_id,))
        return found[0] if found else None

    def latest(self, project: Path) -> SessionSummary | None:
        """The most recently updated session of a project (for ``--continue``)."""
        found = self.list(project)
        return found[0] if found else None

    def search(self, text: str, limit: int = 100) -> builtins.list[SessionSummary]:
        """Sessions whose prompts, answers or tool calls contain every word of ``text``
        (the last word as a prefix), best match first (bm25), each with a snippet."""
        query = _fts_query(text)
        if query is None:
            return []
        sql = f"""
            WITH found AS MATERIALIZED (
                SELECT session_id, rank AS score,
                       snippet(messages, 0, '[', ']', '…', 12) AS match
                FROM messages WHERE messages MATCH ?),
            hits AS (  -- SQLite takes the bare column (match) from the min() row
                SELECT session_id, min(score) AS score, match FROM found GROUP BY session_id)
            SELECT {", ".join("s." + c.strip() for c in _COLUMNS.split(","))}, hits.match
            FROM hits JOIN sessions s ON s.id = hits.session_id
            ORDER BY hits.score, s.updated DESC LIMIT ?"""
        return self._summaries(sql, (query, limit))

    def prompts(self, project: Path, limit: int = 5_000) -> builtins.list[str]:
        """The person's prompts in ``project``'s sessions, newest first (the latest session's
        last prompt first), each text once, at most ``limit``."""
        # A session's messages have the rowids key << 24 onwards (see _insert): a rowid range
        # per session is a b-tree seek into the FTS table.
        sql = f"""
            SELECT m.text FROM sessions s JOIN messages m
                ON m.rowid BETWEEN s.rowid << {_MESSAGE_BITS}
                               AND (s.rowid << {_MESSAGE_BITS}) + {_MESSAGES_PER_SESSION - 1}
            WHERE s.project = ? AND m.kind = 'user'
            ORDER BY s.updated DESC, m.rowid DESC"""
        found: dict[str, None] = {}
        with self._mutex:
            for (text,) in self._db.execute(sql, (str(Path(project).resolve()),)):
                if text.strip():
                    found[text] = None
                    if len(found) >= limit:
                        break
        return builtins.list(found)

    def sessions_touching(self, path_fragment: str) -> builtins.list[SessionSummary]:
        """Sessions that changed a file whose path contains ``path_fragment``."""
        like = re.sub(r"([\\%_])", r"\\\1", path_fragment)
        sql = f"""
            SELECT {_COLUMNS} FROM sessions WHERE id IN (
                SELECT session_id FROM files WHERE path LIKE ? ESCAPE '\\')
            ORDER BY updated DESC"""
        return self._summaries(sql, (f"%{like}%",))

    def files_touched(self, session_id: str) -> builtins.list[str]:
        """Paths a session changed (through its edit tools), sorted."""
        with self._mutex:
            rows = self._db.execute(
                "SELECT path FROM files WHERE session_id = ? ORDER BY path", (session_id,)
            )
            return [row[0] for row in rows]

    def delete(self, session_id: str) -> None:
        """Delete a session: its folder and its rows.

        Raises:
            SessionNotFound: No such session.
            SessionLocked: It is open in an agent-tui; it is left alone.
        """
        folder = paths.session_dir(session_id)
        if not (folder / LOG_NAME).is_file():
            self._forget(session_id)
            raise SessionNotFound(session_id)
        with SessionLock(session_id):
            project = _project_of(folder / LOG_NAME)
            self._forget(session_id)
            shutil.rmtree(folder)
        if project is not None:
            _forget_checkpoints(project, session_id)

    # --- rows ---------------------------------------------------------------------------

    def _summaries(self, sql: str, params: tuple[Any, ...]) -> builtins.list[SessionSummary]:
        with self._mutex:
            rows = self._db.execute(sql, params).fetchall()
        return [_summary_from_row(row) for row in rows]

    def _forget(self, session_id: str) -> None:
        with self._mutex, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._delete_rows(session_id)

    def _delete_rows(self, session_id: str) -> None:
        row = self._db.execute("SELECT rowid FROM sessions WHERE id = ?", (session_id,))
        found = row.fetchone()
        if found is None:
            return
        # A session's messages have the rowids key << 24 onwards (see _insert): a range on
        # the FTS rowid is a b-tree seek, where session_id = ? would scan every message.
        first = found[0] << _MESSAGE_BITS
        self._db.execute(
            "DELETE FROM messages WHERE rowid BETWEEN ? AND ?",
            (first, first + _MESSAGES_PER_SESSION - 1),
        )
        self._db.execute("DELETE FROM files WHERE session_id = ?", (session_id,))
        self._db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    def _insert(self, digest: LogDigest, mtime_ns: int) -> None:
        s = digest.summary
        self._db.execute(
            "INSERT INTO sessions (id, title, project, model, created, updated, prompts, "
            "model_calls, prompt_tokens, completion_tokens, cost, parent, parent_event, size, "
            "mtime, cache_read_tokens, cache_write_tokens) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                s.id,
                s.title,
                s.project,
                s.model,
                s.created,
                s.updated,
                s.prompts,
                s.model_calls,
                s.prompt_tokens,
                s.completion_tokens,
                s.cost,
                s.parent[0] if s.parent else None,
                s.parent[1] if s.parent else None,
                s.size,
                mtime_ns,
                s.cache_read_tokens,
                s.cache_write_tokens,
            ),
        )
        first = self._db.execute("SELECT last_insert_rowid()").fetchone()[0] << _MESSAGE_BITS
        self._db.executemany(
            "INSERT INTO files (session_id, path) VALUES (?, ?)",
            [(s.id, p) for p in sorted(digest.files)],
        )
        messages = [(text, kind) for kind, text in digest.messages if text]
        self._db.executemany(
            "INSERT INTO messages (rowid, text, session_id, kind) VALUES (?, ?, ?, ?)",
            [
                (first + n, text, s.id, kind)
                for n, (text, kind) in enumerate(messages[:_MESSAGES_PER_SESSION])
            ],
        )


def _summary_from_row(row: tuple[Any, ...]) -> SessionSummary:
    (
        id_,
        title,
        project,
        model,
        created,
        updated,
        prompts,
        model_calls,
        prompt_tokens,
        completion_tokens,
        cost,
        parent,
        parent_event,
        size,
        cache_read_tokens,
        cache_write_tokens,
        *match,
    ) = row
    return SessionSummary(
        id=id_,
        title=title,
        project=project,
        model=model,
        created=created,
        updated=updated,
        prompts=prompts,
        model_calls=model_calls,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        cost=cost,
        parent=(parent, parent_event) if parent is not None else None,
        size=size,
        cache_read_tokens=cache_read_tokens,
        cache_write_tokens=cache_write_tokens,
        match=match[0] if match else None,
    )


def _scan_logs() -> dict[str, tuple[int, int]]:
    """Each session folder's log: id -> (size, mtime in ns)."""
    found: dict[str, tuple[int, int]] = {}
    try:
        entries = list(os.scandir(paths.sessions_dir()))
    except FileNotFoundError:
        return found
    for entry in entries:
        if not entry.is_dir():
            continue
        try:
            stat = os.stat(os.path.join(entry.path, LOG_NAME))
        except (FileNotFoundError, NotADirectoryError):
            continue
        found[entry.name] = (stat.st_size, stat.st_mtime_ns)
    return found


def _project_of(log: Path) -> Path | None:
    """The project folder named in a session log's header line, if it names one."""
    try:
        with log.open("rb") as handle:
            header = json.loads(handle.readline())
    except (OSError, ValueError):
        return None
    project = header.get("project") if isinstance(header, dict) else None
    return Path(project) if isinstance(project, str) and project else None


def _forget_checkpoints(project: Path, session_id: str) -> None:
    """Drop a deleted session's checkpoints; the session is gone whether or not this works."""
    from ..changes.checkpoints import CheckpointError, Checkpoints

    if not paths.checkpoints_dir(project).is_dir():
        return
    with contextlib.suppress(CheckpointError):
        Checkpoints(project, session_id).forget()
