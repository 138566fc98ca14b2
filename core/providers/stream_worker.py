"""The stream worker: a process that makes the workbench's model calls through litellm and
sends back their text as it streams, then the reply.

Run as ``python -m agent_tui.core.providers.stream_worker`` by
:class:`~agent_tui.core.providers.stream_process.StreamProcess`. It speaks JSON lines:

- in: ``{"call": N, "settings": {...}, "messages": [...], "tools": [...], "env": {...}}``
  (``env`` only when the workbench's environment changed since the last call) and
  ``{"cancel": N}``;
- in: ``{"ask": N, "settings": {...}, "facts": true}`` and ``{"ask": N, "settings":
  {...}, "count": [...]}``: what litellm knows of a model, the tokens of messages;
- out: ``{"ready": PID}`` once litellm is loaded; ``{"ask": N, "answer": ...}`` (or
  ``"error"``);
- out: ``{"call": N, "text": "..."}`` and ``{"call": N, "thinking": "..."}`` (a stream's
  text and reasoning, in order, each gathered for ``TEXT_GATHER`` seconds), then
  ``{"call": N, "reply": {...}}`` or ``{"call": N, "error": {...}}``.

It ends when its input ends (the workbench closed it, or died).
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
import threading
import time
from typing import Any, BinaryIO

from ..long_lived import settle_long_lived
from ..settings import Settings
from .base import ModelReply, ProviderError
from .litellm import LitellmProvider, preload
from .stream_process import FORKED_VARIABLE, PARENT_VARIABLE
from .warm_engine import process_alive

TEXT_GATHER = 0.003
"""Seconds streamed text is gathered before it is sent: a fast stream's chunks go in a
few hundred lines a second, not one line each."""


NICENESS = 10
"""How much lower the worker's CPU priority is than the workbench's: when both want the
same core (two cores, a fast stream, something else running), the person's keys go first;
the stream's text waits a little instead."""


class LineWriter:
    """Writes the worker's lines, a stream's text gathered into as few lines as can be."""

    def __init__(self, out: BinaryIO, loop: asyncio.AbstractEventLoop) -> None:
        self._out = out
        self._loop = loop
        self._texts: dict[tuple[int, str], list[str]] = {}
        self._scheduled: asyncio.TimerHandle | None = None

    def text(self, call: int, text: str, kind: str = "text") -> None:
        """Send ``text`` of ``call`` within ``TEXT_GATHER`` seconds; ``kind`` ``thinking``
        for its reasoning (sent before the text gathered after it)."""
        if kind != "text" and (call, "text") in self._texts:
            self.flush()  # reasoning after text (interleaved thinking) keeps its place
        self._texts.setdefault((call, kind), []).append(text)
        if self._scheduled is None:
            self._scheduled = self._loop.call_later(TEXT_GATHER, self.flush)

    def send(self, message: dict[str, Any]) -> None:
        """Send ``message`` now, after the text still gathered."""
        self.flush(json.dumps(message))

    def flush(self, *lines: str) -> None:
        """Send the gathered text, then ``lines``."""
        if self._scheduled is not None:
            self._scheduled.cancel()
            self._scheduled = None
        gathered = [json.dumps({"call": call, kind: "".join(texts)})
                    for (call, kind), texts in self._texts.items()]
        self._texts.clear()
        if data := gathered + list(lines):
            self._out.write(("\n".join(data) + "\n").encode())
            self._out.flush()


def reply_message(reply: ModelReply) -> dict[str, Any]:
    """``reply`` as JSON."""
    return {
        "text": reply.text,
        "tool_calls": [[call.id, call.name, call.arguments] for call in reply.tool_calls],
        "usage": reply.usage.to_dict(),
        "finish_reason": reply.finish_reason,
        "reasoning": reply.reasoning,
        "thinking_blocks": reply.thinking_blocks,
    }


def error_message(error: ProviderError) -> dict[str, Any]:
    """``error`` as JSON."""
    return {"message": error.message, "kind": error.kind, "status": error.status,
            "retry_after": error.retry_after}


def answer(question: dict[str, Any]) -> dict[str, Any]:
    """``{"answer": …}`` to a question about a model (``settings``): its ``facts``, or the
    tokens of the messages in ``count``; or the vectors of the texts in ``embed`` (by
    ``model`` at ``api_base``); ``{"error": …}`` when litellm fails it."""
    try:
        if "embed" in question:
            from ..memory.embeddings import EmbeddingError, embed_with_litellm

            try:
                return {"answer": embed_with_litellm(
                    question["embed"], question["model"], question.get("api_base"),
                    question.get("api_key"), question.get("timeout") or 60.0,
                    question.get("check") or "check embedding_model and embedding_api_base")}
            except EmbeddingError as exc:
                return {"error": str(exc)}
        provider = LitellmProvider(Settings.model_construct(**question["settings"]))
        if "count" in question:
            return {"answer": provider.count_tokens(question["count"])}
        return {"answer": provider.facts()}
    except Exception as exc:  # noqa: BLE001 - the workbench falls back and says nothing
        return {"error": f"{type(exc).__name__}: {exc}"}


class Worker:
    """The calls in flight, each a task, and the environment the workbench last sent."""

    def __init__(self, writer: LineWriter) -> None:
        self.writer = writer
        self.calls: dict[int, asyncio.Task[None]] = {}
        self._env: dict[str, str] = {}

    def handle(self, message: dict[str, Any]) -> None:
        """Start or cancel a call, or answer a question."""
        if "cancel" in message:
            if (task := self.calls.get(message["cancel"])) is not None:
                task.cancel()
            return
        if "env" in message:
            self._take_env(message["env"])
        if "ask" in message:
            # In a thread: an embedding is a request of its own, and a count of a long
            # conversation takes a while; the streams in flight go on meanwhile.
            asyncio.get_running_loop().create_task(self._answer(message))
            return
        call = message["call"]
        task = asyncio.get_running_loop().create_task(self._run(call, message))
        self.calls[call] = task
        task.add_done_callback(lambda _: self.calls.pop(call, None))

    async def _answer(self, message: dict[str, Any]) -> None:
        said = await asyncio.to_thread(answer, message)
        self.writer.send({"ask": message["ask"], **said})

    def _take_env(self, env: dict[str, str]) -> None:
        """The workbench's environment (API keys are read from it at each call)."""
        for name in self._env.keys() - env.keys():
            os.environ.pop(name, None)
        os.environ.update(env)
        self._env = env

    async def _run(self, call: int, message: dict[str, Any]) -> None:
        provider = LitellmProvider(Settings.model_construct(**message["settings"]))
        try:
            reply = await provider.complete(
                message["messages"], message.get("tools"),
                lambda text: self.writer.text(call, text),
                lambda thought: self.writer.text(call, thought, "thinking"))
        except ProviderError as exc:
            self.writer.send({"call": call, "error": error_message(exc)})
        except Exception as exc:
            error = ProviderError(f"the model call failed: {type(exc).__name__}: {exc}",
                                  kind="server")
            self.writer.send({"call": call, "error": error_message(error)})
        else:
            self.writer.send({"call": call, "reply": reply_message(reply)})


def _read_lines(source: BinaryIO, loop: asyncio.AbstractEventLoop,
                inbox: asyncio.Queue[dict[str, Any] | None]) -> None:
    """Read requests in a thread (a request with a long conversation is one long line),
    then None at the end of input."""
    try:
        for line in source:
            if line.strip():
                loop.call_soon_threadsafe(inbox.put_nowait, json.loads(line))
    finally:
        loop.call_soon_threadsafe(inbox.put_nowait, None)


def _preload_in_thread(loop: asyncio.AbstractEventLoop) -> asyncio.Future[None]:
    """Load litellm in a daemon thread (one the process does not wait for when it ends);
    the future is done when it is loaded."""
    loaded: asyncio.Future[None] = loop.create_future()

    def done(error: BaseException | None) -> None:
        if loaded.done():
            return
        if error is not None:
            loaded.set_exception(error)
        else:
            loaded.set_result(None)

    def run() -> None:
        error: BaseException | None = None
        try:
            preload()
        except BaseException as exc:  # handed to the loop, which fails with it
            error = exc
        try:
            loop.call_soon_threadsafe(done, error)
        except RuntimeError:
            pass  # the loop has ended: the input ended while litellm loaded

    threading.Thread(target=run, name="preload", daemon=True).start()
    return loaded


async def _while_loading(inbox: asyncio.Queue[dict[str, Any] | None],
                         loaded: asyncio.Future[None]) -> list[dict[str, Any]] | None:
    """The requests that arrive while litellm loads, or None when the input ends first (the
    workbench is gone: the worker ends now, not once litellm is loaded)."""
    early: list[dict[str, Any]] = []
    while not loaded.done():
        getter = asyncio.ensure_future(inbox.get())
        waiting: set[asyncio.Future[dict[str, Any] | None] | asyncio.Future[None]] = {
            getter, loaded}
        await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        if not getter.done():
            getter.cancel()
            break
        if (message := getter.result()) is None:
            return None
        early.append(message)
    loaded.result()
    return early


async def serve(source: BinaryIO, out: BinaryIO) -> None:
    """Answer requests from ``source`` on ``out`` until ``source`` ends."""
    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
    threading.Thread(target=_read_lines, args=(source, loop, inbox), daemon=True).start()
    early = await _while_loading(inbox, _preload_in_thread(loop))
    if early is None:
        return
    # What the imports made lives as long as the process: never walked again (a full
    # collection mid-stream walks all of it, and the answer stops while it does).
    gc.collect()
    settle_long_lived()
    writer = LineWriter(out, loop)
    writer.send({"ready": os.getpid()})
    worker = Worker(writer)
    for request in early:
        worker.handle(request)
    while (message := await inbox.get()) is not None:
        worker.handle(message)
    for task in list(worker.calls.values()):
        task.cancel()


PARENT_POLL_S = 1.0
"""How often the worker checks that the workbench that started it still runs."""


def _end_with_parent() -> None:
    """End the process once the workbench that it serves is gone, in a daemon thread.

    The end of stdin says so too, unless another process holds the pipe's other end, or a
    thread of the worker is stuck where the end of the loop waits for it: the worker must not
    outlive a killed workbench either way. The workbench names itself in the environment
    (``PARENT_VARIABLE``), as it may die before the worker gets here. A worker the workbench
    started is its child, and ends once its parent is another; one the warm engine forked
    (:mod:`~agent_tui.core.providers.engine_server`) ends once the workbench's process is gone."""
    named = os.environ.get(PARENT_VARIABLE, "")
    parent = int(named) if named.isdigit() else os.getppid()
    forked = os.environ.get(FORKED_VARIABLE) == "1"

    def there() -> bool:
        return os.getppid() == parent or (forked and process_alive(parent))

    def watch() -> None:
        while there():
            time.sleep(PARENT_POLL_S)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def load_and_settle() -> None:
    """Import litellm and what its first request needs, then freeze what that made (the
    warm engine does this once, before it forks workers)."""
    preload()
    gc.collect()
    settle_long_lived()


def run_worker(*, nice: bool = True) -> None:
    """Serve on stdin and stdout; anything else printing to stdout goes to stderr.

    Args:
        nice: Lower the process's CPU priority (``NICENESS``); a worker forked by the warm
            engine has its engine's already.
    """
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    if nice:
        os.nice(NICENESS)
    _end_with_parent()
    try:
        asyncio.run(serve(sys.stdin.buffer, out))
    except KeyboardInterrupt:
        pass


def main() -> None:
    """The worker, started by the workbench."""
    run_worker()


if __name__ == "__main__":
    main()
