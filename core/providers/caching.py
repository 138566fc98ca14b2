"""Prompt-cache breakpoints for Anthropic's models.

Anthropic caches a prompt's prefix only up to the blocks marked ``cache_control`` (at most
four a request), in the order it reads a request: tools, then the system prompt, then the
messages. A later call that sends the same bytes up to a marked block reads them from the
cache at a tenth of the price. The marks are placed as Anthropic documents them:

1. the last tool (the tool list is the same on every call),
2. the system prompt's last block,
3. the last message (the history so far: written now, read by the next call),
4. the last user or tool message before the previous reply (what the previous call wrote,
   so it is read even when one reply added more blocks than the API looks back over).

The repository map, sent after the history (``context/repo_map``), is left out of the
marks: they go on the history before it, so the map may change between turns without
spoiling the cached prefix.

OpenAI and Gemini cache a repeated prefix on their own; they need no marks, only the same
stable prefix (the system prompt and tools never change from call to call). Gemini also has an
explicit cache (``gemini_explicit_cache``): litellm puts the messages marked ``cache_control``
and the tools into a ``cachedContents`` entry, found again by a key made from their bytes, and
sends each call with its name and without them. Only the system prompt is marked: the cached
block must be one run of messages that does not end on a model turn, and the history changes
every call.
"""

from __future__ import annotations

from typing import Any

from ..context.repo_map_render import REPO_MAP_PREFIX
from .base import Message

EPHEMERAL: dict[str, str] = {"type": "ephemeral"}
MAX_BREAKPOINTS = 4
"""Anthropic refuses a request with more than four ``cache_control`` blocks."""


def takes_cache_marks(model: str) -> bool:
    """Whether ``model`` is an Anthropic model on a route that carries ``cache_control`` to
    its API: Anthropic's own, Vertex AI's and OpenRouter's (which pass the marks on), and
    Bedrock's (where litellm turns them into ``cachePoint`` blocks). Another provider's API
    would refuse the field."""
    lowered = model.lower()
    if lowered.startswith("anthropic/") or ("/" not in lowered and lowered.startswith("claude")):
        return True
    route, _, name = lowered.partition("/")
    if route in ("vertex_ai", "openrouter"):
        return "claude" in name
    return route == "bedrock" and ("anthropic." in name or "claude" in name)


def marks_tools(model: str) -> bool:
    """Whether the tool list takes a mark too: Bedrock's tool configuration has no place for
    one (its cached prefix is the tools with the system prompt, whose mark covers them)."""
    return not model.lower().startswith("bedrock/")


def takes_gemini_cache(model: str) -> bool:
    """Whether ``model`` is reached through litellm's Gemini or Vertex AI route, whose
    explicit context cache litellm manages from ``cache_control`` marks."""
    return model.startswith(("gemini/", "vertex_ai/", "vertex_ai_beta/"))


def mark_gemini_cache(messages: list[Message]) -> list[Message]:
    """A copy of ``messages`` with the system prompt marked for Gemini's explicit cache."""
    if not messages or messages[0].get("role") != "system" or not _has_text(messages[0]):
        return messages
    return [_marked(messages[0]), *messages[1:]]


def mark_cache_breakpoints(
    messages: list[Message], tools: list[dict[str, Any]] | None, *, tools_too: bool = True
) -> tuple[list[Message], list[dict[str, Any]] | None]:
    """Copies of ``messages`` and ``tools`` with the cache breakpoints set (see the module);
    ``tools_too=False`` leaves the tools unmarked (see :func:`marks_tools`).

    The originals (the agent's history) are left unmarked: only the copies of the marked
    items differ."""
    marked_tools = tools
    if tools and tools_too:
        marked_tools = [*tools[:-1], {**tools[-1], "cache_control": EPHEMERAL}]
    marked = list(messages)
    for index in _message_breakpoints(marked):
        marked[index] = _marked(marked[index])
    return marked, marked_tools


def _message_breakpoints(messages: list[Message]) -> list[int]:
    """Indexes of the messages to mark: the system prompt, the last message and the last
    user or tool message before the previous assistant reply."""
    points: list[int] = []
    if messages and messages[0].get("role") == "system" and _has_text(messages[0]):
        points.append(0)
    last = len(messages) - 1
    if last > 0 and _is_repo_map(messages[last]):
        last -= 1
    if last > 0 and messages[last].get("role") in ("user", "tool"):
        points.append(last)
        for index in range(last - 1, 0, -1):
            if messages[index].get("role") != "assistant":
                continue
            earlier = index - 1
            if earlier > 0 and messages[earlier].get("role") in ("user", "tool"):
                points.append(earlier)
            break
    return points[: MAX_BREAKPOINTS - 1]


def _is_repo_map(message: Message) -> bool:
    content = message.get("content")
    return (message.get("role") == "user" and isinstance(content, str)
            and content.startswith(REPO_MAP_PREFIX))


def _has_text(message: Message) -> bool:
    content = message.get("content")
    return bool(content) and (isinstance(content, str) or isinstance(content, list))


def _marked(message: Message) -> Message:
    """``message`` with ``cache_control`` on its last content block: a tool result carries
    it on the message (litellm moves it onto the ``tool_result`` block)."""
    if message.get("role") == "tool":
        return {**message, "cache_control": EPHEMERAL}
    content = message.get("content")
    if isinstance(content, str):
        if not content:
            return message
        blocks: list[Any] = [{"type": "text", "text": content, "cache_control": EPHEMERAL}]
    elif isinstance(content, list) and content and isinstance(content[-1], dict):
        blocks = [*content[:-1], {**content[-1], "cache_control": EPHEMERAL}]
    else:
        return message
    return {**message, "content": blocks}
