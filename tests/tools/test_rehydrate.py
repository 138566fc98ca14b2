"""rehydrate brings back what context thinning moved to a fragment file of the session."""

from __future__ import annotations

import json

import pytest

from agent_tui.core.context.window import ContextManager
from agent_tui.tools.base import ToolContext
from agent_tui.tools.registry import ToolRegistry
from agent_tui.tools.rehydrate import RehydrateTool


@pytest.fixture
def session(tmp_path):
    """A session folder as the agent lays it out: outputs/ and fragments/ side by side."""
    root = tmp_path / "sessions" / "abc123"
    ctx = ToolContext(workdir=tmp_path, output_dir=root / "outputs")
    manager = ContextManager(10_000, lambda ms: sum(len(json.dumps(m)) // 4 for m in ms),
                             root / "fragments")
    return ToolRegistry([RehydrateTool()]), ctx, manager


async def test_round_trip_through_a_fragment_file(session):
    registry, ctx, manager = session
    original = "line one\nline two: ünïcode\n" + "x" * 8000
    messages = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "read_file", "arguments": '{"file_path": "a.txt"}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": original},
    ]
    fragment_id = manager.dehydrate(messages, 3)
    assert (ctx.output_dir.parent / "fragments" / f"{fragment_id}.json").is_file()
    assert f'fragment_id="{fragment_id}"' in messages[3]["content"]

    invocation = registry.build("rehydrate", {"fragment_id": fragment_id}, ctx)
    assert invocation.tool.read_only
    result = await invocation.execute()

    assert result.ok
    assert result.llm_content == original
    assert "read_file" in (result.display or "")


async def test_unknown_id_lists_the_available_ones(session):
    registry, ctx, manager = session
    messages = [{"role": "user", "content": "Tool results:\n\n" + "y" * 8000}]
    known = manager.dehydrate(messages, 0)

    result = await registry.build("rehydrate", {"fragment_id": "nope"}, ctx).execute()

    assert not result.ok
    assert "no fragment 'nope'" in result.llm_content and known in result.llm_content


async def test_no_fragments_yet_and_paths_outside_are_refused(session):
    registry, ctx, _ = session
    (ctx.output_dir.parent).mkdir(parents=True)
    (ctx.output_dir.parent / "secret.json").write_text('{"content": "no"}')

    result = await registry.build("rehydrate", {"fragment_id": "../secret"}, ctx).execute()

    assert not result.ok and "nothing has been dehydrated yet" in result.llm_content
