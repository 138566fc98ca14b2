"""Reasoning models: the effort a call asks for, and what of a model's reasoning goes back.

``reasoning_effort`` (off, low, medium, high; unset: the provider's default) goes to litellm
as its ``reasoning_effort`` parameter, which litellm maps to each provider's own control:
OpenAI's reasoning effort, Anthropic's thinking budget (``thinking={"type": "enabled",
"budget_tokens": N}``, or adaptive thinking on the models that have it), Gemini's thinking
budget. A model litellm's model map gives no reasoning control is called without it, and the
person is told so once (:func:`effort_params`'s note).

What the model reasoned streams to the person; what goes back to the API is only what the
API requires: Anthropic's signed thinking blocks, ahead of the tool calls of the message they
came with (the API refuses the next call otherwise). No other API gets reasoning back (OpenAI
and DeepSeek refuse ``reasoning_content`` in a request, or bill it as input for nothing).
"""

from __future__ import annotations

from typing import Any, get_args

from ..setting_fields import ReasoningEffort
from .base import Message

EFFORTS: tuple[str, ...] = get_args(ReasoningEffort)
"""The values of ``reasoning_effort`` (unset: the provider's default)."""

THINKING_BLOCKS = "thinking_blocks"
"""The key of an assistant message that carries its thinking blocks (litellm's name)."""

_OTHER_CLAUDE_ROUTES = ("bedrock/", "vertex_ai/")


def keeps_thinking_blocks(model: str) -> bool:
    """Whether ``model``'s API takes its thinking blocks back (Anthropic's models, directly,
    on Bedrock or on Vertex AI: litellm writes them ahead of the tool calls)."""
    if model.startswith("anthropic/") or ("/" not in model and model.startswith("claude")):
        return True
    return model.startswith(_OTHER_CLAUDE_ROUTES) and "claude" in model.lower()


def without_thinking(messages: list[Message]) -> list[Message]:
    """``messages`` with no thinking blocks (copies of the messages that had some)."""
    if not any(THINKING_BLOCKS in message for message in messages):
        return messages
    return [
        {k: v for k, v in message.items() if k != THINKING_BLOCKS}
        if THINKING_BLOCKS in message
        else message
        for message in messages
    ]


def effort_params(
    litellm: Any, model: str, effort: str | None, temperature: float | None = None
) -> tuple[dict[str, Any], str | None]:
    """The request parameters that ask ``model`` for ``effort``, and what to tell the person
    once when it cannot be asked (None when nothing).

    Args:
        litellm: The imported litellm (its model map says which models reason).
        effort: One of :data:`EFFORTS`, or None (the provider's default: nothing is sent).
        temperature: The configured temperature: Anthropic's extended thinking takes none
            but 1 (the API refuses the call), so a thinking Claude is sent 1.
    """
    if effort is None:
        return {}, None
    try:
        reasons = bool(litellm.supports_reasoning(model=model))
    except Exception:
        reasons = False
    if not reasons:
        if effort == "off":
            return {}, None  # nothing to switch off as far as anyone knows
        return {}, (
            f"{model} has no reasoning control that litellm knows of, so "
            f"reasoning_effort {effort} is not sent; its calls go on without it. "
            "Unset reasoning_effort (/model --effort default) to stop this note."
        )
    if effort != "off":
        if keeps_thinking_blocks(model) and temperature is not None and temperature != 1:
            return {"reasoning_effort": effort, "temperature": 1}, (
                f"{model} thinks at temperature 1 only (Anthropic's extended thinking), so "
                f"temperature {temperature:g} is not sent while reasoning_effort is {effort}."
            )
        return {"reasoning_effort": effort}, None
    if keeps_thinking_blocks(model) or _provider(litellm, model) in ("gemini", "vertex_ai"):
        return {"reasoning_effort": "none"}, None  # litellm: no thinking, a zero budget
    try:
        switches_off = bool(litellm.utils.supports_none_reasoning_effort(model=model))
    except Exception:
        switches_off = False
    if switches_off:
        return {"reasoning_effort": "none"}, None
    return {}, (
        f"{model} cannot switch its reasoning off: it reasons at its default effort "
        "(reasoning_effort low is the least it takes)."
    )


def _provider(litellm: Any, model: str) -> str:
    try:
        return str(litellm.get_llm_provider(model)[1])
    except Exception:
        return ""


def reasoning_tokens(usage: Any) -> int:
    """Of the completion tokens of litellm's ``usage``, those spent reasoning
    (``completion_tokens_details.reasoning_tokens``; 0 when not said)."""
    details = getattr(usage, "completion_tokens_details", None)
    if isinstance(details, dict):
        return int(details.get("reasoning_tokens") or 0)
    return int(getattr(details, "reasoning_tokens", None) or 0)


def thinking_blocks(message: Any) -> list[dict[str, Any]]:
    """The signed thinking blocks of litellm's assembled ``message`` (Anthropic's), as
    plain dicts: a thinking block with its signature, or a redacted one with its data."""
    kept = []
    for block in getattr(message, THINKING_BLOCKS, None) or []:
        block = dict(block)
        if block.get("type") == "redacted_thinking" and block.get("data"):
            kept.append({"type": "redacted_thinking", "data": block["data"]})
        elif block.get("type") == "thinking" and block.get("signature"):
            kept.append(
                {
                    "type": "thinking",
                    "thinking": block.get("thinking") or "",
                    "signature": block["signature"],
                }
            )
    return kept
