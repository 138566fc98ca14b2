"""The tool-call notations models write in plain text, each read from where its marker starts.

* g3's JSON blocks: ``{"tool": "read_file", "args": {"file_path": "a.py"}}``
* GLTCH's tags: ``[ACTION:read|a.py]``; the positional arguments fill the tool's required
  parameters in order, and the last one takes the rest of the tag (so it may contain ``|``).
* Hermes and Qwen 2.5/3: ``<tool_call>{"name": …, "arguments": {…}}</tool_call>``, the
  arguments an object or a JSON string, one block per call; Qwen3-Coder writes
  ``<tool_call><function=NAME><parameter=KEY>VALUE</parameter>…</function></tool_call>``,
  and ``<function=NAME>{…}</function>`` also comes alone (Functionary, as llama.cpp reads).
* Mistral: ``[TOOL_CALLS][{"name": …, "arguments": {…}}, …]`` and the newer
  ``[TOOL_CALLS]name[ARGS]{…}`` (also ``name{…}``, and ``[CALL_ID]…`` before ``[ARGS]``);
  the array also comes bare, when the server drops the special token.
* Llama 3.x: ``<|python_tag|>{"name": …, "parameters": {…}}``, several separated by ``;``,
  and the same objects bare, without the tag.
* DeepSeek V3/R1: ``<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME``,
  the arguments in a fenced ``json`` block, ``<｜tool▁call▁end｜>``; V3.1 writes
  ``NAME<｜tool▁sep｜>{…}`` instead.

The notations are the ones vLLM's tool parsers and llama.cpp's chat parsers read. A call
with a name no tool has is still a call (the registry tells the model which tools exist),
except a bare JSON object: that is a call only when it names a registered tool and has
nothing but a call's keys.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ..tools.registry import canonical_name


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """What the parser needs of a tool: its name and its required parameters in order."""

    name: str
    required: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FoundCall:
    """One tool call read from text: the tool's name and its arguments as JSON text."""

    name: str
    arguments: str


class Verdict(Enum):
    """What the text at a marker is, when it is not (yet) a whole call."""

    NOT_A_CALL = "not a call"
    OPEN = "a call has begun"  # streaming: the rest of the text is the call's
    UNDECIDED = "not decided yet"  # streaming: more text decides


Read = tuple[int, list[FoundCall]]
"""A whole call group: where it ends, and its calls in order."""
Specs = Mapping[str, ToolSpec] | None
"""The registered tools; None takes a bare object of any name for a call."""

_DECODER = json.JSONDecoder()


def _decode(text: str, pos: int) -> tuple[Any, int] | None:
    try:
        return _DECODER.raw_decode(text, pos)
    except json.JSONDecodeError:
        return None


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _arguments(value: object) -> str:
    """Arguments as JSON text: an object is dumped, a string (JSON already) kept."""
    if value is None:
        return "{}"
    if isinstance(value, str):
        return value.strip() or "{}"
    return json.dumps(value, ensure_ascii=False)


def _named_call(value: object) -> FoundCall | None:
    """A ``{"name": …, "arguments"|"parameters": …}`` object as a call."""
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    return FoundCall(value["name"], _arguments(value.get("arguments", value.get("parameters"))))


def _unfinished(complete: bool) -> Verdict:
    """A marker without a whole call after it: nothing in a whole message, a call begun
    while it streams."""
    return Verdict.NOT_A_CALL if complete else Verdict.OPEN


# -- g3 and GLTCH ----------------------------------------------------------------------


def _read_g3(text: str, start: int, specs: Specs, complete: bool) -> Read | Verdict:
    decoded = _decode(text, start)
    if decoded is None:
        return _unfinished(complete)
    value, end = decoded
    if not isinstance(value, dict) or not isinstance(value.get("tool"), str):
        return Verdict.NOT_A_CALL  # a whole object, just not a call: {"tool": 3}
    args = value.get("args", value.get("arguments", {}))
    raw = json.dumps(args) if isinstance(args, dict) else str(args)
    return end, [FoundCall(value["tool"], raw)]


def _read_action(text: str, start: int, specs: Specs, complete: bool) -> Read | Verdict:
    depth = 0
    for index in range(start, len(text)):
        char = text[index]
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                body = text[start + len("[ACTION:") : index]
                return index + 1, [_action_call(body, specs or {})]
    return _unfinished(complete)


def _action_call(body: str, specs: Mapping[str, ToolSpec]) -> FoundCall:
    name, _, rest = body.partition("|")
    name = canonical_name(name.strip())  # GLTCH's short names: run, read, write…
    spec = specs.get(name)
    if spec is None or not spec.required:
        return FoundCall(name, json.dumps({"args": rest.split("|")} if rest else {}))
    parts = rest.split("|", len(spec.required) - 1) if rest else []
    return FoundCall(name, json.dumps(dict(zip(spec.required, parts, strict=False))))


# -- Hermes / Qwen ---------------------------------------------------------------------


def _read_hermes(text: str, start: int, specs: Specs, complete: bool) -> Read | Verdict:
    """``<tool_call>``, a JSON object, ``</tool_call>``; a message that ends before the
    closing tag ends the call too, as vLLM reads it."""
    pos = start + len("<tool_call>")
    calls: list[FoundCall] = []
    while True:
        pos = _skip_space(text, pos)
        if text.startswith("</tool_call>", pos) and calls:
            return pos + len("</tool_call>"), calls
        if pos == len(text) and calls and complete:
            return pos, calls
        if text.startswith("<function=", pos):
            function = _function_call(text, pos)
            if function is None:
                return _unfinished(complete)
            pos = function[0]
            calls.append(function[1])
            continue
        decoded = _decode(text, pos)
        call = _named_call(decoded[0]) if decoded else None
        if decoded is None and complete and not calls:
            return _malformed_hermes(text, pos) or Verdict.NOT_A_CALL
        if decoded is None or call is None:
            return _after_tag(text, start, "<tool_call>", complete)
        calls.append(call)
        pos = decoded[1]


_MALFORMED = re.compile(
    r'\{\s*"name"\s*:\s*"(?P<name>[^"\\]+)"\s*,\s*"(?:arguments|parameters)"\s*:'
    r"(?P<arguments>.*?)\}?\s*</tool_call>",
    re.S,
)


def _malformed_hermes(text: str, pos: int) -> Read | None:
    """A whole ``<tool_call>`` block whose JSON does not parse but names its tool: a call
    with the arguments as written, so the model hears what was wrong with them instead of
    its turn ending with the block as its answer."""
    malformed = _MALFORMED.match(text, pos)
    if malformed is None:
        return None
    arguments = malformed.group("arguments").strip()
    return malformed.end(), [FoundCall(malformed.group("name"), arguments)]


def _after_tag(text: str, start: int, tag: str, complete: bool) -> Verdict:
    """A tag without a whole call after it. While the text streams, the tag begins a call
    once a call's JSON or ``<function=`` follows it; words after it mean the model wrote
    about the tag."""
    rest = text[start + len(tag) :].lstrip()
    if complete:
        return Verdict.NOT_A_CALL
    if rest.startswith(("{", "<function=")):
        return Verdict.OPEN
    return Verdict.UNDECIDED if "<function=".startswith(rest) else Verdict.NOT_A_CALL


_FUNCTION_TAG = re.compile(r"<function=([^>\n]+)>")
_PARAMETER = re.compile(r"\s*<parameter=([^>\n]+)>\n?(.*?)\n?</parameter>", re.S)


def _function_call(text: str, pos: int) -> tuple[int, FoundCall] | None:
    """``<function=NAME>``, then JSON arguments or Qwen3-Coder's
    ``<parameter=KEY>VALUE</parameter>`` (values are text), then ``</function>``."""
    tag = _FUNCTION_TAG.match(text, pos)
    if tag is None:
        return None
    pos = _skip_space(text, tag.end())
    decoded = _decode(text, pos) if text.startswith("{", pos) else None
    if decoded is not None:
        arguments, pos = _arguments(decoded[0]), decoded[1]
    else:
        values = {}
        while (parameter := _PARAMETER.match(text, pos)) is not None:
            values[parameter.group(1).strip()] = parameter.group(2)
            pos = parameter.end()
        arguments = json.dumps(values, ensure_ascii=False)
    pos = _skip_space(text, pos)
    if not text.startswith("</function>", pos):
        return None
    return pos + len("</function>"), FoundCall(tag.group(1).strip(), arguments)


def _read_function(text: str, start: int, specs: Specs, complete: bool) -> Read | Verdict:
    function = _function_call(text, start)
    if function is None:
        return _unfinished(complete)
    return function[0], [function[1]]


# -- Mistral ---------------------------------------------------------------------------

_NAME = re.compile(r"[A-Za-z0-9_.:-]+")
_CALL_ID = re.compile(r"\[CALL_ID\][A-Za-z0-9]*")


def _read_mistral(text: str, start: int, specs: Specs, complete: bool) -> Read | Verdict:
    """``[TOOL_CALLS]`` then a JSON array of named calls, or ``name[ARGS]{…}`` (v11+)."""
    pos = _skip_space(text, start + len("[TOOL_CALLS]"))
    if text.startswith(("[", "{"), pos):
        decoded = _decode(text, pos)
        if decoded is None:
            return _unfinished(complete)
        items = decoded[0] if isinstance(decoded[0], list) else [decoded[0]]
        calls = [call for item in items if (call := _named_call(item)) is not None]
        if not calls or len(calls) < len(items):
            return Verdict.NOT_A_CALL
        return decoded[1], calls
    name = _NAME.match(text, pos)
    if name is None:
        return _unfinished(complete)
    pos = name.end()
    call_id = _CALL_ID.match(text, pos)
    pos = call_id.end() if call_id else pos
    pos = pos + len("[ARGS]") if text.startswith("[ARGS]", pos) else pos
    decoded = _decode(text, pos) if text.startswith("{", pos) else None
    if decoded is None:
        return _unfinished(complete)
    return decoded[1], [FoundCall(name.group(0), _arguments(decoded[0]))]


_BARE = r'\{\s*(?:"type"\s*:\s*"function"\s*,\s*)?"name"\s*:'
_BARE_NAME = re.compile(_BARE + r'\s*"([^"\\]*)"')
_BARE_ARRAY = r"\[\s*(?=" + _BARE + ")"


def _read_bare_array(text: str, start: int, specs: Specs, complete: bool) -> Read | Verdict:
    """A bare array of calls is one only once it is whole, and only when every item is a
    bare call (as ``_read_bare`` takes them)."""
    decoded = _decode(text, start)
    if decoded is None:
        if complete:
            return Verdict.NOT_A_CALL
        name = _BARE_NAME.match(text, _skip_space(text, start + 1))
        return (
            Verdict.NOT_A_CALL
            if name and not _is_tool(name.group(1), specs)
            else (Verdict.UNDECIDED)
        )
    items = decoded[0] if isinstance(decoded[0], list) else []
    calls = [call for item in items if (call := _named_call(item)) is not None]
    if not calls or len(calls) < len(items) or not all(_names_tool(i, specs) for i in items):
        return Verdict.NOT_A_CALL
    return decoded[1], calls


# -- Llama 3.x -------------------------------------------------------------------------

_CALL_KEYS = {"name", "arguments", "parameters", "type", "id"}
_SEMICOLON = re.compile(r"\s*;\s*(?=\{)")
_SEMICOLON_AT_END = re.compile(r"\s*;?\s*\Z")
_END_OF_TURN = re.compile(r"\s*(?:<\|eom_id\|>|<\|eot_id\|>)")


def _read_python_tag(text: str, start: int, specs: Specs, complete: bool) -> Read | Verdict:
    """``<|python_tag|>`` then JSON calls of any name, separated by ``;``."""
    read = _json_calls(text, start + len("<|python_tag|>"), None, tagged=True)
    if read is None:
        return _after_tag(text, start, "<|python_tag|>", complete)
    end_of_turn = _END_OF_TURN.match(text, read[0])
    return (end_of_turn.end() if end_of_turn else read[0]), read[1]


def _read_bare(text: str, start: int, specs: Specs, complete: bool) -> Read | Verdict:
    """A bare object is a call only once it is whole; while it streams it is undecided,
    unless it already names no tool."""
    read = _json_calls(text, start, specs, tagged=False)
    if read is not None:
        if not complete and _SEMICOLON_AT_END.match(text, read[0]):
            return Verdict.UNDECIDED  # another call may follow a ``;``
        return read
    if complete or _decode(text, start) is not None:
        return Verdict.NOT_A_CALL
    name = _BARE_NAME.match(text, start)
    if name is not None and not _is_tool(name.group(1), specs):
        return Verdict.NOT_A_CALL
    return Verdict.UNDECIDED


def _json_calls(text: str, pos: int, specs: Specs, tagged: bool) -> Read | None:
    """JSON calls separated by ``;``: after the tag any name, bare only the objects that
    have a call's keys and name a registered tool."""
    calls: list[FoundCall] = []
    end = pos
    while True:
        decoded = _decode(text, _skip_space(text, pos))
        call = _named_call(decoded[0]) if decoded else None
        if decoded is None or call is None or not (tagged or _names_tool(decoded[0], specs)):
            break
        calls.append(call)
        end = decoded[1]
        more = _SEMICOLON.match(text, end)
        if more is None:
            break
        pos = more.end()
    return (end, calls) if calls else None


def _is_tool(name: str, specs: Specs) -> bool:
    return specs is None or name in specs or canonical_name(name) in specs


def _names_tool(value: dict[str, Any], specs: Specs) -> bool:
    """Whether a bare object is a call: a registered tool's name, its arguments, no more."""
    return (
        _is_tool(value["name"], specs)
        and ("arguments" in value or "parameters" in value)
        and set(value) <= _CALL_KEYS
    )


# -- DeepSeek --------------------------------------------------------------------------

_DEEPSEEK_BEGIN = (
    "<｜tool▁calls▁begin｜>",
    # Variants the R1 distills write, as llama.cpp accepts them.
    "<｜tool_calls_begin｜>",
    "<｜tool calls begin｜>",
    "<｜tool\\_calls\\_begin｜>",
    "<｜tool▁calls｜>",
    "<｜tool▁call▁begin｜>",
)
_DS_CALL_BEGIN, _DS_SEP = "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>"
_DS_CALL_END, _DS_CALLS_END = "<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>"
_DS_V3_CALL = re.compile(
    r"(?P<name>[^\n<]+)\n```(?:json)?[ \t]*\n(?P<args>.*?)\n?[ \t]*```\s*"
    + re.escape(_DS_CALL_END),
    re.S,
)


def _read_deepseek(text: str, start: int, specs: Specs, complete: bool) -> Read | Verdict:
    """DeepSeek's markers around each call; the block ends at ``<｜tool▁calls▁end｜>`` (or
    with the message)."""
    opener = next(m for m in _DEEPSEEK_BEGIN if text.startswith(m, start))
    pos = start if opener == _DS_CALL_BEGIN else start + len(opener)
    calls: list[FoundCall] = []
    while True:
        pos = _skip_space(text, pos)
        if text.startswith(_DS_CALLS_END, pos) and calls:
            return pos + len(_DS_CALLS_END), calls
        if text.startswith(_DS_CALL_BEGIN, pos):
            pos += len(_DS_CALL_BEGIN)
        elif calls:
            return (pos, calls) if complete else Verdict.OPEN
        sep = text.find(_DS_SEP, pos)
        if sep == -1 or "\n" in text[pos:sep]:
            return (pos, calls) if calls and complete else _unfinished(complete)
        v3 = _DS_V3_CALL.match(text, sep + len(_DS_SEP))
        if v3 is not None:  # function<｜tool▁sep｜>NAME then fenced arguments
            calls.append(FoundCall(v3.group("name").strip(), _arguments(v3.group("args"))))
            pos = v3.end()
            continue
        end = text.find(_DS_CALL_END, sep)  # V3.1: NAME<｜tool▁sep｜>ARGUMENTS
        if end == -1:
            return _unfinished(complete)
        calls.append(FoundCall(text[pos:sep].strip(), _arguments(text[sep + len(_DS_SEP) : end])))
        pos = end + len(_DS_CALL_END)


# -- the notation table ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Notation:
    start: str  # a regular expression: where a call in this notation starts
    markers: tuple[str, ...]  # its literal markers, held back while their start streams
    read: Callable[[str, int, Specs, bool], Read | Verdict]


_NOTATIONS = (
    _Notation(r'\{\s*"tool"\s*:', (), _read_g3),
    _Notation(r"\[ACTION:", ("[ACTION:",), _read_action),
    _Notation(r"<tool_call>", ("<tool_call>",), _read_hermes),
    _Notation(r"<function=", ("<function=",), _read_function),
    _Notation(r"\[TOOL_CALLS\]", ("[TOOL_CALLS]",), _read_mistral),
    _Notation(r"<\|python_tag\|>", ("<|python_tag|>",), _read_python_tag),
    _Notation(_BARE, (), _read_bare),
    _Notation(_BARE_ARRAY, (), _read_bare_array),
    _Notation("|".join(map(re.escape, _DEEPSEEK_BEGIN)), _DEEPSEEK_BEGIN, _read_deepseek),
)
_STARTS = [re.compile(notation.start) for notation in _NOTATIONS]

CALL_START = re.compile("|".join(notation.start for notation in _NOTATIONS))
"""Where a call may start, in any notation."""
MARKERS = tuple(marker for notation in _NOTATIONS for marker in notation.markers)
"""The literal markers, whose beginnings a stream holds back until they are decided."""
JSON_MARKERS = (
    '{"tool":',
    '{"name":',
    '{"type":"function","name":',
    '[{"name":',
    '[{"type":"function","name":',
)
"""The JSON openers, without spaces, held back the same way."""


def read_call(text: str, start: int, specs: Specs, complete: bool) -> Read | Verdict:
    """Read the call group whose marker (a match of ``CALL_START``) is at ``start``.

    ``complete`` says the text is the whole message. While it streams, a call not yet whole
    is ``Verdict.OPEN`` once its marker commits to it, ``Verdict.UNDECIDED`` before.
    """
    for notation, pattern in zip(_NOTATIONS, _STARTS, strict=True):
        if pattern.match(text, start):
            return notation.read(text, start, specs, complete)
    return Verdict.NOT_A_CALL
