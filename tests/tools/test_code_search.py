"""Tests of code_search on small real source trees, parsed by the real tree-sitter grammars."""

from __future__ import annotations

import asyncio
import subprocess
import threading
import time
from pathlib import Path

import pytest

from agent_tui.tools import code_search
from agent_tui.tools.base import ToolContext, ToolKind, ToolResult
from agent_tui.tools.code_search import CodeSearchTool
from agent_tui.tools.syntax_cache import SYNTAX_CACHE
from tests.core.loop_helpers import run as run_headless
from tests.fakes.providers import Reply, ToolCall

PYTHON = '''\
import os


def top(a, b):
    return a + b


class Greeter:
    def hello(self):
        return "hi"
'''

SOURCES = {
    "python": ("app.py", PYTHON, "(function_definition name: (identifier) @name)",
               ["app.py:4:5: capture=@name top", "app.py:9:9: capture=@name hello"]),
    "rust": ("src/lib.rs", "pub fn alpha() -> u8 {\n    1\n}\n\nfn beta() {}\n",
             "(function_item name: (identifier) @name)",
             ["src/lib.rs:1:8: capture=@name alpha", "src/lib.rs:5:4: capture=@name beta"]),
    "javascript": ("web/main.js", "function start() {\n  return 1;\n}\nconst x = () => 2;\n",
                   "(function_declaration name: (identifier) @name) @fn",
                   ["web/main.js:1:1: capture=@fn function start() {",
                    "web/main.js:1:10: capture=@name start"]),
    "go": ("cmd/main.go", "package main\n\nfunc Run() int {\n\treturn 1\n}\n",
           "(function_declaration name: (identifier) @name)",
           ["cmd/main.go:3:6: capture=@name Run"]),
    "c": ("lib/util.c", "#include <stdio.h>\n\nint add(int a, int b) { return a + b; }\n",
          "(function_definition declarator: (function_declarator declarator: (identifier) @name))",
          ["lib/util.c:3:5: capture=@name add"]),
}


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    for file, text, _, _ in SOURCES.values():
        (tmp_path / file).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / file).write_text(text)
    return ToolContext(workdir=tmp_path, output_dir=tmp_path / ".out")


@pytest.fixture(autouse=True)
def empty_cache() -> None:
    SYNTAX_CACHE.clear()


async def search(ctx: ToolContext, *searches: dict, **options) -> ToolResult:
    return await CodeSearchTool().build({"searches": list(searches), **options}, ctx).execute()


def match_lines(result: ToolResult) -> list[str]:
    return [line for line in result.llm_content.splitlines() if ": capture=@" in line]


@pytest.mark.parametrize("language", sorted(SOURCES))
async def test_finds_functions_in_each_language(ctx: ToolContext, language: str) -> None:
    _, _, query, expected = SOURCES[language]

    result = await search(ctx, {"name": "fns", "query": query, "language": language})

    assert result.ok, result.llm_content
    assert match_lines(result) == expected  # only this language's files were searched
    n = len(expected)
    assert f"- fns ({language}): {n} match{'es' * (n > 1)} in 1 of 1 file" in result.llm_content


async def test_groups_several_searches_with_counts(ctx: ToolContext) -> None:
    result = await search(
        ctx,
        {"name": "py-classes", "query": "(class_definition name: (identifier) @cls)",
         "language": "py"},
        {"name": "rust-fns", "query": SOURCES["rust"][2], "language": "rust",
         "paths": ["src"]},
    )

    text = result.llm_content
    assert text.splitlines()[0].startswith("code_search: 3 matches in 2 searches")
    assert "- py-classes (python): 1 match in 1 of 1 file" in text
    assert "- rust-fns (rust): 2 matches in 1 of 1 file" in text
    classes = text.index("=== py-classes (python) ===")
    rust = text.index("=== rust-fns (rust) ===")
    assert classes < text.index("app.py:8:7: capture=@cls Greeter") < rust
    assert rust < text.index("src/lib.rs:1:8: capture=@name alpha")


async def test_context_lines_surround_the_match(ctx: ToolContext) -> None:
    result = await search(ctx, {"name": "m", "query": SOURCES["python"][2],
                                "language": "python", "context_lines": 1})

    lines = result.llm_content.splitlines()
    at = lines.index("app.py:9:9: capture=@name hello")
    assert lines[at + 1:at + 4] == [
        "      8  class Greeter:",
        ">     9      def hello(self):",
        "     10          return \"hi\"",
    ]


async def test_truncates_at_max_matches_with_a_note(ctx: ToolContext) -> None:
    many = "\n".join(f"def f{i}():\n    pass" for i in range(30))
    (ctx.workdir / "many.py").write_text(many)

    result = await search(ctx, {"name": "all", "query": SOURCES["python"][2],
                                "language": "python"}, max_matches_per_search=5)

    assert result.ok
    assert len(match_lines(result)) == 5
    assert "- all (python): 5+ matches" in result.llm_content
    assert "[stopped at 5 matches (max_matches_per_search)" in result.llm_content
    assert "raise max_matches_per_search" in result.llm_content


async def test_unknown_language_lists_the_supported_ones(ctx: ToolContext) -> None:
    result = await search(ctx, {"name": "k", "query": "(x) @x", "language": "klingon"})

    assert not result.ok
    assert "search 'k': unknown language 'klingon'" in result.error
    assert "Supported: rust, python, javascript, typescript" in result.error
    assert "haskell, scheme, racket" in result.error and "ruby" in result.error


async def test_query_syntax_error_names_search_and_position(ctx: ToolContext) -> None:
    result = await search(
        ctx,
        {"name": "good", "query": SOURCES["python"][2], "language": "python"},
        {"name": "typo", "query": "(function_definition\n  nme: (identifier) @name)",
         "language": "python"},
        {"name": "open", "query": "(function_definition name: (identifier) @name",
         "language": "python"},
    )

    assert not result.ok
    assert "search 'typo': invalid query at line 2, column 3: Invalid field name: nme" \
        in result.error
    assert "Did you mean: name?" in result.error
    assert "      nme: (identifier) @name)\n      ^" in result.error  # caret under the typo
    assert "search 'open': invalid query at line 1, column 46: Unexpected EOF" in result.error
    assert "parenthesis or bracket is not closed" in result.error
    assert "'good'" not in result.error  # only the broken searches are named


async def test_query_without_captures_is_refused(ctx: ToolContext) -> None:
    result = await search(ctx, {"name": "bare", "query": "(function_definition)",
                                "language": "python"})

    assert not result.ok
    assert "captures nothing" in result.error and "@name" in result.error


async def test_missing_path_is_an_error(ctx: ToolContext) -> None:
    result = await search(ctx, {"name": "p", "query": SOURCES["python"][2],
                                "language": "python", "paths": ["nope/"]})

    assert not result.ok
    assert "path not found: nope" in result.error


async def test_second_search_uses_the_cache_and_edits_are_seen(ctx: ToolContext) -> None:
    spec = {"name": "fns", "query": SOURCES["python"][2], "language": "python"}
    (ctx.workdir / "more.py").write_text("def extra():\n    pass\n")

    first = await search(ctx, spec)
    cold = SYNTAX_CACHE.stats()
    second = await search(ctx, spec)
    warm = SYNTAX_CACHE.stats()

    assert cold.parses == 2 and cold.match_hits == 0
    assert second.llm_content.split("\n", 1)[1] == first.llm_content.split("\n", 1)[1]
    assert warm.parses == 2 and warm.match_hits == 2  # nothing parsed again

    other = await search(ctx, {**spec, "query": "(class_definition name: (identifier) @c)"})
    assert "app.py:8:7: capture=@c Greeter" in other.llm_content
    assert SYNTAX_CACHE.stats().parses == 2  # a new query runs on the cached trees
    assert SYNTAX_CACHE.stats().tree_hits == 2

    (ctx.workdir / "more.py").write_text("def extra_renamed():\n    pass\n")
    edited = await search(ctx, spec)
    assert "more.py:1:5: capture=@name extra_renamed" in edited.llm_content
    assert SYNTAX_CACHE.stats().parses == 3  # only the edited file


async def test_searches_run_concurrently_up_to_the_limit(ctx: ToolContext, monkeypatch) -> None:
    real = code_search.run_search
    active, peak, lock = 0, 0, threading.Lock()

    def observed(job, cancelled):
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        time.sleep(0.2)  # long enough for the others to start if the limit allowed
        try:
            return real(job, cancelled)
        finally:
            with lock:
                active -= 1

    monkeypatch.setattr(code_search, "run_search", observed)
    specs = [{"name": f"s{i}", "query": SOURCES[lang][2], "language": lang}
             for i, lang in enumerate(["python", "rust", "go", "c", "javascript"])]

    started = time.perf_counter()
    result = await search(ctx, *specs, max_concurrency=2)
    elapsed = time.perf_counter() - started

    assert peak == 2
    assert 0.6 <= elapsed  # 5 searches, 2 at a time: three rounds of 0.2 s
    assert [line.split(" (")[0] for line in result.llm_content.splitlines()[1:6]] == [
        f"- s{i}" for i in range(5)]  # results keep the order of the searches
    assert "cmd/main.go:3:6: capture=@name Run" in result.llm_content


async def test_respects_gitignore_and_skips_vendor_folders(ctx: ToolContext) -> None:
    root = ctx.workdir
    for folder in ("build", "node_modules/pkg", ".venv/lib"):
        (root / folder).mkdir(parents=True)
        (root / folder / "gen.py").write_text("def generated():\n    pass\n")
    (root / ".gitignore").write_text("build/\n")
    spec = {"name": "fns", "query": SOURCES["python"][2], "language": "python"}

    walked = await search(ctx, spec)  # not a git repository yet: walked, vendor dirs pruned
    assert "build/gen.py" in walked.llm_content
    assert "node_modules" not in walked.llm_content and ".venv" not in walked.llm_content

    subprocess.run(["git", "init", "-q", str(root)], check=True)
    in_git = await search(ctx, spec)
    assert "build/gen.py" not in in_git.llm_content  # ignored, untracked files are left out
    assert "app.py:4:5: capture=@name top" in in_git.llm_content

    named = await search(ctx, {**spec, "paths": ["build"]})  # asked for explicitly
    assert "build/gen.py:1:5: capture=@name generated" in named.llm_content


async def test_unreadable_and_binary_files_are_skipped_and_counted(ctx: ToolContext) -> None:
    (ctx.workdir / "blob.py").write_bytes(b"\x00\x01\x02def x(): pass\x00")
    (ctx.workdir / "gone.py").symlink_to(ctx.workdir / "missing-target.py")
    (ctx.workdir / "script").write_text("def named_directly():\n    pass\n")

    result = await search(ctx, {"name": "fns", "query": SOURCES["python"][2],
                                "language": "python", "paths": [".", "script"]})

    assert result.ok
    assert "; 2 skipped (binary: 1, unreadable: 1)" in result.llm_content
    assert "script:1:5: capture=@name named_directly" in result.llm_content


def test_is_a_read_tool_with_a_nested_schema() -> None:
    tool = CodeSearchTool()
    assert tool.kind is ToolKind.READ and tool.read_only
    schema = tool.parameters_schema()
    assert schema["required"] == ["searches"]
    assert schema["properties"]["max_matches_per_search"]["default"] == 500


async def test_cancelling_stops_the_worker_threads(ctx: ToolContext) -> None:
    for i in range(200):
        (ctx.workdir / f"bulk{i}.py").write_text(PYTHON * 200)  # ~4 MB: seconds of parsing
    task = asyncio.ensure_future(search(ctx, {"name": "fns", "query": SOURCES["python"][2],
                                              "language": "python"},
                                        max_matches_per_search=100_000))
    await asyncio.sleep(0.1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    parsed = SYNTAX_CACHE.stats().parses
    await asyncio.sleep(0.3)
    assert SYNTAX_CACHE.stats().parses - parsed <= 1  # at most the file being parsed
    assert parsed < 205


async def test_the_model_receives_the_matches(fake_provider, tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(PYTHON)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("code_search", {"searches": [
            {"name": "functions", "query": "(function_definition name: (identifier) @name)",
             "language": "python", "context_lines": 1}]})]),
        Reply(text="Two functions: top and hello."),
    )

    outcome = await run_headless(fake_provider, tmp_path)

    assert outcome.code == 0, outcome.stderr
    told = fake_provider.requests[1].tool_results()[0]["content"]
    assert "- functions (python): 2 matches in 1 of 1 file" in told
    assert "app.py:4:5: capture=@name top" in told
    assert ">     9      def hello(self):" in told
    assert outcome.of_type("tool_result")[0]["ok"] is True


async def test_long_output_is_cut_but_counts_stay_whole(tmp_path: Path) -> None:
    (tmp_path / "many.py").write_text("".join(f"def f{i}():\n    pass\n" for i in range(400)))
    ctx = ToolContext(workdir=tmp_path, output_dir=tmp_path / ".out", output_limit=2_000)

    result = await search(ctx, {"name": "all", "query": SOURCES["python"][2],
                                "language": "python"})

    assert "- all (python): 400 matches in 1 of 1 file" in result.llm_content
    assert len(result.llm_content) < 2_300
    assert result.llm_content.endswith("Lower max_matches_per_search or context_lines, or "
                                       "narrow `paths`]")
