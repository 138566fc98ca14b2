"""Model calls streamed in the stream worker process: the same text, reply and errors as
in this process, cancelled and recovered from a dying worker.

A real worker process runs litellm against the fake providers over HTTP.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time

import pytest

from agent_tui.core.config import Settings
from agent_tui.core.providers.base import ProviderError
from agent_tui.core.providers.litellm import LitellmProvider
from agent_tui.core.providers.stream_process import ProcessProvider, StreamProcess
from agent_tui.core.providers.stream_worker import NICENESS
from tests.fakes.providers import Fault, Reply, ToolCall

ANSWER = "The parser reads each line of the **config** file and keeps the last value. " * 30
TOOLS = [{"type": "function", "function": {
    "name": "read_file", "description": "Read a file.",
    "parameters": {"type": "object", "properties": {"file_path": {"type": "string"}}}}}]
HELLO = [{"role": "user", "content": "hello"}]


@pytest.fixture(scope="module")
def worker():
    """One worker for the module (it pays litellm's import once); the test that kills it
    leaves the next call to start another."""
    process = StreamProcess()
    yield process
    process.close()


def settings_for(fake, **overrides) -> Settings:
    values = {"model": "openai/fake-model", "api_base": fake.openai_base, "api_key": "sk-test",
              "stream_idle_timeout": 30.0, **overrides}
    return Settings(**values)


def provider_for(fake, worker, **overrides) -> ProcessProvider:
    return ProcessProvider(LitellmProvider(settings_for(fake, **overrides)), worker)


async def started_call(provider) -> tuple[asyncio.Task, list[str]]:
    """A call whose stream has sent its first text (then stalls), and the text so far."""
    pieces: list[str] = []
    call = asyncio.create_task(provider.complete(HELLO, None, pieces.append))
    for _ in range(200):
        if pieces:
            break
        await asyncio.sleep(0.05)
    return call, pieces


async def test_text_reply_and_usage_are_those_of_a_call_in_this_process(fake_provider,
                                                                         worker):
    fake_provider.script(Reply(text=ANSWER, chunk_size=4, usage=(321, 54)),
                         Reply(text=ANSWER, chunk_size=4, usage=(321, 54)))
    pieces: list[str] = []
    reply = await provider_for(fake_provider, worker).complete(HELLO, None, pieces.append)
    here = await LitellmProvider(settings_for(fake_provider)).complete(HELLO, None,
                                                                       lambda _: None)
    assert "".join(pieces) == ANSWER
    assert len(pieces) < len(ANSWER) / 4  # gathered: not a line per chunk
    assert reply == here
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (321, 54)
    assert worker.pid is not None and worker.pid != os.getpid()
    # At a lower CPU priority than the workbench: keys first when they share a core.
    assert (os.getpriority(os.PRIO_PROCESS, worker.pid)
            == min(19, os.getpriority(os.PRIO_PROCESS, 0) + NICENESS))


async def test_tool_calls_and_the_request_arrive_as_sent(fake_provider, worker):
    fake_provider.script(Reply(text="Let me look.",
                               tool_calls=[ToolCall("read_file", {"file_path": "a.py"}),
                                           ToolCall("read_file", {"file_path": "b.py"})]))
    messages = [{"role": "system", "content": "Be brief."},
                {"role": "user", "content": "read a.py and é.py ✓"}]
    reply = await provider_for(fake_provider, worker, temperature=0.2).complete(
        messages, TOOLS, lambda _: None)
    assert reply.text == "Let me look."
    assert [(call.name, call.arguments) for call in reply.tool_calls] == [
        ("read_file", '{"file_path": "a.py"}'), ("read_file", '{"file_path": "b.py"}')]
    assert reply.finish_reason == "tool_calls"
    request = fake_provider.requests[-1]
    assert request.body["messages"] == messages
    assert request.body["tools"][0]["function"]["name"] == "read_file"
    assert request.body["temperature"] == 0.2
    assert request.headers["authorization"] == "Bearer sk-test"


async def test_errors_come_back_as_the_same_provider_errors(fake_provider, worker):
    fake_provider.script(Fault.server_error(401, "bad key"), Fault.rate_limit(7))
    provider = provider_for(fake_provider, worker)
    with pytest.raises(ProviderError) as auth:
        await provider.complete(HELLO, None, lambda _: None)
    assert auth.value.kind == "auth" and not auth.value.retryable
    assert "bad key" in auth.value.message and auth.value.status == 401
    with pytest.raises(ProviderError) as limited:
        await provider.complete(HELLO, None, lambda _: None)
    assert limited.value.kind == "rate_limit" and limited.value.retryable
    assert limited.value.retry_after == 7


async def test_the_key_variable_is_read_as_the_workbench_has_it_at_each_call(
        fake_provider, worker, monkeypatch):
    fake_provider.script(Reply(text="one"), Reply(text="two"))
    provider = provider_for(fake_provider, worker, api_key=None, api_key_env="MY_FAKE_KEY")
    monkeypatch.setenv("MY_FAKE_KEY", "sk-first")
    await provider.complete(HELLO, None, lambda _: None)
    monkeypatch.setenv("MY_FAKE_KEY", "sk-second")  # the worker started with the first
    await provider.complete(HELLO, None, lambda _: None)
    assert [r.headers["authorization"] for r in fake_provider.requests] == [
        "Bearer sk-first", "Bearer sk-second"]


async def test_a_cancelled_call_stops_in_the_worker_and_the_next_one_runs(fake_provider,
                                                                         worker):
    fake_provider.script(Fault.stall(30, text="thinking "), Reply(text="done"))
    provider = provider_for(fake_provider, worker)
    call, pieces = await started_call(provider)
    assert pieces == ["thinking "]
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    pid = worker.pid
    reply = await asyncio.wait_for(provider.complete(HELLO, None, lambda _: None), 20)
    assert reply.text == "done" and worker.pid == pid
    assert pieces == ["thinking "]


async def test_a_worker_that_dies_fails_its_call_with_a_retryable_error_then_is_replaced(
        fake_provider, worker):
    fake_provider.script(Fault.stall(30, text="thinking "), Reply(text="again"))
    provider = provider_for(fake_provider, worker)
    call, pieces = await started_call(provider)
    dead = worker.pid
    assert dead is not None
    os.kill(dead, signal.SIGKILL)
    with pytest.raises(ProviderError) as ended:
        await asyncio.wait_for(call, 10)
    assert ended.value.retryable and ended.value.kind == "connection"
    assert "stream worker process ended" in ended.value.message
    reply = await asyncio.wait_for(provider.complete(HELLO, None, lambda _: None), 30)
    assert reply.text == "again"
    assert worker.pid not in (None, dead)


async def test_calls_of_several_sessions_stream_at_once(fake_provider, worker):
    fake_provider.script(Reply(text="first " * 200, chunk_size=2),
                         Reply(text="second " * 200, chunk_size=2))
    provider = provider_for(fake_provider, worker)
    texts: tuple[list[str], list[str]] = ([], [])
    replies = await asyncio.gather(
        provider.complete(HELLO, None, texts[0].append),
        provider.complete(HELLO, None, texts[1].append))
    assert sorted(reply.text for reply in replies) == ["first " * 200, "second " * 200]
    assert ["".join(pieces) for pieces in texts] == [reply.text for reply in replies]


async def test_escalation_copies_share_the_worker(fake_provider, worker):
    fake_provider.script(Reply(text="strong"))
    provider = provider_for(fake_provider, worker)
    stronger = provider.with_model("openai/stronger-model", api_base=fake_provider.openai_base)
    assert isinstance(stronger, ProcessProvider) and stronger.process is worker
    reply = await stronger.complete(HELLO, None, lambda _: None)
    assert reply.text == "strong"
    assert fake_provider.requests[-1].body["model"] == "stronger-model"


async def test_a_conversation_that_is_not_json_is_a_clear_error(fake_provider, worker):
    provider = provider_for(fake_provider, worker)
    with pytest.raises(ProviderError) as refused:
        await provider.complete([{"role": "user", "content": object()}], None, lambda _: None)
    assert refused.value.kind == "bad_request" and not refused.value.retryable
    assert "cannot be sent to the model" in refused.value.message


@pytest.mark.parametrize("ending", ["exit", "SIGKILL"])
def test_the_worker_ends_with_the_process_that_started_it(ending):
    script = ("from agent_tui.core.providers.stream_process import shared_stream_process\n"
              "import time\n"
              "worker = shared_stream_process()\n"
              "worker.start()\n"
              "print(worker.pid, flush=True)\n"
              "time.sleep(0.5 if '" + ending + "' == 'exit' else 60)\n")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                              text=True)
    pid = int(parent.stdout.readline())
    if ending == "SIGKILL":
        parent.kill()
    parent.wait(30)
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        pytest.fail(f"the worker outlived its workbench ({ending})")


async def test_reasoning_streams_before_the_text_and_comes_back_with_its_signed_block(
        fake_provider, worker):
    thought = "Check the parser first, then the tests. " * 10
    fake_provider.script(Reply(text=ANSWER[:300], thinking=thought, chunk_size=5))
    order: list[tuple[str, str]] = []
    provider = provider_for(fake_provider, worker, model="anthropic/claude-sonnet-4-5-20250929",
                            api_base=fake_provider.anthropic_base, reasoning_effort="low")
    reply = await provider.complete(HELLO, None, lambda text: order.append(("text", text)),
                                    lambda thought: order.append(("thinking", thought)))
    assert "".join(t for kind, t in order if kind == "thinking") == thought == reply.reasoning
    assert "".join(t for kind, t in order if kind == "text") == ANSWER[:300] == reply.text
    kinds = [kind for kind, _ in order]
    assert kinds == sorted(kinds, key=lambda kind: kind != "thinking")  # all reasoning first
    assert reply.thinking_blocks[0]["thinking"] == thought
    assert reply.thinking_blocks[0]["signature"]
    assert fake_provider.requests[-1].body["thinking"]["type"] == "enabled"
    assert reply.usage.reasoning_tokens > 0


def test_the_worker_ends_with_its_workbench_even_if_its_input_stays_open(tmp_path):
    """A workbench killed while another process holds the worker's stdin open (so no end of
    input ever comes): the worker notices its parent is gone and ends within seconds."""
    import signal
    import subprocess
    import sys
    import time

    pid_file = tmp_path / "worker.pid"
    parent = subprocess.Popen([sys.executable, "-c", f"""
import os, subprocess, sys, time
read, write = os.pipe()
worker = subprocess.Popen([sys.executable, "-m", "agent_tui.core.providers.stream_worker"],
                          stdin=read, stdout=subprocess.DEVNULL,
                          env={{**os.environ, "AGENT_TUI_STREAM_PARENT": str(os.getpid())}})
# a sibling holds the write end: the worker's stdin never ends
subprocess.Popen(["sleep", "60"], pass_fds=(write,))
open({str(pid_file)!r}, "w").write(str(worker.pid))
time.sleep(60)
"""])
    try:
        deadline = time.monotonic() + 60
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline, "the worker did not start"
            time.sleep(0.05)
        worker = int(pid_file.read_text())
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 30
        while _alive(worker):
            assert time.monotonic() < deadline, (
                f"the worker outlived its workbench: {open(f'/proc/{worker}/status').read()}")
            time.sleep(0.1)
    finally:
        parent.kill()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False
