"""Tests of the tool registry with the built-in tools: schemas and the model's mistakes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.tools.base import ToolArgumentError, ToolContext
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.edit_file import EditFileInvocation
from agent_tui.tools.read_file import ReadFileInvocation
from agent_tui.tools.registry import ToolRegistry


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workdir=tmp_path, output_dir=tmp_path / "out")


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry(builtin_tools())


def schema_text(registry: ToolRegistry, name: str) -> str:
    return json.dumps(registry.get(name).parameters_schema())


def test_builtin_tools_in_order(registry: ToolRegistry) -> None:
    assert registry.names == [
        "read_file", "read_many_files", "write_file", "edit_file", "str_replace",
        "ls", "glob_files", "grep", "code_search", "code_coverage", "shell",
        "background_process", "read_image", "take_screenshot", "web_fetch", "web_search",
        "research", "http_request", "gif_search", "task", "todo_read", "todo_write", "remember", "memory_set", "memory_get",
        "memory_search", "activate_skill", "rehydrate", "get_internal_docs",
    ]


def test_the_browser_and_desktop_tools_come_when_the_settings_offer_them() -> None:
    from types import SimpleNamespace

    offered = ToolRegistry(builtin_tools(SimpleNamespace(webdriver=True,
                                                         computer_control=True))).names
    assert offered[-19:] == [
        "webdriver_start", "webdriver_navigate", "webdriver_get_url", "webdriver_get_title",
        "webdriver_find_element", "webdriver_find_elements", "webdriver_click",
        "webdriver_send_keys", "webdriver_execute_script", "webdriver_get_page_source",
        "webdriver_screenshot", "webdriver_back", "webdriver_forward", "webdriver_refresh",
        "webdriver_quit", "list_windows", "find_element", "mouse_click", "type_text"]


def test_every_parameter_is_described_and_schemas_are_simple(registry: ToolRegistry) -> None:
    for schema in registry.schemas():
        function = schema["function"]
        assert function["description"]
        parameters = function["parameters"]
        assert parameters["additionalProperties"] is False
        for name, prop in parameters["properties"].items():
            assert prop.get("description"), f"{function['name']}.{name} has no description"
            assert "anyOf" not in prop and "title" not in prop


def test_schemas_use_the_primary_names(registry: ToolRegistry) -> None:
    edit = registry.get("edit_file").parameters_schema()
    assert set(edit["properties"]) == {"file_path", "old_text", "new_text", "replace_all",
                                       "expected_replacements", "instruction"}
    assert edit["required"] == ["file_path", "old_text", "new_text"]
    shell = registry.get("shell").parameters_schema()
    assert set(shell["properties"]) == {"command", "working_dir", "timeout"}
    assert shell["required"] == ["command"]


def test_unknown_tool_lists_available_tools(registry: ToolRegistry, ctx: ToolContext) -> None:
    with pytest.raises(ToolArgumentError) as info:
        registry.build("read_files", "{}", ctx)
    message = str(info.value)
    assert "read_files" in message
    assert "read_file, read_many_files, write_file, edit_file" in message


def test_malformed_json_shows_the_schema(registry: ToolRegistry, ctx: ToolContext) -> None:
    with pytest.raises(ToolArgumentError) as info:
        registry.build("read_file", '{"file_path": "a.txt",', ctx)
    message = str(info.value)
    assert "not valid JSON" in message
    assert schema_text(registry, "read_file") in message


def test_missing_required_argument_names_field_and_schema(
        registry: ToolRegistry, ctx: ToolContext) -> None:
    with pytest.raises(ToolArgumentError) as info:
        registry.build("write_file", '{"file_path": "a.txt"}', ctx)
    message = str(info.value)
    assert "content: Field required" in message
    assert schema_text(registry, "write_file") in message


def test_extra_argument_names_field_and_schema(registry: ToolRegistry, ctx: ToolContext) -> None:
    with pytest.raises(ToolArgumentError) as info:
        registry.build("shell", '{"command": "ls", "shell": "zsh"}', ctx)
    message = str(info.value)
    assert "shell: Extra inputs are not permitted" in message
    assert schema_text(registry, "shell") in message


def test_wrong_type_names_field(registry: ToolRegistry, ctx: ToolContext) -> None:
    with pytest.raises(ToolArgumentError, match="start_line"):
        registry.build("read_file", {"file_path": "a.txt", "start_line": "ten"}, ctx)


def test_aliases_are_accepted_through_json(registry: ToolRegistry, ctx: ToolContext) -> None:
    invocation = registry.build(
        "edit_file", '{"path": "a.py", "old_string": "x", "new_string": "y"}', ctx)
    assert isinstance(invocation, EditFileInvocation)
    assert (invocation.params.file_path, invocation.params.old_text,
            invocation.params.new_text) == ("a.py", "x", "y")

    read = registry.build("read_file", '{"path": "a.py", "start_line": 3}', ctx)
    assert isinstance(read, ReadFileInvocation)
    assert read.locations() == [ctx.workdir / "a.py"]

    shell = registry.build("shell", '{"command": "pwd", "cwd": "sub"}', ctx)
    assert shell.params.working_dir == "sub"


def test_both_spellings_at_once_is_an_error(registry: ToolRegistry, ctx: ToolContext) -> None:
    with pytest.raises(ToolArgumentError, match="path"):
        registry.build("read_file", '{"path": "a.py", "file_path": "b.py"}', ctx)
