"""The repository map in real requests: headless runs through litellm to the fake providers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.core.approval import HeadlessApprover
from agent_tui.core.context.repo_map import REPO_MAP_PREFIX
from agent_tui.core.runtime.assembly import open_agent
from tests.core.context.test_repo_map import project
from tests.core.loop_helpers import run, settings_for
from tests.fakes.providers import Reply, ToolCall


def map_messages(request: Any) -> list[str]:
    """The texts of the request's messages (or content blocks) that are a repository map."""
    found = []
    for message in request.messages:
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"text": content}]
        found += [b["text"] for b in blocks
                  if isinstance(b, dict) and str(b.get("text") or "").startswith(REPO_MAP_PREFIX)]
    return found


async def test_every_request_ends_with_the_map_which_stays_out_of_the_history(
        fake_provider: Any, tmp_path: Path) -> None:
    project(tmp_path)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "app/cli.py"})]),
        Reply(text="done"),
    )

    outcome = await run(fake_provider, tmp_path, "what does app/cli.py do?")

    assert outcome.code == 0, outcome.stderr
    for request in fake_provider.requests:
        last = request.messages[-1]
        assert last["role"] == "user" and last["content"].startswith(REPO_MAP_PREFIX)
        assert len(map_messages(request)) == 1  # never kept in the history
        assert "app/store.py:\n│class SessionStore:" in last["content"]
    assert "app/cli.py" in map_messages(fake_provider.requests[0])[0]
    # The turn's map is built when it starts: cli.py, read during it, is still in it.
    assert "app/cli.py" in map_messages(fake_provider.requests[1])[0]


async def test_a_map_off_or_of_a_folder_without_source_sends_nothing(
        fake_provider: Any, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("no code here\n")
    fake_provider.script(Reply(text="ok"))
    assert (await run(fake_provider, tmp_path, "hi")).code == 0
    project(tmp_path)
    fake_provider.script(Reply(text="ok"))
    assert (await run(fake_provider, tmp_path, "hi", repo_map_tokens=0)).code == 0
    assert [map_messages(r) for r in fake_provider.requests] == [[], []]


async def test_anthropic_cache_marks_go_on_the_history_before_the_map(
        fake_provider: Any, tmp_path: Path) -> None:
    project(tmp_path)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "app/leaf.py"})]),
        Reply(text="done"),
    )

    outcome = await run(fake_provider, tmp_path, "look at the leaf", anthropic=True)

    assert outcome.code == 0, outcome.stderr
    for request in fake_provider.requests:
        blocks = [block for message in request.messages if isinstance(message["content"], list)
                  for block in message["content"]]
        map_block = next(b for b in blocks if str(b.get("text", "")).startswith(REPO_MAP_PREFIX))
        assert "cache_control" not in map_block
        before = blocks[blocks.index(map_block) - 1]
        assert before.get("cache_control") == {"type": "ephemeral"}, before
    # the second call reads what the first wrote: the map did not shift the cached prefix
    assert fake_provider.requests[1].body  # recorded
    usage = outcome.result.get("usage", {})
    assert usage.get("cache_read_tokens", 0) > 0, json.dumps(usage)


async def test_a_dropped_map_is_gone_from_the_next_request(fake_provider: Any,
                                                           tmp_path: Path) -> None:
    project(tmp_path)
    settings = settings_for(fake_provider)
    agent = await open_agent(settings, tmp_path, HeadlessApprover("default"), lambda e: None)
    assert agent.repo_map is not None
    agent.repo_map.wait_s = None
    fake_provider.script(Reply(text="first"), Reply(text="second"))
    await agent.run("first")
    assert map_messages(fake_provider.requests[0])
    item = agent.repo_map.context_item()
    assert item is not None and agent.context.reserved() == item.tokens

    agent.repo_map.drop()
    await agent.run("second")

    assert map_messages(fake_provider.requests[1]) == []
    assert agent.context.reserved() == 0
