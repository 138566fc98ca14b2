"""todo_read / todo_write on a real session file."""

from __future__ import annotations

import pytest

from agent_tui.core.todos import TodoStore
from agent_tui.tools.base import ToolContext
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.registry import ToolRegistry


@pytest.fixture
def setup(tmp_path):
    seen: list[str] = []
    store = TodoStore(tmp_path / "session" / "todo.md", on_change=seen.append)
    ctx = ToolContext(workdir=tmp_path, output_dir=tmp_path / "out", todos=store)
    return ToolRegistry(builtin_tools()), ctx, store, seen


async def test_write_then_read(setup):
    registry, ctx, store, seen = setup
    content = "- [ ] plan\n  - [x] read code\n- [ ] write tests\n"
    result = await registry.build("todo_write", {"content": content}, ctx).execute()
    assert result.ok and "3 items, 1 done" in result.llm_content
    assert store.path.read_text() == content
    assert seen == [content]
    read = await registry.build("todo_read", {}, ctx).execute()
    assert read.llm_content == content


async def test_empty_list_reads_as_empty(setup):
    registry, ctx, _, _ = setup
    result = await registry.build("todo_read", {}, ctx).execute()
    assert "empty" in result.llm_content


async def test_text_without_checkboxes_is_refused(setup):
    registry, ctx, store, seen = setup
    result = await registry.build("todo_write", {"content": "just some notes"}, ctx).execute()
    assert not result.ok and "- [ ] task" in result.llm_content
    assert not store.path.exists() and seen == []


async def test_no_store_is_a_clear_error(tmp_path):
    ctx = ToolContext(workdir=tmp_path, output_dir=tmp_path / "out")
    result = await ToolRegistry(builtin_tools()).build("todo_read", {}, ctx).execute()
    assert not result.ok and "no todo list" in result.llm_content
