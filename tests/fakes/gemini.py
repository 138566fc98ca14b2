"""A fake Gemini API (Google AI Studio) on loopback: streamed ``generateContent`` and the
explicit context cache (``cachedContents``), as the real API answers them.

- ``POST …:cachedContents`` stores the contents, system instruction and tools it is given
  and answers with the entry's ``name``; ``GET …:cachedContents`` lists the entries with their
  ``displayName`` (litellm finds its entry again by that name).
- ``POST …:streamGenerateContent`` answers a scripted text as server-sent events. A request
  naming ``cachedContent`` is billed as the real API bills it: the cached tokens are part of
  ``promptTokenCount`` and reported again as ``cachedContentTokenCount``. Like the real API it
  refuses (400) a request that names a cache and also sets ``system_instruction``, ``tools``
  or ``tool_config``, and one that names a cache it does not hold.

  With ``function_call`` set, a request whose last turn is not a ``functionResponse`` is
  answered with that call instead (a ``functionCall`` part, as the real API streams one), so
  a client such as Gemini CLI runs one of its tools and then gets the text.

Tokens are counted as a quarter of the bytes, as the other fakes do. litellm reaches a custom
``api_base`` at ``{api_base}/models/{model}:{method}``, so the methods are matched by suffix.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CACHE_WITH_PROMPT = (
    "CachedContent can not be used with GenerateContent request setting system_instruction, "
    "tools or tool_config.\n\nProposed fix: move those values to CachedContent from "
    "GenerateContent request."
)


def tokens_of(value: Any) -> int:
    """The fake's token count of a JSON value: a quarter of its bytes."""
    return len(json.dumps(value, sort_keys=True).encode()) // 4


@dataclass
class GeminiRequest:
    """One ``generateContent`` request as the fake received it."""

    path: str
    body: dict[str, Any]

    @property
    def cached_content(self) -> str | None:
        """The cache entry the request names, if any."""
        name = self.body.get("cachedContent")
        return str(name) if name else None

    @property
    def has_system_instruction(self) -> bool:
        return bool(self.body.get("system_instruction") or self.body.get("systemInstruction"))


@dataclass
class FakeGemini:
    """The fake server; start it with ``with FakeGemini() as fake:``.

    Attributes:
        answer: The text every ``generateContent`` streams back.
        function_call: ``{"name": …, "args": {…}}`` to call before answering, if any.
        requests: The ``generateContent`` requests, in order.
        cache_creations: The bodies of the ``cachedContents`` entries created, in order.
        cache_lists: How many times the entries were listed.
    """

    answer: str = "Done."
    function_call: dict[str, Any] | None = None
    requests: list[GeminiRequest] = field(default_factory=list)
    cache_creations: list[dict[str, Any]] = field(default_factory=list)
    cache_lists: int = 0
    _entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None

    def __enter__(self) -> FakeGemini:
        fake = self

        class Handler(_Handler):
            server_fake = fake

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def api_base(self) -> str:
        """The ``api_base`` to give litellm for ``gemini/…`` models."""
        assert self._server is not None, "start the fake first"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1beta"

    def create_entry(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            name = f"cachedContents/entry{len(self._entries) + 1}"
            tokens = tokens_of(
                [body.get("contents"), body.get("system_instruction"), body.get("tools")])
            entry = {"name": name, "model": body.get("model"),
                     "displayName": body.get("displayName"), "tokens": tokens,
                     "usageMetadata": {"totalTokenCount": tokens}}
            self._entries[name] = entry
            self.cache_creations.append(body)
        return {k: v for k, v in entry.items() if k != "tokens"}

    def list_entries(self) -> dict[str, Any]:
        with self._lock:
            self.cache_lists += 1
            entries = [{k: v for k, v in e.items() if k != "tokens"}
                       for e in self._entries.values()]
        return {"cachedContents": entries} if entries else {}

    def entry_tokens(self, name: str) -> int | None:
        with self._lock:
            entry = self._entries.get(name)
        return None if entry is None else int(entry["tokens"])


class _Handler(BaseHTTPRequestHandler):
    server_fake: FakeGemini
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send_json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str) -> None:
        self._send_json(status, {"error": {"code": status, "message": message,
                                           "status": "INVALID_ARGUMENT"}})

    def do_GET(self) -> None:
        if self.path.split("?")[0].endswith("cachedContents"):
            self._send_json(200, self.server_fake.list_entries())
        else:
            self._error(404, f"no route {self.path}")

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        route = self.path.split("?")[0]
        if route.endswith("cachedContents"):
            self._send_json(200, self.server_fake.create_entry(body))
        elif route.endswith((":streamGenerateContent", ":generateContent")):
            self._generate(body, stream=route.endswith(":streamGenerateContent"))
        else:
            self._error(404, f"no route {self.path}")

    def _generate(self, body: dict[str, Any], *, stream: bool) -> None:
        fake = self.server_fake
        request = GeminiRequest(self.path, body)
        with fake._lock:
            fake.requests.append(request)
        cached = 0
        if request.cached_content is not None:
            if request.has_system_instruction or body.get("tools") or body.get("toolConfig") \
                    or body.get("tool_config"):
                self._error(400, CACHE_WITH_PROMPT)
                return
            tokens = fake.entry_tokens(request.cached_content)
            if tokens is None:
                self._error(403, f"CachedContent not found (or permission denied): "
                                 f"{request.cached_content}")
                return
            cached = tokens
        prompt = tokens_of([body.get("contents"), body.get("system_instruction"),
                            body.get("tools")]) + cached
        answer = fake.answer
        usage = {"promptTokenCount": prompt, "candidatesTokenCount": max(1, len(answer) // 4),
                 "totalTokenCount": prompt + max(1, len(answer) // 4)}
        if cached:
            usage["cachedContentTokenCount"] = cached
        call = fake.function_call if not _answers_a_call(body) else None
        chunks = [_call_chunk(call, usage)] if call else list(_chunks(answer, usage))
        if not stream:
            self._send_json(200, chunks[-1])
            return
        data = b"".join(b"data: " + json.dumps(chunk).encode() + b"\r\n\r\n" for chunk in chunks)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _chunks(answer: str, usage: dict[str, int]) -> Iterator[dict[str, Any]]:
    """The stream of one text answer: a chunk per word run, the last with the usage."""
    half = len(answer) // 2
    for index, piece in enumerate((answer[:half], answer[half:])):
        chunk: dict[str, Any] = {
            "candidates": [{"content": {"parts": [{"text": piece}], "role": "model"},
                            "index": 0}],
            "modelVersion": "gemini-2.5-flash",
        }
        if index == 1:
            chunk["candidates"][0]["finishReason"] = "STOP"
            chunk["usageMetadata"] = usage
        yield chunk


def _answers_a_call(body: dict[str, Any]) -> bool:
    """Whether the request's last turn carries a ``functionResponse`` (a tool's result)."""
    contents = body.get("contents") or [{}]
    return any("functionResponse" in part for part in contents[-1].get("parts", []))


def _call_chunk(call: dict[str, Any], usage: dict[str, int]) -> dict[str, Any]:
    """The one chunk of an answer that is a function call."""
    return {"candidates": [{"content": {"parts": [{"functionCall": call}], "role": "model"},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": usage, "modelVersion": "gemini-2.5-flash"}
