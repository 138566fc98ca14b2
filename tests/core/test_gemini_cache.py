"""Gemini's explicit context cache: with ``gemini_explicit_cache`` the system prompt and tools
go into one ``cachedContents`` entry, made once and named by every call, through litellm over
HTTP to the fake Gemini API; without it, every call sends them itself."""

from __future__ import annotations

from typing import Any

from agent_tui.core.providers.litellm import LitellmProvider
from agent_tui.core.settings import Settings
from tests.fakes.gemini import FakeGemini

SYSTEM = "You are agent-tui's engineer. Follow the house rules. " * 150  # ~2,000 tokens
TOOLS: list[dict[str, Any]] = [{
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a file of the project.",
        "parameters": {"type": "object", "properties": {"file_path": {"type": "string"}},
                       "required": ["file_path"]},
    },
}]


def _provider(fake: FakeGemini, explicit: bool) -> LitellmProvider:
    return LitellmProvider(Settings(model="gemini/gemini-2.5-flash", api_base=fake.api_base,
                                    api_key="test-key", gemini_explicit_cache=explicit))


async def _session(provider: LitellmProvider, calls: int) -> list[Any]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}]
    replies = []
    for turn in range(calls):
        messages.append({"role": "user", "content": f"Question {turn}?"})
        reply = await provider.complete(messages, TOOLS, lambda text: None)
        replies.append(reply)
        messages.append({"role": "assistant", "content": reply.text})
    return replies


async def test_explicit_cache_holds_system_prompt_and_tools_for_every_call():
    with FakeGemini(answer="Cached answer.") as fake:
        replies = await _session(_provider(fake, explicit=True), calls=3)

    assert [r.text for r in replies] == ["Cached answer."] * 3
    assert len(fake.cache_creations) == 1, "the entry is made once and found again"
    entry = fake.cache_creations[0]
    assert "house rules" in str(entry.get("system_instruction"))
    assert entry["tools"][0]["function_declarations"][0]["name"] == "read_file"
    names = {request.cached_content for request in fake.requests}
    assert len(names) == 1 and None not in names
    for request in fake.requests:
        assert not request.has_system_instruction and not request.body.get("tools")
        assert "Question" in str(request.body["contents"])
    for reply in replies:
        assert reply.usage.cache_read_tokens > 400
        assert reply.usage.prompt_tokens > reply.usage.cache_read_tokens


async def test_without_the_setting_every_call_sends_the_prompt_itself():
    with FakeGemini() as fake:
        replies = await _session(_provider(fake, explicit=False), calls=2)

    assert fake.cache_creations == [] and fake.cache_lists == 0
    for request in fake.requests:
        assert request.cached_content is None
        assert request.has_system_instruction and request.body["tools"]
    assert all(reply.usage.cache_read_tokens == 0 for reply in replies)


async def test_a_short_system_prompt_is_sent_as_is():
    """Gemini caches nothing under its minimum (1,024 tokens): litellm then skips the cache."""
    with FakeGemini() as fake:
        provider = _provider(fake, explicit=True)
        await provider.complete([{"role": "system", "content": "Be brief."},
                                 {"role": "user", "content": "Hi"}], None, lambda text: None)

    assert fake.cache_creations == []
    assert fake.requests[0].cached_content is None and fake.requests[0].has_system_instruction
