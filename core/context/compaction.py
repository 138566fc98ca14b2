"""The context before each model call: old tool results thinned, and the history compacted
into a summary the model writes (and the person may edit) when it nears the window's end."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from ..approval import Approver
from ..events import Compacted, ContextThinned, ContextUpdated, ErrorEvent, EventSink
from ..providers.base import Message, Provider
from ..sessions.log import SessionStore
from .window import ContextManager


async def fit_context(context: ContextManager, messages: list[Message],
                      tools: list[dict[str, Any]] | None, emit: EventSink,
                      compact: Callable[[], Awaitable[None]]) -> None:
    """Before a model call: thin old tool results, and ``compact`` when past the mark.

    Args:
        tools: The tool schemas sent with each model call (None: the text protocol's).
    """
    report = await asyncio.to_thread(context.after_turn, messages, tools)
    if report.thinned:
        emit(ContextThinned(report.level, list(report.thinned), report.tokens_before,
                            report.tokens))
    if report.error:
        emit(ErrorEvent(report.error))
    if report.needs_compaction:
        if report.tokens < context.window and not await asyncio.to_thread(
                context.can_compact, messages):
            return  # nothing older to summarize, and the step still fits: go on
        await compact()


async def compact(context: ContextManager, messages: list[Message], provider: Provider,
                  approver: Approver, session: SessionStore | None, todos: str | None,
                  emit: EventSink) -> None:
    """Replace the history in ``messages`` by a summary ``provider``'s model writes and
    ``approver`` reviews, and log it to ``session``.

    Args:
        todos: The session's todo list, kept in the summary (None: none).
    """
    before = context.ledger.count(messages)
    request = context.build_compaction_request(messages, todos=todos)
    reply = await provider.complete(request, None, lambda _text: None)
    summary = await approver.review_summary(reply.text)
    messages[:] = context.apply_compaction(messages, summary)
    if session is not None:
        # A resumed session starts from the compacted history, not the whole log.
        session.append({"type": "history", "messages": messages[1:]})
    after = context.ledger.count(messages)
    emit(Compacted(before, after, summary))
    level = context.last_report.level if context.last_report else 0
    emit(ContextUpdated(after, provider.context_window(), level))
