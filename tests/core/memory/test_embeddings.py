"""LitellmEmbedder against a local OpenAI-compatible ``/v1/embeddings`` server."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

import numpy as np
import pytest

from agent_tui.core.memory.embeddings import (
    EmbeddingError,
    LitellmEmbedder,
    embedder_from_settings,
)
from agent_tui.core.memory.store import MemoryStore


@dataclass
class EmbeddingServer:
    """Answers ``POST /v1/embeddings`` with one fixed, unnormalised vector per input."""

    status: int = 200
    requests: list[dict] = field(default_factory=list)
    url: str = ""

    def vector(self, text: str) -> list[float]:
        return [float(len(text)), 3.0, 4.0]


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    state = EmbeddingServer()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append({"path": self.path, "body": body,
                                   "auth": self.headers.get("Authorization")})
            if state.status != 200:
                payload = {"error": {"message": "overloaded", "type": "server_error"}}
            else:
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                # Reversed on purpose: clients must order by "index".
                payload = {"object": "list", "model": body["model"],
                           "usage": {"prompt_tokens": 3, "total_tokens": 3},
                           "data": [{"object": "embedding", "index": i,
                                     "embedding": state.vector(t)}
                                    for i, t in reversed(list(enumerate(texts)))]}
            data = json.dumps(payload).encode()
            self.send_response(state.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    yield state
    httpd.shutdown()
    httpd.server_close()


def _embedder(server: EmbeddingServer) -> LitellmEmbedder:
    return LitellmEmbedder("openai/text-embedding-3-small", api_base=server.url,
                           api_key="sk-local-test-key-0000000000")


def test_vectors_come_back_in_order_as_unit_float32_rows(server):
    vectors = _embedder(server).embed_documents(["a", "abcd"])

    assert vectors.dtype == np.float32 and vectors.shape == (2, 3)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(vectors[1], np.array([4, 3, 4]) / np.sqrt(41), rtol=1e-6)
    request = server.requests[0]
    assert request["path"] == "/v1/embeddings"
    assert request["body"]["input"] == ["a", "abcd"]
    assert request["body"]["model"] == "text-embedding-3-small"
    assert request["auth"] == "Bearer sk-local-test-key-0000000000"


def test_a_query_is_one_vector(server):
    vector = _embedder(server).embed_query("abc")

    assert vector.shape == (3,)
    np.testing.assert_allclose(vector, np.array([3, 3, 4]) / np.sqrt(34), rtol=1e-6)


def test_a_failing_server_is_an_embedding_error_that_says_what_to_check(server):
    server.status = 500

    with pytest.raises(EmbeddingError, match="embedding_model"):
        _embedder(server).embed_documents(["a"])


def test_the_store_searches_hybrid_through_the_server(server, tmp_path):
    store = MemoryStore(tmp_path / "memory.sqlite", _embedder(server))
    store.set("user", "editor", "prefers neovim")

    results = store.search("neovim", ["user"])
    store.close()

    assert results.mode == "hybrid"
    assert [f.memory.key for f in results.found] == ["editor"]


def test_when_the_server_fails_search_falls_back_to_keywords_and_says_why(server, tmp_path):
    store = MemoryStore(tmp_path / "memory.sqlite", _embedder(server))
    store.set("user", "editor", "prefers neovim")
    server.status = 500

    results = store.search("neovim", ["user"])
    store.close()

    assert results.mode == "keyword"
    assert "text-embedding-3-small" in results.note
    assert [f.memory.key for f in results.found] == ["editor"]


def test_settings_with_an_embedding_model_give_a_litellm_embedder():
    settings = SimpleNamespace(embedding_model="ollama/nomic-embed-text",
                               embedding_api_base="http://127.0.0.1:11434")

    embedder = embedder_from_settings(settings)

    assert isinstance(embedder, LitellmEmbedder)
    assert embedder.model == "ollama/nomic-embed-text"
    assert embedder.api_base == "http://127.0.0.1:11434"


def test_settings_without_one_never_give_a_litellm_embedder():
    assert not isinstance(embedder_from_settings(SimpleNamespace()), LitellmEmbedder)
    assert not isinstance(embedder_from_settings(None), LitellmEmbedder)


def test_importing_the_memory_package_does_not_import_litellm():
    code = ("import sys, agent_tui.core.memory, agent_tui.tools.memory; "
            "print('litellm' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout

    assert out.strip() == "False"
