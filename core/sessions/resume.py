"""Rebuilding a conversation from a session log, so a resumed session goes on where it was."""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ..escalation import takeover_note
from ..events import EVENT_TYPES, Usage
from ..providers.base import Message, ToolCallRequest
from ..text_protocol import results_message
from .log import SessionLog

# Records that are not worth an fsync each: the complete text arrives in assistant_message
# and the full output in tool_result.
TRANSIENT_EVENTS = frozenset(kind for kind, cls in EVENT_TYPES.items() if cls.transient)

UNANSWERED_CALL = ("Error: this call has no recorded result: it was cancelled, or agent-tui "
                   "stopped, before it finished.")
"""What a resumed history says of a call its log has no result for."""


@dataclass(slots=True)
class RestoredSession:
    """What a session log says about the conversation.

    Attributes:
        messages: The history after the system prompt, in the provider's message format.
        usage: Tokens and cost of the session so far.
        todos: The last todo list.
        events: The log's records, for front ends that redraw the transcript.
        notes: Notes for the model that no prompt has carried yet.
    """

    messages: list[Message] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    todos: str = ""
    events: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def restore(log: SessionLog, *, native_tools: bool) -> RestoredSession:
    """Replay ``log`` into messages; a ``history`` record (written at compaction) resets them.

    The history is valid whatever the log holds: a call without a recorded result (a log
    written before cancels were recorded, or cut by a crash) is answered as unfinished right
    after the message that made it, and a result without its call is left out.
    """
    restored = RestoredSession(events=log.events)
    messages = restored.messages
    pending: list[tuple[ToolCallRequest, str, bool]] = []
    unanswered: dict[str, ToolCallRequest] = {}  # text protocol: the last response's calls
    notes: list[str] = []
    thinking: list[dict[str, Any]] = []  # the signed blocks of the next assistant message

    def flush_text_results() -> None:
        for call in unanswered.values():
            pending.append((call, UNANSWERED_CALL, False))
        unanswered.clear()
        if pending:
            messages.append(results_message(list(pending)))
            pending.clear()

    for record in log.events:
        kind = record.get("type")
        if kind == "history":
            pending.clear()
            unanswered.clear()
            messages[:] = list(record.get("messages", []))
        elif kind == "model_note":
            notes.append(record.get("text", ""))
        elif kind == "user_message":
            flush_text_results()
            text = with_notes(notes, record.get("text", ""))
            if attached := record.get("images"):
                # The log keeps the images' names, not their bytes.
                text += f"\n[the person attached: {', '.join(attached)}]"
            messages.append({"role": "user", "content": text})
            notes.clear()
        elif kind == "thinking":
            thinking = list(record.get("blocks") or [])
        elif kind == "assistant_message":
            flush_text_results()
            messages.append(_assistant(record, native_tools))
            if thinking and native_tools:
                # Anthropic refuses a tool call's message sent back without its blocks.
                messages[-1]["thinking_blocks"] = thinking
            thinking = []
            if not native_tools:
                unanswered.update((c["id"], ToolCallRequest(c["id"], c["name"], ""))
                                  for c in record.get("tool_calls") or [])
        elif kind == "tool_result":
            if native_tools:
                messages.append({"role": "tool", "tool_call_id": record.get("id", ""),
                                 "content": record.get("output", "")})
            elif unanswered.pop(record.get("id", ""), None) is not None:
                call = ToolCallRequest(record.get("id", ""), record.get("name", ""), "")
                pending.append((call, record.get("output", ""), bool(record.get("ok"))))
        elif kind == "check" and record.get("feedback"):
            # A failed lint or test command the model was sent back to fix.
            flush_text_results()
            messages.append({"role": "user", "content": record["feedback"]})
        elif kind == "escalated" and record.get("trigger") == "answer":
            # The stronger model was told it takes over: the history keeps what it saw.
            flush_text_results()
            messages.append({"role": "user", "content": takeover_note(
                record.get("model", ""), record.get("reason", ""))})
        elif kind == "usage":
            session = record.get("session") or {}
            restored.usage = Usage.from_dict(session)
        elif kind == "todo":
            restored.todos = record.get("content", "")
    flush_text_results()
    if native_tools:
        messages[:] = answered_in_place(messages)
    restored.notes = notes
    return restored


def answered_in_place(messages: list[Message]) -> list[Message]:
    """``messages`` with each tool call's result right after the assistant message that
    made it, in the order of its calls, as providers require: a result recorded later (after
    a later prompt) is moved there, a call without one is answered as unfinished, and a
    result without its call (or a second one for the same call) is left out."""
    results: dict[str, deque[tuple[int, Message]]] = {}
    for index, message in enumerate(messages):
        if message.get("role") == "tool":
            results.setdefault(str(message.get("tool_call_id", "")), deque()).append(
                (index, message))
    paired: list[Message] = []
    for index, message in enumerate(messages):
        if message.get("role") == "tool":
            continue
        paired.append(message)
        calls = message.get("tool_calls") if message.get("role") == "assistant" else None
        for call in calls or []:
            found = results.get(str(call.get("id", "")), deque())
            while found and found[0][0] < index:  # an earlier call's duplicate, or an orphan
                found.popleft()
            paired.append(found.popleft()[1] if found else {
                "role": "tool", "tool_call_id": call.get("id", ""), "content": UNANSWERED_CALL})
    return paired


def with_notes(notes: list[str], prompt: str) -> str:
    """The user message that carries ``prompt`` and the notes waiting for the model."""
    if not notes:
        return prompt
    return "\n\n".join([*(f"[Note from agent-tui: {note}]" for note in notes), prompt])


def _assistant(record: dict[str, Any], native_tools: bool) -> Message:
    calls = record.get("tool_calls") or []
    text = record.get("text", "")
    if native_tools:
        message: Message = {"role": "assistant", "content": text or None}
        if calls:
            message["tool_calls"] = [
                ToolCallRequest(c["id"], c["name"], c.get("arguments", "")).to_message()
                for c in calls]
        return message
    # The text protocol's calls were parsed out of the text; write them back as JSON blocks.
    blocks = [json.dumps({"tool": c["name"], "args": _args(c.get("arguments", ""))})
              for c in calls]
    return {"role": "assistant", "content": "\n".join([text, *blocks]).strip()}


def _args(arguments: str) -> Any:
    try:
        return json.loads(arguments) if arguments else {}
    except json.JSONDecodeError:
        return arguments
