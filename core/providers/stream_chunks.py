"""A stream's chunks as litellm's assembly of the reply gets them: each run of plain text
(and of plain reasoning) merged into one chunk, every other chunk kept whole.

litellm rebuilds a reply from its chunks holding the GIL a long while for thousands of them;
merged, a long answer is a handful (see :mod:`.litellm`).
"""

from __future__ import annotations

from typing import Any

NON_TEXT_DELTA_FIELDS = ("tool_calls", "function_call", "reasoning_content", "thinking_blocks",
                         "annotations", "audio", "images", "provider_specific_fields")
"""Fields of a streamed delta that make it more than text (litellm's own list): a chunk
with any of them set (not empty) is kept whole for the reply's assembly."""
NON_TEXT_CHUNK_FIELDS = ("usage", "citations", "provider_specific_fields")
"""Fields of a streamed chunk that make it more than text."""


class StreamedChunks:
    """A stream's chunks, kept for assembling the reply, with each run of plain-text
    chunks (text and nothing else) kept as the run's first chunk carrying the run's text,
    and each run of plain reasoning (an unsigned thinking piece, a ``reasoning_content``
    delta) likewise: litellm assembles the same reply from a handful of chunks instead of
    thousands."""

    def __init__(self) -> None:
        self._kept: list[Any] = []
        self._runs: list[tuple[Any, str, list[str]]] = []
        self._run: list[str] | None = None
        self._run_kind = ""

    def add(self, chunk: Any) -> str:
        """Keep ``chunk``; return its text."""
        text = _delta_text(chunk)
        if text:
            kind, piece = ("text", text) if _plain_text(chunk) else ("", "")
        else:
            kind, piece = "reasoning", _plain_reasoning(chunk)
        if piece:
            if self._run is not None and self._run_kind == kind:
                self._run.append(piece)
                return text
            self._run, self._run_kind = [piece], kind
            self._runs.append((chunk, kind, self._run))
        else:
            self._run = None
        self._kept.append(chunk)
        return text

    def __len__(self) -> int:
        return len(self._kept)

    def merged(self) -> list[Any]:
        """The chunks to assemble the reply from (each run's text in its first chunk)."""
        for chunk, kind, pieces in self._runs:
            if len(pieces) > 1:
                delta = chunk.choices[0].delta
                if kind == "text":
                    delta.content = "".join(pieces)
                else:
                    _set_reasoning(delta, "".join(pieces))
        self._runs.clear()
        return self._kept


def _delta_text(chunk: Any) -> str:
    try:
        return chunk.choices[0].delta.content or ""
    except (AttributeError, IndexError):
        return ""


def delta_reasoning(chunk: Any) -> str:
    """The reasoning a streamed chunk carries ("" for none): litellm's
    ``reasoning_content``, Anthropic's thinking deltas among them."""
    choices = _field(chunk, "choices")
    delta = _field(choices[0], "delta") if choices else None
    return (_field(delta, "reasoning_content") or "") if delta is not None else ""


def _plain_reasoning(chunk: Any) -> str:
    """The reasoning of a chunk that is one choice's reasoning and nothing else ("" for any
    other): a ``reasoning_content`` delta, with Anthropic's unsigned thinking piece."""
    choices = _field(chunk, "choices")
    if not choices or len(choices) != 1 or _field(choices[0], "finish_reason"):
        return ""
    delta = _field(choices[0], "delta")
    if delta is None or any(_field(chunk, name) for name in NON_TEXT_CHUNK_FIELDS):
        return ""
    reasoning = _field(delta, "reasoning_content")
    if not isinstance(reasoning, str) or not reasoning:
        return ""
    for name in NON_TEXT_DELTA_FIELDS:
        value = _field(delta, name)
        if not value or name == "reasoning_content":
            continue
        if name == "thinking_blocks" and _one_unsigned_piece(value):
            continue
        if (name == "provider_specific_fields" and isinstance(value, dict)
                and set(value) == {"thinking_blocks"}
                and _one_unsigned_piece(value["thinking_blocks"])):
            continue
        return ""
    return reasoning


def _one_unsigned_piece(blocks: Any) -> bool:
    return (isinstance(blocks, list) and len(blocks) == 1 and isinstance(blocks[0], dict)
            and blocks[0].get("type") == "thinking" and not blocks[0].get("signature"))


def _set_reasoning(delta: Any, reasoning: str) -> None:
    """``delta`` carries ``reasoning`` (a run's, merged) wherever it carried its piece."""
    delta.reasoning_content = reasoning
    if blocks := _field(delta, "thinking_blocks"):
        delta.thinking_blocks = [{**blocks[0], "thinking": reasoning}]
    if (specific := _field(delta, "provider_specific_fields")) and "thinking_blocks" in specific:
        delta.provider_specific_fields = {**specific, "thinking_blocks": [
            {**specific["thinking_blocks"][0], "thinking": reasoning}]}


def _plain_text(chunk: Any) -> bool:
    """Whether ``chunk`` is one choice's text and nothing else (no finish, usage, call…).

    Read from the models' fields without pydantic's ``__getattr__`` (a miss raises an
    exception inside it, on every chunk of the stream)."""
    choices = _field(chunk, "choices")
    if not choices or len(choices) != 1 or _field(choices[0], "finish_reason"):
        return False
    delta = _field(choices[0], "delta")
    if delta is None or any(_field(chunk, name) for name in NON_TEXT_CHUNK_FIELDS):
        return False
    return not any(_field(delta, name) for name in NON_TEXT_DELTA_FIELDS)


def _field(model: Any, name: str) -> Any:
    """A pydantic model's field or extra value (None when absent); plain attributes of
    other objects."""
    values = getattr(model, "__dict__", None)
    if values is None:
        return getattr(model, name, None)
    if (value := values.get(name)) is not None:
        return value
    extra = getattr(model, "__pydantic_extra__", None)
    return extra.get(name) if extra else None
