"""MemoryStore on real SQLite files: upserts, scopes, FTS5-proof queries, hybrid ranking."""

from __future__ import annotations

import asyncio
import sqlite3

import numpy as np
import pytest

from agent_tui.core.memory.store import MemoryStore, MemoryStoreError

from .concepts import ConceptEmbedder

PROJECT = "/home/someone/project"
OTHER = "/home/someone/other"


@pytest.fixture
def store(tmp_path):
    store = MemoryStore(tmp_path / "memory.sqlite")
    yield store
    store.close()


@pytest.fixture
def hybrid(tmp_path):
    store = MemoryStore(tmp_path / "memory.sqlite", ConceptEmbedder())
    yield store
    store.close()


def test_set_replaces_the_value_under_the_same_scope_and_key(store):
    store.set(PROJECT, "test_command", "make test")
    store.set(PROJECT, "test_command", "pytest -q tests/")

    assert store.get([PROJECT], "test_command").value == "pytest -q tests/"
    assert store.count() == 1
    found = store.search("pytest", [PROJECT]).found
    assert [f.memory.value for f in found] == ["pytest -q tests/"]
    assert store.search("make", [PROJECT]).found == []  # the old text left the index too


def test_the_same_key_lives_apart_in_each_scope(store):
    store.set("user", "editor", "emacs everywhere")
    store.set(PROJECT, "editor", "vim in this repository")

    assert store.get([PROJECT, "user"], "editor").value == "vim in this repository"
    assert store.get(["user", PROJECT], "editor").value == "emacs everywhere"
    assert store.get([OTHER, "user"], "editor").value == "emacs everywhere"
    assert store.get([OTHER], "editor") is None
    assert store.count() == 2


def test_search_and_list_see_only_the_scopes_asked_for(store):
    store.set(PROJECT, "db", "postgres 16 on port 5433")
    store.set(OTHER, "db", "postgres in docker")
    store.set("user", "style", "short commit messages")

    scopes = [f.memory.scope for f in store.search("postgres", [PROJECT, "user"]).found]
    assert scopes == [PROJECT]
    assert {m.scope for m in store.list([PROJECT, "user"], limit=10, offset=0)} == {
        PROJECT, "user"}
    assert len(store.list([PROJECT, OTHER, "user"], limit=2, offset=0)) == 2
    assert len(store.list([PROJECT, OTHER, "user"], limit=2, offset=2)) == 1


def test_delete_forgets_and_says_whether_there_was_anything(hybrid):
    hybrid.set(PROJECT, "editor", "prefers neovim")
    hybrid.search("vim", [PROJECT])  # loads the vectors

    assert hybrid.delete(PROJECT, "editor") is True
    assert hybrid.delete(PROJECT, "editor") is False
    assert hybrid.get([PROJECT], "editor") is None
    assert hybrid.search("neovim editor", [PROJECT]).found == []
    assert hybrid.count() == 0


@pytest.mark.parametrize("query", [
    'say "hello', '"hello"', "hello AND", "AND hello", "hello*", "* hello", "NEAR(hello",
    "NEAR(hello world, 2)", "hello OR", "NOT hello", "key:hello", "^hello", "hello)",
    "{key value}: hello", "hello + world", "-hello",
])
def test_queries_that_look_like_fts5_syntax_are_plain_words(store, query):
    store.set(PROJECT, "greeting", "hello world, said the program")

    found = store.search(query, [PROJECT]).found

    assert [f.memory.key for f in found] == ["greeting"]


@pytest.mark.parametrize("query", ["", "   ", '"', "*", "()", "-- ? !"])
def test_a_query_without_words_is_refused_with_a_reason(store, query):
    store.set(PROJECT, "greeting", "hello")

    with pytest.raises(ValueError, match="no words"):
        store.search(query, [PROJECT])


def test_without_an_embedder_search_is_keyword_only_and_says_so(store):
    store.set(PROJECT, "editor", "prefers neovim")

    results = store.search("neovim", [PROJECT])

    assert results.mode == "keyword"
    assert "keyword" in results.note and "embedding" in results.note
    assert [f.memory.key for f in results.found] == ["editor"]
    assert 0 < results.found[0].score <= 1


def test_hybrid_ranking_puts_the_memory_that_means_the_query_first(hybrid):
    # Shares the query's words but means something else.
    hybrid.set(PROJECT, "release_notes", "the editor of the release notes is Sam; which notes")
    # Shares no word with the query but means it.
    hybrid.set("user", "preference_editor", "loves neovim")
    hybrid.set(PROJECT, "db", "postgres schema migration with alembic")

    results = hybrid.search("which editor is preferred", [PROJECT, "user"])

    assert results.mode == "hybrid" and results.note == ""
    assert results.found[0].memory.key == "preference_editor"
    assert "release_notes" in [f.memory.key for f in results.found]
    assert all(0 <= f.score <= 1 for f in results.found)
    scores = [f.score for f in results.found]
    assert scores == sorted(scores, reverse=True)


def test_vectors_are_stored_as_little_endian_float32_with_the_embedder_s_name(hybrid):
    hybrid.set(PROJECT, "tests", "run pytest before pushing")

    with sqlite3.connect(hybrid.path) as db:
        blob, name = db.execute("SELECT embedding, embedder FROM memories").fetchone()
    vector = np.frombuffer(blob, dtype="<f4")
    assert name == "test:concepts"
    assert vector.shape == (ConceptEmbedder.dimensions,)
    assert abs(float(np.linalg.norm(vector)) - 1) < 1e-5


def test_memories_written_after_the_first_search_are_found_by_meaning(hybrid):
    hybrid.set(PROJECT, "db", "sqlite for the cache")
    hybrid.search("sqlite", [PROJECT, "user"])  # loads the vectors of these scopes

    hybrid.set("user", "editor", "loves emacs")  # the loaded vectors must grow

    found = hybrid.search("favourite vim", [PROJECT, "user"]).found
    assert found[0].memory.key == "editor"


def test_a_new_store_on_the_same_file_finds_everything(tmp_path):
    first = MemoryStore(tmp_path / "memory.sqlite", ConceptEmbedder())
    first.set(PROJECT, "deploy", "ship to staging with make release")
    first.close()

    second = MemoryStore(tmp_path / "memory.sqlite", ConceptEmbedder())
    results = second.search("production deployment", [PROJECT])
    second.close()

    assert results.mode == "hybrid"
    assert [f.memory.key for f in results.found] == ["deploy"]


def test_stemming_finds_other_forms_of_a_word(store):
    store.set(PROJECT, "ci", "the tests run on every push")

    assert [f.memory.key for f in store.search("testing", [PROJECT]).found] == ["ci"]


def test_a_damaged_database_is_named_and_left_alone(tmp_path):
    path = tmp_path / "memory.sqlite"
    garbage = b"this is not a database, but somebody's memories might be in it\n" * 200
    path.write_bytes(garbage)
    store = MemoryStore(path)

    with pytest.raises(MemoryStoreError) as caught:
        store.set(PROJECT, "k", "v")

    assert str(path) in str(caught.value) and "move it away" in str(caught.value)
    assert path.read_bytes() == garbage


async def test_writes_from_many_threads_all_land(hybrid):
    async def write(i: int) -> None:
        await asyncio.to_thread(hybrid.set, PROJECT, f"fact_{i}", f"fact number {i} on tests")

    await asyncio.gather(*(write(i) for i in range(40)))
    searches = await asyncio.gather(*(
        asyncio.to_thread(hybrid.search, "tests", [PROJECT], 50) for _ in range(8)))

    assert hybrid.count() == 40
    assert all(len(results.found) == 40 for results in searches)
