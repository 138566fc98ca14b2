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


Review = Callable[[str], Awaitable[str]]
"""Shows the model's summary to the person and returns it as they accept it."""

NOTHING_TO_COMPACT = ("There is nothing to compact yet: the conversation is empty. /compact "
                      "summarizes a conversation that has grown (with -p, go on from one with "
                      "--continue or --resume ID).")
"""What an on-demand compaction of an empty conversation says."""


class NothingToCompact(Exception):
    """``/compact`` of a conversation with nothing in it to summarize."""


async def compact(context: ContextManager, messages: list[Message], provider: Provider,
                  approver: Approver, session: SessionStore | None, todos: str | None,
                  emit: EventSink, *, focus: str = "", on_demand: bool = False,
                  review: Review | None = None) -> Compacted:
    """Replace the history in ``messages`` by a summary ``provider``'s model writes and
    ``approver`` reviews, and log it to ``session``.

    Args:
        todos: The session's todo list, kept in the summary (None: none).
        focus: What the person wants the summary to dwell on (``/compact FOCUS``).
        on_demand: The person asked for it (``/compact``): the whole conversation is
            summarized (pinned items stay), and the loop guard neither refuses nor counts it.
        review: Shows the summary to the person instead of ``approver.review_summary``.

    Raises:
        NothingToCompact: ``on_demand`` and the conversation holds nothing to summarize.
        CompactionLoop: compaction came back too often, or there is nothing to summarize.
    """
    keep = 0 if on_demand else 2
    if on_demand and not any(m.get("role") != "system" for m in messages):
        raise NothingToCompact(NOTHING_TO_COMPACT)
    before = context.ledger.count(messages)
    request = context.build_compaction_request(messages, todos=todos, keep_recent_turns=keep,
                                               focus=focus, guarded=not on_demand)
    reply = await provider.complete(request, None, lambda _text: None)
    summary = await (review or approver.review_summary)(reply.text)
    messages[:] = context.apply_compaction(messages, summary, keep, guarded=not on_demand)
    if session is not None:
        # A resumed session starts from the compacted history, not the whole log.
        session.append({"type": "history", "messages": messages[1:]})
    after = context.ledger.count(messages)
    done = Compacted(before, after, summary)
    emit(done)
    level = context.last_report.level if context.last_report else 0
    emit(ContextUpdated(after, provider.context_window(), level))
    return done
