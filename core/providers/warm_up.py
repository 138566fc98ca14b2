"""One model call to a server in this process, so that litellm's first real call finds loaded
what a first call loads (about 50 modules, the tokenizer: ~0.5 s here).

The warm engine (:mod:`~agent_tui.core.providers.engine_server`) makes it once, before it
forks workers; nothing leaves the machine: the server listens on 127.0.0.1 only and answers
with a short OpenAI-style stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import json

_CHUNKS = (
    {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "ok"},
                  "finish_reason": None}]},
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    {"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}},
)

_TOOL = {"type": "function", "function": {
    "name": "read_file", "description": "Read a file.",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                   "required": ["path"]}}}


async def _answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.decode("latin-1").split("\r\n"):
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    await reader.readexactly(length)
    events = b"".join(
        b"data: " + json.dumps({"id": "warm-up", "object": "chat.completion.chunk",
                                "created": 0, "model": "warm-up", **chunk}).encode() + b"\n\n"
        for chunk in _CHUNKS)
    writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                 b"connection: close\r\n\r\n" + events + b"data: [DONE]\n\n")
    await writer.drain()
    writer.close()


async def _warm_up() -> None:
    from ..settings import Settings
    from .litellm import LitellmProvider

    server = await asyncio.start_server(_answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        settings = Settings.model_construct(
            model="openai/agent-tui-warm-up", api_base=f"http://127.0.0.1:{port}/v1",
            api_key="warm-up", max_retries=0)
        provider = LitellmProvider(settings)
        await provider.complete([{"role": "user", "content": "warm up"}], [_TOOL],
                                lambda _text: None)
        provider.count_tokens([{"role": "user", "content": "warm up"}])
    finally:
        server.close()
        with contextlib.suppress(Exception):
            await server.wait_closed()


def warm_up(timeout: float = 20.0) -> bool:
    """Make the call; whether it went through (a failure only leaves things cold)."""
    try:
        asyncio.run(asyncio.wait_for(_warm_up(), timeout))
    except Exception:  # noqa: BLE001 - a warm-up that fails costs the first call its imports
        return False
    return True
