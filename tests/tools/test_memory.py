"""The memory tools (remember, memory_set, memory_get, memory_search) on a real database and
memory file, built and executed as the engine does."""

from __future__ import annotations

import subprocess

import pytest

from agent_tui.core.memory.project import ProjectMemory
from agent_tui.core.memory.store import MemoryStore
from agent_tui.tools.base import ToolArgumentError, ToolContext, ToolKind
from agent_tui.tools.memory import (
    MemoryGetTool,
    MemorySearchTool,
    MemorySetTool,
    RememberTool,
)
from agent_tui.tools.names import ToolName
from tests.core.memory.concepts import ConceptEmbedder

TOOLS = {tool.name: tool for tool in
         (RememberTool(), MemorySetTool(), MemoryGetTool(), MemorySearchTool())}


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _context(project, tmp_path, embedder=None) -> ToolContext:
    store = MemoryStore(tmp_path / "memory.sqlite", embedder)
    return ToolContext(workdir=project, output_dir=tmp_path / "out",
                       memory=ProjectMemory(store, project))


@pytest.fixture
def ctx(project, tmp_path):
    context = _context(project, tmp_path)
    yield context
    context.memory.store.close()


async def call(ctx: ToolContext, name: str, **args):
    return await TOOLS[name].build(args, ctx).execute()


def test_names_kinds_and_parameters_are_the_seeds():
    assert set(TOOLS) == {ToolName.REMEMBER, ToolName.MEMORY_SET, ToolName.MEMORY_GET,
                          ToolName.MEMORY_SEARCH}
    assert TOOLS["remember"].kind is ToolKind.MEMORY
    assert TOOLS["memory_set"].kind is ToolKind.MEMORY
    assert TOOLS["memory_get"].read_only and TOOLS["memory_search"].read_only

    def properties(name):
        return TOOLS[name].parameters_schema()

    assert properties("remember")["required"] == ["notes"]
    assert properties("memory_set")["required"] == ["key", "value"]
    assert properties("memory_set")["properties"]["scope"]["enum"] == ["project", "user"]
    assert properties("memory_get")["required"] == ["key"]
    assert properties("memory_search")["required"] == ["query"]
    assert properties("memory_search")["properties"]["limit"]["default"] == 10


def test_describe_names_the_key_or_query(ctx):
    def described(name, **args):
        return TOOLS[name].build(args, ctx).describe()

    assert described("memory_set", key="editor", value="vim") == "memory_set editor"
    assert described("memory_get", key="editor") == "memory_get editor"
    assert described("memory_search", query="which editor") == "memory_search which editor"
    assert described("remember", notes="### Tests\n- pytest").startswith("remember ### Tests")


@pytest.mark.parametrize("limit", [0, 51, "many"])
def test_a_search_limit_outside_1_to_50_is_refused(ctx, limit):
    with pytest.raises(ToolArgumentError, match="limit"):
        TOOLS["memory_search"].build({"query": "x", "limit": limit}, ctx)


def test_an_unknown_scope_is_refused(ctx):
    with pytest.raises(ToolArgumentError, match="scope"):
        TOOLS["memory_set"].build({"key": "k", "value": "v", "scope": "team"}, ctx)


async def test_set_then_get_then_search(ctx):
    saved = await call(ctx, "memory_set", key="test_command", value="pytest -q tests/")
    got = await call(ctx, "memory_get", key="test_command")
    found = await call(ctx, "memory_search", query="how do I run pytest")

    assert saved.ok and "test_command" in saved.llm_content
    assert got.ok and "pytest -q tests/" in got.llm_content and "project" in got.llm_content
    assert found.ok
    assert "test_command" in found.llm_content and "relevance" in found.llm_content
    assert "project" in found.llm_content and "pytest -q tests/" in found.llm_content


async def test_get_prefers_the_project_and_says_whose_memory_it_is(ctx):
    await call(ctx, "memory_set", key="editor", value="emacs", scope="user")
    assert "user" in (await call(ctx, "memory_get", key="editor")).llm_content

    await call(ctx, "memory_set", key="editor", value="vim")

    result = await call(ctx, "memory_get", key="editor")
    assert "vim" in result.llm_content and "emacs" not in result.llm_content


async def test_a_missing_key_fails_and_points_to_search(ctx):
    result = await call(ctx, "memory_get", key="nothing_here")

    assert not result.ok
    assert "nothing_here" in result.error and "memory_search" in result.error


async def test_no_match_says_no_memories_found_and_that_search_was_keyword_only(ctx):
    result = await call(ctx, "memory_search", query="anything at all")

    assert result.ok
    assert "No memories found" in result.llm_content
    assert "keyword" in result.llm_content


async def test_a_search_without_words_fails_with_a_reason(ctx):
    result = await call(ctx, "memory_search", query='"*" ()')

    assert not result.ok and "word" in result.error


async def test_long_values_are_previewed(ctx):
    value = "deploy notes: " + "step " * 200
    await call(ctx, "memory_set", key="deploy", value=value)

    result = await call(ctx, "memory_search", query="deploy")

    assert "deploy notes" in result.llm_content
    assert len(result.llm_content) < len(value)
    assert len(result.llm_content) < 600


async def test_hybrid_results_rank_by_meaning(project, tmp_path):
    ctx = _context(project, tmp_path, ConceptEmbedder())
    await call(ctx, "memory_set", key="release_notes", value="the editor of the notes is Sam")
    await call(ctx, "memory_set", key="preference_editor", value="loves neovim", scope="user")

    result = await call(ctx, "memory_search", query="preferred editor", limit=5)
    ctx.memory.store.close()

    assert "keyword search only" not in result.llm_content
    assert result.llm_content.index("preference_editor") < result.llm_content.index(
        "release_notes")


async def test_secrets_are_redacted_before_they_are_stored(ctx):
    await call(ctx, "memory_set", key="token", value="key sk-abcdefghijklmnopqrst123456")

    result = await call(ctx, "memory_get", key="token")

    assert "sk-abcdefghijklmnopqrst123456" not in result.llm_content
    assert "[REDACTED]" in result.llm_content


async def test_remember_merges_into_the_memory_file(ctx, project):
    first = await call(ctx, "remember", notes="### Tests\n- pytest -q")
    again = await call(ctx, "remember", notes="### Tests\n- pytest -q\n- ruff check .")
    same = await call(ctx, "remember", notes="### Tests\n- ruff check .")

    text = (project / ".agent-tui" / "memory.md").read_text()
    assert first.ok and again.ok and same.ok
    assert text.count("- pytest -q") == 1 and "- ruff check ." in text
    assert "Nothing new" in same.llm_content


async def test_remember_warns_when_the_file_grows_large(ctx, project):
    notes = "### Facts\n" + "\n".join(f"- fact {i}: " + "y" * 90 for i in range(450))

    result = await call(ctx, "remember", notes=notes)

    assert result.ok and "consolidate" in result.llm_content
    assert "- fact 449: " in (project / ".agent-tui" / "memory.md").read_text()


async def test_empty_notes_fail(ctx):
    result = await call(ctx, "remember", notes="   ")

    assert not result.ok and "empty" in result.error


@pytest.mark.parametrize(("name", "args"), [
    ("remember", {"notes": "- x"}),
    ("memory_set", {"key": "k", "value": "v"}),
    ("memory_get", {"key": "k"}),
    ("memory_search", {"query": "k"}),
])
async def test_a_run_without_memory_says_so(tmp_path, name, args):
    ctx = ToolContext(workdir=tmp_path, output_dir=tmp_path / "out")

    result = await call(ctx, name, **args)

    assert not result.ok and "keeps no memory" in result.error
