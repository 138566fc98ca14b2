"""Thinning and compaction driven through litellm and the fake provider with a small window."""

from __future__ import annotations

from agent_tui.core.agent import Agent
from agent_tui.core.approval import HeadlessApprover
from agent_tui.core.providers.litellm import LitellmProvider
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.registry import ToolRegistry
from tests.core.loop_helpers import run, settings_for
from tests.fakes.providers import Fault, Reply, ToolCall


def big_file(path, lines=400):
    path.write_text("".join(f"line {i}: {'lorem ipsum dolor sit amet ' * 3}\n"
                            for i in range(lines)))


async def test_old_large_tool_results_are_thinned_and_can_be_rehydrated(fake_provider,
                                                                          tmp_path):
    for name in ("a.txt", "b.txt", "c.txt"):
        big_file(tmp_path / name)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "a.txt"})]),
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "b.txt"})]),
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "c.txt"})]),
        Reply(text="read them all"),
    )

    outcome = await run(fake_provider, tmp_path, context_window=24_000)

    assert outcome.code == 0, outcome.stderr
    thinned = outcome.of_type("context_thinned")
    assert thinned and thinned[0]["fragments"]
    last = fake_provider.requests[-1]
    contents = [r["content"] for r in last.tool_results()]
    assert "DEHYDRATED CONTEXT" in contents[0]  # the oldest result went first
    assert "line 399" in contents[-1]  # the newest result is still whole
    fragment = thinned[0]["fragments"][0]
    assert f'fragment_id="{fragment}"' in contents[0]


async def test_context_length_error_compacts_once_and_retries(fake_provider, tmp_path):
    settings = settings_for(fake_provider)
    agent = Agent(LitellmProvider(settings), ToolRegistry(builtin_tools()), settings, tmp_path,
                  HeadlessApprover("default"), lambda event: None)
    fake_provider.script(Reply(text="first answer"), Reply(text="second answer"))
    await agent.run("first task: remember the number 42")
    await agent.run("second task")
    fake_provider.script(
        Fault.server_error(400, "This model's maximum context length is 8192 tokens. However, "
                                "your messages resulted in 9000 tokens."),
        Reply(text="SUMMARY: the user asked to remember 42."),
        Reply(text="third answer"),
    )

    result = await agent.run("third task")

    assert result.ok, result.error
    summary_request = fake_provider.requests[3]
    assert "summary" in summary_request.messages[0]["content"].lower()
    retried = fake_provider.requests[4]
    texts = [m["content"] for m in retried.messages if isinstance(m.get("content"), str)]
    assert any("Summary of the conversation so far" in t and "42" in t for t in texts)
    assert any(t == "third task" for t in texts)
