"""Fake model providers that speak the OpenAI and Anthropic wire formats.

Tests drive litellm for real against these servers over HTTP on 127.0.0.1,
so every byte that reaches agent-tui has gone through litellm's own parsers.

Example:
    >>> with FakeProvider() as fake:
    ...     fake.script(Reply("hello"), Reply(tool_calls=[ToolCall("ls", {})]))
    ...     # litellm.completion(model="openai/x", api_base=fake.openai_base, ...)

Each incoming model request pops one scripted item (a `Reply` or a `Fault`)
from a FIFO queue.  Every request is recorded *before* it is answered, so a
test can inspect what the client sent even when the answer is a fault.

Streams are sent with chunked transfer-encoding and ``Connection: close``.
Chunked encoding matters: a stream that is cut (`Fault.cut_stream`) ends
without the terminating zero-length chunk, which the client sees as an
incomplete body rather than as a normal end of stream.
"""

from __future__ import annotations

import itertools
import json
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from .embeddings import embedding_answer
from .prompt_cache import MAX_BREAKPOINTS, TOO_MANY_BREAKPOINTS, CacheUsage, PromptCache
from .thinking import (
    anthropic_thinking_events,
    anthropic_thinking_problem,
    openai_reasoning_problem,
    signature,
)

__all__ = [
    "Fault",
    "FakeProvider",
    "history_problem",
    "RecordedRequest",
    "Reply",
    "ToolCall",
]

Api = Literal["openai", "anthropic"]

OPENAI_CHAT_PATH = "/v1/chat/completions"
ANTHROPIC_MESSAGES_PATH = "/v1/messages"
MODELS_PATH = "/v1/models"
_ROUTES: dict[str, Api] = {
    OPENAI_CHAT_PATH: "openai",
    "/chat/completions": "openai",  # an api_base given without /v1
    ANTHROPIC_MESSAGES_PATH: "anthropic",
}


# --------------------------------------------------------------------------
# Script items
# --------------------------------------------------------------------------


@dataclass
class ToolCall:
    """One tool call inside a scripted assistant reply.

    Attributes:
        name: Tool name the model "calls".
        args: Arguments, serialised with `json.dumps`.
        raw_arguments: Sent verbatim instead of ``json.dumps(args)``; use it
            for malformed JSON such as ``'{"file_path": '``.
        id: Call id; generated (``call_<n>`` / ``toolu_<n>``) when None.
    """

    name: str
    args: dict[str, Any] | None = None
    raw_arguments: str | None = None
    id: str | None = None

    @property
    def arguments(self) -> str:
        """The argument string as it goes over the wire."""
        if self.raw_arguments is not None:
            return self.raw_arguments
        return json.dumps(self.args or {})


@dataclass
class Reply:
    """A scripted assistant reply.

    Attributes:
        text: Assistant text, streamed in pieces of `chunk_size` characters.
        tool_calls: Tool calls; several mean parallel calls in one response.
        usage: ``(prompt_tokens, completion_tokens)``; estimated when None.
        chunk_size: Characters per streamed text delta.
        thinking: The model's reasoning, streamed before the text: Anthropic's signed
            thinking block, OpenAI-compatible ``reasoning_content`` deltas.
        reasoning_tokens: Of the completion tokens, the reasoning's (OpenAI's
            ``completion_tokens_details``); estimated from ``thinking`` when None.
        pause: Seconds between streamed events: a model answering at its own pace.
    """

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: tuple[int, int] | None = None
    chunk_size: int = 8
    thinking: str = ""
    reasoning_tokens: int | None = None
    pause: float = 0.0

    def reasoning_usage(self) -> dict[str, Any]:
        """``completion_tokens_details`` of a reply that reasoned ({} for one that did not)."""
        if not self.thinking:
            return {}
        count = self.reasoning_tokens if self.reasoning_tokens is not None else (
            len(self.thinking) // 4 + 1)
        return {"completion_tokens_details": {"reasoning_tokens": count}}


@dataclass
class Fault:
    """A scripted failure.  Build one with the class methods.

    Attributes:
        kind: ``"http_error"``, ``"cut_stream"`` or ``"stall"``.
        status: HTTP status for ``http_error``.
        message: Error message for ``http_error``.
        retry_after: ``Retry-After`` header value, if any.
        text: Text sent before a cut or a stall.
        after_chunks: Number of content chunks sent before a cut.
        seconds: How long a stall lasts.
    """

    kind: Literal["http_error", "cut_stream", "stall"]
    status: int = 500
    message: str = ""
    retry_after: str | None = None
    text: str = ""
    after_chunks: int = 0
    seconds: float = 0.0

    @classmethod
    def rate_limit(cls, retry_after: float = 1) -> Fault:
        """HTTP 429 with a ``Retry-After`` header, formatted as given."""
        return cls(
            kind="http_error",
            status=429,
            message="fake provider: rate limit exceeded",
            retry_after=str(retry_after),
        )

    @classmethod
    def server_error(
        cls, status: int = 500, message: str = "fake provider: internal error"
    ) -> Fault:
        """An HTTP error with a provider-shaped JSON body (also for 400/401)."""
        return cls(kind="http_error", status=status, message=message)

    @classmethod
    def unauthorized(cls) -> Fault:
        """HTTP 401: the key is wrong, as OpenAI says it."""
        return cls(kind="http_error", status=401,
                   message="Incorrect API key provided: sk-test. You can find your API key "
                           "at https://platform.openai.com/account/api-keys.")

    @classmethod
    def model_not_found(cls, model: str = "fake-model") -> Fault:
        """HTTP 404: the server has no such model."""
        return cls(kind="http_error", status=404,
                   message=f"The model `{model}` does not exist or you do not have access to it.")

    @classmethod
    def context_overflow(cls) -> Fault:
        """HTTP 400: the prompt is longer than the model's context window."""
        return cls(kind="http_error", status=400,
                   message="This model's maximum context length is 8192 tokens. However, your "
                           "messages resulted in 9000 tokens. Please reduce the length of the "
                           "messages.")

    @classmethod
    def cut_stream(cls, text: str = "partial ", after_chunks: int = 2) -> Fault:
        """Start a 200 stream, send `text` in `after_chunks` pieces, then cut.

        The connection is closed without the final event / ``[DONE]`` and
        without the terminating HTTP chunk.
        """
        return cls(kind="cut_stream", text=text, after_chunks=after_chunks)

    @classmethod
    def stall(cls, seconds: float, text: str = "") -> Fault:
        """Start a 200 stream, send one chunk, then go silent for `seconds`."""
        return cls(kind="stall", seconds=seconds, text=text)


ScriptItem = Reply | Fault
Responder = Callable[["RecordedRequest"], ScriptItem]


# --------------------------------------------------------------------------
# Recorded requests
# --------------------------------------------------------------------------


def _text_of(content: Any) -> str:
    """Joins the text of a message content (a string or a list of blocks)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
        return "".join(parts)
    return str(content)


@dataclass
class RecordedRequest:
    """One HTTP request as the fake received it.

    Attributes:
        path: Request path without the query string.
        headers: Request headers, keys lower-cased.
        body: Parsed JSON body (``{}`` when there was none or it was invalid).
        stream: Whether the body asked for a streaming answer.
        method: HTTP method.
        query: Raw query string ("" when none).
        received_at: ``time.perf_counter()`` when the request arrived (0.0 when
            the record was built by hand).
    """

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    stream: bool
    method: str = "POST"
    query: str = ""
    received_at: float = 0.0

    @property
    def api(self) -> Api | None:
        """Which wire format the request used, from its path."""
        return _ROUTES.get(self.path.rstrip("/"))

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The ``messages`` list of the body."""
        return self.body.get("messages", [])

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The ``tools`` list of the body (empty when absent)."""
        return self.body.get("tools", [])

    def tool_results(self) -> list[dict[str, str]]:
        """Tool results sent back in this request, normalised across APIs.

        Returns:
            ``[{"id": tool_call_id, "content": text}, ...]`` in message order,
            from OpenAI ``role: "tool"`` messages and from Anthropic
            ``tool_result`` blocks in user messages.
        """
        results: list[dict[str, str]] = []
        for message in self.messages:
            role = message.get("role")
            content = message.get("content")
            if role == "tool":
                results.append(
                    {"id": str(message.get("tool_call_id", "")), "content": _text_of(content)}
                )
            elif role == "user" and isinstance(content, list):
                for block in content:
                    if isinstance(block, dict) and block.get("type") == "tool_result":
                        results.append(
                            {
                                "id": str(block.get("tool_use_id", "")),
                                "content": _text_of(block.get("content")),
                            }
                        )
        return results

    def last_user_text(self) -> str:
        """Text of the last user message that has any text.

        User messages that carry only tool results (Anthropic) are skipped, and so is the
        repository map that ends a request of a project with source files, so this is the
        last thing a person typed.  Returns "" if none.
        """
        from agent_tui.core.context.repo_map_render import REPO_MAP_PREFIX

        for message in reversed(self.messages):
            if message.get("role") == "user":
                text = _text_of(message.get("content"))
                if text and not text.startswith(REPO_MAP_PREFIX):
                    return text
        return ""


# --------------------------------------------------------------------------
# Wire formats
# --------------------------------------------------------------------------


def _pieces(text: str, size: int) -> list[str]:
    """Splits `text` into pieces of `size` characters (none for "")."""
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _split_in(text: str, count: int) -> list[str]:
    """Splits `text` into `count` contiguous pieces of near-equal length."""
    if count <= 0:
        return []
    step, extra = divmod(len(text), count)
    pieces, start = [], 0
    for i in range(count):
        end = start + step + (1 if i < extra else 0)
        pieces.append(text[start:end])
        start = end
    return pieces


def _arg_pieces(arguments: str) -> list[str]:
    """Splits a tool argument string into a few fragments, like providers do."""
    if not arguments:
        return []
    return _split_in(arguments, min(3, len(arguments)))


def _usage(reply: Reply, raw_body: bytes) -> tuple[int, int]:
    """The scripted usage, or a plausible estimate."""
    if reply.usage is not None:
        return reply.usage
    out = len(reply.text) + len(reply.thinking) + sum(len(c.arguments) for c in reply.tool_calls)
    return max(1, len(raw_body) // 4), out // 4 + 10


def _sse_data(obj: Any) -> bytes:
    """One OpenAI-style SSE line."""
    payload = obj if isinstance(obj, str) else json.dumps(obj)
    return f"data: {payload}\n\n".encode()


def _sse_event(obj: dict[str, Any]) -> bytes:
    """One Anthropic-style SSE event (``event:`` + ``data:``)."""
    return f"event: {obj['type']}\ndata: {json.dumps(obj)}\n\n".encode()


class _OpenAI:
    """Builds OpenAI chat-completions bodies and events."""

    def __init__(self, model: str, ids: Iterator[int]) -> None:
        self.model = model
        self.ids = ids
        self.id = f"chatcmpl-fake{next(ids)}"
        self.created = int(time.time())

    def call_id(self, call: ToolCall) -> str:
        return call.id or f"call_{next(self.ids)}"

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        # litellm maps a body whose type is "invalid_request_error" to
        # BadRequestError whatever the status (unless the message says
        # "Incorrect API key provided"), so only 400 and 404 use that type.
        kinds = {
            400: ("invalid_request_error", "invalid_request"),
            401: ("authentication_error", "invalid_api_key"),
            403: ("permission_error", "permission_denied"),
            404: ("invalid_request_error", "model_not_found"),
            429: ("requests", "rate_limit_exceeded"),
        }
        kind, code = kinds.get(status, ("server_error", "server_error"))
        return {"error": {"message": message, "type": kind, "code": code, "param": None}}

    def completion(self, reply: Reply, usage: tuple[int, int]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if reply.thinking:
            message["reasoning_content"] = reply.thinking
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": self.call_id(call),
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in reply.tool_calls
            ]
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": usage[0],
                "completion_tokens": usage[1],
                "total_tokens": usage[0] + usage[1],
            } | reply.reasoning_usage(),
        }

    def chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
        return _sse_data(
            {
                "id": self.id,
                "object": "chat.completion.chunk",
                "created": self.created,
                "model": self.model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
            }
        )

    def head(self, input_tokens: int) -> list[bytes]:
        """Events before the first text delta."""
        return [self.chunk({"role": "assistant", "content": ""})]

    def text_deltas(self, pieces: list[str]) -> list[bytes]:
        """One event per text piece."""
        return [self.chunk({"content": piece}) for piece in pieces]

    def stream(self, reply: Reply, usage: tuple[int, int], include_usage: bool) -> list[bytes]:
        events = self.head(usage[0]) + [
            self.chunk({"reasoning_content": piece})
            for piece in _pieces(reply.thinking, reply.chunk_size)]
        events += self.text_deltas(_pieces(reply.text, reply.chunk_size))
        for index, call in enumerate(reply.tool_calls):
            events.append(
                self.chunk(
                    {
                        "tool_calls": [
                            {
                                "index": index,
                                "id": self.call_id(call),
                                "type": "function",
                                "function": {"name": call.name, "arguments": ""},
                            }
                        ]
                    }
                )
            )
            for piece in _arg_pieces(call.arguments):
                events.append(
                    self.chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                )
        events.append(self.chunk({}, "tool_calls" if reply.tool_calls else "stop"))
        if include_usage:
            events.append(
                _sse_data(
                    {
                        "id": self.id,
                        "object": "chat.completion.chunk",
                        "created": self.created,
                        "model": self.model,
                        "choices": [],
                        "usage": {
                            "prompt_tokens": usage[0],
                            "completion_tokens": usage[1],
                            "total_tokens": usage[0] + usage[1],
                        } | reply.reasoning_usage(),
                    }
                )
            )
        events.append(_sse_data("[DONE]"))
        return events


class _Anthropic:
    """Builds Anthropic messages bodies and events."""

    def __init__(self, model: str, ids: Iterator[int]) -> None:
        self.model = model
        self.ids = ids
        self.id = f"msg_fake{next(ids)}"

    def call_id(self, call: ToolCall) -> str:
        return call.id or f"toolu_{next(self.ids)}"

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        kinds = {
            400: "invalid_request_error",
            401: "authentication_error",
            403: "permission_error",
            404: "not_found_error",
            413: "request_too_large",
            429: "rate_limit_error",
            529: "overloaded_error",
        }
        return {
            "type": "error",
            "error": {"type": kinds.get(status, "api_error"), "message": message},
        }

    def message(self, reply: Reply, usage: tuple[int, int],
                cache: CacheUsage | None = None) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        if reply.thinking:
            content.append({"type": "thinking", "thinking": reply.thinking,
                            "signature": signature(reply.thinking)})
        if reply.text:
            content.append({"type": "text", "text": reply.text})
        for call in reply.tool_calls:
            try:
                args = json.loads(call.arguments)
            except json.JSONDecodeError:
                args = {}
            content.append(
                {"type": "tool_use", "id": self.call_id(call), "name": call.name, "input": args}
            )
        return {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": content,
            "stop_reason": "tool_use" if reply.tool_calls else "end_turn",
            "stop_sequence": None,
            "usage": _input_usage(usage[0], cache) | {"output_tokens": usage[1]},
        }

    def head(self, input_tokens: int, text_block: bool = True,
             cache: CacheUsage | None = None) -> list[bytes]:
        """``message_start`` (with the cache's share of the input when ``cache`` is
        given), then (optionally) the start of text block 0."""
        start = {
            "type": "message_start",
            "message": {
                "id": self.id,
                "type": "message",
                "role": "assistant",
                "model": self.model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": _input_usage(input_tokens, cache) | {"output_tokens": 1},
            },
        }
        events = [_sse_event(start)]
        if text_block:
            block = {"type": "text", "text": ""}
            events.append(
                _sse_event({"type": "content_block_start", "index": 0, "content_block": block})
            )
        return events

    def text_deltas(self, pieces: list[str], index: int = 0) -> list[bytes]:
        """One ``text_delta`` event per piece, in text block ``index``."""
        return [
            _sse_event(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": piece},
                }
            )
            for piece in pieces
        ]

    def stream(self, reply: Reply, usage: tuple[int, int],
               cache: CacheUsage | None = None) -> list[bytes]:
        events = self.head(usage[0], text_block=bool(reply.text) and not reply.thinking,
                           cache=cache)
        index = 0
        if reply.thinking:
            events += [_sse_event(event) for event in anthropic_thinking_events(
                0, _pieces(reply.thinking, reply.chunk_size), reply.thinking)]
            index = 1
            if reply.text:
                events.append(_sse_event({"type": "content_block_start", "index": 1,
                                          "content_block": {"type": "text", "text": ""}}))
        if reply.text:
            events += self.text_deltas(_pieces(reply.text, reply.chunk_size), index)
            events.append(_sse_event({"type": "content_block_stop", "index": index}))
            index += 1
        for call in reply.tool_calls:
            events.append(
                _sse_event(
                    {
                        "type": "content_block_start",
                        "index": index,
                        "content_block": {
                            "type": "tool_use",
                            "id": self.call_id(call),
                            "name": call.name,
                            "input": {},
                        },
                    }
                )
            )
            for piece in _arg_pieces(call.arguments):
                events.append(
                    _sse_event(
                        {
                            "type": "content_block_delta",
                            "index": index,
                            "delta": {"type": "input_json_delta", "partial_json": piece},
                        }
                    )
                )
            events.append(_sse_event({"type": "content_block_stop", "index": index}))
            index += 1
        events.append(
            _sse_event(
                {
                    "type": "message_delta",
                    "delta": {
                        "stop_reason": "tool_use" if reply.tool_calls else "end_turn",
                        "stop_sequence": None,
                    },
                    "usage": {"output_tokens": usage[1]},
                }
            )
        )
        events.append(_sse_event({"type": "message_stop"}))
        return events


def _input_usage(input_tokens: int, cache: CacheUsage | None) -> dict[str, int]:
    """The input side of an Anthropic usage object: all of it uncached without ``cache``."""
    if cache is None:
        return {"input_tokens": input_tokens, "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0}
    return cache.fields()


# --------------------------------------------------------------------------
# HTTP server
# --------------------------------------------------------------------------


def history_problem(api: Api, body: dict[str, Any]) -> str | None:
    """What the real API says of a history whose tool calls and results do not pair up:
    an assistant tool call without its result right after it, or a result without its call.
    None when the history is valid. The texts are the real APIs' 400 messages."""
    messages = body.get("messages") or []
    return _openai_problem(messages) if api == "openai" else _anthropic_problem(messages)


def _openai_problem(messages: list[dict[str, Any]]) -> str | None:
    open_ids: list[str] = []  # calls of the last assistant message not answered yet
    answering = False  # inside the run of tool messages after an assistant's calls
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            call_id = str(message.get("tool_call_id", ""))
            if not answering or call_id not in open_ids:
                return (f"Invalid parameter: messages with role 'tool' must be a response to a "
                        f"preceeding message with 'tool_calls'. (messages.[{index}].role)")
            open_ids.remove(call_id)
            continue
        if open_ids:
            return (f"An assistant message with 'tool_calls' must be followed by tool "
                    f"messages responding to each 'tool_call_id'. The following "
                    f"tool_call_ids did not have response messages: {', '.join(open_ids)}")
        calls = (message.get("tool_calls") or []) if role == "assistant" else []
        open_ids = [str(call.get("id", "")) for call in calls]
        answering = bool(open_ids)
    if open_ids:
        return (f"An assistant message with 'tool_calls' must be followed by tool messages "
                f"responding to each 'tool_call_id'. The following tool_call_ids did not "
                f"have response messages: {', '.join(open_ids)}")
    return None


def _blocks(message: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == kind]


def _anthropic_problem(messages: list[dict[str, Any]]) -> str | None:
    uses: list[str] = []  # tool_use ids of the previous (assistant) message
    for index, message in enumerate(messages):
        results = _blocks(message, "tool_result") if message.get("role") == "user" else []
        for position, block in enumerate(results):
            if str(block.get("tool_use_id", "")) not in uses:
                return (f"messages.{index}.content.{position}: unexpected `tool_use_id` found "
                        f"in `tool_result` blocks: {block.get('tool_use_id')}. Each "
                        "`tool_result` block must have a corresponding `tool_use` block in "
                        "the previous message.")
        if uses:
            # The results must open the next message, before any text.
            content = message.get("content")
            leading: set[str] = set()
            for block in content if isinstance(content, list) else []:
                if not isinstance(block, dict) or block.get("type") != "tool_result":
                    break
                leading.add(str(block.get("tool_use_id", "")))
            missing = [u for u in uses if u not in leading]
            if missing:
                return (f"messages.{index - 1}: `tool_use` ids were found without "
                        f"`tool_result` blocks immediately after: {', '.join(missing)}. Each "
                        "`tool_use` block must have a corresponding `tool_result` block in "
                        "the next message.")
        uses = ([str(b.get("id", "")) for b in _blocks(message, "tool_use")]
                if message.get("role") == "assistant" else [])
    if uses:
        return (f"messages.{len(messages) - 1}: `tool_use` ids were found without "
                f"`tool_result` blocks immediately after: {', '.join(uses)}. Each `tool_use` "
                "block must have a corresponding `tool_result` block in the next message.")
    return None


class _Handler(BaseHTTPRequestHandler):
    """Answers one connection on behalf of a `FakeProvider`."""

    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Keeps test output quiet."""

    # -- plumbing ---------------------------------------------------------

    def _send_json(
        self, status: int, body: dict[str, Any], extra: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _write_chunk(self, data: bytes) -> None:
        if data:
            self.wfile.write(b"%X\r\n%s\r\n" % (len(data), data))

    def _end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")

    def _cut(self) -> None:
        """Closes the socket without finishing the HTTP body."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _read_body(self) -> tuple[bytes, dict[str, Any]]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else {}
        except (json.JSONDecodeError, UnicodeDecodeError):
            body = {}
        return raw, body if isinstance(body, dict) else {}

    def _record(self, body: dict[str, Any]) -> RecordedRequest:
        request = self._request(body)
        self.server.provider._record(request)
        return request

    def _request(self, body: dict[str, Any]) -> RecordedRequest:
        received_at = time.perf_counter()
        path, _, query = self.path.partition("?")
        request = RecordedRequest(
            path=path,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            stream=bool(body.get("stream")),
            method=self.command,
            query=query,
            received_at=received_at,
        )
        return request

    # -- verbs --------------------------------------------------------------

    def do_GET(self) -> None:
        """Serves the model list; anything else is 404."""
        request = self._record({})
        if request.path.rstrip("/") == MODELS_PATH:
            self._send_json(
                200,
                {
                    "object": "list",
                    "data": [
                        {
                            "id": "fake-model",
                            "object": "model",
                            "created": 0,
                            "owned_by": "fake-provider",
                        }
                    ],
                },
            )
        else:
            self._send_json(404, {"error": {"message": f"no route {request.path}"}})

    def do_POST(self) -> None:
        """Serves chat completions and messages from the script."""
        raw, body = self._read_body()
        provider = self.server.provider
        path = self.path.partition("?")[0]
        if provider.embeddings and path.rstrip("/") not in _ROUTES:
            embedded = embedding_answer(path, body, provider.embedding_models)
            if embedded is not None:
                # Kept apart: a memory's embedding is no model request to count.
                provider._record(self._request(body), embedding=True)
                self._send_json(*embedded)
                return
        request = self._record(body)
        api = _ROUTES.get(request.path.rstrip("/"))
        if api is None:
            self._send_json(404, {"error": {"message": f"no route {request.path}"}})
            return
        if provider.validate_history and (problem := history_problem(api, body) or (
                anthropic_thinking_problem(body) if api == "anthropic"
                else openai_reasoning_problem(body))):
            wire = _OpenAI("", provider._ids) if api == "openai" else _Anthropic("", provider._ids)
            self._send_json(400, wire.error_body(400, problem))
            return
        if api == "anthropic" and (
                marks := provider.prompt_cache.breakpoint_count(body)) > MAX_BREAKPOINTS:
            wire = _Anthropic("", provider._ids)
            self._send_json(400, wire.error_body(400, TOO_MANY_BREAKPOINTS.format(marks)))
            return
        item = provider._next_item(request)
        try:
            self._answer(api, request, raw, item)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _answer(self, api: Api, request: RecordedRequest, raw: bytes, item: ScriptItem) -> None:
        model = str(request.body.get("model", "fake-model"))
        ids = self.server.provider._ids
        wire = _OpenAI(model, ids) if api == "openai" else _Anthropic(model, ids)
        if isinstance(item, Reply):
            usage = _usage(item, raw)
            cache = (None if isinstance(wire, _OpenAI)
                     else self.server.provider.prompt_cache.bill(request.body, usage[0]))
            if not request.stream:
                body = (
                    wire.completion(item, usage)
                    if isinstance(wire, _OpenAI)
                    else wire.message(item, usage, cache)
                )
                self._send_json(200, body)
                return
            if isinstance(wire, _OpenAI):
                options = request.body.get("stream_options") or {}
                events = wire.stream(item, usage, bool(options.get("include_usage")))
            else:
                events = wire.stream(item, usage, cache)
            self._start_stream()
            for event in events:
                if item.pause:
                    time.sleep(item.pause)
                self._write_chunk(event)
            self._end_stream()
            return
        if item.kind == "http_error":
            extra = {"Retry-After": item.retry_after} if item.retry_after else None
            self._send_json(item.status, wire.error_body(item.status, item.message), extra)
            return
        self._fault_stream(wire, request, raw, item)

    def _fault_stream(
        self,
        wire: _OpenAI | _Anthropic,
        request: RecordedRequest,
        raw: bytes,
        fault: Fault,
    ) -> None:
        """Serves `cut_stream` and `stall`: a 200 that never finishes."""
        stop = self.server.provider._stop
        if not request.stream:
            # A plain JSON answer whose body never arrives in full.
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100000")
            self.send_header("Connection", "close")
            self.end_headers()
            if fault.kind == "cut_stream":
                self.wfile.write(b'{"id": "partial", "choices": [')
            else:
                stop.wait(fault.seconds)
            self._cut()
            return
        if fault.kind == "cut_stream":
            pieces = _split_in(fault.text, fault.after_chunks)
        else:
            pieces = [fault.text] if fault.text else []
        self._start_stream()
        for event in wire.head(max(1, len(raw) // 4)) + wire.text_deltas(pieces):
            self._write_chunk(event)
        if fault.kind == "stall":
            stop.wait(fault.seconds)
        self._cut()


class _Server(ThreadingHTTPServer):
    """A threading HTTP server that knows its provider and stays quiet."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, provider: FakeProvider) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.provider = provider

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Ignores clients that went away; reports anything else."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class FakeProvider:
    """A scripted fake model provider on ``127.0.0.1``.

    Serves ``POST /v1/chat/completions`` (OpenAI), ``POST /v1/messages``
    (Anthropic) and ``GET /v1/models``, and the embedding endpoints of OpenAI,
    Gemini and Ollama (see `tests.fakes.embeddings`).  Use it as a context
    manager; it runs a stdlib `ThreadingHTTPServer` in a daemon thread.

    Args:
        responder: Called with the request when the script queue is empty;
            returns the `Reply` or `Fault` to send.  Without one, an empty
            queue answers HTTP 500 "fake provider: no scripted reply left".
        validate_history: Answer a request whose history the real API rejects
            (a tool call without its result right after it, a result without
            its call) with the real API's 400, as OpenAI and Anthropic do; the
            request is recorded and consumes no script item. On by default, so
            every loop test also checks that the agent's histories are valid.
        embeddings: Serve the embedding endpoints (False: they are 404, as on a
            server that has none).
        embedding_models: The embedding models the server has; another is the
            API's own 404 (None: any model).
    """

    def __init__(self, responder: Responder | None = None, *,
                 validate_history: bool = True, embeddings: bool = True,
                 embedding_models: frozenset[str] | None = None) -> None:
        self.responder = responder
        self.validate_history = validate_history
        self.embeddings = embeddings
        self.embedding_models = embedding_models
        self.prompt_cache = PromptCache()
        """Anthropic's prompt cache: requests to ``/v1/messages`` read and write it."""
        self._lock = threading.Lock()
        self._queue: deque[ScriptItem] = deque()
        self._requests: list[RecordedRequest] = []
        self._embedding_requests: list[RecordedRequest] = []
        self._stop = threading.Event()
        self._ids = itertools.count(1)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------

    def start(self) -> FakeProvider:
        """Binds a free port and starts serving."""
        if self._server is None:
            self._stop.clear()
            self._server = _Server(self)
            self._thread = threading.Thread(
                target=self._server.serve_forever,
                kwargs={"poll_interval": 0.05},
                name=f"fake-provider-{self.port}",
                daemon=True,
            )
            self._thread.start()
        return self

    def close(self) -> None:
        """Stops serving; stalled answers are woken and cut."""
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            if self._thread is not None:
                self._thread.join(timeout=2)
            self._server = None
            self._thread = None

    def __enter__(self) -> FakeProvider:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- addresses ----------------------------------------------------------

    @property
    def port(self) -> int:
        """The bound TCP port."""
        if self._server is None:
            raise RuntimeError("FakeProvider is not started")
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base(self) -> str:
        """``api_base`` for litellm ``openai/<model>``."""
        return self.url + "/v1"

    @property
    def anthropic_base(self) -> str:
        """``api_base`` for litellm ``anthropic/<model>``."""
        return self.url

    # -- script and records -------------------------------------------------

    def script(self, *items: ScriptItem) -> FakeProvider:
        """Appends replies or faults to the queue; each request pops one."""
        for item in items:
            if not isinstance(item, (Reply, Fault)):
                raise TypeError(f"script items must be Reply or Fault, not {item!r}")
        with self._lock:
            self._queue.extend(items)
        return self

    @property
    def pending(self) -> int:
        """Number of script items not consumed yet."""
        with self._lock:
            return len(self._queue)

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def embedding_requests(self) -> list[RecordedRequest]:
        """Every embedding request received, in arrival order (not in `requests`)."""
        with self._lock:
            return list(self._embedding_requests)

    def _record(self, request: RecordedRequest, embedding: bool = False) -> None:
        with self._lock:
            (self._embedding_requests if embedding else self._requests).append(request)

    def _next_item(self, request: RecordedRequest) -> ScriptItem:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.responder is None:
            return Fault.server_error(500, "fake provider: no scripted reply left")
        try:
            return self.responder(request)
        except Exception as exc:  # surfaced to the client as a 500
            return Fault.server_error(500, f"fake provider: responder failed: {exc!r}")
