"""Reasoning as the real APIs stream it and check it, for the fake provider.

Anthropic (extended thinking) streams a ``thinking`` content block first: ``thinking_delta``
events with its text, then one ``signature_delta`` with an opaque signature of it, then the
text and tool-use blocks. With thinking enabled, a request that answers tool calls must send
the assistant message that made them back starting with that block, signature and all, else
the API answers 400; a block whose signature does not match its text is a 400 too, and so is
a temperature other than 1 with thinking on.

OpenAI-compatible servers that reason (DeepSeek, vLLM's reasoning parsers, OpenRouter) stream
``reasoning_content`` deltas before the answer and count ``reasoning_tokens`` in
``completion_tokens_details``; DeepSeek answers 400 to a request that sends
``reasoning_content`` back.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

MISSING_THINKING = (
    "messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
    "`{found}`. When `thinking` is enabled, a final `assistant` message must start with a "
    "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We "
    "recommend you include thinking blocks from previous turns. To avoid this requirement, "
    "disable `thinking`. Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
)
TEMPERATURE_WITH_THINKING = (
    "`temperature` may only be set to 1 when thinking is enabled or in adaptive mode. Please "
    "consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility"
)
BAD_SIGNATURE = "messages.{index}.content.{position}: Invalid `signature` in `thinking` block"
REASONING_SENT_BACK = (
    "The reasoning_content is an intermediate result for display purposes "
    "only and will not be included in the context for inference. Please "
    "remove the reasoning_content from your message to reduce network "
    "traffic."
)


def signature(thinking: str) -> str:
    """The signature the fake gives ``thinking`` (opaque to clients, as the API's is)."""
    digest = hashlib.sha256(b"fake-anthropic:" + thinking.encode()).digest()
    return "EqQB" + base64.b64encode(digest).decode()


def thinking_enabled(body: dict[str, Any]) -> bool:
    """Whether an Anthropic request turns extended thinking on."""
    thinking = body.get("thinking")
    return isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")


def anthropic_thinking_problem(body: dict[str, Any]) -> str | None:
    """The API's 400 for a request whose thinking blocks are missing or altered; None
    when it is valid."""
    if thinking_enabled(body) and body.get("temperature") not in (None, 1):
        return TEMPERATURE_WITH_THINKING
    messages = body.get("messages") or []
    last_assistant = None
    for index, message in enumerate(messages):
        content = message.get("content")
        if message.get("role") != "assistant" or not isinstance(content, list):
            continue
        last_assistant = index
        for position, block in enumerate(content):
            if (
                isinstance(block, dict)
                and block.get("type") == "thinking"
                and block.get("signature") != signature(block.get("thinking") or "")
            ):
                return BAD_SIGNATURE.format(index=index, position=position)
    if last_assistant is None or not thinking_enabled(body) or not _answers_tools(messages):
        return None
    content = messages[last_assistant].get("content")
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    if not any(b.get("type") == "tool_use" for b in blocks):
        return None
    first = blocks[0].get("type") if blocks else "text"
    if first in ("thinking", "redacted_thinking"):
        return None
    return MISSING_THINKING.format(index=last_assistant, found=first)


def _answers_tools(messages: list[dict[str, Any]]) -> bool:
    """Whether the request goes on with a tool-use loop: its last message carries tool
    results (a new prompt starts a turn, whose earlier thinking the API does not need)."""
    content = messages[-1].get("content") if messages else None
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "tool_result" for block in content
    )


def openai_reasoning_problem(body: dict[str, Any]) -> str | None:
    """DeepSeek's 400 for a request that sends ``reasoning_content`` back."""
    for message in body.get("messages") or []:
        if message.get("reasoning_content"):
            return REASONING_SENT_BACK
    return None


def anthropic_thinking_events(index: int, pieces: list[str], whole: str) -> list[dict[str, Any]]:
    """The events of a thinking block at ``index``: its start, a ``thinking_delta`` per
    piece, the ``signature_delta``, its stop."""
    events: list[dict[str, Any]] = [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""},
        }
    ]
    events += [
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "thinking_delta", "thinking": piece},
        }
        for piece in pieces
    ]
    events.append(
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "signature_delta", "signature": signature(whole)},
        }
    )
    events.append({"type": "content_block_stop", "index": index})
    return events
