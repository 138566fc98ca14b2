"""Reading a conversation's history: what each message is, where a tool call's results end,
which files the tool calls touched, and a plain-text transcript of it.

Messages are OpenAI-format dicts, the system prompt first. Tool results are ``tool``
messages or, in the text protocol, user messages starting "Tool results:".
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ...tools.names import EDIT_TOOLS, ToolName
from ..providers.base import Message
from ..text_protocol import parse_tool_calls

TOOL_RESULTS_PREFIX = "Tool results:"
DEHYDRATED_PREFIX = "[DEHYDRATED CONTEXT: fragment "
SUMMARY_PREFIX = "Summary of the conversation so far:"
_PATH_KEYS = ("file_path", "path", "file_paths", "paths")


def kind_of(messages: list[Message], index: int) -> str:
    """``system``, ``user``, ``assistant`` or ``tool_result`` (text-protocol ones included)."""
    message = messages[index]
    role = str(message.get("role", "user"))
    if role == "tool" or is_text_results(message):
        return "tool_result"
    return role


def is_prompt(messages: list[Message], index: int) -> bool:
    """A message from the person: it starts a turn (tool results, their images and an
    earlier compaction's summary do not)."""
    return (kind_of(messages, index) == "user" and not _is_attachment(messages, index)
            and not _text_of(messages[index]).startswith(SUMMARY_PREFIX))


def is_text_results(message: Message) -> bool:
    """A text-protocol user message carrying tool results."""
    content = message.get("content")
    return (message.get("role") == "user" and isinstance(content, str)
            and content.startswith(TOOL_RESULTS_PREFIX))


def is_dehydrated(message: Message) -> bool:
    """Whether the message is a thinning stub."""
    content = message.get("content")
    return isinstance(content, str) and DEHYDRATED_PREFIX in content[:64]


def files_touched(messages: list[Message]) -> tuple[list[str], list[str]]:
    """(changed, read): file paths named by the tool calls of the history, in first-seen
    order; a file both read and changed counts as changed."""
    changed: dict[str, None] = {}
    read: dict[str, None] = {}
    for name, args in _tool_calls(messages):
        for key in _PATH_KEYS:
            value = args.get(key)
            paths = [value] if isinstance(value, str) else value if isinstance(value, list) else []
            for path in paths:
                if isinstance(path, str) and path.strip():
                    (changed if name in EDIT_TOOLS else read)[path.strip()] = None
    return list(changed), [p for p in read if p not in changed]


def last_todo_list(messages: list[Message]) -> str:
    """The content of the history's last todo_write call ("" when there is none)."""
    content = ""
    for name, args in _tool_calls(messages):
        if name == ToolName.TODO_WRITE and isinstance(args.get("content"), str):
            content = args["content"]
    return content


def _tool_calls(messages: list[Message]) -> Iterable[tuple[str, dict[str, Any]]]:
    for message in messages:
        if message.get("role") != "assistant":
            continue
        calls = [(c.get("function", {}).get("name", ""), c.get("function", {}).get("arguments"))
                 for c in message.get("tool_calls") or []]
        text = message.get("content")
        if not calls and isinstance(text, str):
            calls = [(c.name, c.arguments) for c in parse_tool_calls(text, {})[1]]
        for name, raw in calls:
            try:
                args = json.loads(raw) if isinstance(raw, str) and raw else {}
            except json.JSONDecodeError:
                continue
            if isinstance(args, dict):
                yield name, args


def tool_names(messages: list[Message]) -> dict[str, str]:
    return {c["id"]: c.get("function", {}).get("name", "tool")
            for m in messages for c in (m.get("tool_calls") or []) if "id" in c}


def _is_attachment(messages: list[Message], index: int) -> bool:
    """A user message with content parts right after tool results (their images)."""
    return (index > 0 and messages[index].get("role") == "user"
            and not isinstance(messages[index].get("content"), str)
            and kind_of(messages, index - 1) == "tool_result")


def message_spans(messages: list[Message]) -> list[range]:
    """The history cut so that no piece splits a tool call from its results: an assistant
    message with the results (and images) after it is one piece, any other message one."""
    spans: list[range] = []
    i, n = 0, len(messages)
    while i < n:
        j = i + 1
        if messages[i].get("role") == "assistant":
            while j < n and (kind_of(messages, j) == "tool_result" or _is_attachment(messages, j)):
                j += 1
        spans.append(range(i, j))
        i = j
    return spans


def last_exchange_start(messages: list[Message]) -> int:
    """Index of the last assistant message answered by tool results (its results are the
    newest the model has not yet seen, so thinning never takes them); len() if none."""
    for span in reversed(message_spans(messages)):
        if len(span) > 1:
            return span.start
    return len(messages)


def _text_of(message: Message) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p.get("text", f"[{p.get('type', 'part')}]") for p in content
                        if isinstance(p, dict))
    return ""


def _calls_text(message: Message, limit: int) -> str:
    return "; ".join(f"{c.get('function', {}).get('name', '?')}"
                     f"({str(c.get('function', {}).get('arguments', ''))[:limit]})"
                     for c in message.get("tool_calls") or [])


def preview(message: Message, width: int = 100) -> str:
    text = " ".join(_text_of(message).split())
    if calls := _calls_text(message, 60):
        text = f"{text} → {calls}" if text else f"→ {calls}"
    return text if len(text) <= width else text[: width - 1] + "…"


def render_transcript(messages: list[Message], budget: int) -> str:
    """A plain-text transcript for the summarizer, long texts cut, then the oldest blocks
    after the first (the task) left out until it fits ``budget`` characters."""
    blocks: list[str] = []
    for message in messages:
        role = message.get("role")
        text = _text_of(message)
        if role == "tool" or is_text_results(message):
            head, limit = "Tool result", 1500
        elif role == "assistant":
            head, limit = "Assistant", 4000
            if calls := _calls_text(message, 300):
                text = f"{text}\n(called: {calls})".strip()
        else:
            head, limit = ("Summary" if text.startswith(SUMMARY_PREFIX) else "Person"), 6000
        if len(text) > limit:
            text = f"{text[:limit]}\n[… {len(text) - limit} more characters]"
        blocks.append(f"### {head}\n{text}")
    total = sum(len(b) + 2 for b in blocks)
    left_out = 0
    while len(blocks) > 2 and total > budget:
        total -= len(blocks.pop(1)) + 2
        left_out += 1
    if left_out:
        blocks.insert(1, f"[… {left_out} earlier messages left out …]")
    return "\n\n".join(blocks)
