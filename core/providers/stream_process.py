"""Model calls streamed in another process, so that a fast stream costs the workbench's
event loop a line of JSON every few milliseconds instead of litellm's work on each chunk.

litellm's parsing of a streamed chunk (the OpenAI SDK's model of the event, then litellm's
own) holds the GIL; a fast stream's chunks took a large share of the loop that also draws
the screen and answers keys. :class:`StreamProcess` runs the calls in a
:mod:`~agent_tui.core.providers.stream_worker` process (on another core, with its own GIL)
and hands each call's text to the caller's loop as it arrives; :class:`ProcessProvider` is a
:class:`~agent_tui.core.providers.litellm.LitellmProvider` whose calls go there (what it
knows about the model, and token counts, stay in this process).

The process is shared by every provider of this process and started on first use; it ends
when this process closes its input (at exit, or when it dies). A worker that dies fails the
calls in flight with a retryable error, and the next call starts another.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import contextlib
import contextvars
import itertools
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from ..events import Usage
from . import llamacpp
from .base import Message, ModelReply, ProviderError, TextCallback, ToolCallRequest
from .litellm import LitellmProvider, estimate_tokens, is_loaded, load_litellm

if TYPE_CHECKING:
    from .warm_engine import EngineWorker

WORKER_MODULE = "agent_tui.core.providers.stream_worker"
PARENT_VARIABLE = "AGENT_TUI_STREAM_PARENT"
"""The workbench's process id, in the worker's environment: the worker ends once its parent
is another (the workbench died, even before the worker got to ask who its parent is)."""
FORKED_VARIABLE = "AGENT_TUI_STREAM_FORKED"
"""Set in a worker the warm engine forked: its parent is the engine, and it watches the
workbench's process instead."""


class _Call:
    """One call in flight: its text and its end, handed from the reader thread to the
    caller's loop in order, with one wake-up of the loop for whatever came meanwhile."""

    def __init__(self, loop: asyncio.AbstractEventLoop, on_text: TextCallback,
                 on_thinking: TextCallback | None = None) -> None:
        self.loop = loop
        self.on_text = on_text
        self.on_thinking = on_thinking
        self.context = contextvars.copy_context()
        """The caller's context: ``on_text`` runs in it, as it would in this process."""
        self.done: asyncio.Future[ModelReply] = loop.create_future()
        self.process: subprocess.Popen[bytes] | EngineWorker | None = None
        """The worker it was sent to."""
        self._items: list[tuple[str, Any]] = []
        self._lock = threading.Lock()

    def deliver(self, kind: str, value: Any) -> None:
        """From the reader thread: ``text``, ``thinking``, ``reply`` or ``error``."""
        with self._lock:
            self._items.append((kind, value))
            wake = len(self._items) == 1
        if wake:
            with contextlib.suppress(RuntimeError):  # the caller's loop has closed
                self.loop.call_soon_threadsafe(self._drain, context=self.context)

    def _drain(self) -> None:
        with self._lock:
            items, self._items = self._items, []
        for kind, value in items:
            if self.done.done():
                return
            if kind == "text":
                self.on_text(value)
            elif kind == "thinking":
                if self.on_thinking is not None:
                    self.on_thinking(value)
            elif kind == "reply":
                self.done.set_result(value)
            else:
                self.done.set_exception(value)


class _Ask:
    """A question in flight: its answer, handed from the reader thread to the asking one."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.answer: dict[str, Any] | None = None


class StreamProcess:
    """The worker process and the calls in flight in it.

    Args:
        command: How to start the worker (default: this Python, the worker module).
    """

    def __init__(self, command: list[str] | None = None) -> None:
        self.command = command or [sys.executable, "-m", WORKER_MODULE]
        self.use_engine = False
        """Ask the warm engine for a worker with litellm already loaded (``warm_engine``);
        one started here otherwise, or when the engine cannot be had."""
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | EngineWorker | None = None
        self._calls: dict[int, _Call] = {}
        self._asks: dict[int, _Ask] = {}
        self._ready = threading.Event()
        self._ids = itertools.count(1)
        self._sent_env: dict[str, str] | None = None
        self._stderr: collections.deque[str] = collections.deque(maxlen=20)

    @property
    def pid(self) -> int | None:
        """The worker's process id, while it runs."""
        process = self._process
        return process.pid if process is not None and process.poll() is None else None

    def start(self) -> None:
        """Start the worker unless it runs; safe from any thread. It imports litellm at
        once, so the first call need not wait for it."""
        with self._lock:
            if self._process is not None and self._process.poll() is None:
                return
            env = {**os.environ, PARENT_VARIABLE: str(os.getpid())}
            process: subprocess.Popen[bytes] | EngineWorker | None = None
            if self.use_engine:
                from .warm_engine import start_worker

                process = start_worker(env)
            if process is None:
                # Its own session: a signal from the terminal reaches the workbench, which
                # ends the worker by closing its input.
                process = subprocess.Popen(self.command, stdin=subprocess.PIPE,
                                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                           start_new_session=True, env=env)
            self._process = process
            self._ready = threading.Event()
            self._sent_env = None
            self._stderr.clear()
        threading.Thread(target=self._read_replies, args=(process, self._ready), daemon=True,
                         name="stream-worker-replies").start()
        threading.Thread(target=self._read_stderr, args=(process,), daemon=True,
                         name="stream-worker-stderr").start()

    def close(self, timeout: float = 1.0) -> None:
        """End the worker: its input closed, killed after ``timeout`` seconds."""
        with self._lock:
            process, self._process = self._process, None
        if process is None:
            return
        with contextlib.suppress(OSError):
            process.stdin.close()  # type: ignore[union-attr]
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    async def complete(self, settings: dict[str, Any], messages: list[Message],
                       tools: list[dict[str, Any]] | None, on_text: TextCallback,
                       on_thinking: TextCallback | None = None) -> ModelReply:
        """One call of a :class:`LitellmProvider` with ``settings`` (its
        :meth:`~LitellmProvider.request_settings`), in the worker; see ``Provider.complete``."""
        if self.pid is None:
            await asyncio.to_thread(self.start)
        call_id = next(self._ids)
        call = _Call(asyncio.get_running_loop(), on_text, on_thinking)
        request: dict[str, Any] = {"call": call_id, "settings": settings,
                                   "messages": messages, "tools": tools}
        try:
            data, env = self._encode(request)
        except (TypeError, ValueError) as exc:
            raise ProviderError(f"the conversation cannot be sent to the model: {exc}",
                                kind="bad_request") from None
        call.process = self._process
        self._calls[call_id] = call
        try:
            # A long conversation can fill the pipe: written off the loop.
            await asyncio.to_thread(self._send, data)
            if env is not None:
                self._sent_env = env
            return await call.done
        except asyncio.CancelledError:
            with contextlib.suppress(ProviderError):
                self._send((json.dumps({"cancel": call_id}) + "\n").encode())
            raise
        finally:
            self._calls.pop(call_id, None)

    def ask(self, question: dict[str, Any], timeout: float, *,
            ready_wait: float = 0.0) -> dict[str, Any] | None:
        """A question for the worker's litellm (``{"settings": …, "facts": True}``,
        ``{"settings": …, "count": messages}`` or ``{"embed": texts, …}``; see the worker's
        ``answer``), asked from any thread; ``{"answer": …}`` or ``{"error": …}``, or None
        when the worker is not ready within ``ready_wait`` seconds (started if need be) or
        does not answer within ``timeout``."""
        if self.pid is None:
            try:
                self.start()
            except OSError:
                return None
        if not self._ready.wait(ready_wait):
            return None
        ask_id = next(self._ids)
        waiting = _Ask()
        self._asks[ask_id] = waiting
        try:
            data, env = self._encode({"ask": ask_id, **question})
            self._send(data)
            if env is not None:
                self._sent_env = env
            if not waiting.done.wait(timeout):
                return None
            answer: dict[str, Any] | None = waiting.answer
            return answer
        except (TypeError, ValueError, ProviderError):
            return None
        finally:
            self._asks.pop(ask_id, None)

    def _encode(self, request: dict[str, Any]) -> tuple[bytes, dict[str, str] | None]:
        """``request`` as a line, with this process's environment when it changed since the
        worker last had it (then also returned, to be marked as sent once it is)."""
        env = dict(os.environ)
        if env == self._sent_env:
            return (json.dumps(request) + "\n").encode(), None
        return (json.dumps({**request, "env": env}) + "\n").encode(), env

    def _send(self, data: bytes) -> None:
        process = self._process
        try:
            with self._write_lock:
                process.stdin.write(data)  # type: ignore[union-attr]
                process.stdin.flush()  # type: ignore[union-attr]
        except (AttributeError, OSError, ValueError):
            raise self._ended() from None

    def _read_replies(self, process: subprocess.Popen[bytes] | EngineWorker,
                      ready: threading.Event) -> None:
        for line in process.stdout:  # type: ignore[union-attr]
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if "ready" in message:
                ready.set()
                continue
            if "ask" in message:
                if (waiting := self._asks.get(message["ask"])) is not None:
                    waiting.answer = message
                    waiting.done.set()
                continue
            call = self._calls.get(message.get("call"))
            if call is None:
                continue  # a cancelled call's last words
            if "text" in message:
                call.deliver("text", message["text"])
            elif "thinking" in message:
                call.deliver("thinking", message["thinking"])
            elif "reply" in message:
                call.deliver("reply", _reply(message["reply"]))
            elif "error" in message:
                call.deliver("error", ProviderError(**message["error"]))
        process.wait()
        with self._lock:
            if self._process is process:
                self._process = None
        error = self._ended(process.returncode)
        for waiting in list(self._asks.values()):
            waiting.done.set()  # unanswered: None
        for call in list(self._calls.values()):
            if call.process is process:
                call.deliver("error", error)

    def _read_stderr(self, process: subprocess.Popen[bytes] | EngineWorker) -> None:
        stream: IO[bytes] = process.stderr  # type: ignore[assignment]
        for line in stream:
            self._stderr.append(line.decode(errors="replace").rstrip())

    def _ended(self, code: int | None = None) -> ProviderError:
        said = " | ".join(line for line in self._stderr if line.strip())[-300:]
        status = f" (exit status {code})" if code is not None else ""
        return ProviderError(
            f"agent-tui's stream worker process ended{status}"
            + (f": {said}" if said else "") + "; retrying with a new one.",
            kind="connection")


def _reply(value: dict[str, Any]) -> ModelReply:
    return ModelReply(
        text=value["text"],
        tool_calls=[ToolCallRequest(*call) for call in value["tool_calls"]],
        usage=Usage.from_dict(value["usage"]),
        finish_reason=value["finish_reason"],
        reasoning=value.get("reasoning") or "",
        thinking_blocks=value.get("thinking_blocks") or [],
    )


_shared: StreamProcess | None = None
_shared_lock = threading.Lock()


def shared_stream_process() -> StreamProcess:
    """This process's stream worker (not started until used), closed at exit."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = StreamProcess()
            atexit.register(_shared.close)
        return _shared


def library_worker() -> StreamProcess | None:
    """The worker that answers for litellm in this process (an embedding, say): the shared
    one, once a workbench whose model streams there has made it, while this process has
    not imported litellm itself; else None."""
    process = _shared
    return None if process is None or is_loaded() else process


def streams_in_worker(model: str) -> bool:
    """Whether calls of ``model`` go to the worker: all but embedded llama.cpp models,
    which are loaded in this process."""
    return not llamacpp.is_embedded(model)


FACTS_WAIT_S = 120.0
"""Seconds an agent being built waits for its worker to load litellm and answer."""

ASK_WAIT_S = 5.0
"""Seconds a question asked on the way (a token count) waits for the worker's answer."""


class ProcessProvider:
    """A :class:`LitellmProvider` whose calls stream in a :class:`StreamProcess`.

    What litellm knows of the model (its window, tools, images; token counts) is asked of
    the worker too, so that this process need not import litellm (seconds, and ~200 MB)
    unless the worker cannot answer. Embedded llama.cpp models (``llamacpp/…``) are called
    here: the model is loaded in this process.
    """

    def __init__(self, inner: LitellmProvider, process: StreamProcess | None = None) -> None:
        self.inner = inner
        self.process = process or shared_stream_process()
        self._facts: dict[str, Any] | None = None

    @property
    def model(self) -> str:
        """The model's litellm name."""
        return self.inner.model

    async def ready(self) -> None:
        """Learn the model's facts from the worker (started, and its litellm loaded, if need
        be), off the caller's loop; after this the agent asks nothing that imports litellm
        here. Without an answer the facts come from litellm in this process."""
        if self._facts is None and self._asks_worker():
            await asyncio.to_thread(self.learn_facts, FACTS_WAIT_S)
        if self._facts is None:
            await asyncio.to_thread(load_litellm)

    async def complete(self, messages: list[Message], tools: list[dict[str, Any]] | None,
                       on_text: TextCallback,
                       on_thinking: TextCallback | None = None) -> ModelReply:
        """See ``Provider.complete``."""
        if not streams_in_worker(self.model):
            return await self.inner.complete(messages, tools, on_text, on_thinking)
        return await self.process.complete(self.inner.request_settings(), messages, tools,
                                           on_text, on_thinking)

    def with_model(self, model: str, **api: str | None) -> ProcessProvider:
        """See ``Provider.with_model``; calls go to the same worker."""
        return ProcessProvider(self.inner.with_model(model, **api), self.process)

    def supports_native_tools(self) -> bool:
        """See ``Provider.supports_native_tools``."""
        return bool(self._fact("native_tools", self.inner.supports_native_tools))

    def context_window(self) -> int:
        """See ``Provider.context_window``."""
        return int(self._fact("context_window", self.inner.context_window))

    def supports_images(self) -> bool:
        """See ``Provider.supports_images``."""
        return bool(self._fact("images", self.inner.supports_images))

    def count_tokens(self, messages: list[Message]) -> int:
        """See ``Provider.count_tokens``: by the worker's litellm, unless this process has
        its own; about four characters a token while no litellm can answer."""
        if not self._asks_worker():
            return self.inner.count_tokens(messages)
        said = self.process.ask({"settings": self.inner.request_settings(),
                                 "count": messages}, ASK_WAIT_S)
        counted = said.get("answer") if said else None
        return counted if isinstance(counted, int) else estimate_tokens(messages)

    def reasoning_note(self) -> str | None:
        """See ``Provider.reasoning_note``."""
        note = self._fact("reasoning_note", self.inner.reasoning_note)
        return None if note is None else str(note)

    def _asks_worker(self) -> bool:
        """Whether litellm's word comes from the worker: the model streams there, and this
        process has not imported litellm anyway."""
        return streams_in_worker(self.model) and not is_loaded()

    def learn_facts(self, ready_wait: float) -> bool:
        """Ask the worker for the model's facts, waiting up to ``ready_wait`` seconds for it
        to be ready (blocking: call it off the loop when that is long); whether it told."""
        said = self.process.ask({"settings": self.inner.request_settings(), "facts": True},
                                ASK_WAIT_S, ready_wait=ready_wait)
        facts = said.get("answer") if said else None
        if isinstance(facts, dict):
            self._facts = facts
        return self._facts is not None

    def _fact(self, name: str, here: Callable[[], Any]) -> Any:
        if self._facts is None and self._asks_worker():
            self.learn_facts(0.0)
        return self._facts[name] if self._facts is not None else here()
