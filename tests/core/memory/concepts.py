"""A test embedder: bag-of-concepts vectors over a fixed vocabulary.

Words map to a handful of concepts (``neovim``, ``vim`` and ``editor`` are all "editing"),
so two texts that share no word can still be close in meaning. The store is under test, not
the embedder: this is just enough meaning to tell hybrid ranking from keyword ranking.
"""

from __future__ import annotations

import re

import numpy as np

CONCEPTS: dict[str, tuple[str, ...]] = {
    "editing": ("editor", "editors", "neovim", "vim", "emacs", "vscode", "ide"),
    "testing": ("test", "tests", "pytest", "unittest", "coverage", "assert"),
    "deploying": ("deploy", "deployment", "release", "staging", "production", "ship"),
    "database": ("database", "postgres", "sqlite", "sql", "schema", "migration"),
    "colour": ("colour", "color", "theme", "dark", "light", "palette"),
    "liking": ("prefers", "likes", "favourite", "favorite", "loves", "preferred"),
}
_WORD_TO_CONCEPT = {word: i for i, words in enumerate(CONCEPTS.values()) for word in words}


class ConceptEmbedder:
    """Texts to L2-normalised concept counts (float32), with the calls it served."""

    name = "test:concepts"
    dimensions = len(CONCEPTS) + 1  # the last one catches texts with no concept

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        """One unit row per text."""
        self.calls.append(list(texts))
        rows = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in zip(rows, texts, strict=True):
            for word in re.findall(r"\w+", text.lower()):
                if word in _WORD_TO_CONCEPT:
                    row[_WORD_TO_CONCEPT[word]] += 1
            if not row.any():
                row[-1] = 1
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        """Vectors of stored texts."""
        return self.embed(texts)

    def embed_query(self, text: str) -> np.ndarray:
        """The vector of a query."""
        return self.embed([text])[0]
