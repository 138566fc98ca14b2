"""Local models through litellm: Ollama (``ollama_chat/…``, ``ollama/…``) and llama.cpp's
llama-server (``openai/…`` at its /v1), each a fake server on its own wire format, with the
real agent loop reading a real file and a small ``--context-window``."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from agent_tui.core.config import Settings
from agent_tui.core.providers.litellm import LitellmProvider
from agent_tui.tui.cli.headless import run_headless
from tests.core.loop_helpers import HeadlessRun
from tests.fakes.local_servers import FakeLlamaServer, FakeOllama
from tests.fakes.providers import Reply, ToolCall
from tests.tui.cli.test_cli import agent_tui

NOTES = "the deploy key rotates every 90 days\n"


async def run_local(workdir: Path, prompt: str = "how often does the key rotate?",
                    **settings: Any) -> HeadlessRun:
    """Run ``prompt`` headlessly in stream-json with ``settings`` and fast retries."""
    (workdir / "notes.txt").write_text(NOTES)
    out, err = io.StringIO(), io.StringIO()
    config = Settings(retry_base_delay=0.01, retry_max_delay=0.05, max_retries=1, **settings)
    code = await run_headless(config, workdir, prompt, "stream-json", out, err)
    return HeadlessRun(code, [json.loads(line) for line in out.getvalue().splitlines()],
                       err.getvalue())


async def test_ollama_chat_model_with_tools_calls_them_natively(tmp_path):
    with FakeOllama(tools_in_template=True) as ollama:
        ollama.script(Reply(tool_calls=[ToolCall("read_file", {"file_path": "notes.txt"})]),
                      Reply(text="Every 90 days.", usage=(900, 5)))
        outcome = await run_local(tmp_path, model="ollama_chat/fake-model", api_base=ollama.url,
                                  context_window=8000)
        first, second = ollama.model_requests()

    assert outcome.code == 0, outcome.stderr
    assert outcome.events[0]["tool_protocol"] == "native"
    assert first.path == "/api/chat" and first.body["model"] == "fake-model"
    assert "read_file" in [tool["function"]["name"] for tool in first.tools]
    # Ollama is told the window agent-tui budgets for, or it would cut the prompt to its own.
    assert first.body["options"]["num_ctx"] == second.body["options"]["num_ctx"] == 8000
    results = second.tool_results()
    assert len(results) == 1 and NOTES.strip() in results[0]["content"]
    assert outcome.result["text"] == "Every 90 days."
    assert outcome.of_type("context")[-1]["window"] == 8000
    assert outcome.result["usage"]["prompt_tokens"] >= 900


async def test_ollama_model_without_tools_in_its_template_uses_the_text_protocol(tmp_path):
    with FakeOllama(tools_in_template=False) as ollama:
        ollama.script(
            Reply(text='I will read it.\n{"tool": "read_file", "args": {"file_path": "notes.txt"}}'),
            Reply(text="Every 90 days."))
        outcome = await run_local(tmp_path, model="ollama_chat/fake-model", api_base=ollama.url,
                                  context_window=8000)
        first, second = ollama.model_requests()

    assert outcome.code == 0, outcome.stderr
    assert outcome.events[0]["tool_protocol"] == "text"
    assert "tools" not in first.body
    assert "# Calling tools" in first.messages[0]["content"]
    last = second.messages[-1]
    assert last["role"] == "user" and "Tool results:" in last["content"]
    assert NOTES.strip() in last["content"]
    assert [c["name"] for c in outcome.of_type("tool_call")] == ["read_file"]
    assert outcome.result["text"] == "Every 90 days."


async def test_ollama_generate_route_uses_the_text_protocol(tmp_path):
    with FakeOllama(tools_in_template=True) as ollama:
        ollama.script(
            Reply(text='{"tool": "read_file", "args": {"file_path": "notes.txt"}}'),
            Reply(text="Every 90 days."))
        outcome = await run_local(tmp_path, model="ollama/fake-model", api_base=ollama.url,
                                  context_window=8000)
        first, second = ollama.model_requests()

    assert outcome.code == 0, outcome.stderr
    assert outcome.events[0]["tool_protocol"] == "text"
    assert first.path == second.path == "/api/generate"
    assert first.body["options"]["num_ctx"] == 8000
    assert NOTES.strip() in second.body["prompt"]
    assert outcome.result["text"] == "Every 90 days."


def test_ollama_window_and_tools_come_from_the_configured_server():
    with FakeOllama(context_length=16384, tools_in_template=True) as ollama:
        provider = LitellmProvider(Settings(model="ollama_chat/fake-model", api_base=ollama.url))
        window, native = provider.context_window(), provider.supports_native_tools()
        asked = [(r.path, r.body) for r in ollama.requests]

    assert (window, native) == (16384, True)
    assert ("/api/show", {"name": "fake-model"}) in asked
    assert "num_ctx" not in provider._request_kwargs([], None)


async def test_llama_server_route_with_a_small_window(tmp_path):
    with FakeLlamaServer(n_ctx=8192) as server:
        server.script(Reply(tool_calls=[ToolCall("read_file", {"file_path": "notes.txt"})]),
                      Reply(text="Every 90 days.", usage=(1200, 6)))
        outcome = await run_local(tmp_path, model="openai/qwen2.5-coder-7b",
                                  api_base=server.openai_base, api_key="sk-no-key-required",
                                  context_window=8000)
        first, second = server.model_requests()

    assert outcome.code == 0, outcome.stderr
    assert outcome.events[0]["tool_protocol"] == "native"
    assert first.path == "/v1/chat/completions" and first.body["model"] == "qwen2.5-coder-7b"
    assert first.headers["authorization"] == "Bearer sk-no-key-required"
    assert "num_ctx" not in first.body
    results = second.tool_results()
    assert len(results) == 1 and NOTES.strip() in results[0]["content"]
    assert outcome.result["text"] == "Every 90 days."
    # usage comes from llama-server's final chunks; the model has no price, so no cost.
    assert outcome.result["usage"]["completion_tokens"] >= 6
    assert outcome.of_type("context")[-1]["window"] == 8000


def test_agent_tui_p_against_ollama(tmp_path):
    (tmp_path / "notes.txt").write_text(NOTES)
    with FakeOllama(tools_in_template=True) as ollama:
        ollama.script(Reply(tool_calls=[ToolCall("read_file", {"file_path": "notes.txt"})]),
                      Reply(text="Every 90 days."))
        done = agent_tui("-p", "how often does the key rotate?", "--model",
                         "ollama_chat/fake-model", "--api-base", ollama.url,
                         "--context-window", "8000", cwd=tmp_path, timeout=120)
        requests = ollama.model_requests()

    assert done.returncode == 0, done.stderr
    assert done.stdout == "Every 90 days.\n"
    assert "read_file" in done.stderr
    assert len(requests) == 2 and requests[0].body["options"]["num_ctx"] == 8000
    assert NOTES.strip() in requests[1].tool_results()[0]["content"]


async def test_llama_server_needs_no_key(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeLlamaServer() as server:
        server.script(Reply(text="Hello."))
        outcome = await run_local(tmp_path, "hi", model="openai/local",
                                  api_base=server.openai_base, context_window=8000)
        requests = server.model_requests()

    assert outcome.code == 0, outcome.stderr
    assert outcome.result["text"] == "Hello."
    assert len(requests) == 1 and requests[0].headers["authorization"] == "Bearer no-key"
