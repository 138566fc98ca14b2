"""The litellm provider: the ONLY module of agent-tui that imports litellm.

litellm costs seconds to import, so it is imported on first use (``load_litellm``), with
the local cost map (no network) and its banners switched off (stdout stays ours).

A stream costs the event loop litellm's parsing of each chunk (the SSE line, the OpenAI
SDK's model, litellm's own chunk) and nothing more: no task per chunk for its idle timeout,
and the reply is assembled in a thread from the chunks with each run of plain text merged
into one (:class:`StreamedChunks`); litellm's own assembly of a long reply holds the GIL a
long while, and the workbench's loop shares it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..events import Usage
from . import failures, llamacpp
from .base import Message, ModelReply, ProviderError, TextCallback, ToolCallRequest
from .caching import (
    mark_cache_breakpoints,
    mark_gemini_cache,
    marks_tools,
    takes_cache_marks,
    takes_gemini_cache,
)
from .reasoning import (
    effort_params,
    keeps_thinking_blocks,
    reasoning_tokens,
    thinking_blocks,
    without_thinking,
)
from .stream_chunks import StreamedChunks, delta_reasoning

if TYPE_CHECKING:
    from litellm.types.utils import GenericStreamingChunk

DEFAULT_CONTEXT_WINDOW = 128_000
OLLAMA_PREFIXES = ("ollama/", "ollama_chat/")

_import_lock = threading.Lock()
_litellm: Any = None

REQUEST_SETTINGS = frozenset({
    "model", "api_base", "api_key", "api_key_env", "tool_protocol", "context_window",
    "request_timeout", "stream_idle_timeout", "temperature", "max_output_tokens",
    "reasoning_effort",
    "gemini_explicit_cache"})
"""The settings a model call is made with."""

def load_litellm() -> Any:
    """Import and configure litellm once; safe to call from any thread."""
    global _litellm
    if _litellm is not None:
        return _litellm
    with _import_lock:
        if _litellm is None:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            os.environ.setdefault("LITELLM_LOG", "ERROR")
            import litellm

            litellm.suppress_debug_info = True
            litellm.telemetry = False
            litellm.drop_params = True
            for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm"):
                logging.getLogger(name).setLevel(logging.ERROR)
            _litellm = litellm
    return _litellm


def is_loaded() -> bool:
    """Whether litellm is imported and configured (else the first call waits for it)."""
    return _litellm is not None


def preload() -> None:
    """Import litellm and what its first request would import or build: the OpenAI SDK's
    resources, anyio's asyncio backend (when the first stream ends) and the pydantic schema
    of litellm's request parameters (when the first stream starts).
    Called in a thread, so that first request does not stall the caller's event loop."""
    load_litellm()
    import anyio._backends._asyncio  # noqa: F401
    import openai.resources  # noqa: F401
    from litellm.types.router import GenericLiteLLMParams

    GenericLiteLLMParams.model_validate({})


def estimate_tokens(messages: list[Message]) -> int:
    """About four characters a token: the count when litellm's counter cannot be had."""
    return sum(len(str(m.get("content") or "")) for m in messages) // 4


class LitellmProvider:
    """Any model litellm speaks: OpenAI, Anthropic, Gemini, OpenRouter, Ollama, vLLM, …"""

    def __init__(self, settings: Settings) -> None:
        if not settings.model:
            raise ValueError("a model name is required")
        self.model: str = settings.model
        self._settings = settings
        self._window: int | None = None
        self._doom: bool | None = None

    def with_model(self, model: str, **api: str | None) -> LitellmProvider:
        """This provider's settings for ``model``; see ``Provider.with_model``. The configured
        ``context_window`` describes this model, so the copy takes litellm's figure."""
        changes = {"model": model, "context_window": None, **api}
        return LitellmProvider(self._settings.model_copy(update=changes))

    def request_settings(self) -> dict[str, Any]:
        """The settings its calls are made with: enough for a ``LitellmProvider`` elsewhere
        (a :mod:`~agent_tui.core.providers.stream_worker`) to make them the same way."""
        return self._settings.model_dump(include=set(REQUEST_SETTINGS))

    # -- capabilities ------------------------------------------------------------------

    def supports_native_tools(self) -> bool:
        """Native function calling per ``tool_protocol``, litellm's model map and api_base."""
        protocol = self._settings.tool_protocol
        if protocol != "auto":
            return protocol == "native"
        if self.model.startswith("openai/") and self._settings.api_base:
            # OpenAI-compatible servers (vLLM, llama.cpp, LM Studio) speak tools natively.
            return True
        if self._ollama:
            # /api/chat takes tools when the model's template does (litellm reads it from
            # the server's /api/show); the ollama/ route (/api/generate) takes none.
            return self.model.startswith("ollama_chat/") and bool(
                self._model_info().get("supports_function_calling"))
        if self._doomed():
            return False  # the call will fail whatever the answer
        try:
            return bool(load_litellm().supports_function_calling(model=self.model))
        except Exception:
            return False

    def supports_images(self) -> bool:
        """litellm's word on vision support; unknown models are assumed not to."""
        if self._doomed():
            return False
        try:
            return bool(load_litellm().supports_vision(model=self.model))
        except Exception:
            return False

    def context_window(self) -> int:
        """The configured window, else litellm's figure for the model, else 128K."""
        if self._window is None:
            self._window = self._find_context_window()
        return self._window

    def _find_context_window(self) -> int:
        if llamacpp.is_embedded(self.model):
            return llamacpp.context_window(self.model, self._settings.context_window)
        if self._settings.context_window:
            return self._settings.context_window
        info = self._model_info()
        return int(info.get("max_input_tokens") or info.get("max_tokens") or DEFAULT_CONTEXT_WINDOW)

    @property
    def _ollama(self) -> bool:
        return self.model.startswith(OLLAMA_PREFIXES)

    def _model_info(self) -> dict[str, Any]:
        """litellm's model map entry; an Ollama model's is asked of the configured server
        (litellm would ask localhost:11434), {} when unknown."""
        api_base = self._settings.api_base if self._ollama else None
        if self._doomed():
            return {}
        try:
            return dict(load_litellm().get_model_info(self.model, api_base=api_base) or {})
        except Exception:
            return {}

    def count_tokens(self, messages: list[Message]) -> int:
        """Tokens of ``messages`` by litellm's counter for this model."""
        if self._doomed():
            return estimate_tokens(messages)
        try:
            return int(load_litellm().token_counter(model=self.model, messages=messages))
        except Exception:
            return estimate_tokens(messages)

    def facts(self) -> dict[str, Any]:
        """What litellm knows of the model that the agent asks before and between calls:
        ``context_window``, ``native_tools``, ``images`` and ``reasoning_note`` (a
        :class:`~agent_tui.core.providers.stream_process.ProcessProvider` asks its worker
        for them, so that its own process need not import litellm)."""
        return {"context_window": self.context_window(),
                "native_tools": self.supports_native_tools(),
                "images": self.supports_images(),
                "reasoning_note": self.reasoning_note()}

    def reasoning_note(self) -> str | None:
        """See ``Provider.reasoning_note``; imports litellm when an effort is set."""
        if self._settings.reasoning_effort is None:
            return None
        s = self._settings
        return effort_params(load_litellm(), self.model, s.reasoning_effort, s.temperature)[1]

    # -- the call ----------------------------------------------------------------------

    async def complete(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, on_text: TextCallback,
        on_thinking: TextCallback | None = None,
    ) -> ModelReply:
        """Stream one response; see ``Provider.complete``."""
        kwargs = self._request_kwargs(messages, tools)
        if (error := self.preflight(kwargs)) is not None:
            raise error
        litellm = await asyncio.to_thread(load_litellm)
        kwargs.update(effort_params(litellm, self.model, self._settings.reasoning_effort,
                                    self._settings.temperature)[0])
        if llamacpp.is_embedded(self.model):
            _route_embedded_models(litellm)
            kwargs["n_ctx"] = await asyncio.to_thread(self.context_window)
        chunks = StreamedChunks()
        stream: Any = None
        # The first chunk may wait for a long prompt to be processed; after it, silence
        # longer than the idle timeout means the stream has stalled. One deadline, moved on
        # when a chunk has used an eighth of it: no task and no timer per chunk.
        timeout = self._settings.request_timeout
        deadline: asyncio.Timeout | None = None
        try:
            stream = await litellm.acompletion(**kwargs)
            iterator = stream.__aiter__()
            loop = asyncio.get_running_loop()
            async with asyncio.timeout_at(loop.time() + timeout) as deadline:
                while True:
                    try:
                        chunk = await iterator.__anext__()
                    except StopAsyncIteration:
                        break
                    timeout = self._settings.stream_idle_timeout
                    due = loop.time() + timeout
                    if abs(due - (deadline.when() or due)) > timeout / 8:
                        deadline.reschedule(due)
                    if text := chunks.add(chunk):
                        on_text(text)
                    elif on_thinking is not None and (thought := delta_reasoning(chunk)):
                        on_thinking(thought)
        except ProviderError:
            raise
        except Exception as exc:
            if isinstance(exc, TimeoutError) and deadline is not None and deadline.expired():
                raise ProviderError(
                    f"the model's stream was silent for {timeout:g} s; retrying. "
                    "Raise stream_idle_timeout if the model is just slow.",
                    kind="stalled",
                ) from None
            raise self._translate(litellm, exc) from exc
        finally:
            if stream is not None:
                await _close_stream(stream)
        # litellm rebuilds the reply from the chunks: not on the event loop the workbench
        # draws with.
        return await asyncio.to_thread(self._assemble, litellm, chunks.merged(), messages)

    def _request_kwargs(
        self, messages: list[Message], tools: list[dict[str, Any]] | None
    ) -> dict[str, Any]:
        s = self._settings
        if not keeps_thinking_blocks(self.model):
            # Only Anthropic's API takes the model's reasoning back (a model switched mid-
            # session must not be sent the blocks of another's).
            messages = without_thinking(messages)
        if takes_cache_marks(self.model):
            messages, tools = mark_cache_breakpoints(
                messages, tools, tools_too=marks_tools(self.model))
        elif s.gemini_explicit_cache and takes_gemini_cache(self.model):
            messages = mark_gemini_cache(messages)
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
            "timeout": s.request_timeout,
            # We retry ourselves (jitter, Retry-After); the OpenAI SDK would retry silently.
            "max_retries": 0,
            # litellm's MCP bridge (for its proxy) imports the mcp SDK and its proxy's code on
            # every call with tools, and fails without that SDK; agent-tui never uses it.
            "_skip_mcp_handler": True,
        }
        if tools:
            kwargs["tools"] = tools
        if s.api_base:
            kwargs["api_base"] = s.api_base
        if s.api_key:
            kwargs["api_key"] = s.api_key
        elif s.api_key is None and s.api_key_env and (key := os.environ.get(s.api_key_env)):
            kwargs["api_key"] = key
        if ("api_key" not in kwargs and s.api_base and self.model.startswith("openai/")
                and not os.environ.get("OPENAI_API_KEY")):
            # Local OpenAI-compatible servers (llama-server, LM Studio, vLLM) take any key or
            # none, but the OpenAI client sends no request without one.
            kwargs["api_key"] = "no-key"
        if s.temperature is not None:
            kwargs["temperature"] = s.temperature
        if s.max_output_tokens is not None:
            kwargs["max_tokens"] = s.max_output_tokens
        if self._ollama and s.context_window:
            # Ollama runs a model with its own small default window (2-4K tokens) and cuts
            # longer prompts from the front, the system prompt first: it must be told.
            kwargs["num_ctx"] = s.context_window
        return kwargs

    def _assemble(self, litellm: Any, chunks: list[Any], messages: list[Message]) -> ModelReply:
        if not chunks:
            raise ProviderError("the model sent an empty response; retrying.", kind="server")
        response = litellm.stream_chunk_builder(chunks, messages=messages)
        choice = response.choices[0]
        message = choice.message
        calls = [
            ToolCallRequest(
                id=call.id or f"call_{index}",
                name=call.function.name or "",
                arguments=call.function.arguments or "",
            )
            for index, call in enumerate(message.tool_calls or [])
        ]
        usage = getattr(response, "usage", None)
        prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        cache_read, cache_write = cache_counts(usage)
        reasoned = reasoning_tokens(usage)
        try:
            cost: float | None = float(
                litellm.completion_cost(completion_response=response, model=self.model)
            )
        except Exception:
            cost = None
        return ModelReply(
            text=message.content or "",
            tool_calls=calls,
            usage=Usage(prompt_tokens, completion_tokens, cost, cache_read, cache_write,
                        reasoned),
            finish_reason=choice.finish_reason,
            reasoning=getattr(message, "reasoning_content", None) or "",
            thinking_blocks=thinking_blocks(message),
        )

    def _translate(self, litellm: Any, exc: Exception) -> ProviderError:
        """Turn a litellm (or transport) exception into a ProviderError that says what
        failed, where and what to do (:func:`.failures.describe`)."""
        s = self._settings
        return failures.describe(exc, model=self.model, api_base=s.api_base,
                                 key_env=s.api_key_env, message=_provider_message(exc),
                                 retry_after=_retry_after(exc))

    def _doomed(self) -> bool:
        """Whether litellm is not imported yet and the call will fail before it is needed
        (:meth:`preflight`): a capability asked then is not worth seconds of import."""
        if _litellm is not None:
            return False
        if self._doom is None:
            # Once per provider: counting tokens asks for each message.
            self._doom = self.preflight() is not None
        return self._doom

    def preflight(self, kwargs: dict[str, Any] | None = None) -> ProviderError | None:
        """What would certainly fail a call, found in a millisecond and without litellm
        (seconds to import): no key for a provider's own endpoint, or nothing listening at
        an api_base on this machine. litellm would report either only after its import,
        the key as an "internal error"; None when neither is the case."""
        s = self._settings
        if kwargs is None:
            kwargs = self._request_kwargs([], None)
        if llamacpp.is_embedded(self.model):
            return None
        if "api_key" not in kwargs and not s.api_base:
            if not failures.key_is_set(self.model, s.api_key_env, os.environ):
                return failures.missing_key(self.model, s.api_key_env, s.api_base)
        # Once litellm is loaded, the call itself says so as fast: no probe before each.
        if _litellm is None and s.api_base and failures.refused_locally(s.api_base):
            return failures.refused(self.model, s.api_base)
        return None


def cache_counts(usage: Any) -> tuple[int, int]:
    """The prompt tokens litellm's ``usage`` says were read from and written to the
    provider's prompt cache: Anthropic's ``cache_read_input_tokens`` and
    ``cache_creation_input_tokens``, OpenAI's and Gemini's ``prompt_tokens_details``
    (``cached_tokens``; they write without billing it)."""
    details = getattr(usage, "prompt_tokens_details", None)
    read = (getattr(usage, "cache_read_input_tokens", None)
            or getattr(details, "cached_tokens", None) or 0)
    write = (getattr(usage, "cache_creation_input_tokens", None)
             or getattr(details, "cache_creation_tokens", None) or 0)
    return int(read), int(write)


def _route_embedded_models(litellm: Any) -> None:
    """Send ``llamacpp/…`` models to the embedded llama.cpp runtime (:mod:`.llamacpp`)
    through litellm's custom-provider hook; once per process."""
    if any(item["provider"] == "llamacpp" for item in litellm.custom_provider_map):
        return
    from litellm.llms.custom_llm import CustomLLM, CustomLLMError

    class EmbeddedLlamaCpp(CustomLLM):
        # litellm declares astreaming a coroutine that returns an iterator, yet iterates
        # what it returns, as an async generator like this one is.
        async def astreaming(  # type: ignore[override]
                self, model: str, messages: list[Message], api_base: str, *args: Any,
                optional_params: dict[str, Any], **kwargs: Any,
        ) -> AsyncIterator[GenericStreamingChunk]:
            try:
                async for piece in llamacpp.stream_chat(
                        model, messages, n_ctx=optional_params.get("n_ctx"),
                        max_tokens=optional_params.get("max_tokens"),
                        temperature=optional_params.get("temperature")):
                    finished = piece.finish_reason is not None
                    yield {"text": piece.text, "tool_use": None, "is_finished": finished,
                           "finish_reason": piece.finish_reason or "", "index": 0,
                           "usage": {"prompt_tokens": piece.prompt_tokens,
                                     "completion_tokens": piece.completion_tokens,
                                     "total_tokens": piece.prompt_tokens
                                     + piece.completion_tokens} if finished else None}
            except llamacpp.EmbeddedModelError as exc:
                raise CustomLLMError(status_code=400, message=str(exc)) from None
            except llamacpp.PromptTooLong as exc:
                raise litellm.ContextWindowExceededError(
                    message=str(exc), model=model, llm_provider="llamacpp") from None
            except Exception as exc:  # llama.cpp failed mid-generation (a decode error)
                raise CustomLLMError(status_code=500, message=f"llama.cpp: {exc}") from None

    litellm.custom_provider_map = [*litellm.custom_provider_map,
                                   {"provider": "llamacpp", "custom_handler": EmbeddedLlamaCpp()}]


async def _close_stream(stream: Any) -> None:
    for name in ("aclose", "close"):
        closer = getattr(stream, name, None)
        if closer is None:
            continue
        try:
            result = closer()
            if asyncio.iscoroutine(result):
                await result
        except Exception:
            pass
        return


def _provider_message(exc: Exception) -> str:
    text = str(getattr(exc, "message", None) or exc) or type(exc).__name__
    # litellm prefixes "litellm.RateLimitError: RateLimitError: OpenAIException - …".
    for marker in ("Exception - ", "Error: "):
        if marker in text and text.startswith("litellm."):
            text = text.split(marker, 1)[1]
    return text.strip()


def _retry_after(exc: Exception) -> float | None:
    headers: Any = getattr(exc, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(exc, "response", None), "headers", None)
    if not headers:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return float(ms) / 1000
        value = headers.get("retry-after")
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None
