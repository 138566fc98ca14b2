"""The repository map on real files in a temporary folder, parsed by real tree-sitter."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent_tui.core.context.repo_map import REPO_MAP_PREFIX, RepoMap, SourceFiles, map_budget
from agent_tui.core.context.repo_map_rank import Focus, pagerank, rank_definitions
from agent_tui.core.context.repo_map_tags import DEFINITION_QUERIES, TagsCache, extract_tags
from agent_tui.core.context.window import ContextError
from agent_tui.tools.code_search import list_source_files
from agent_tui.tools.source_languages import find_language, language_of

SOURCES = SourceFiles(lambda root, wanted: list_source_files([root], wanted), language_of)


def approx_tokens(text: str) -> int:
    return len(text) // 4 + 1


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def project(root: Path) -> None:
    """A hub module used by three others, and a leaf nobody uses."""
    write(root, "app/store.py", (
        "class SessionStore:\n"
        "    def load_session(self, session_id):\n"
        "        return session_id\n\n"
        "def open_session_store(path):\n"
        "    return SessionStore()\n"))
    for name in ("cli", "server", "worker"):
        write(root, f"app/{name}.py", (
            "from app.store import SessionStore, open_session_store\n\n"
            f"def run_{name}():\n"
            "    store = open_session_store('x')\n"
            "    return store.load_session(1), SessionStore\n"))
    write(root, "app/leaf.py", "def lonely_helper_function():\n    return 1\n")


def make_map(root: Path, budget: int = 1000, cache: Path | None = None) -> RepoMap:
    repo_map = RepoMap(root, SOURCES, budget, approx_tokens, cache)
    repo_map.wait_s = None
    return repo_map


def test_a_module_many_files_use_ranks_above_a_leaf(tmp_path: Path) -> None:
    project(tmp_path)
    cache = TagsCache(tmp_path, None)
    cache.update(list_source_files([tmp_path], lambda p: p.suffix == ".py"), language_of)

    ranked = rank_definitions(cache.files, Focus())

    files = [rel for rel, _ in ranked]
    assert files[0] == "app/store.py"
    assert {name for rel, name in ranked[:3]} >= {"SessionStore", "open_session_store"}
    assert files.index("app/leaf.py") > files.index("app/store.py")


def test_the_map_shows_definitions_with_their_class_and_fits_its_budget(tmp_path: Path) -> None:
    project(tmp_path)
    for i in range(40):  # many more files than a small budget holds
        write(tmp_path, f"pkg/mod_{i:02}.py",
              f"def function_number_{i}(value):\n    return value\n\n"
              f"class Thing{i}:\n    def method_{i}(self):\n        return {i}\n")
    repo_map = make_map(tmp_path, budget=150)

    repo_map.refresh([])

    assert repo_map.text.startswith(REPO_MAP_PREFIX)
    assert approx_tokens(repo_map.text) <= 150
    assert repo_map.tokens == approx_tokens(repo_map.text)
    assert "app/store.py:\n│class SessionStore:\n⋮" in repo_map.text
    assert "pkg/mod_39.py" not in repo_map.text  # cut to the budget

    roomy = make_map(tmp_path, budget=4000)
    roomy.refresh([])
    assert "pkg/mod_39.py" in roomy.text and len(roomy.text) > len(repo_map.text)
    # a method comes with its class's line; ⋮ stands for what is left out between them
    assert ("app/store.py:\n│class SessionStore:\n│    def load_session(self, session_id):"
            "\n⋮\n│def open_session_store(path):\n⋮") in roomy.text


def test_unchanged_files_are_not_parsed_again_even_by_the_next_session(tmp_path: Path) -> None:
    root, cache = tmp_path / "project", tmp_path / "cache" / "tags.json"
    project(root)
    first = make_map(root, cache=cache)
    first.refresh([])
    assert first.cache.parses == 5
    first.refresh([])
    assert first.cache.parses == 5
    assert first.last is not None and not first.last.ranked  # nothing changed: no new ranking

    later = make_map(root, cache=cache)  # a new session reads the tags from the cache file
    later.refresh([])
    assert later.cache.parses == 0
    assert later.text == first.text
    assert json.loads(cache.read_text())["files"].keys() == {
        "app/store.py", "app/cli.py", "app/server.py", "app/worker.py", "app/leaf.py"}

    leaf = root / "app/leaf.py"  # touched, same bytes: its hash says it is unchanged
    os.utime(leaf, ns=(leaf.stat().st_atime_ns, leaf.stat().st_mtime_ns + 10**9))
    later.refresh([])
    assert later.cache.parses == 0


def test_an_edited_file_is_parsed_again_at_the_next_refresh(tmp_path: Path) -> None:
    project(tmp_path)
    repo_map = make_map(tmp_path)
    repo_map.refresh([])
    assert "reopen_the_session_store" not in repo_map.text

    write(tmp_path, "app/store.py", (tmp_path / "app/store.py").read_text()
          + "\ndef reopen_the_session_store(path):\n    return open_session_store(path)\n")
    write(tmp_path, "app/cli.py", (tmp_path / "app/cli.py").read_text()
          + "\nfrom app.store import reopen_the_session_store\nreopen_the_session_store('y')\n")
    repo_map.refresh([])

    assert repo_map.cache.parses == 5 + 2
    assert "│def reopen_the_session_store(path):" in repo_map.text
    (tmp_path / "app/leaf.py").unlink()
    repo_map.refresh([])
    assert "app/leaf.py" not in repo_map.cache.files and "app/leaf.py" not in repo_map.text


def test_the_conversation_steers_the_map(tmp_path: Path) -> None:
    project(tmp_path)
    write(tmp_path, "other/report.py",
          "from app.leaf import lonely_helper_function\n\n"
          "def build_quarterly_report():\n    return lonely_helper_function()\n")
    read_leaf = {"role": "assistant", "content": None, "tool_calls": [{
        "id": "c1", "type": "function",
        "function": {"name": "read_file", "arguments": json.dumps({"file_path": "app/leaf.py"})}}]}
    messages = [{"role": "system", "content": "s"},
                {"role": "user", "content": "look at other/report.py please"}, read_leaf,
                {"role": "tool", "tool_call_id": "c1", "content": "def lonely_helper_function"}]
    cache = TagsCache(tmp_path, None)
    cache.update(list_source_files([tmp_path], lambda p: p.suffix == ".py"), language_of)
    from agent_tui.core.context.repo_map import focus_of

    focus = focus_of(messages, tmp_path, cache.files)
    assert focus.files == {"app/leaf.py"}
    assert focus.mentioned_files == {"other/report.py"}

    ranked = rank_definitions(cache.files, focus)
    assert all(rel != "app/leaf.py" for rel, _ in ranked)  # the conversation holds it
    assert ranked[0] == ("other/report.py", "build_quarterly_report")


def test_pagerank_matches_networkx() -> None:
    nx = pytest.importorskip("networkx")
    pytest.importorskip("scipy")
    edges = {(0, 1): 2.0, (1, 2): 1.0, (2, 0): 0.5, (3, 2): 4.0, (0, 0): 0.1}
    graph = nx.DiGraph()
    graph.add_nodes_from(range(5))  # node 4 is dangling
    graph.add_weighted_edges_from((s, t, w) for (s, t), w in edges.items())
    personal = {1: 1.0, 3: 1.0}
    expected = nx.pagerank(graph, weight="weight", personalization=personal)

    ours = pagerank(5, edges, personal)

    assert list(ours) == pytest.approx([expected[i] for i in range(5)], abs=1e-5)


def test_the_budget_follows_the_window() -> None:
    assert map_budget(2048, 200_000, lean=False) == 2048
    assert map_budget(2048, 8192, lean=False) == 1024
    assert map_budget(2048, 16_384, lean=True) == 1024
    assert map_budget(2048, 4096, lean=True) == 0
    assert map_budget(0, 200_000, lean=False) == 0


def test_drop_and_pin(tmp_path: Path) -> None:
    project(tmp_path)
    repo_map = make_map(tmp_path)
    repo_map.refresh([])
    item = repo_map.context_item()
    assert item is not None and item.kind == "repo map" and item.tokens == repo_map.tokens
    assert "5 files" in item.preview

    assert repo_map.toggle_pin()
    write(tmp_path, "app/new_module.py", "def added_while_pinned():\n    return 0\n")
    repo_map.refresh([])
    assert "added_while_pinned" not in repo_map.text  # pinned: kept as it is
    assert not repo_map.toggle_pin()

    assert repo_map.drop() == repo_map.tokens
    assert repo_map.request_tail() == [] and repo_map.context_item() is None
    assert repo_map.tokens_sent() == 0
    with pytest.raises(ContextError):
        repo_map.drop()


SAMPLES = {
    "python": ("x.py", "class Widget:\n    def render(self):\n        pass\n", "render"),
    "javascript": ("x.js", "class Widget {\n  render() { return 1 }\n}\n", "render"),
    "typescript": ("x.ts", "interface Shape { area(): number }\nclass Widget {\n"
                   "  render(): void {}\n}\n", "render"),
    "tsx": ("x.tsx", "function Widget() { return <div/> }\n", "Widget"),
    "go": ("x.go", "package x\ntype Widget struct{}\nfunc (w Widget) Render() {}\n", "Render"),
    "rust": ("x.rs", "struct Widget;\nimpl Widget {\n    fn render(&self) {}\n}\n", "render"),
    "java": ("X.java", "class Widget {\n  void render() {}\n}\n", "render"),
    "c": ("x.c", "int render(int x) {\n  return x;\n}\n", "render"),
    "cpp": ("x.cpp", "class Widget {\n public:\n  void render() {}\n};\n", "render"),
    "ruby": ("x.rb", "class Widget\n  def render\n  end\nend\n", "render"),
    "csharp": ("x.cs", "class Widget {\n  void Render() {}\n}\n", "Render"),
}


@pytest.mark.parametrize("language", sorted(DEFINITION_QUERIES))
def test_every_language_with_a_query_finds_its_definitions(language: str) -> None:
    _, source, name = SAMPLES[language]
    grammar = find_language(language)
    assert grammar is not None
    tags = extract_tags(source.encode(), grammar, grammar.parser())
    found = {d.name: d for d in tags.definitions}
    assert name in found, tags.definitions
    definition = found[name]
    assert name in tags.lines[definition.line]
    if language not in ("c", "go", "tsx"):  # these samples have no enclosing definition
        assert definition.scopes, definition
