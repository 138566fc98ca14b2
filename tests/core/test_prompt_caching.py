"""Prompt caching: Anthropic's cache breakpoints, a byte-stable prefix, and the cache's
reads and writes counted in usage, through litellm over HTTP to the fake providers."""

from __future__ import annotations

from typing import Any

from agent_tui.core.context.repo_map import REPO_MAP_PREFIX
from agent_tui.core.events import Usage
from agent_tui.core.providers.caching import (
    mark_cache_breakpoints,
    marks_tools,
    takes_cache_marks,
)
from agent_tui.core.providers.litellm import cache_counts, load_litellm
from tests.core.loop_helpers import run
from tests.fakes.prompt_cache import cached_prefix, request_blocks, request_bytes
from tests.fakes.providers import Reply, ToolCall


def _reads(count: int) -> list[Reply]:
    """A session of ``count`` model calls: each but the last reads a file."""
    return [
        Reply(text=f"Reading {i}.", tool_calls=[ToolCall("read_file", {"file_path": "a.py"})])
        for i in range(count - 1)
    ] + [Reply(text="Done.")]


def _marked(body: dict[str, Any]) -> list[int]:
    return [i for i, (_, marked) in enumerate(request_blocks(body)) if marked]


async def test_anthropic_requests_mark_tools_system_and_history(fake_provider, tmp_path):
    (tmp_path / "a.py").write_text("print('a')\n" * 50)
    fake_provider.script(*_reads(4))

    outcome = await run(fake_provider, tmp_path, anthropic=True)

    assert outcome.code == 0, outcome.stderr
    for request in fake_provider.requests:
        body = request.body
        assert 3 <= len(_marked(body)) <= 4
        assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
        assert all("cache_control" not in tool for tool in body["tools"][:-1])
        assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
        # a.py makes a repository map: it goes last, unmarked, after the marked history
        last = body["messages"][-1]["content"][-1]
        assert last["text"].startswith(REPO_MAP_PREFIX) and "cache_control" not in last
        assert _marked(body)[-1] == len(request_blocks(body)) - 2
    # From the second call on, the history the previous call ended with is marked too.
    later = fake_provider.requests[2].body["messages"]
    assert later[-3]["content"][-1]["cache_control"] == {"type": "ephemeral"}


async def test_the_cached_prefix_is_byte_stable_from_call_to_call(fake_provider, tmp_path):
    (tmp_path / "a.py").write_text("print('a')\n" * 50)
    fake_provider.script(*_reads(5))

    outcome = await run(fake_provider, tmp_path, anthropic=True)

    assert outcome.code == 0, outcome.stderr
    bodies = [r.body for r in fake_provider.requests]
    heads = {(repr(b["tools"]), repr(b["system"])) for b in bodies}
    assert len(heads) == 1, "tools or system prompt changed between calls"
    for before, after in zip(bodies, bodies[1:], strict=False):
        assert cached_prefix(before)
        assert request_bytes(after).startswith(cached_prefix(before))


async def test_usage_counts_cache_writes_then_reads(fake_provider, tmp_path):
    (tmp_path / "a.py").write_text("print('a')\n" * 50)
    fake_provider.script(*_reads(3))

    outcome = await run(fake_provider, tmp_path, anthropic=True)

    assert outcome.code == 0, outcome.stderr
    calls = [e["usage"] for e in outcome.of_type("usage")]
    assert calls[0]["cache_write_tokens"] > 1000 and calls[0]["cache_read_tokens"] == 0
    assert calls[1]["cache_read_tokens"] >= calls[0]["cache_write_tokens"]
    assert calls[2]["cache_read_tokens"] > calls[1]["cache_read_tokens"]
    total = outcome.result["usage"]
    assert total["cache_read_tokens"] == sum(c["cache_read_tokens"] for c in calls)
    assert total["cache_write_tokens"] == sum(c["cache_write_tokens"] for c in calls)
    assert total["prompt_tokens"] >= total["cache_read_tokens"] + total["cache_write_tokens"]


async def test_cache_reads_lower_the_cost(fake_provider, tmp_path):
    (tmp_path / "a.py").write_text("print('a')\n" * 50)
    fake_provider.script(*_reads(3))

    outcome = await run(
        fake_provider, tmp_path, anthropic=True, model="anthropic/claude-sonnet-4-5"
    )

    calls = [e["usage"] for e in outcome.of_type("usage")]
    assert calls[1]["cache_read_tokens"] > 0
    # claude-sonnet-4-5: $3 a million input tokens, writes $3.75, reads $0.30, output $15.
    for call in calls:
        plain = call["prompt_tokens"] - call["cache_read_tokens"] - call["cache_write_tokens"]
        expected = (
            plain * 3
            + call["cache_write_tokens"] * 3.75
            + call["cache_read_tokens"] * 0.3
            + call["completion_tokens"] * 15
        ) / 1e6
        assert abs(call["cost"] - expected) < 1e-9


async def test_openai_requests_carry_no_cache_marks(fake_provider, tmp_path):
    (tmp_path / "a.py").write_text("print('a')\n")
    fake_provider.script(*_reads(2))

    outcome = await run(fake_provider, tmp_path)

    assert outcome.code == 0, outcome.stderr
    assert all("cache_control" not in str(r.body) for r in fake_provider.requests)


def test_a_usage_logged_before_cache_counts_loads_with_none():
    old = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15, "cost": 0.5}

    assert Usage.from_dict(old) == Usage(10, 5, 0.5)
    assert Usage.from_dict(Usage(10, 5, 0.5, 7, 2).to_dict()) == Usage(10, 5, 0.5, 7, 2)


def test_openai_and_gemini_cached_tokens_count_as_cache_reads():
    litellm = load_litellm()  # configured offline before litellm's types are imported
    usage = litellm.Usage(
        prompt_tokens=5000,
        completion_tokens=10,
        total_tokens=5010,
        prompt_tokens_details=litellm.types.utils.PromptTokensDetailsWrapper(cached_tokens=4096),
    )

    assert cache_counts(usage) == (4096, 0)
    assert cache_counts(None) == (0, 0)


def test_anthropic_models_on_other_routes_take_the_marks():
    for model in ("anthropic/claude-sonnet-4-5", "claude-3-5-haiku", "vertex_ai/claude-sonnet-4",
                  "openrouter/anthropic/claude-sonnet-4",
                  "bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0",
                  "bedrock/us.anthropic.claude-sonnet-4-20250514-v1:0"):
        assert takes_cache_marks(model), model
    for model in ("openai/gpt-4o", "gemini/gemini-2.5-pro", "openrouter/openai/gpt-4o",
                  "bedrock/meta.llama3-70b-instruct-v1:0", "ollama/qwen3"):
        assert not takes_cache_marks(model), model


async def test_openrouter_claude_requests_carry_the_marks_in_content(fake_provider):
    from agent_tui.core.providers.litellm import LitellmProvider
    from agent_tui.core.settings import Settings

    fake_provider.script(Reply("ok"))
    provider = LitellmProvider(Settings(model="openrouter/anthropic/claude-sonnet-4",
                                        api_base=fake_provider.openai_base, api_key="k"))
    tools = [{"type": "function", "function": {"name": "read_file", "description": "Read.",
                                                "parameters": {"type": "object"}}}]
    await provider.complete([{"role": "system", "content": "Rules. " * 500},
                             {"role": "user", "content": "Hi"}], tools, lambda text: None)

    body = fake_provider.requests[0].body
    assert body["messages"][0]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}


def test_bedrock_claude_marks_become_cache_points():
    """litellm's own Converse transformation turns the marks into ``cachePoint`` blocks."""
    litellm = load_litellm()
    model = "us.anthropic.claude-sonnet-4-20250514-v1:0"
    tools = [{"type": "function", "function": {"name": "read_file", "description": "Read.",
                                                "parameters": {"type": "object"}}}]
    messages, marked_tools = mark_cache_breakpoints(
        [{"role": "system", "content": "Rules. " * 500}, {"role": "user", "content": "Hi"}],
        tools, tools_too=marks_tools("bedrock/" + model))

    request = litellm.AmazonConverseConfig().transform_request(
        model, messages, {"tools": marked_tools}, {}, {})

    assert "cachePoint" in request["system"][-1]
    assert "cachePoint" in request["messages"][-1]["content"][-1]
    assert all("cache_control" not in str(tool) for tool in request["toolConfig"]["tools"])
