"""One project's view of the memories: its own scope and the person's."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from .. import paths
from ..safety.redaction import redact_text
from .embeddings import embedder_from_settings
from .notes import Remembered, remember
from .store import Memory, MemoryStore, SearchResults

if TYPE_CHECKING:
    from ..settings import Settings

USER_SCOPE = "user"
WARM_EMBED_LIMIT = 256
"""Memories without a vector embedded per warm-up: a few seconds of a local model's CPU at
most, in the background; the rest wait for the next session."""


class ProjectMemory:
    """The memories the agent at ``workdir`` reads and writes (what ``ctx.memory`` is).

    Args:
        store: The database.
        workdir: The working folder; its project's root names the project scope.
        secrets: Exact values redacted from what is stored, besides API-key shapes.
    """

    def __init__(self, store: MemoryStore, workdir: Path, secrets: Iterable[str] = ()) -> None:
        self.store = store
        self.workdir = workdir
        self.project_scope = os.path.realpath(paths.project_root(workdir))
        self.secrets = tuple(secrets)

    @property
    def scopes(self) -> tuple[str, str]:
        """The scopes searched, the project's first."""
        return (self.project_scope, USER_SCOPE)

    def scope_named(self, scope: str) -> str:
        """``project`` or ``user`` as the store's scope."""
        return USER_SCOPE if scope == "user" else self.project_scope

    def set(self, key: str, value: str, scope: str = "project") -> Memory:
        """Store a memory (redacted) in the project's scope or the person's."""
        return self.store.set(self.scope_named(scope), key, redact_text(value, self.secrets))

    def get(self, key: str) -> Memory | None:
        """The memory called ``key``: the project's, else the person's."""
        return self.store.get(self.scopes, key)

    def delete(self, key: str, scope: str = "project") -> bool:
        """Forget a memory; False when there was none."""
        return self.store.delete(self.scope_named(scope), key)

    def list(self, limit: int = 500) -> list[Memory]:
        """The project's and the person's memories, the most recently changed first."""
        return self.store.list(self.scopes, limit)

    def search(self, query: str, limit: int = 10) -> SearchResults:
        """Hybrid search over the project's and the person's memories."""
        return self.store.search(query, self.scopes, limit)

    def warm(self) -> int:
        """Get the first search ready ahead of time (in a worker thread): load the embedding
        model and this project's vectors, and embed memories stored without a vector (before
        an embedder was set up); returns how many were embedded."""
        embedded = self.store.embed_missing(limit=WARM_EMBED_LIMIT)
        if self.store.embedder is not None:
            self.store.embedder.embed_query("warm up")
            self.store.vectors_of(self.scopes)
        return embedded

    def remember(self, notes: str) -> Remembered:
        """Merge Markdown notes (redacted) into the project's memory file."""
        return remember(self.workdir, redact_text(notes, self.secrets))

    def label(self, memory: Memory) -> str:
        """``project`` or ``user``: the scope of ``memory`` in words."""
        return "user" if memory.scope == USER_SCOPE else "project"


def open_project_memory(workdir: Path, settings: Settings | None = None) -> ProjectMemory:
    """The memories for ``workdir``, in agent-tui's database, with the embedder the settings
    ask for (none is loaded yet: the first search or write loads it)."""
    from ..safety.redaction import settings_secrets

    secrets = settings_secrets(settings) if settings is not None else ()
    store = MemoryStore(paths.memory_db(), embedder_from_settings(settings))
    return ProjectMemory(store, workdir, secrets)
