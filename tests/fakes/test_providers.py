"""The fake providers, driven through the real litellm over real HTTP.

What litellm 1.106.2 does against them (checked by the tests below):

* ``openai/<m>`` with ``api_base=fake.openai_base`` posts to
  ``/v1/chat/completions``; ``anthropic/<m>`` with ``api_base=fake.url``
  posts to ``/v1/messages`` (no query string) with ``x-api-key`` and
  ``anthropic-version`` headers and a default ``max_tokens`` of 4096.
* litellm sends ``stream_options`` only when the caller passes it.
* Passing ``tools=`` makes litellm import the optional ``mcp`` package
  (``litellm[mcp]``); without it the call fails with ``APIConnectionError:
  No module named 'mcp'``.  The tests below therefore let the fake send tool
  calls without declaring tools, which litellm parses all the same.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
import litellm  # noqa: E402
from litellm.exceptions import MidStreamFallbackError  # noqa: E402

from tests.fakes.providers import (  # noqa: E402
    FakeProvider,
    Fault,
    RecordedRequest,
    Reply,
    ToolCall,
)

litellm.suppress_debug_info = True

ANTHROPIC_MODEL = "anthropic/claude-sonnet-4-20250514"
USER = [{"role": "user", "content": "hi"}]
APIS = ["openai", "anthropic"]


@pytest.fixture(autouse=True)
def _abandoned_streams_collected() -> Any:
    """Collect what a test leaves behind before the next one sends a request.

    litellm's synchronous calls share one httpx client, and a synchronous Anthropic stream,
    even one read to its end, leaves the generator reading its lines suspended in a
    reference cycle. Collected by chance inside a later request, that generator closes its
    response and waits for the connection pool's lock, which the request holds while it
    queues itself: the run hung for good in ``test_server_error`` (seen once in CI;
    httpcore 1.0.9's lock is not reentrant). The workbench streams only through litellm's
    async calls, whose generators the event loop closes, never inside a request.
    """
    yield
    gc.collect()


def kwargs(fake: FakeProvider, api: str) -> dict[str, Any]:
    """litellm arguments that point `api` at `fake`."""
    if api == "openai":
        target = {"model": "openai/fake-model", "api_base": fake.openai_base}
    else:
        target = {"model": ANTHROPIC_MODEL, "api_base": fake.anthropic_base}
    return {**target, "api_key": "sk-test", "max_retries": 0}


def stream_text(chunks: list[Any]) -> str:
    """Joins the text deltas of streamed chunks."""
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


# -- replies -----------------------------------------------------------------


def test_openai_stream_text_and_usage(fake_provider: FakeProvider) -> None:
    fake_provider.script(Reply("hello world, streamed", usage=(12, 5), chunk_size=5))
    chunks = list(
        litellm.completion(
            **kwargs(fake_provider, "openai"),
            messages=USER,
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    deltas = [c.choices[0].delta.content for c in chunks if c.choices]
    assert [d for d in deltas if d] == ["hello", " worl", "d, st", "reame", "d"]
    usage = chunks[-1].usage
    assert (usage.prompt_tokens, usage.completion_tokens) == (12, 5)
    (request,) = fake_provider.requests
    assert request.path == "/v1/chat/completions"
    assert request.stream
    assert request.body["stream_options"] == {"include_usage": True}
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.last_user_text() == "hi"
    assert fake_provider.pending == 0


def test_openai_stream_parallel_tool_calls(fake_provider: FakeProvider) -> None:
    fake_provider.script(
        Reply(
            "Reading both.",
            tool_calls=[
                ToolCall("read_file", {"file_path": "a.py"}),
                ToolCall("grep", {"pattern": "def main", "path": "src"}),
            ],
        )
    )
    chunks = list(litellm.completion(**kwargs(fake_provider, "openai"), messages=USER, stream=True))
    response = litellm.stream_chunk_builder(chunks, messages=USER)
    choice = response.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Reading both."
    calls = choice.message.tool_calls
    assert [c.function.name for c in calls] == ["read_file", "grep"]
    assert json.loads(calls[0].function.arguments) == {"file_path": "a.py"}
    assert json.loads(calls[1].function.arguments) == {"pattern": "def main", "path": "src"}
    assert all(c.id.startswith("call_") for c in calls)
    assert calls[0].id != calls[1].id


def test_openai_non_stream_tool_call(fake_provider: FakeProvider) -> None:
    fake_provider.script(
        Reply(tool_calls=[ToolCall("bash", {"command": "ls"}, id="call_abc")], usage=(7, 3))
    )
    response = litellm.completion(**kwargs(fake_provider, "openai"), messages=USER)
    choice = response.choices[0]
    assert choice.finish_reason == "tool_calls"
    (call,) = choice.message.tool_calls
    assert (call.id, call.function.name) == ("call_abc", "bash")
    assert json.loads(call.function.arguments) == {"command": "ls"}
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (7, 3)
    assert not fake_provider.requests[0].stream


def test_anthropic_stream_text_and_tool_call(fake_provider: FakeProvider) -> None:
    fake_provider.script(
        Reply("Let me look.", tool_calls=[ToolCall("read_file", {"file_path": "x.md"})])
    )
    chunks = list(
        litellm.completion(**kwargs(fake_provider, "anthropic"), messages=USER, stream=True)
    )
    assert stream_text(chunks) == "Let me look."
    response = litellm.stream_chunk_builder(chunks, messages=USER)
    choice = response.choices[0]
    assert choice.finish_reason == "tool_calls"
    (call,) = choice.message.tool_calls
    assert call.function.name == "read_file"
    assert call.id.startswith("toolu_")
    assert json.loads(call.function.arguments) == {"file_path": "x.md"}
    (request,) = fake_provider.requests
    assert request.path == "/v1/messages"
    assert request.api == "anthropic"
    assert request.headers["x-api-key"] == "sk-test"
    assert request.body["model"] == "claude-sonnet-4-20250514"
    assert request.last_user_text() == "hi"


async def test_anthropic_async_stream_usage(fake_provider: FakeProvider) -> None:
    fake_provider.script(Reply("done", usage=(40, 2)))
    stream = await litellm.acompletion(
        **kwargs(fake_provider, "anthropic"),
        messages=USER,
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = [chunk async for chunk in stream]
    assert stream_text(chunks) == "done"
    usage = litellm.stream_chunk_builder(chunks, messages=USER).usage
    assert (usage.prompt_tokens, usage.completion_tokens) == (40, 2)


def test_anthropic_non_stream(fake_provider: FakeProvider) -> None:
    fake_provider.script(
        Reply("Sure.", tool_calls=[ToolCall("ls", {"path": "."}, id="toolu_x")], usage=(9, 4))
    )
    response = litellm.completion(**kwargs(fake_provider, "anthropic"), messages=USER)
    choice = response.choices[0]
    assert choice.message.content == "Sure."
    assert choice.finish_reason == "tool_calls"
    (call,) = choice.message.tool_calls
    assert (call.id, call.function.name) == ("toolu_x", "ls")
    assert json.loads(call.function.arguments) == {"path": "."}
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (9, 4)


@pytest.mark.parametrize("api", APIS)
def test_malformed_arguments_arrive_verbatim(fake_provider: FakeProvider, api: str) -> None:
    fake_provider.script(Reply(tool_calls=[ToolCall("write", raw_arguments='{"file_path": ')]))
    chunks = list(litellm.completion(**kwargs(fake_provider, api), messages=USER, stream=True))
    response = litellm.stream_chunk_builder(chunks, messages=USER)
    (call,) = response.choices[0].message.tool_calls
    assert call.function.arguments == '{"file_path": '


def test_tools_are_recorded(fake_provider: FakeProvider) -> None:
    tools = [{"type": "function", "function": {"name": "ls", "parameters": {"type": "object"}}}]
    fake_provider.script(Reply("ok"))
    # Without _skip_mcp_handler litellm 1.106.2 imports the optional mcp SDK when tools= is
    # passed (core/providers/litellm.py passes it for the same reason).
    litellm.completion(
        **kwargs(fake_provider, "openai"), messages=USER, tools=tools, _skip_mcp_handler=True
    )
    assert [t["function"]["name"] for t in fake_provider.requests[0].tools] == ["ls"]


# -- faults ------------------------------------------------------------------


@pytest.mark.parametrize("api", APIS)
def test_rate_limit_carries_retry_after(fake_provider: FakeProvider, api: str) -> None:
    """429 -> `litellm.RateLimitError`.

    The ``Retry-After`` header is on ``exc.litellm_response_headers`` (an
    ``httpx.Headers``, lower-case lookups work); ``exc.response.headers`` is
    empty for both APIs because litellm builds its own placeholder response.
    """
    fake_provider.script(Fault.rate_limit(0.2))
    with pytest.raises(litellm.RateLimitError) as caught:
        litellm.completion(**kwargs(fake_provider, api), messages=USER, stream=True)
    assert caught.value.status_code == 429
    assert caught.value.litellm_response_headers["retry-after"] == "0.2"
    assert len(fake_provider.requests) == 1


@pytest.mark.parametrize("api", APIS)
def test_server_error(fake_provider: FakeProvider, api: str) -> None:
    fake_provider.script(Fault.server_error(500, "boom"))
    with pytest.raises(litellm.InternalServerError, match="boom"):
        litellm.completion(**kwargs(fake_provider, api), messages=USER, stream=True)


@pytest.mark.parametrize("api", APIS)
def test_authentication_error(fake_provider: FakeProvider, api: str) -> None:
    fake_provider.script(Fault.server_error(401, "invalid api key"))
    with pytest.raises(litellm.AuthenticationError, match="invalid api key"):
        litellm.completion(**kwargs(fake_provider, api), messages=USER)


@pytest.mark.parametrize("api", APIS)
def test_bad_request(fake_provider: FakeProvider, api: str) -> None:
    fake_provider.script(Fault.server_error(400, "prompt too long"))
    with pytest.raises(litellm.BadRequestError, match="prompt too long"):
        litellm.completion(**kwargs(fake_provider, api), messages=USER)


@pytest.mark.parametrize("api", APIS)
def test_cut_stream(fake_provider: FakeProvider, api: str) -> None:
    """A cut stream raises ``litellm.exceptions.MidStreamFallbackError``.

    It is not exported as ``litellm.MidStreamFallbackError``; it subclasses
    `litellm.ServiceUnavailableError` (``status_code`` 500);
    its ``original_exception`` is a `litellm.APIConnectionError` whose text
    is httpx's "peer closed connection without sending complete message body
    (incomplete chunked read)".  The text before the cut is delivered first.
    """
    fake_provider.script(Fault.cut_stream("partial ", after_chunks=2))
    received: list[Any] = []
    with pytest.raises(MidStreamFallbackError) as caught:
        for chunk in litellm.completion(**kwargs(fake_provider, api), messages=USER, stream=True):
            received.append(chunk)
    assert stream_text(received) == "partial "
    assert isinstance(caught.value, litellm.ServiceUnavailableError)
    assert isinstance(caught.value.original_exception, litellm.APIConnectionError)
    assert "incomplete chunked read" in str(caught.value)


@pytest.mark.parametrize("api", APIS)
async def test_stall_times_out(api: str) -> None:
    """A stall leaves the next ``anext`` pending: ``asyncio.wait_for`` raises
    the builtin `TimeoutError`.  Closing the fake does not wait for the stall.
    """
    with FakeProvider() as fake:
        fake.script(Fault.stall(30, text="thinking"))
        stream = await litellm.acompletion(**kwargs(fake, api), messages=USER, stream=True)
        it = aiter(stream)
        received = []
        with pytest.raises(TimeoutError):
            while True:
                received.append(await asyncio.wait_for(anext(it), 0.5))
        assert stream_text(received) == "thinking"
        started = time.monotonic()
    assert time.monotonic() - started < 1


@pytest.mark.parametrize("api", APIS)
def test_stall_hits_litellm_read_timeout(fake_provider: FakeProvider, api: str) -> None:
    """litellm's ``timeout=`` is also a per-read timeout once a stream runs.

    A stall longer than it raises ``MidStreamFallbackError`` wrapping a
    `litellm.APIConnectionError` whose text says "timed out".
    """
    fake_provider.script(Fault.stall(30, text="x"))
    stream = litellm.completion(
        **kwargs(fake_provider, api), messages=USER, stream=True, timeout=0.3
    )
    with pytest.raises(MidStreamFallbackError, match="timed out") as caught:
        list(stream)
    assert isinstance(caught.value.original_exception, litellm.APIConnectionError)


@pytest.mark.parametrize("api", APIS)
def test_non_stream_faults(fake_provider: FakeProvider, api: str) -> None:
    """Without streaming, a cut body raises `litellm.InternalServerError` and a
    stall longer than ``timeout=`` raises `litellm.Timeout`.
    """
    fake_provider.script(Fault.cut_stream(), Fault.stall(30))
    with pytest.raises(litellm.InternalServerError):
        litellm.completion(**kwargs(fake_provider, api), messages=USER)
    with pytest.raises(litellm.Timeout):
        litellm.completion(**kwargs(fake_provider, api), messages=USER, timeout=0.3)


@pytest.mark.parametrize("api", APIS)
def test_empty_queue_answers_500(fake_provider: FakeProvider, api: str) -> None:
    with pytest.raises(litellm.InternalServerError, match="no scripted reply left"):
        litellm.completion(**kwargs(fake_provider, api), messages=USER)


# -- requests ----------------------------------------------------------------

TOOL_TURN = [
    {"role": "user", "content": "read both"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{}"}},
            {"id": "call_2", "type": "function", "function": {"name": "read", "arguments": "{}"}},
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "first body"},
    {
        "role": "tool",
        "tool_call_id": "call_2",
        "content": [{"type": "text", "text": "second "}, {"type": "text", "text": "body"}],
    },
]


@pytest.mark.parametrize("api", APIS)
def test_tool_results_are_normalised(fake_provider: FakeProvider, api: str) -> None:
    fake_provider.script(Reply("noted"))
    litellm.completion(**kwargs(fake_provider, api), messages=TOOL_TURN)
    (request,) = fake_provider.requests
    assert request.tool_results() == [
        {"id": "call_1", "content": "first body"},
        {"id": "call_2", "content": "second body"},
    ]
    assert request.last_user_text() == "read both"


def test_responder_answers_when_script_is_empty() -> None:
    def rule(request: RecordedRequest) -> Reply:
        done = len(request.tool_results())
        if done < 3:
            return Reply(tool_calls=[ToolCall("step", {"n": done})])
        return Reply(f"finished after {done}")

    messages: list[dict[str, Any]] = list(USER)
    with FakeProvider(responder=rule) as fake:
        fake.script(Reply("scripted first"))
        first = litellm.completion(**kwargs(fake, "openai"), messages=messages)
        assert first.choices[0].message.content == "scripted first"
        while True:
            message = litellm.completion(**kwargs(fake, "openai"), messages=messages)
            message = message.choices[0].message
            if not message.tool_calls:
                break
            (call,) = message.tool_calls
            messages.append(message.model_dump(exclude_none=True))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": "ok"})
    assert message.content == "finished after 3"
    assert len(fake.requests) == 5


def test_models_endpoint_and_unknown_path(fake_provider: FakeProvider) -> None:
    with urllib.request.urlopen(fake_provider.openai_base + "/models", timeout=5) as answer:
        assert json.load(answer)["data"][0]["object"] == "model"
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(fake_provider.url + "/nope", data=b"{}", timeout=5)
    assert caught.value.code == 404
    assert [r.path for r in fake_provider.requests] == ["/v1/models", "/nope"]
