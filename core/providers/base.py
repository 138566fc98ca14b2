"""The Provider protocol: one model call, streamed, with tool calls and usage."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..events import Usage

Message = dict[str, Any]
TextCallback = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class ToolCallRequest:
    """A tool call as the model made it; ``arguments`` is the raw JSON text it produced."""

    id: str
    name: str
    arguments: str

    def to_message(self) -> dict[str, Any]:
        """The OpenAI-format ``tool_calls`` entry of an assistant message."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True, slots=True)
class ModelReply:
    """One complete model response.

    Attributes:
        reasoning: The model's reasoning before its answer, as the provider showed it
            ("" for a model that showed none).
        thinking_blocks: Anthropic's thinking blocks, signed: they must go back to the API
            ahead of the tool calls of this response (:mod:`.reasoning`).
    """

    text: str
    tool_calls: list[ToolCallRequest] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    reasoning: str = ""
    thinking_blocks: list[dict[str, Any]] = field(default_factory=list)


class ProviderError(Exception):
    """A model call failed.

    Attributes:
        message: What the provider said, with what to do next.
        kind: rate_limit, server, connection (dropped or malformed stream), timeout,
            stalled (retried); refused, dns, tls, auth, missing_key, unknown_model,
            bad_request, not_found, context_length (not).
        status: The HTTP status, when there was one.
        retry_after: Seconds the provider asked us to wait.
    """

    RETRYABLE = frozenset({"rate_limit", "server", "connection", "timeout", "stalled"})

    def __init__(
        self,
        message: str,
        *,
        kind: str,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.status = status
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        """True for failures a retry can cure (never a refused connection, a bad or
        missing key, an unknown model or a rejected request)."""
        return self.kind in self.RETRYABLE


class Provider(Protocol):
    """A model behind some API. ``core.providers.litellm.LitellmProvider`` is the real one."""

    model: str

    async def complete(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, on_text: TextCallback,
        on_thinking: TextCallback | None = None,
    ) -> ModelReply:
        """Send ``messages`` (OpenAI format), stream text to ``on_text`` (and the model's
        reasoning, when it shows any, to ``on_thinking``), return the reply.

        Raises:
            ProviderError: the call failed; ``retryable`` says whether to try again.
        """
        ...

    def supports_native_tools(self) -> bool:
        """Whether tool schemas can be sent natively (else the text protocol is used)."""
        ...

    def context_window(self) -> int:
        """Tokens the model accepts."""
        ...

    def supports_images(self) -> bool:
        """Whether the model takes image parts in messages."""
        ...

    def count_tokens(self, messages: list[Message]) -> int:
        """Tokens ``messages`` take for this model."""
        ...

    def reasoning_note(self) -> str | None:
        """What the person should be told once about the configured ``reasoning_effort``
        (the model has no control for it, so its calls go without it), or None."""
        ...

    def with_model(self, model: str, **api: str | None) -> Provider:
        """The same kind of provider for ``model`` (escalation's stronger model), its
        capabilities (context window, tools, images, prices) those of ``model``.

        Args:
            api: Where its requests go when not where this provider's go: ``api_base``,
                ``api_key``, ``api_key_env`` (None: the provider's default).
        """
        ...
