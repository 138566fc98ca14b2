"""The embedded llama.cpp provider (``llamacpp/PATH.gguf``, the ``local`` extra) on a tiny
llama model the tests write themselves: random weights, so the words are gibberish, but every
token, the usage and the window are llama.cpp's own."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from agent_tui.core.config import Settings
from agent_tui.core.providers import llamacpp
from agent_tui.core.providers.base import ProviderError
from agent_tui.core.providers.litellm import LitellmProvider
from tests.tui.cli.test_cli import agent_tui

try:
    import gguf  # noqa: F401
except ImportError:
    HAVE_GGUF = False
else:
    HAVE_GGUF = True

needs_llama_cpp = pytest.mark.skipif(
    not (llamacpp.available() and HAVE_GGUF),
    reason="the embedded llama.cpp provider needs the local extra and gguf: "
    "pip install -e '.[local,test]'")

MESSAGES = [{"role": "user", "content": "read the key file"}]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 10 MB llama-architecture GGUF with a trained context of 1,024 tokens."""
    from tests.fakes.tiny_gguf import write_tiny_llama

    return write_tiny_llama(tmp_path_factory.mktemp("gguf") / "tiny.gguf", context_length=1024)


@needs_llama_cpp
def test_the_tiny_model_loads_and_generates(tiny_model):
    from llama_cpp import Llama

    model = Llama(model_path=str(tiny_model), n_ctx=256, seed=7, verbose=False)
    try:
        out = model.create_completion("the file says", max_tokens=6)
    finally:
        model.close()

    assert out["usage"]["completion_tokens"] == 6
    assert out["usage"]["prompt_tokens"] > 3
    assert out["choices"][0]["finish_reason"] == "length"


@needs_llama_cpp
async def test_a_reply_streams_through_litellm_with_usage(tiny_model):
    provider = LitellmProvider(Settings(model=f"llamacpp/{tiny_model}", max_output_tokens=8))
    pieces: list[str] = []

    reply = await provider.complete(MESSAGES, None, pieces.append)

    assert reply.text and "".join(pieces) == reply.text
    assert reply.finish_reason == "length" and reply.tool_calls == []
    assert reply.usage.completion_tokens == 8
    # The chat template's prompt, as llama.cpp itself counts it without streaming.
    from llama_cpp import Llama

    model = Llama(model_path=str(tiny_model), n_ctx=1024, verbose=False)
    try:
        expected = model.create_chat_completion(MESSAGES, max_tokens=1)["usage"]
    finally:
        model.close()
    assert reply.usage.prompt_tokens == expected["prompt_tokens"]


@needs_llama_cpp
def test_the_window_is_the_configured_one_else_the_trained_length(tiny_model):
    plain = LitellmProvider(Settings(model=f"llamacpp/{tiny_model}"))
    configured = LitellmProvider(Settings(model=f"llamacpp/{tiny_model}", context_window=2048))

    assert (plain.context_window(), configured.context_window()) == (1024, 2048)
    # Small local models call tools through the text protocol.
    assert not plain.supports_native_tools()


@needs_llama_cpp
async def test_generation_stops_when_the_reader_does(tiny_model):
    stream = llamacpp.stream_chat(f"llamacpp/{tiny_model}", MESSAGES, n_ctx=1024,
                                  max_tokens=900, temperature=0)
    async for _ in stream:
        break
    await stream.aclose()
    loaded = llamacpp._load(tiny_model, 1024)

    # The generating thread, at most READ_AHEAD tokens ahead of the reader, stops there
    # and lets go of the model, long before its 900 tokens.
    assert await asyncio.to_thread(loaded.lock.acquire, True, 10)
    loaded.lock.release()
    assert loaded.llama.n_tokens < 40 + llamacpp.READ_AHEAD + 20


@needs_llama_cpp
async def test_a_missing_model_file_is_not_retried(tmp_path):
    provider = LitellmProvider(Settings(model=f"llamacpp/{tmp_path}/nowhere.gguf"))

    with pytest.raises(ProviderError) as caught:
        await provider.complete(MESSAGES, None, lambda text: None)

    assert not caught.value.retryable
    assert f"no model file at {tmp_path}/nowhere.gguf" in caught.value.message


@needs_llama_cpp
async def test_a_prompt_too_long_in_the_models_own_tokens_is_a_full_context(tiny_model):
    provider = LitellmProvider(Settings(model=f"llamacpp/{tiny_model}", context_window=1024,
                                        max_output_tokens=4))

    with pytest.raises(ProviderError) as caught:
        # Two byte tokens a character: ~4,000 of the model's tokens in a 1,024 window.
        await provider.complete([{"role": "user", "content": "é" * 2000}], None,
                                lambda text: None)

    assert caught.value.kind == "context_length"
    assert "exceed context window of 1024" in caught.value.message


async def test_without_the_extra_the_error_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # import llama_cpp raises ImportError
    provider = LitellmProvider(Settings(model=f"llamacpp/{tmp_path}/model.gguf",
                                        context_window=4096))

    with pytest.raises(ProviderError) as caught:
        await provider.complete(MESSAGES, None, lambda text: None)

    assert not caught.value.retryable
    assert "pip install 'agent-tui[local]'" in caught.value.message
    assert not llamacpp.available()


@needs_llama_cpp
def test_agent_tui_p_with_an_embedded_model(tiny_model, tmp_path):
    # agent-tui's instructions and tools take ~15K of the tiny vocabulary's tokens: far
    # more than the model was trained for, which llama.cpp runs anyway.
    done = agent_tui("-p", "read the key file", "--model", f"llamacpp/{tiny_model}",
                     "--context-window", "32768", "--output-format", "stream-json",
                     cwd=tmp_path, timeout=120,
                     env_extra={"AGENT_TUI_MAX_OUTPUT_TOKENS": "12"})

    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    result = events[-1]
    assert result["type"] == "result" and result["text"]
    assert result["usage"]["completion_tokens"] == 12
    assert [e for e in events if e["type"] == "context"][-1]["window"] == 32768
    assert "llama" not in done.stderr.lower()  # llama.cpp's C logs stay off the terminal
