"""The embedding endpoints of the fake providers, in each real API's wire format.

`FakeProvider` answers these beside its chat routes:

* OpenAI and OpenAI-compatible servers: ``POST /v1/embeddings`` (``/embeddings`` when the
  api_base has no ``/v1``): ``{"object": "list", "data": [{"object": "embedding", "index": i,
  "embedding": [...]}], "model": ..., "usage": {...}}``; text-embedding-3-small's 1,536
  dimensions.
* Gemini: ``POST [/v1beta]/models/<model>:batchEmbedContents``: ``{"embeddings": [{"values":
  [...]}]}``; gemini-embedding-001's 3,072 dimensions.
* Ollama: ``POST /api/embed``: ``{"model": ..., "embeddings": [[...]]}``; nomic-embed-text's
  768 dimensions. A model the server does not have is Ollama's 404 ``model "x" not found, try
  pulling it first``.

A vector is the text's words hashed into the dimensions (the same words, the same
directions), so that texts sharing words are near: enough for search tests, and every vector
is as long as the real model's.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

OPENAI_DIMENSIONS = 1536
GEMINI_DIMENSIONS = 3072
OLLAMA_DIMENSIONS = 768

_GEMINI_PATH = re.compile(r"^(?:/v1beta|/v1)?/models/(?P<model>[^/:]+):batchEmbedContents$")


def hashed_vector(text: str, dimensions: int) -> list[float]:
    """``text``'s words hashed into ``dimensions`` (unnormalised, as some servers send)."""
    vector = [0.0] * dimensions
    vector[0] = 0.01  # an empty text is not a zero vector
    for word in re.findall(r"\w+", text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
        at = int.from_bytes(digest[:4], "little") % dimensions
        vector[at] += 1.0 if digest[4] & 1 else -1.0
    return vector


def embedding_answer(
    path: str, body: dict[str, Any], models: frozenset[str] | None
) -> tuple[int, dict[str, Any]] | None:
    """The status and JSON body for an embedding request to ``path``; None when ``path`` is
    no embedding route. ``models``: the models the server has (None: any)."""
    path = path.rstrip("/")
    if path in ("/v1/embeddings", "/embeddings"):
        return openai_embeddings(body, models)
    if path == "/api/embed":
        return ollama_embeddings(body, models)
    if match := _GEMINI_PATH.match(path):
        return gemini_embeddings(match["model"], body, models)
    return None


def _texts(value: Any) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list) else [str(value)]


def openai_embeddings(
    body: dict[str, Any], models: frozenset[str] | None
) -> tuple[int, dict[str, Any]]:
    model = str(body.get("model", ""))
    if models is not None and model not in models:
        return 404, {
            "error": {
                "message": f"The model `{model}` does not exist or you do not have access to it.",
                "type": "invalid_request_error",
                "param": None,
                "code": "model_not_found",
            }
        }
    texts = _texts(body.get("input", []))
    tokens = sum(len(text.split()) for text in texts)
    return 200, {
        "object": "list",
        "model": model,
        "data": [
            {"object": "embedding", "index": i, "embedding": hashed_vector(text, OPENAI_DIMENSIONS)}
            for i, text in enumerate(texts)
        ],
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


def ollama_embeddings(
    body: dict[str, Any], models: frozenset[str] | None
) -> tuple[int, dict[str, Any]]:
    model = str(body.get("model", ""))
    if models is not None and model not in models and f"{model}:latest" not in models:
        return 404, {"error": f'model "{model}" not found, try pulling it first'}
    texts = _texts(body.get("input", []))
    return 200, {
        "model": model,
        "embeddings": [hashed_vector(text, OLLAMA_DIMENSIONS) for text in texts],
        "total_duration": 1_000_000,
        "load_duration": 100_000,
        "prompt_eval_count": sum(len(text.split()) for text in texts),
    }


def gemini_embeddings(
    model: str, body: dict[str, Any], models: frozenset[str] | None
) -> tuple[int, dict[str, Any]]:
    if models is not None and model not in models:
        return 404, {
            "error": {
                "code": 404,
                "status": "NOT_FOUND",
                "message": f"models/{model} is not found for API version "
                "v1beta, or is not supported for embedContent.",
            }
        }
    texts = [
        " ".join(str(part.get("text", "")) for part in request.get("content", {}).get("parts", []))
        for request in body.get("requests", [])
    ]
    return 200, {
        "embeddings": [{"values": hashed_vector(text, GEMINI_DIMENSIONS)} for text in texts]
    }
