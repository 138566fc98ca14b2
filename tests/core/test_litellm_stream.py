"""The litellm provider's stream: what it costs the event loop per chunk, and a reply
assembled from a few merged chunks that says the same as one assembled from all of them.

litellm runs for real against the fake providers over HTTP.
"""

from __future__ import annotations

import copy

import pytest

from agent_tui.core.config import Settings
from agent_tui.core.providers import litellm as provider_module
from agent_tui.core.providers import stream_chunks
from agent_tui.core.providers.litellm import LitellmProvider, load_litellm
from agent_tui.core.providers.stream_chunks import StreamedChunks
from tests.fakes.providers import Fault, Reply, ToolCall

ANSWER = "The parser reads each line of the **config** file and keeps the last value. " * 40


def provider_for(fake, *, anthropic: bool = False, **overrides) -> LitellmProvider:
    settings = Settings(
        model="anthropic/claude-sonnet-4-20250514" if anthropic else "openai/fake-model",
        api_base=fake.anthropic_base if anthropic else fake.openai_base,
        api_key="sk-test", **overrides)
    return LitellmProvider(settings)


def record_chunks(monkeypatch) -> tuple[list, list]:
    """Every chunk the stream read (copied as it came), and the chunks litellm assembled
    the reply from."""
    read: list = []
    assembled: list = []
    add = StreamedChunks.add
    merged = StreamedChunks.merged

    def recording_add(self, chunk):
        read.append(copy.deepcopy(chunk))
        return add(self, chunk)

    def recording_merged(self):
        chunks = merged(self)
        assembled.extend(chunks)
        return chunks

    monkeypatch.setattr(StreamedChunks, "add", recording_add)
    monkeypatch.setattr(StreamedChunks, "merged", recording_merged)
    return read, assembled


@pytest.mark.parametrize("anthropic", [False, True], ids=["openai", "anthropic"])
async def test_a_reply_of_hundreds_of_chunks_is_assembled_from_a_few(fake_provider, monkeypatch,
                                                                    anthropic):
    read, assembled = record_chunks(monkeypatch)
    fake_provider.script(Reply(text=ANSWER, chunk_size=5, usage=(120, 777),
                               tool_calls=[ToolCall("read_file", {"file_path": "a.py"}),
                                           ToolCall("grep", {"pattern": "def"})]))
    pieces: list[str] = []
    reply = await provider_for(fake_provider, anthropic=anthropic).complete(
        [{"role": "user", "content": "explain"}], None, pieces.append)
    assert "".join(pieces) == ANSWER == reply.text
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [
        ("read_file", '{"file_path": "a.py"}'), ("grep", '{"pattern": "def"}')]
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (120, 777)
    assert len(read) > 500
    assert len(assembled) < 20
    # litellm's own assembly of every chunk says the same.
    litellm = load_litellm()
    whole = litellm.stream_chunk_builder(read, messages=[{"role": "user", "content": "explain"}])
    message = whole.choices[0].message
    assert message.content == reply.text
    assert [(c.function.name, c.function.arguments) for c in message.tool_calls] == [
        (c.name, c.arguments) for c in reply.tool_calls]
    assert whole.usage.completion_tokens == reply.usage.completion_tokens
    assert whole.choices[0].finish_reason == reply.finish_reason


def test_only_chunks_of_text_alone_are_merged():
    litellm = load_litellm()
    model = litellm.ModelResponseStream

    def text(content):
        return model(choices=[{"index": 0, "delta": {"content": content}}])

    finish = model(choices=[{"index": 0, "delta": {"content": "end"}, "finish_reason": "stop"}])
    call = model(choices=[{"index": 0, "delta": {"content": "x", "tool_calls": [
        {"index": 0, "id": "c1", "type": "function",
         "function": {"name": "ls", "arguments": "{}"}}]}}])
    thinking = model(choices=[{"index": 0, "delta": {"reasoning_content": "hmm"}}])
    stream = [text("word "), text("more "), text("more "), call, text("word "), thinking,
              text("word "), text("more "), finish]
    chunks = StreamedChunks()
    assert [chunks.add(chunk) for chunk in stream] == [
        "word ", "more ", "more ", "x", "word ", "", "word ", "more ", "end"]
    kept = chunks.merged()
    assert kept == [stream[0], call, stream[4], thinking, stream[6], finish]
    assert [stream_chunks._delta_text(c) for c in kept] == [
        "word more more ", "x", "word ", "", "word more ", "end"]


async def test_a_stall_after_the_first_chunk_hits_the_idle_timeout(fake_provider):
    fake_provider.script(Fault.stall(text="first words", seconds=5))
    pieces: list[str] = []
    with pytest.raises(provider_module.ProviderError) as raised:
        await provider_for(fake_provider, stream_idle_timeout=0.5).complete(
            [{"role": "user", "content": "hi"}], None, pieces.append)
    assert raised.value.kind == "stalled"
    assert "silent for 0.5 s" in raised.value.message
    assert "".join(pieces) == "first words"


@pytest.mark.parametrize("anthropic", [False, True], ids=["openai", "anthropic"])
async def test_long_reasoning_is_assembled_from_a_few_chunks(fake_provider, monkeypatch,
                                                             anthropic):
    read, assembled = record_chunks(monkeypatch)
    thought = "First I check the config parser, then the tests that cover it. " * 20
    fake_provider.script(Reply(text=ANSWER[:200], thinking=thought, chunk_size=4,
                               tool_calls=[ToolCall("read_file", {"file_path": "a.py"})]))
    thoughts: list[str] = []
    provider = provider_for(fake_provider, anthropic=anthropic)
    if anthropic:  # a model that thinks when asked
        provider = LitellmProvider(Settings(
            model="anthropic/claude-sonnet-4-5-20250929", api_base=fake_provider.anthropic_base,
            api_key="sk-test", reasoning_effort="low"))
    reply = await provider.complete([{"role": "user", "content": "explain"}], None,
                                    lambda _: None, thoughts.append)
    assert "".join(thoughts) == thought == reply.reasoning
    assert len(read) > 300 and len(assembled) < 20
    whole = load_litellm().stream_chunk_builder(
        read, messages=[{"role": "user", "content": "explain"}])
    message = whole.choices[0].message
    assert message.reasoning_content == reply.reasoning
    assert reply.text == message.content
    if anthropic:  # the signed block, whole, as litellm assembles it from every chunk
        assert reply.thinking_blocks == [dict(b) for b in message.thinking_blocks]
        assert reply.thinking_blocks[0]["thinking"] == thought
    else:
        assert reply.thinking_blocks == []
