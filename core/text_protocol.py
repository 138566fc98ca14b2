"""Tool calls for models without native function calling.

Two notations are understood in the model's text:

* g3-style JSON blocks, bare or fenced: ``{"tool": "read_file", "args": {"file_path": "a.py"}}``
* GLTCH tags: ``[ACTION:read|a.py]``, ``[ACTION:write|a.py|content]``, ``[ACTION:run|ls -la]``;
  the positional arguments fill the tool's required parameters in order, and the last one
  takes the rest of the tag (so it may contain ``|``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..tools.registry import canonical_name
from .providers.base import ToolCallRequest

_START = re.compile(r'\{\s*"tool"\s*:|\[ACTION:|```(?:json|tool)\b')
_MARKERS = ('{"tool":', "[ACTION:", "```json", "```tool")
_JSON_START = re.compile(r'\{\s*"tool"\s*:')
_FENCE = re.compile(r"```(?:json|tool)?[ \t]*\n?(?P<body>.*?)\n?[ \t]*```", re.S)


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """What the parser needs of a tool: its name and its required parameters in order."""

    name: str
    required: tuple[str, ...]


def tool_specs(schemas: list[dict[str, Any]]) -> dict[str, ToolSpec]:
    """Specs of OpenAI-format tool schemas, by name."""
    specs = {}
    for schema in schemas:
        fn = schema["function"]
        params = fn.get("parameters", {})
        required = set(params.get("required", []))
        ordered = tuple(p for p in params.get("properties", {}) if p in required)
        specs[fn["name"]] = ToolSpec(fn["name"], ordered)
    return specs


def parse_tool_calls(
    text: str, specs: Mapping[str, ToolSpec], id_prefix: str = "call"
) -> tuple[str, list[ToolCallRequest]]:
    """Find tool calls in ``text``; return the text without them, and the calls in order."""
    found: list[tuple[int, int, str, str]] = []  # start, end, name, raw arguments
    pos = 0
    while (match := _START.search(text, pos)) is not None:
        start = match.start()
        token = match.group(0)
        if token.startswith("```"):
            parsed = _parse_fenced(text, start)
        elif token.startswith("[ACTION:"):
            parsed = _parse_action(text, start, specs)
        else:
            parsed = _parse_json_block(text, start)
        if parsed is None:
            pos = match.end()
            continue
        end, name, args = parsed
        found.append((start, end, name, args))
        pos = end
    calls: list[ToolCallRequest] = []
    visible: list[str] = []
    cursor = 0
    for index, (start, end, name, args) in enumerate(found):
        visible.append(text[cursor:start])
        calls.append(ToolCallRequest(id=f"{id_prefix}_{index}", name=name, arguments=args))
        cursor = end
    visible.append(text[cursor:])
    clean = re.sub(r"\n{3,}", "\n\n", "".join(visible)).strip()
    return clean, calls


def _parse_json_block(text: str, start: int) -> tuple[int, str, str] | None:
    try:
        value, end = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("tool"), str):
        return None
    args = value.get("args", value.get("arguments", {}))
    return end, value["tool"], json.dumps(args) if isinstance(args, dict) else str(args)


def _parse_fenced(text: str, start: int) -> tuple[int, str, str] | None:
    fence = _FENCE.match(text, start)
    if fence is None:
        return None
    body = fence.group("body").strip()
    if not _JSON_START.match(body):
        return None
    parsed = _parse_json_block(body, 0)
    if parsed is None or body[parsed[0] :].strip():
        return None
    return fence.end(), parsed[1], parsed[2]


def _parse_action(
    text: str, start: int, specs: Mapping[str, ToolSpec]
) -> tuple[int, str, str] | None:
    depth = 0
    for index in range(start, len(text)):
        char = text[index]
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                body = text[start + len("[ACTION:") : index]
                return (index + 1, *_action_call(body, specs))
    return None


def _action_call(body: str, specs: Mapping[str, ToolSpec]) -> tuple[str, str]:
    name, _, rest = body.partition("|")
    name = canonical_name(name.strip())  # GLTCH's short names: run, read, write…
    spec = specs.get(name)
    if spec is None or not spec.required:
        return name, json.dumps({"args": rest.split("|")} if rest else {})
    parts = rest.split("|", len(spec.required) - 1) if rest else []
    return name, json.dumps(dict(zip(spec.required, parts, strict=False)))


class ToolBlockFilter:
    """Hides tool-call blocks from streamed text.

    Text is passed through until a tool-call marker begins; from there on it is held back
    (the complete message is parsed when it ends). A tail that might be the start of a
    marker is held until it is decided.
    """

    def __init__(self) -> None:
        self._buffer = ""
        self._hiding = False

    def feed(self, text: str) -> str:
        """Take a streamed piece; return what may be shown now."""
        if self._hiding:
            return ""
        self._buffer += text
        match = _START.search(self._buffer)
        if match is not None:
            shown, self._buffer, self._hiding = self._buffer[: match.start()], "", True
            return shown
        keep = _undecided_tail(self._buffer)
        shown = self._buffer[: len(self._buffer) - keep]
        self._buffer = self._buffer[len(shown) :]
        return shown

    def flush(self) -> str:
        """The held-back text once the stream ended without a marker."""
        shown, self._buffer = ("" if self._hiding else self._buffer), ""
        return shown


def _undecided_tail(buffer: str) -> int:
    """Length of the longest suffix of ``buffer`` that could still grow into a marker."""
    best = 0
    brace = buffer.rfind("{")
    if brace != -1 and re.fullmatch(r'\{\s*("t?o?o?l?"?)?\s*', buffer[brace:]):
        best = len(buffer) - brace
    for marker in _MARKERS:
        for size in range(min(len(marker) - 1, len(buffer)), 0, -1):
            if buffer.endswith(marker[:size]):
                best = max(best, size)
                break
    return best


def tools_prompt(schemas: list[dict[str, Any]]) -> str:
    """System-prompt text teaching a model without function calling to call tools."""
    lines = [
        "# Calling tools",
        "You cannot call functions natively. To call a tool, write a JSON block on its own "
        "line, exactly like this:",
        '{"tool": "read_file", "args": {"file_path": "src/main.py"}}',
        "You may write several blocks in one reply; they run in order. After your tool "
        "blocks, stop and wait: the results come back in the next message. When the task is "
        "done, answer without any tool block.",
        "",
        "## Available tools",
    ]
    for schema in schemas:
        fn = schema["function"]
        lines.append(
            f"### {fn['name']}\n{fn['description']}\n"
            f"Parameters (JSON schema): {json.dumps(fn.get('parameters', {}))}"
        )
    return "\n".join(lines)


def results_message(results: list[tuple[ToolCallRequest, str, bool]]) -> dict[str, Any]:
    """The user message that returns tool results to a text-protocol model."""
    parts = ["Tool results:"]
    for call, output, ok in results:
        status = "ok" if ok else "error"
        parts.append(
            f'<tool_result name="{call.name}" id="{call.id}" status="{status}">\n'
            f"{output}\n</tool_result>"
        )
    return {"role": "user", "content": "\n\n".join(parts)}
