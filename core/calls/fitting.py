"""Tool results into the conversation: one too large for the room left in the context
window is cut to fit, and the results go back to the model as its protocol reads them."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from ...tools.base import ToolResult
from ..context.oversized import cut_to_fit
from ..context.window import ContextManager
from ..providers.base import Message, ToolCallRequest
from ..text_protocol import results_message


async def fit_results(context: ContextManager, messages: list[Message],
                      tools: list[dict[str, object]] | None, max_output_tokens: int | None,
                      finished: Sequence[tuple[ToolCallRequest, ToolResult]]) -> list[str]:
    """The results' texts as they go into the context: one too large for the room left in
    the window is cut to fit, its whole text kept as a fragment ``rehydrate`` pages through
    (the session log keeps the whole text too).

    Args:
        messages: The conversation the results join.
        tools: The tool schemas sent with each model call (None: the text protocol's).
        max_output_tokens: The room kept for the model's answer (None: a share of the
            window).
        finished: Each call with its result.
    """
    answer = max_output_tokens or min(2048, context.window // 8)
    budget = await asyncio.to_thread(context.result_budget, messages, tools, len(finished),
                                     answer)

    def tokens(text: str) -> int:
        return context.ledger.tokens({"role": "tool", "content": text})

    contents: list[str] = []
    for call, result in finished:
        if len(result.llm_content) < budget:  # a token is at least a character
            contents.append(result.llm_content)
            continue
        cut = await asyncio.to_thread(
            cut_to_fit, result.llm_content, budget, tokens, context.fragments,
            call_id=call.id, tool_name=call.name)
        contents.append(cut.content)
    return contents


def result_messages(native_tools: bool, calls: Sequence[ToolCallRequest],
                    results: Sequence[ToolResult], contents: Sequence[str]) -> list[Message]:
    """The messages that give the model its calls' results (``contents``: their fitted
    texts): one tool message each, or the text protocol's one user message; then the
    images the calls returned, if any."""
    messages: list[Message]
    if native_tools:
        messages = [{"role": "tool", "tool_call_id": call.id, "content": content}
                    for call, content in zip(calls, contents, strict=True)]
    else:
        messages = [results_message([(call, content, r.ok) for call, r, content
                                     in zip(calls, results, contents, strict=True)])]
    images = [image for result in results for image in result.images]
    if images:
        # Tool messages cannot carry images in every provider's API; a user message can.
        messages.append({"role": "user", "content": [
            {"type": "text", "text": "The images returned by the tool calls above:"},
            *({"type": "image_url",
               "image_url": {"url": f"data:{i.media_type};base64,{i.data_base64}"}}
              for i in images),
        ]})
    return messages
