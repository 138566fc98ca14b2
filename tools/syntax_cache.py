"""The memory code_search keeps between calls: parse trees and each file's query matches.

Both are keyed by the file's path, size, modification time and language, so an edited file
is simply a new key and searching an unchanged tree again costs a ``stat`` per file. Memory
is bounded by estimated budgets; the least recently used entries go first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

from tree_sitter import Tree

TREE_BYTES_PER_SOURCE_BYTE = 30
"""Memory of a parse tree per byte of source (measured: ~29 for Python)."""
TREE_CACHE_BYTES = 256 * 1024 * 1024
"""Memory the cached parse trees may use (estimated); least recently used go first."""
MATCH_CACHE_BYTES = 64 * 1024 * 1024
"""Memory the cached per-file matches may use (estimated)."""


@dataclass(frozen=True, slots=True)
class Match:
    """One captured node: where it starts (1-based), the capture's name, its first line."""

    line: int
    column: int
    capture: str
    text: str


@dataclass(frozen=True, slots=True)
class CacheStats:
    """Counters of ``SyntaxCache``: parses done, hits, and what it holds now."""

    parses: int
    tree_hits: int
    match_hits: int
    trees: int
    tree_bytes: int
    match_entries: int
    match_bytes: int


V = TypeVar("V")


@dataclass(slots=True)
class _Entry(Generic[V]):
    """A cached value, its estimated cost and the last epoch (search) that used it."""

    value: V
    cost: int
    epoch: int


class _BudgetLru(Generic[V]):
    """Entries with an estimated cost; the least recently used go when over budget.

    Entries used in the current epoch (one code_search call) are never evicted: a newcomer
    is turned away instead. Otherwise a search over more files than fit would evict each
    tree before the next search could reuse it, and nothing would ever hit.
    """

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.used = 0
        self._items: OrderedDict[Hashable, _Entry[V]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: Hashable, epoch: int) -> V | None:
        item = self._items.get(key)
        if item is None:
            return None
        self._items.move_to_end(key)
        item.epoch = epoch
        return item.value

    def put(self, key: Hashable, value: V, cost: int, epoch: int) -> None:
        old = self._items.pop(key, None)
        if old is not None:
            self.used -= old.cost
        while self._items and self.used + cost > self.budget:
            oldest = next(iter(self._items.values()))
            if oldest.epoch == epoch:
                break
            self.used -= self._items.popitem(last=False)[1].cost
        if self.used + cost <= self.budget:
            self._items[key] = _Entry(value, cost, epoch)
            self.used += cost

    def clear(self) -> None:
        self._items.clear()
        self.used = 0


FileKey = tuple[str, int, int, str]
"""(path, size, mtime_ns, language): a file's version as parsed in one language."""


class SyntaxCache:
    """Parse trees and per-file query matches kept in memory between searches.

    Thread-safe: searches run in worker threads. An edited file gets a new key (its size or
    modification time changed); stale entries age out.
    """

    def __init__(self, tree_budget: int = TREE_CACHE_BYTES,
                 match_budget: int = MATCH_CACHE_BYTES) -> None:
        self._lock = threading.Lock()
        self._trees: _BudgetLru[tuple[Tree, bytes]] = _BudgetLru(tree_budget)
        self._matches: _BudgetLru[tuple[Match, ...]] = _BudgetLru(match_budget)
        self._parses = self._tree_hits = self._match_hits = 0
        self._epoch = 0

    def begin(self) -> None:
        """Start an epoch (a code_search call): what it uses stays until it is over."""
        with self._lock:
            self._epoch += 1

    def matches(self, key: FileKey, query: str) -> tuple[Match, ...] | None:
        """The matches of ``query`` found earlier in this version of the file, or None."""
        with self._lock:
            found = self._matches.get((key, query), self._epoch)
            self._match_hits += found is not None
            return found

    def store_matches(self, key: FileKey, query: str, matches: tuple[Match, ...]) -> None:
        """Remember the matches of ``query`` in this version of the file."""
        cost = 200 + sum(120 + len(m.text) for m in matches)
        with self._lock:
            self._matches.put((key, query), matches, cost, self._epoch)

    def tree(self, key: FileKey) -> tuple[Tree, bytes] | None:
        """The parse tree and source of this version of the file, or None."""
        with self._lock:
            found = self._trees.get(key, self._epoch)
            self._tree_hits += found is not None
            return found

    def store_tree(self, key: FileKey, tree: Tree, source: bytes) -> None:
        """Remember a file's parse tree (counted as one parse)."""
        with self._lock:
            self._parses += 1
            self._trees.put(key, (tree, source), len(source) * (TREE_BYTES_PER_SOURCE_BYTE + 1),
                            self._epoch)

    def stats(self) -> CacheStats:
        """The counters and current size."""
        with self._lock:
            return CacheStats(self._parses, self._tree_hits, self._match_hits, len(self._trees),
                              self._trees.used, len(self._matches), self._matches.used)

    def clear(self) -> None:
        """Forget everything (the counters too)."""
        with self._lock:
            self._trees.clear()
            self._matches.clear()
            self._parses = self._tree_hits = self._match_hits = 0


SYNTAX_CACHE = SyntaxCache()
"""The process-wide cache every code_search call shares."""
