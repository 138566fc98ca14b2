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
from typing import IO, Any

from ..events import Usage
from . import llamacpp
from .base import Message, ModelReply, ProviderError, TextCallback, ToolCallRequest
from .litellm import LitellmProvider

WORKER_MODULE = "agent_tui.core.providers.stream_worker"
PARENT_VARIABLE = "AGENT_TUI_STREAM_PARENT"
"""The workbench's process id, in the worker's environment: the worker ends once its parent
is another (the workbench died, even before the worker got to ask who its parent is)."""


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
        self.process: subprocess.Popen[bytes] | None = None
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


class StreamProcess:
    """The worker process and the calls in flight in it.

    Args:
        command: How to start the worker (default: this Python, the worker module).
    """

    def __init__(self, command: list[str] | None = None) -> None:
        self.command = command or [sys.executable, "-m", WORKER_MODULE]
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._calls: dict[int, _Call] = {}
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
            # Its own session: a signal from the terminal reaches the workbench, which
            # ends the worker by closing its input.
            process = subprocess.Popen(self.command, stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       start_new_session=True,
                                       env={**os.environ, PARENT_VARIABLE: str(os.getpid())})
            self._process = process
            self._sent_env = None
            self._stderr.clear()
        threading.Thread(target=self._read_replies, args=(process,), daemon=True,
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
        env = dict(os.environ)
        if env != self._sent_env:
            request["env"] = env
        try:
            data = (json.dumps(request) + "\n").encode()
        except (TypeError, ValueError) as exc:
            raise ProviderError(f"the conversation cannot be sent to the model: {exc}",
                                kind="bad_request") from None
        call.process = self._process
        self._calls[call_id] = call
        try:
            # A long conversation can fill the pipe: written off the loop.
            await asyncio.to_thread(self._send, data)
            if "env" in request:
                self._sent_env = env
            return await call.done
        except asyncio.CancelledError:
            with contextlib.suppress(ProviderError):
                self._send((json.dumps({"cancel": call_id}) + "\n").encode())
            raise
        finally:
            self._calls.pop(call_id, None)

    def _send(self, data: bytes) -> None:
        process = self._process
        try:
            with self._write_lock:
                process.stdin.write(data)  # type: ignore[union-attr]
                process.stdin.flush()  # type: ignore[union-attr]
        except (AttributeError, OSError, ValueError):
            raise self._ended() from None

    def _read_replies(self, process: subprocess.Popen[bytes]) -> None:
        for line in process.stdout:  # type: ignore[union-attr]
            try:
                message = json.loads(line)
            except ValueError:
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
        for call in list(self._calls.values()):
            if call.process is process:
                call.deliver("error", error)

    def _read_stderr(self, process: subprocess.Popen[bytes]) -> None:
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


def streams_in_worker(model: str) -> bool:
    """Whether calls of ``model`` go to the worker: all but embedded llama.cpp models,
    which are loaded in this process."""
    return not llamacpp.is_embedded(model)


class ProcessProvider:
    """A :class:`LitellmProvider` whose calls stream in a :class:`StreamProcess`.

    Embedded llama.cpp models (``llamacpp/…``) are called here: the model is loaded in this
    process.
    """

    def __init__(self, inner: LitellmProvider, process: StreamProcess | None = None) -> None:
        self.inner = inner
        self.process = process or shared_stream_process()

    @property
    def model(self) -> str:
        """The model's litellm name."""
        return self.inner.model

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
        return self.inner.supports_native_tools()

    def context_window(self) -> int:
        """See ``Provider.context_window``."""
        return self.inner.context_window()

    def supports_images(self) -> bool:
        """See ``Provider.supports_images``."""
        return self.inner.supports_images()

    def count_tokens(self, messages: list[Message]) -> int:
        """See ``Provider.count_tokens``."""
        return self.inner.count_tokens(messages)

    def reasoning_note(self) -> str | None:
        """See ``Provider.reasoning_note``."""
        return self.inner.reasoning_note()
