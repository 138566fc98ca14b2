"""Other agents' tool names and parameters reach agent-tui's tools (tools/aliases.py)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agent_tui.core.text_protocol import parse_tool_calls, tool_specs
from agent_tui.core.todos import TodoStore
from agent_tui.tools.aliases import ALIASES, BY_NAME
from agent_tui.tools.base import ToolArgumentError, ToolContext
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.names import ToolName
from agent_tui.tools.read_file import ReadFileTool
from agent_tui.tools.registry import ToolRegistry
from tests.core.loop_helpers import run
from tests.fakes.providers import Reply, ToolCall

LINES = "".join(f"line {n}\n" for n in range(1, 11))


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    (tmp_path / "notes.txt").write_text(LINES)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("def f():\n    return 1\n")
    search = SimpleNamespace(web_search_backend="searxng", web_search_url="http://127.0.0.1:9",
                             web_search_key_env=None)
    ctx = ToolContext(workdir=tmp_path, output_dir=tmp_path / "out", network_enabled=True,
                      todos=TodoStore(tmp_path / "todos.md"), settings=search)
    assert ReadFileTool().build({"file_path": "src/a.py"}, ctx).read().ok  # before edits
    return ctx


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry(builtin_tools())


# Each alias with seed-style arguments, and the tool and parameters it must become.
CASES: list[tuple[str, dict[str, Any], str, dict[str, Any]]] = [
    ("read_file", {"absolute_path": "notes.txt", "offset": 2, "limit": 3},
     ToolName.READ_FILE, {"file_path": "notes.txt", "start_line": 3, "end_line": 5}),
    ("read_file", {"path": "notes.txt", "start_line": 1, "end_line": 2},
     ToolName.READ_FILE, {"file_path": "notes.txt", "start_line": 1, "end_line": 2}),
    ("replace", {"file_path": "src/a.py", "old_string": "return 1", "new_string": "return 2"},
     ToolName.EDIT_FILE, {"file_path": "src/a.py", "old_text": "return 1",
                          "new_text": "return 2"}),
    ("run_shell_command", {"command": "echo hi", "description": "say hi", "directory": "src"},
     ToolName.SHELL, {"command": "echo hi", "working_dir": "src"}),
    ("execute_command", {"command": "echo hi", "working_dir": "src", "timeout": 5000},
     ToolName.SHELL, {"command": "echo hi", "working_dir": "src", "timeout": 5000}),
    ("search_file_content", {"pattern": "return", "dir_path": "src", "include": "*.py"},
     ToolName.GREP, {"pattern": "return", "path": "src", "glob": "*.py"}),
    ("list_directory", {"dir_path": "src", "file_filtering_options": {}},
     ToolName.LS, {"path": "src"}),
    ("glob", {"pattern": "**/*.py", "dir_path": ".", "case_sensitive": False},
     ToolName.GLOB_FILES, {"pattern": "**/*.py", "dir": "."}),
    ("glob_files", {"pattern": "*.txt", "dir": "."},
     ToolName.GLOB_FILES, {"pattern": "*.txt", "dir": "."}),
    ("write_file", {"path": "new/b.txt", "content": "x\n", "create_directories": True},
     ToolName.WRITE_FILE, {"file_path": "new/b.txt", "content": "x\n",
                           "create_directories": True}),
    ("write_todos", {"todos": [{"description": "read", "status": "completed"},
                               {"description": "edit", "status": "in_progress"},
                               {"description": "test", "status": "pending"}]},
     ToolName.TODO_WRITE, {"content": "- [x] read\n- [ ] edit (in progress)\n- [ ] test\n"}),
    ("web_fetch", {"prompt": "Summarise https://example.com/docs, please."},
     ToolName.WEB_FETCH, {"url": "https://example.com/docs"}),
    ("google_web_search", {"query": "textual"}, ToolName.WEB_SEARCH, {"query": "textual"}),
    ("read_many_files", {"paths": ["notes.txt"], "include": ["src/*.py"], "recursive": True},
     ToolName.READ_MANY_FILES, {"paths": ["notes.txt", "src/*.py"]}),
    ("run", {"command": "ls"}, ToolName.SHELL, {"command": "ls"}),
]


@pytest.mark.parametrize(("name", "args", "tool", "expected"), CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_an_alias_becomes_the_tool_with_its_parameters(
        ctx: ToolContext, registry: ToolRegistry, name: str, args: dict[str, Any], tool: str,
        expected: dict[str, Any]) -> None:
    invocation = registry.build(name, json.dumps(args), ctx)
    assert invocation.tool.name == tool
    given = invocation.params.model_dump(exclude_unset=True)
    assert {k: given[k] for k in expected} == expected


def test_every_alias_names_a_seed_and_a_tool() -> None:
    assert len(BY_NAME) == len(ALIASES)
    builtin = {t.name for t in builtin_tools()}
    for alias in ALIASES:
        assert alias.seed in {"gemini-cli", "egirl", "g3", "GLTCH"}
        assert alias.tool in builtin or alias.tool not in set(ToolName)


async def test_aliased_calls_run_the_real_tools(ctx: ToolContext,
                                                registry: ToolRegistry) -> None:
    read = await registry.build("read_file", {"absolute_path": "notes.txt", "offset": 2,
                                              "limit": 2}, ctx).execute()
    assert "     3: line 3" in read.llm_content and "line 5" not in read.llm_content
    edited = await registry.build("replace", {
        "file_path": "src/a.py", "old_string": "return 1", "new_string": "return 2"},
        ctx).execute()
    assert edited.ok, edited.error
    assert (ctx.workdir / "src" / "a.py").read_text() == "def f():\n    return 2\n"
    listed = await registry.build("list_directory", {"dir_path": "src"}, ctx).execute()
    assert "a.py" in listed.llm_content
    found = await registry.build("search_file_content",
                                 {"pattern": "return", "include": "*.py"}, ctx).execute()
    assert "src/a.py" in found.llm_content
    shell = await registry.build("run_shell_command",
                                 {"command": "pwd", "directory": "src"}, ctx).execute()
    assert shell.llm_content.strip().splitlines()[0].endswith("/src")
    todos = await registry.build("write_todos", {"todos": [
        {"description": "ship", "status": "completed"}]}, ctx).execute()
    assert todos.ok and ctx.todos is not None and "- [x] ship" in ctx.todos.read()


def test_gemini_cli_s_save_memory_is_remember(ctx: ToolContext, registry: ToolRegistry) -> None:
    invocation = registry.build("save_memory", {"fact": "the tests use pytest"}, ctx)

    assert invocation.tool.name == "remember"
    assert invocation.params.notes == "the tests use pytest"


def test_unknown_names_say_there_is_no_such_tool(
        ctx: ToolContext, registry: ToolRegistry) -> None:
    with pytest.raises(ToolArgumentError, match="no tool named 'frobnicate'"):
        registry.build("frobnicate", {}, ctx)


def test_bad_alias_arguments_are_explained(ctx: ToolContext, registry: ToolRegistry) -> None:
    with pytest.raises(ToolArgumentError, match="unknown todo status 'done'"):
        registry.build("write_todos", {"todos": [{"description": "a", "status": "done"}]},
                       ctx)
    with pytest.raises(ToolArgumentError, match="holds none"):
        registry.build("web_fetch", {"prompt": "read the docs"}, ctx)
    with pytest.raises(ToolArgumentError, match="offset and limit must be whole numbers"):
        registry.build("read_file", {"file_path": "notes.txt", "offset": "x"}, ctx)
    with pytest.raises(ToolArgumentError, match="invalid arguments for shell"):
        registry.build("run_shell_command", {"command": "ls", "color": True}, ctx)


def test_aliases_are_not_offered_to_the_model(registry: ToolRegistry) -> None:
    offered = {schema["function"]["name"] for schema in registry.schemas()}
    assert not offered & {"replace", "run_shell_command", "execute_command", "glob"}


def test_text_protocol_calls_by_other_names(registry: ToolRegistry) -> None:
    specs = tool_specs(registry.schemas())
    _, calls = parse_tool_calls(
        '{"tool": "replace", "args": {"file_path": "a.py", "old_string": "1", '
        '"new_string": "2"}}\n[ACTION:run|ls -la]', specs)
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("replace", {"file_path": "a.py", "old_string": "1", "new_string": "2"}),
        ("shell", {"command": "ls -la"}),
    ]


# --------------------------------------------------------------------------- headless loop


async def test_loop_other_agents_names_get_the_same_results(fake_provider,
                                                           tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"absolute_path": str(tmp_path / "a.py")})]),
        Reply(tool_calls=[ToolCall("replace", {"file_path": "a.py", "old_string": "return 1",
                                               "new_string": "return 2"})]),
        Reply(tool_calls=[ToolCall("run_shell_command", {"command": "echo gemini"}),
                          ToolCall("execute_command", {"command": "echo egirl"})]),
        Reply(tool_calls=[ToolCall("list_directory", {"dir_path": "."})]),
        Reply(text="Done."),
    )

    outcome = await run(fake_provider, tmp_path, approval_mode="yolo")

    assert outcome.code == 0, outcome.stderr
    results = outcome.of_type("tool_result")
    assert [r["ok"] for r in results] == [True] * 5
    assert [r["name"] for r in results] == ["read_file", "edit_file", "shell", "shell", "ls"]
    calls = outcome.of_type("tool_call")
    assert [c["called_as"] for c in calls] == [None, "replace", "run_shell_command",
                                               "execute_command", "list_directory"]
    assert (tmp_path / "a.py").read_text() == "def f():\n    return 2\n"
    outputs = [r["output"] for r in results]
    assert "gemini" in outputs[2] and "egirl" in outputs[3] and "a.py" in outputs[4]


async def test_loop_text_protocol_replace(fake_provider, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    fake_provider.script(
        Reply(text='{"tool": "read_file", "args": {"path": "a.py"}}'),
        Reply(text='{"tool": "replace", "args": {"file_path": "a.py", "old_string": "x = 1", '
                   '"new_string": "x = 2"}}'),
        Reply(text="Done."),
    )
    outcome = await run(fake_provider, tmp_path, approval_mode="yolo", tool_protocol="text")
    assert outcome.code == 0, outcome.stderr
    assert [r["ok"] for r in outcome.of_type("tool_result")] == [True, True]
    assert (tmp_path / "a.py").read_text() == "x = 2\n"
