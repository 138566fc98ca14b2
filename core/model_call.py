"""One model call: its text streamed as it comes, retried on the failures worth a retry,
and the conversation compacted once when the provider says it does not fit."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence

from .events import EventSink, StreamRestart, TextDelta, ThinkingDelta
from .providers.base import Message, ModelReply, Provider, ProviderError
from .retry import RetryPolicy
from .text_protocol import ToolBlockFilter, ToolSpec


async def complete(provider: Callable[[], Provider], messages: list[Message],
                   tools: list[dict[str, object]] | None, specs: Mapping[str, ToolSpec] | None,
                   retry: RetryPolicy, emit: EventSink,
                   compact: Callable[[], Awaitable[None]],
                   tail: Sequence[Message] = ()) -> ModelReply:
    """Ask the model once for its reply to ``messages``, streaming its text (and its
    reasoning, as ``ThinkingDelta``) to ``emit``.

    Args:
        provider: The provider to ask, at each try (an escalation may have taken over).
        tools: The tool schemas, for a model with native tool calls (else None).
        specs: For a text-protocol model, its tools: their call blocks are kept out of the
            streamed text (None: a native model).
        compact: Compacts ``messages`` in place (once, on a context-length error).
        tail: Sent after ``messages`` at each try, never added to them (the repository map).

    Raises:
        ProviderError: The call failed and the retry policy gave up (or never retries it).
    """
    retries = 0
    compacted = False

    def on_thinking(piece: str) -> None:
        emit(ThinkingDelta(piece))

    while True:
        stream_filter = None if specs is None else ToolBlockFilter(specs)

        def on_text(piece: str, stream_filter: ToolBlockFilter | None = stream_filter) -> None:
            shown = stream_filter.feed(piece) if stream_filter else piece
            if shown:
                emit(TextDelta(shown))

        try:
            sent = [*messages, *tail] if tail else messages
            reply = await provider().complete(sent, tools, on_text, on_thinking)
            break
        except ProviderError as error:
            if error.kind == "context_length" and not compacted:
                # The provider says it does not fit: compact once and try again.
                compacted = True
                await compact()
                continue
            delay = retry.next_delay(error, retries)
            if delay is None:
                raise
            retries += 1
            emit(StreamRestart(retries, round(delay, 2), error.message, retry.max_retries))
            await asyncio.sleep(delay)
    if stream_filter is not None and (rest := stream_filter.flush()):
        emit(TextDelta(rest))
    return reply
