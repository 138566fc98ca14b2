"""Tool calls for models without native function calling.

The model writes its calls in its text, in any notation ``tool_call_formats`` reads (g3's
JSON blocks, GLTCH's tags, the formats local models are trained on). A call the model only
quotes is never run: one inside a code block (a fenced block runs only when it holds nothing
but calls, in ``json``, ``tool``, ``xml`` or no language), in inline backticks, or in its
``<think>`` reasoning.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .providers.base import ToolCallRequest
from .tool_call_formats import (
    CALL_START,
    JSON_MARKERS,
    MARKERS,
    FoundCall,
    ToolSpec,
    Verdict,
    read_call,
)

__all__ = [
    "ToolBlockFilter",
    "ToolSpec",
    "parse_tool_calls",
    "results_message",
    "tool_specs",
    "tools_prompt",
]

_TOKEN = re.compile(
    r"(?P<ticks>`+)|(?P<think><think>|\[THINK\])|(?P<unthink></think>|\[/THINK\])|"
    r"(?P<call>" + CALL_START.pattern + ")"
)
_THINK_END = {"<think>": "</think>", "[THINK]": "[/THINK]"}
_CALLABLE_FENCES = {"", "json", "tool", "xml"}
_FENCE_RUN = re.compile("```")
_HELD_PREFIXES = {m[:size] for m in (*MARKERS, *_THINK_END) for size in range(1, len(m))}
_LONGEST_HELD = max(map(len, _HELD_PREFIXES))
_LONGEST_JSON_MARKER = 64  # room for spaces between a JSON marker's parts


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
    calls: list[ToolCallRequest] = []
    visible: list[str] = []
    cursor = 0
    for start, end, found in _scan(text, specs, complete=True).spans:
        visible.append(text[cursor:start])
        for call in found:
            calls.append(ToolCallRequest(f"{id_prefix}_{len(calls)}", call.name, call.arguments))
        cursor = end
    visible.append(text[cursor:])
    clean = re.sub(r"\n{3,}", "\n\n", "".join(visible)).strip()
    return clean, calls


@dataclass
class _Scan:
    """Where the calls of a text are; while it streams, how much of it is decided."""

    spans: list[tuple[int, int, list[FoundCall]]] = field(default_factory=list)
    call_begins: int | None = None  # streaming: a call begins here and is not whole yet
    decided: int = 0  # streaming: text before this is either shown or a call
    resume: int = 0  # streaming: a later scan may start here, outside code and reasoning


def _scan(
    text: str, specs: Mapping[str, ToolSpec] | None, complete: bool, begin: int | None = None
) -> _Scan:
    """Walk ``text`` past quoted code and reasoning, reading the calls outside them.

    ``begin``: a ``resume`` of an earlier scan of the same stream; text before it is decided.
    """
    scan = _Scan()
    pos = begin or 0
    opened = False  # a <think> of this text was seen
    while (match := _TOKEN.search(text, pos)) is not None:
        start = scan.resume = match.start()
        if match.group("ticks"):
            next_pos = _past_code(text, match, specs, complete, scan)
        elif match.group("unthink"):
            if not opened and not begin:
                # The chat template opened <think> itself: what came before was reasoning.
                scan.spans.clear()
            next_pos = match.end()
        elif match.group("think"):
            opened = True
            closer = _THINK_END[match.group("think")]
            close = text.find(closer, match.end())
            if close == -1 and not complete:
                scan.decided = len(text)  # reasoning is shown; nothing in it runs
                return scan
            next_pos = len(text) if close == -1 else close + len(closer)
        else:
            read = read_call(text, start, specs, complete)
            if read is Verdict.OPEN:
                scan.call_begins = scan.decided = start
                return scan
            if read is Verdict.UNDECIDED:
                scan.decided = start
                return scan
            if isinstance(read, Verdict):
                next_pos = start + 1
            else:
                scan.spans.append((start, read[0], read[1]))
                next_pos = read[0]
        if next_pos is None:
            return scan
        pos = next_pos
    scan.decided = len(text) if complete else len(text) - _undecided_tail(text)
    if pos <= scan.decided:
        scan.resume = scan.decided  # else the held tail may change how the last token reads
    return scan


def _past_code(
    text: str,
    ticks: re.Match[str],
    specs: Mapping[str, ToolSpec] | None,
    complete: bool,
    scan: _Scan,
) -> int | None:
    """Where scanning goes on after a backtick run: past a code block or an inline code span
    (nothing in them runs), unless a fenced block holds only calls. None: stop, ``scan``
    says what is decided."""
    start, after, size = ticks.start(), ticks.end(), len(ticks.group(0))
    line_end = text.find("\n", after)
    rest = text[after:] if line_end == -1 else text[after:line_end]
    if size >= 3 and "`" not in rest:
        if line_end == -1 and not complete:
            scan.decided = start  # a fence or not: its line decides
            return None
        return _past_fence(text, start, size, rest, specs, complete, scan)
    closer = re.compile(rf"(?<!`)`{{{size}}}(?!`)").search(
        text, after, len(text) if line_end == -1 else line_end
    )
    if closer is not None and (complete or closer.end() < len(text)):
        return closer.end()  # (a run at the very end of a stream may still grow)
    if line_end == -1 and not complete:
        # The span may still close on this line: a call marker or a fence after it is
        # undecided.
        later = (CALL_START.search(text, after), _FENCE_RUN.search(text, after))
        scan.decided = min([len(text) - _undecided_tail(text), *(m.start() for m in later if m)])
        return None
    return after


def _past_fence(
    text: str,
    start: int,
    size: int,
    info: str,
    specs: Mapping[str, ToolSpec] | None,
    complete: bool,
    scan: _Scan,
) -> int | None:
    body_start = text.index("\n", start) + 1 if "\n" in text[start:] else len(text)
    closing = _closing_fence(text, body_start, size)
    body = text[body_start : closing[0] if closing else len(text)]
    end = closing[1] if closing else len(text)
    language = info.strip().split(maxsplit=1)[0].lower() if info.strip() else ""
    if language not in _CALLABLE_FENCES:
        if closing is None and not complete:
            scan.decided = len(text) - _partial_ticks(text)
            return None
        return end
    if closing is None and not complete:
        begins = _begins_call(body, specs)
        if begins is None or begins:
            scan.decided = start
            scan.call_begins = start if begins else None
        else:
            scan.decided = len(text) - _partial_ticks(text)
        return None
    found = _only_calls(body, specs)
    early = text.find("`" * size, body_start)
    if not found and early != -1 and (closing is None or early < closing[0]):
        # Small models close the fence right after the call, on the call's own line.
        found = _only_calls(text[body_start:early], specs)
        end = early + size if found else end
    if found:
        scan.spans.append((start, end, found))
    return end


def _only_calls(body: str, specs: Mapping[str, ToolSpec] | None) -> list[FoundCall]:
    """The calls of a fenced block that holds nothing else (none when it does, or when it
    holds another block)."""
    if body.lstrip().startswith("`"):
        return []
    inner = _scan(body, specs, complete=True)
    outside = body
    for call_start, call_end, _ in reversed(inner.spans):
        outside = outside[:call_start] + outside[call_end:]
    return [] if outside.strip() else [c for _, _, found in inner.spans for c in found]


def _closing_fence(text: str, pos: int, size: int) -> tuple[int, int] | None:
    """Where the fence of ``size`` backticks opened before ``pos`` closes: a run of at least
    as many at the start of a line."""
    ticks = "`" * size
    found = text.find(ticks, pos)
    while found != -1:
        line_start = text.rfind("\n", 0, found) + 1
        end = found + size
        while end < len(text) and text[end] == "`":
            end += 1
        if line_start >= pos and not text[line_start:found].strip(" \t"):
            return found, end
        found = text.find(ticks, end)
    return None


def _begins_call(body: str, specs: Mapping[str, ToolSpec] | None) -> bool | None:
    """Whether a fenced block still streaming is a call: None while that is undecided."""
    stripped = body.lstrip()
    if not stripped or _undecided_tail(stripped) == len(stripped):
        return None
    if CALL_START.match(stripped) is None:
        return False
    read = read_call(stripped, 0, specs, complete=False)
    if read is Verdict.UNDECIDED:
        return None
    return read is not Verdict.NOT_A_CALL


def _partial_ticks(text: str) -> int:
    count = 0
    while count < len(text) and text[-1 - count] == "`":
        count += 1
    return count


class ToolBlockFilter:
    """Hides tool calls from streamed text.

    Text is passed through until a tool call begins; from there on it is held back (the
    complete message is parsed when it ends). Text that might still turn out to be a call
    (the start of a marker, a bare JSON object not yet whole, a code block whose first line
    is still coming) is held until it is decided.
    """

    def __init__(self, specs: Mapping[str, ToolSpec] | None = None) -> None:
        """``specs``: the registered tools, which decide whether a bare JSON object is a
        call (without them, one that has a call's shape is)."""
        self._specs = specs
        self._text = ""
        self._shown = 0
        self._resume: int | None = None
        self._hiding = False

    def feed(self, text: str) -> str:
        """Take a streamed piece; return what may be shown now."""
        self._text += text
        if self._hiding:
            return ""
        scan = _scan(self._text, self._specs, complete=False, begin=self._resume)
        self._resume = scan.resume
        if scan.spans or scan.call_begins is not None:
            self._hiding = True
            stop = scan.spans[0][0] if scan.spans else scan.call_begins
        else:
            stop = scan.decided
        return self._show_until(stop or 0)

    def flush(self) -> str:
        """The held-back text that is not a call, once the stream ended (also text hidden
        after a marker that, whole, turned out not to begin a call)."""
        spans = _scan(self._text, self._specs, complete=True).spans
        self._hiding = True
        return self._show_until(spans[0][0] if spans else len(self._text))

    def _show_until(self, stop: int) -> str:
        shown = self._text[self._shown : max(stop, self._shown)]
        self._shown += len(shown)
        return shown


def _undecided_tail(buffer: str) -> int:
    """Length of the longest suffix of ``buffer`` that could still grow into a marker (or
    into a token that decides whether a marker after it is quoted)."""
    best = _partial_ticks(buffer)
    for opener in "[{":
        brace = buffer.rfind(opener, max(0, len(buffer) - _LONGEST_JSON_MARKER))
        if brace != -1:
            compact = re.sub(r"\s+", "", buffer[brace:])
            if any(marker.startswith(compact) for marker in JSON_MARKERS):
                best = max(best, len(buffer) - brace)
    window = buffer[-_LONGEST_HELD:]
    for index, char in enumerate(window):
        if char in "[<" and window[index:] in _HELD_PREFIXES:
            return max(best, len(window) - index)
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
