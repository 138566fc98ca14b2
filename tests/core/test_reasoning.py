"""Reasoning models: their reasoning streamed and recorded, Anthropic's signed thinking blocks
sent back as the API requires (and nothing sent back elsewhere), reasoning tokens counted,
and ``reasoning_effort`` mapped to each provider's control, through litellm over HTTP to the
fake providers."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from agent_tui.core.approval import HeadlessApprover
from agent_tui.core.events import Event, Usage
from agent_tui.core.providers.litellm import LitellmProvider, load_litellm
from agent_tui.core.providers.reasoning import effort_params, without_thinking
from agent_tui.core.runtime.assembly import open_agent
from agent_tui.core.sessions.start import close_session, open_session
from tests.core.loop_helpers import run, settings_for
from tests.fakes.providers import Reply, ToolCall
from tests.fakes.thinking import signature

CLAUDE = "anthropic/claude-sonnet-4-5-20250929"
"""A model litellm's map says reasons (``reasoning_effort`` becomes a thinking budget)."""
THOUGHT = "The user wants the file listed. I should read a.py first, then answer."


def _read_then_answer() -> list[Reply]:
    return [
        Reply(
            text="Reading it.",
            thinking=THOUGHT,
            tool_calls=[ToolCall("read_file", {"file_path": "a.py"})],
        ),
        Reply(text="It prints a.", thinking="It prints a; done."),
    ]


def _assistant_blocks(request: Any) -> list[dict[str, Any]]:
    """The content blocks of the request's assistant message that made tool calls."""
    for message in request.messages:
        content = message.get("content")
        if (
            message.get("role") == "assistant"
            and isinstance(content, list)
            and any(block.get("type") == "tool_use" for block in content)
        ):
            return content
    raise AssertionError("no assistant tool_use message in the request")


async def test_anthropic_thinking_streams_and_its_signed_block_goes_back_before_the_call(
    fake_provider, tmp_path
):
    (tmp_path / "a.py").write_text("print('a')\n")
    fake_provider.script(*_read_then_answer())

    outcome = await run(
        fake_provider, tmp_path, anthropic=True, model=CLAUDE, reasoning_effort="medium"
    )

    assert outcome.code == 0, outcome.stderr
    first, second = fake_provider.requests
    assert first.body["thinking"]["type"] == "enabled"
    assert first.body["thinking"]["budget_tokens"] > 0
    # The fake answers 400 without the block; it was accepted, and it leads the message.
    blocks = _assistant_blocks(second)
    assert blocks[0] == {"type": "thinking", "thinking": THOUGHT, "signature": signature(THOUGHT)}
    assert [b["type"] for b in blocks[1:]] == ["text", "tool_use"]
    streamed = "".join(e["text"] for e in outcome.of_type("thinking_delta"))
    assert streamed == THOUGHT + "It prints a; done."
    whole = outcome.of_type("thinking")
    assert [e["text"] for e in whole] == [THOUGHT, "It prints a; done."]
    assert whole[0]["blocks"][0]["signature"] == signature(THOUGHT)
    # The reasoning comes before the answer it led to.
    kinds = [e["type"] for e in outcome.events]
    assert kinds.index("thinking") < kinds.index("assistant_message")
    assert kinds.index("thinking_delta") < kinds.index("text_delta")
    assert outcome.result["usage"]["reasoning_tokens"] > 0


async def test_the_fake_anthropic_api_refuses_a_tool_loop_without_the_thinking_block(fake_provider):
    """As the real API does: the agent's history must keep the block."""
    litellm = await asyncio.to_thread(load_litellm)
    history = [
        {"role": "user", "content": "list a.py"},
        {
            "role": "assistant",
            "content": "Reading it.",
            "tool_calls": [
                {
                    "id": "toolu_1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"file_path": "a.py"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "toolu_1", "content": "print('a')"},
    ]
    with pytest.raises(litellm.BadRequestError) as refused:
        await litellm.acompletion(
            model=CLAUDE,
            messages=history,
            api_base=fake_provider.url,
            api_key="sk-test",
            reasoning_effort="low",
            max_retries=0,
        )
    assert "must start with a thinking block" in str(refused.value)
    assert "Expected `thinking` or `redacted_thinking`, but found `text`" in str(refused.value)
    # With a block whose text was altered after signing: refused too.
    history[1]["thinking_blocks"] = [
        {"type": "thinking", "thinking": "something else", "signature": signature(THOUGHT)}
    ]
    with pytest.raises(litellm.BadRequestError, match="Invalid `signature`"):
        await litellm.acompletion(
            model=CLAUDE,
            messages=history,
            api_base=fake_provider.url,
            api_key="sk-test",
            reasoning_effort="low",
            max_retries=0,
        )


async def test_openai_compatible_reasoning_streams_counts_and_is_never_sent_back(
    fake_provider, tmp_path
):
    (tmp_path / "a.py").write_text("print('a')\n")
    replies = _read_then_answer()
    replies[0].reasoning_tokens = 17
    replies[1].reasoning_tokens = 4
    fake_provider.script(*replies)

    outcome = await run(fake_provider, tmp_path)

    assert outcome.code == 0, outcome.stderr
    assert "".join(e["text"] for e in outcome.of_type("thinking_delta")).startswith(THOUGHT)
    assert [e["text"] for e in outcome.of_type("thinking")] == [THOUGHT, "It prints a; done."]
    assert all(e["blocks"] == [] for e in outcome.of_type("thinking"))
    # DeepSeek refuses reasoning_content sent back (the fake too): none went.
    later = fake_provider.requests[1].body["messages"]
    assert not any("reasoning_content" in m or "thinking_blocks" in m for m in later)
    assert outcome.result["usage"]["reasoning_tokens"] == 21
    usages = outcome.of_type("usage")
    assert [u["usage"]["reasoning_tokens"] for u in usages] == [17, 4]


async def test_another_apis_model_is_not_sent_anthropics_thinking_blocks(fake_provider):
    """A session switched from Claude to another provider's model keeps its history; the
    blocks stay in it (for Claude) but do not go to the other API."""
    fake_provider.script(Reply(text="ok"))
    history = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": "hello",
            "thinking_blocks": [
                {"type": "thinking", "thinking": THOUGHT, "signature": signature(THOUGHT)}
            ],
        },
        {"role": "user", "content": "again"},
    ]
    provider = LitellmProvider(settings_for(fake_provider))
    await provider.complete(history, None, lambda _: None)
    sent = fake_provider.requests[0].body["messages"]
    assert not any("thinking_blocks" in message for message in sent)
    assert "thinking_blocks" in history[1]  # the agent's own history is left as it was
    assert without_thinking(history)[1] == {"role": "assistant", "content": "hello"}


@pytest.mark.parametrize("effort", ["low", "medium", "high"])
async def test_openai_reasoning_models_get_the_effort(fake_provider, effort):
    fake_provider.script(Reply(text="ok", thinking="hm"))
    provider = LitellmProvider(
        settings_for(fake_provider, model="openai/o3-mini", reasoning_effort=effort)
    )
    reply = await provider.complete([{"role": "user", "content": "hi"}], None, lambda _: None)
    assert fake_provider.requests[0].body["reasoning_effort"] == effort
    assert reply.reasoning == "hm" and provider.reasoning_note() is None


def test_each_provider_gets_its_own_control_through_litellm():
    litellm = load_litellm()
    assert effort_params(litellm, CLAUDE, None) == ({}, None)
    assert effort_params(litellm, CLAUDE, "high") == ({"reasoning_effort": "high"}, None)
    assert effort_params(litellm, CLAUDE, "off") == ({"reasoning_effort": "none"}, None)
    gemini = effort_params(litellm, "gemini/gemini-2.5-pro", "off")
    assert gemini == ({"reasoning_effort": "none"}, None)  # litellm: a zero thinking budget
    params, note = effort_params(litellm, "openai/o3-mini", "off")
    assert params == {} and note is not None and "cannot switch its reasoning off" in note
    # litellm maps the effort to Anthropic's budget and Gemini's thinking config.
    anthropic = litellm.AnthropicConfig()._map_reasoning_effort(
        "high", "claude-sonnet-4-5-20250929", "anthropic"
    )
    assert anthropic["type"] == "enabled" and anthropic["budget_tokens"] > 0


async def test_a_model_without_reasoning_control_says_so_once_and_goes_on(fake_provider, tmp_path):
    (tmp_path / "a.py").write_text("print('a')\n")
    fake_provider.script(*_read_then_answer())

    outcome = await run(fake_provider, tmp_path, reasoning_effort="high")

    assert outcome.code == 0, outcome.stderr
    assert all("reasoning_effort" not in r.body for r in fake_provider.requests)
    notes = [e["message"] for e in outcome.of_type("error")]
    assert len(notes) == 1 and "openai/fake-model has no reasoning control" in notes[0]
    assert not outcome.of_type("error")[0]["fatal"]


async def test_a_resumed_session_sends_the_thinking_blocks_it_logged(fake_provider, tmp_path):
    (tmp_path / "a.py").write_text("print('a')\n")
    fake_provider.script(*_read_then_answer(), Reply(text="Still a.", thinking="Same."))
    settings = settings_for(fake_provider, anthropic=True, model=CLAUDE, reasoning_effort="low")
    events: list[Event] = []

    async def open_(session: Any) -> Any:
        return await open_agent(
            settings,
            tmp_path,
            HeadlessApprover("default"),
            events.append,
            warn=lambda _: None,
            session=session,
        )

    first = await asyncio.to_thread(open_session, tmp_path, CLAUDE)
    agent = await open_(first)
    await agent.run("what does a.py print?")
    agent.close()
    await asyncio.to_thread(close_session, first)
    logged = [json.loads(line) for line in first.store.path.read_text().splitlines()]
    assert [r["text"] for r in logged if r.get("type") == "thinking"] == [
        THOUGHT,
        "It prints a; done.",
    ]

    again = await asyncio.to_thread(open_session, tmp_path, CLAUDE, resume=first.store.session_id)
    agent = await open_(again)
    try:
        result = await agent.run("and now?")
    finally:
        agent.close()
        await asyncio.to_thread(close_session, again)
    assert result.ok, result.error
    assert _assistant_blocks(fake_provider.requests[-1])[0]["signature"] == signature(THOUGHT)


def test_usage_adds_and_reads_back_reasoning_tokens():
    total = Usage(10, 5, None, reasoning_tokens=3) + Usage(1, 1, None, reasoning_tokens=1)
    assert total.reasoning_tokens == 4
    assert Usage.from_dict(total.to_dict()) == total
    assert Usage.from_dict({"prompt_tokens": 1}).reasoning_tokens == 0  # an older log


async def test_a_thinking_claude_is_sent_temperature_1_and_told_why_once(fake_provider, tmp_path):
    """Anthropic refuses another temperature with thinking on (the fake too)."""
    fake_provider.script(*_read_then_answer())
    (tmp_path / "a.py").write_text("print('a')\n")

    outcome = await run(
        fake_provider,
        tmp_path,
        anthropic=True,
        model=CLAUDE,
        reasoning_effort="high",
        temperature=0.2,
    )

    assert outcome.code == 0, outcome.stderr
    assert [r.body["temperature"] for r in fake_provider.requests] == [1, 1]
    [note] = [e["message"] for e in outcome.of_type("error")]
    assert "temperature 0.2 is not sent" in note
