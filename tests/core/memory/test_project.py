"""ProjectMemory: one project's scope and the person's, redacted on the way in."""

from __future__ import annotations

import os
import subprocess

import pytest

from agent_tui.core.memory.project import USER_SCOPE, ProjectMemory
from agent_tui.core.memory.store import MemoryStore

from .concepts import ConceptEmbedder


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "repo"
    (root / "src" / "pkg").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


@pytest.fixture
def store(tmp_path):
    store = MemoryStore(tmp_path / "memory.sqlite", ConceptEmbedder())
    yield store
    store.close()


def test_the_project_scope_is_the_real_path_of_the_project_root(project, store, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(project)

    deep = ProjectMemory(store, project / "src" / "pkg")
    linked = ProjectMemory(store, link / "src")

    assert deep.project_scope == os.path.realpath(project)
    assert linked.project_scope == deep.project_scope
    deep.set("build", "make all")
    assert linked.get("build").value == "make all"


def test_get_prefers_the_project_s_memory_over_the_person_s(project, store):
    memory = ProjectMemory(store, project)
    memory.set("editor", "emacs", scope="user")
    assert memory.get("editor").value == "emacs"

    memory.set("editor", "vim here")

    assert memory.get("editor").value == "vim here"
    assert store.get([USER_SCOPE], "editor").value == "emacs"


def test_the_person_s_memories_follow_them_to_other_projects(project, store, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    ProjectMemory(store, project).set("tone", "short answers", scope="user")
    ProjectMemory(store, project).set("db", "postgres 16")

    elsewhere = ProjectMemory(store, other)

    assert elsewhere.get("tone").value == "short answers"
    assert elsewhere.get("db") is None
    assert [f.memory.key for f in elsewhere.search("postgres answers").found] == ["tone"]


def test_search_covers_the_project_and_the_person(project, store):
    memory = ProjectMemory(store, project)
    memory.set("tests", "pytest -q runs the suite")
    memory.set("editor", "loves neovim", scope="user")

    found = {f.memory.key for f in memory.search("pytest neovim", limit=10).found}

    assert found == {"tests", "editor"}


def test_api_keys_never_reach_the_database(project, store):
    memory = ProjectMemory(store, project)
    key = "sk-proj-abcdefghijklmnop1234567890"

    memory.set("staging", f"the staging key is {key}, rotate monthly")

    assert key not in memory.get("staging").value
    assert "[REDACTED]" in memory.get("staging").value
    assert key.encode() not in _database_bytes(store)


def test_remember_writes_the_project_s_memory_file_redacted(project, store):
    memory = ProjectMemory(store, project / "src")

    done = memory.remember("### Secrets\n- CI uses Bearer abcdefghijklmnopqrstuvwx")

    assert done.path == project / ".agent-tui" / "memory.md"
    text = done.path.read_text()
    assert "abcdefghijklmnopqrstuvwx" not in text and "[REDACTED]" in text


def _database_bytes(store: MemoryStore) -> bytes:
    store.close()  # lets SQLite fold the WAL back into the file
    folder = store.path.parent
    return b"".join((folder / name).read_bytes() for name in os.listdir(folder)
                    if name.startswith(store.path.name))


def test_warm_gives_vectors_to_memories_stored_before_an_embedder(tmp_path):
    from agent_tui.core.memory import MemoryStore, ProjectMemory

    from .concepts import ConceptEmbedder

    plain = ProjectMemory(MemoryStore(tmp_path / "m.sqlite"), tmp_path)
    plain.set("tests", "run the test suite with pytest")
    plain.store.close()
    store = MemoryStore(tmp_path / "m.sqlite", ConceptEmbedder())
    memory = ProjectMemory(store, tmp_path)

    assert memory.warm() == 1
    assert memory.warm() == 0
    assert memory.search("how do I check my code works").mode == "hybrid"
    store.close()


def test_warm_embeds_a_bounded_number_of_old_memories(tmp_path, monkeypatch):
    from agent_tui.core.memory import MemoryStore, ProjectMemory, project

    from .concepts import ConceptEmbedder

    plain = ProjectMemory(MemoryStore(tmp_path / "m.sqlite"), tmp_path)
    for n in range(5):
        plain.set(f"k{n}", f"value {n}")
    plain.store.close()
    monkeypatch.setattr(project, "WARM_EMBED_LIMIT", 2)
    memory = ProjectMemory(MemoryStore(tmp_path / "m.sqlite", ConceptEmbedder()), tmp_path)

    assert memory.warm() == 2
    memory.store.close()
