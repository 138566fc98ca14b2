"""Fake local model servers: Ollama and llama.cpp's ``llama-server``, on their own wire formats.

Tests drive litellm for real against these over HTTP on 127.0.0.1, like
:mod:`tests.fakes.providers` does for the hosted APIs, so a person's local route
(``ollama_chat/MODEL``, ``ollama/MODEL``, ``openai/MODEL`` at a llama-server) is exercised
byte for byte.

* :class:`FakeOllama` serves ``POST /api/chat`` and ``POST /api/generate`` (NDJSON
  streams, one JSON object a line, the last with ``done: true`` and the eval counts),
  ``POST /api/show`` (what litellm asks for a model's context window and whether its
  template takes tools), ``GET /api/tags`` and ``GET /api/version``.
* :class:`FakeLlamaServer` serves ``POST /v1/chat/completions`` (OpenAI SSE with the
  ``timings`` and ``system_fingerprint`` extras llama-server adds), ``GET /v1/models``,
  ``GET /health`` and ``GET /props`` (``n_ctx``).

Each model request pops one scripted :class:`~tests.fakes.providers.Reply`; an empty
script answers HTTP 500. Every request is recorded before it is answered.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fakes.embeddings import ollama_embeddings, openai_embeddings
from tests.fakes.providers import RecordedRequest, Reply, _pieces

__all__ = ["FakeLlamaServer", "FakeOllama"]

OLLAMA_TEMPLATE_WITH_TOOLS = (
    "{{- if .Tools }}<|im_start|>system\n# Tools\n{{ range .Tools }}{{ . }}{{ end }}"
    "<|im_end|>{{ end }}{{ range .Messages }}<|im_start|>{{ .Role }}\n{{ .Content }}"
    "<|im_end|>{{ end }}<|im_start|>assistant\n"
)
OLLAMA_TEMPLATE_PLAIN = (
    "{{ range .Messages }}<|im_start|>{{ .Role }}\n{{ .Content }}<|im_end|>{{ end }}"
    "<|im_start|>assistant\n"
)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Keeps test output quiet."""

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else {}
        except (json.JSONDecodeError, UnicodeDecodeError):
            body = {}
        return body if isinstance(body, dict) else {}

    def _record(self, body: dict[str, Any]) -> RecordedRequest:
        path, _, query = self.path.partition("?")
        request = RecordedRequest(
            path=path, headers={k.lower(): v for k, v in self.headers.items()}, body=body,
            stream=body.get("stream", True) is not False, method=self.command, query=query,
            received_at=time.perf_counter())
        self.server.fake._record(request)
        return request

    def send_json(self, status: int, body: Any) -> None:
        """One JSON answer, then the connection closes."""
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def send_stream(self, content_type: str, pieces: list[bytes]) -> None:
        """A chunked 200 stream of ``pieces``."""
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        for piece in pieces:
            self.wfile.write(b"%X\r\n%s\r\n" % (len(piece), piece))
        self.wfile.write(b"0\r\n\r\n")

    def do_GET(self) -> None:
        """Routes a GET to the fake's ``get_<route>``."""
        request = self._record({})
        self.server.fake._get(self, request)

    def do_POST(self) -> None:
        """Routes a POST to the fake's ``post_<route>``."""
        request = self._record(self._body())
        try:
            self.server.fake._post(self, request)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, fake: _LocalServer) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.fake = fake


class _LocalServer:
    """A scripted fake server in a daemon thread; use it as a context manager."""

    model = "fake-model"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: deque[Reply] = deque()
        self._requests: list[RecordedRequest] = []
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._ids = itertools.count(1)

    def __enter__(self) -> _LocalServer:
        self._server = _Server(self)
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        assert self._server is not None, "the fake server is not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def script(self, *replies: Reply) -> _LocalServer:
        """Queue replies; each model request pops one."""
        with self._lock:
            self._queue.extend(replies)
        return self

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received, in arrival order."""
        with self._lock:
            return list(self._requests)

    def model_requests(self) -> list[RecordedRequest]:
        """The requests that asked the model for a reply."""
        return [r for r in self.requests if r.method == "POST" and r.path in self.MODEL_PATHS]

    MODEL_PATHS: tuple[str, ...] = ()

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _next(self) -> Reply | None:
        with self._lock:
            return self._queue.popleft() if self._queue else None

    def _get(self, handler: _Handler, request: RecordedRequest) -> None:
        route = getattr(self, "get_" + request.path.strip("/").replace("/", "_"), None)
        if route is None:
            handler.send_json(404, {"error": f"no route {request.path}"})
        else:
            handler.send_json(200, route(request))

    def _post(self, handler: _Handler, request: RecordedRequest) -> None:
        route = getattr(self, "post_" + request.path.strip("/").replace("/", "_"), None)
        if route is None:
            handler.send_json(404, {"error": f"no route {request.path}"})
            return
        route(handler, request)


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


class FakeOllama(_LocalServer):
    """A fake Ollama at ``url`` (the api_base of ``ollama_chat/…`` and ``ollama/…``).

    Args:
        context_length: What ``/api/show`` reports as the model's ``context_length``.
        tools_in_template: Whether the model's template (``/api/show``) takes tools, which
            is how litellm decides that an Ollama model calls functions natively.
    """

    MODEL_PATHS = ("/api/chat", "/api/generate")

    def __init__(self, *, context_length: int = 32768, tools_in_template: bool = False) -> None:
        super().__init__()
        self.context_length = context_length
        self.tools_in_template = tools_in_template

    def _stamp(self, model: str) -> dict[str, Any]:
        return {"model": model, "created_at": "2026-11-26T18:00:00.000000Z"}

    def _done(self, model: str, prompt: str, reply: Reply) -> dict[str, Any]:
        prompt_tokens, completion_tokens = reply.usage or (_tokens(prompt), _tokens(reply.text) + 1)
        return {**self._stamp(model), "done": True, "done_reason": "stop",
                "total_duration": 912_000_000, "load_duration": 2_100_000,
                "prompt_eval_count": prompt_tokens, "prompt_eval_duration": 310_000_000,
                "eval_count": completion_tokens, "eval_duration": 590_000_000}

    def post_api_chat(self, handler: _Handler, request: RecordedRequest) -> None:
        """``/api/chat``: the reply's text in pieces, its tool calls (arguments as JSON
        objects, as Ollama sends them) in one message, then the ``done`` line."""
        reply = self._next()
        if reply is None:
            handler.send_json(500, {"error": "fake ollama: no scripted reply left"})
            return
        model = str(request.body.get("model", self.model))
        calls = [{"function": {"index": i, "name": c.name, "arguments": json.loads(c.arguments)}}
                 for i, c in enumerate(reply.tool_calls)]
        done = self._done(model, json.dumps(request.messages), reply)
        if not request.stream:
            message: dict[str, Any] = {"role": "assistant", "content": reply.text}
            if calls:
                message["tool_calls"] = calls
            handler.send_json(200, {**done, "message": message})
            return
        lines = [{**self._stamp(model), "message": {"role": "assistant", "content": piece},
                  "done": False} for piece in _pieces(reply.text, reply.chunk_size)]
        if calls:
            lines.append({**self._stamp(model), "message": {
                "role": "assistant", "content": "", "tool_calls": calls}, "done": False})
        lines.append({**done, "message": {"role": "assistant", "content": ""}})
        handler.send_stream("application/x-ndjson",
                            [json.dumps(line).encode() + b"\n" for line in lines])

    def post_api_generate(self, handler: _Handler, request: RecordedRequest) -> None:
        """``/api/generate`` (litellm's ``ollama/…``): one prompt in, ``response`` pieces out."""
        reply = self._next()
        if reply is None:
            handler.send_json(500, {"error": "fake ollama: no scripted reply left"})
            return
        model = str(request.body.get("model", self.model))
        done = {**self._done(model, str(request.body.get("prompt", "")), reply),
                "response": "", "context": [1, 2, 3]}
        if not request.stream:
            handler.send_json(200, {**done, "response": reply.text})
            return
        lines = [{**self._stamp(model), "response": piece, "done": False}
                 for piece in _pieces(reply.text, reply.chunk_size)]
        handler.send_stream("application/x-ndjson",
                            [json.dumps(line).encode() + b"\n" for line in [*lines, done]])

    def post_api_show(self, handler: _Handler, request: RecordedRequest) -> None:
        """``/api/show``: the model's template, parameters and ``model_info``."""
        template = OLLAMA_TEMPLATE_WITH_TOOLS if self.tools_in_template else OLLAMA_TEMPLATE_PLAIN
        handler.send_json(200, {
            "modelfile": "FROM fake-model\n", "parameters": "stop \"<|im_end|>\"",
            "template": template,
            "details": {"format": "gguf", "family": "qwen2", "parameter_size": "494M",
                        "quantization_level": "Q4_K_M"},
            "model_info": {"general.architecture": "qwen2",
                           "qwen2.context_length": self.context_length},
            "capabilities": ["completion", *(["tools"] if self.tools_in_template else [])],
        })

    def get_api_tags(self, request: RecordedRequest) -> dict[str, Any]:
        """``/api/tags``: the model this fake serves, and the embedding models pulled."""
        pulled = [name if ":" in name else f"{name}:latest"
                  for name in sorted(self.embedding_models)]
        return {"models": [{"name": name, "model": name, "size": 397_821_319,
                            "digest": "0" * 64} for name in [f"{self.model}:latest", *pulled]]}

    def get_api_version(self, request: RecordedRequest) -> dict[str, Any]:
        """``/api/version``."""
        return {"version": "0.13.0"}

    embedding_models: frozenset[str] = frozenset()
    """The embedding models pulled (``ollama pull nomic-embed-text``); none by default."""

    def post_api_embed(self, handler: _Handler, request: RecordedRequest) -> None:
        """``/api/embed``: vectors of a pulled embedding model, else Ollama's 404."""
        handler.send_json(*ollama_embeddings(request.body, self.embedding_models))


class FakeLlamaServer(_LocalServer):
    """A fake llama.cpp ``llama-server`` at ``url``; its OpenAI api_base is ``url + "/v1"``.

    Args:
        n_ctx: The context size ``/props`` reports (``llama-server -c``).
    """

    MODEL_PATHS = ("/v1/chat/completions", "/chat/completions")

    def __init__(self, *, n_ctx: int = 8192) -> None:
        super().__init__()
        self.n_ctx = n_ctx

    @property
    def openai_base(self) -> str:
        """``api_base`` for litellm ``openai/<model>``."""
        return self.url + "/v1"

    def _chunk(self, model: str, cid: str, delta: dict[str, Any],
               finish: str | None = None, **extra: Any) -> bytes:
        body = {"choices": [{"finish_reason": finish, "index": 0, "delta": delta}],
                "created": int(time.time()), "id": cid, "model": model,
                "system_fingerprint": "b7100-fake", "object": "chat.completion.chunk", **extra}
        return b"data: " + json.dumps(body).encode() + b"\n\n"

    def post_v1_chat_completions(self, handler: _Handler, request: RecordedRequest) -> None:
        """OpenAI chat completions as llama-server streams them: a role chunk, text
        pieces, tool-call pieces, a finish chunk carrying ``timings`` and ``usage``, then
        (when asked) a usage-only chunk and ``[DONE]``."""
        reply = self._next()
        if reply is None:
            handler.send_json(500, {"error": {"code": 500, "type": "server_error",
                                              "message": "fake llama-server: no reply left"}})
            return
        model = str(request.body.get("model", self.model))
        cid = f"chatcmpl-{next(self._ids)}"
        prompt_n, predicted_n = reply.usage or (_tokens(json.dumps(request.messages)),
                                                _tokens(reply.text) + 1)
        usage = {"completion_tokens": predicted_n, "prompt_tokens": prompt_n,
                 "total_tokens": prompt_n + predicted_n}
        timings = {"prompt_n": prompt_n, "prompt_ms": 41.2, "prompt_per_token_ms": 0.3,
                   "prompt_per_second": 3300.0, "predicted_n": predicted_n,
                   "predicted_ms": 80.5, "predicted_per_token_ms": 8.0,
                   "predicted_per_second": 125.0}
        events = [self._chunk(model, cid, {"role": "assistant", "content": None})]
        events += [self._chunk(model, cid, {"content": piece})
                   for piece in _pieces(reply.text, reply.chunk_size)]
        for index, call in enumerate(reply.tool_calls):
            events.append(self._chunk(model, cid, {"tool_calls": [{
                "index": index, "id": call.id or f"call_{next(self._ids)}", "type": "function",
                "function": {"name": call.name, "arguments": ""}}]}))
            events.append(self._chunk(model, cid, {"tool_calls": [{
                "index": index, "function": {"arguments": call.arguments}}]}))
        finish = "tool_calls" if reply.tool_calls else "stop"
        events.append(self._chunk(model, cid, {}, finish, usage=usage, timings=timings))
        if (request.body.get("stream_options") or {}).get("include_usage"):
            events.append(b"data: " + json.dumps({
                "choices": [], "created": int(time.time()), "id": cid, "model": model,
                "system_fingerprint": "b7100-fake", "object": "chat.completion.chunk",
                "usage": usage, "timings": timings}).encode() + b"\n\n")
        events.append(b"data: [DONE]\n\n")
        handler.send_stream("text/event-stream", events)

    post_chat_completions = post_v1_chat_completions

    def get_v1_models(self, request: RecordedRequest) -> dict[str, Any]:
        """``/v1/models``: the one loaded model."""
        return {"object": "list", "data": [{"id": self.model, "object": "model",
                                             "created": 0, "owned_by": "llamacpp",
                                             "meta": {"n_ctx_train": 32768}}]}

    def get_health(self, request: RecordedRequest) -> dict[str, Any]:
        """``/health``."""
        return {"status": "ok"}

    def get_props(self, request: RecordedRequest) -> dict[str, Any]:
        """``/props``: the server's context size among its generation settings."""
        return {"default_generation_settings": {"n_ctx": self.n_ctx}, "total_slots": 1,
                "model_path": f"/models/{self.model}.gguf", "chat_template": ""}

    embeddings = False
    """Whether the server was started with ``--embeddings``."""

    def post_v1_embeddings(self, handler: _Handler, request: RecordedRequest) -> None:
        """``/v1/embeddings``: vectors with ``--embeddings``, else llama-server's 501."""
        if not self.embeddings:
            handler.send_json(501, {"error": {
                "code": 501, "type": "not_supported_error",
                "message": "This server does not support embeddings. Start it with "
                           "`--embeddings`"}})
            return
        handler.send_json(*openai_embeddings(request.body, None))
