"""The text tool-call protocol: g3 JSON blocks and GLTCH action tags."""

from __future__ import annotations

import json

from agent_tui.core.text_protocol import ToolBlockFilter, parse_tool_calls, tool_specs
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.registry import ToolRegistry

SPECS = tool_specs(ToolRegistry(builtin_tools()).schemas())


def test_bare_and_fenced_json_blocks():
    text = ('Reading two files.\n{"tool": "read_file", "args": {"file_path": "a.py"}}\n'
            '```json\n{"tool": "shell", "args": {"command": "ls -la"}}\n```\nThen more.')
    visible, calls = parse_tool_calls(text, SPECS)
    assert [c.name for c in calls] == ["read_file", "shell"]
    assert json.loads(calls[1].arguments) == {"command": "ls -la"}
    assert visible == "Reading two files.\n\nThen more."


def test_gltch_tags_fill_required_parameters_in_order():
    visible, calls = parse_tool_calls(
        "[ACTION:read|src/a.py] [ACTION:write|b.py|x = y[0] | z] [ACTION:run|ls | wc -l]",
        SPECS)
    assert [c.name for c in calls] == ["read_file", "write_file", "shell"]
    assert json.loads(calls[0].arguments) == {"file_path": "src/a.py"}
    assert json.loads(calls[1].arguments) == {"file_path": "b.py", "content": "x = y[0] | z"}
    assert json.loads(calls[2].arguments) == {"command": "ls | wc -l"}
    assert visible == ""


def test_ordinary_json_and_brackets_are_left_alone():
    text = 'Config is {"tools": 1} and a list [1, 2] and {"tool": 3}.'
    visible, calls = parse_tool_calls(text, SPECS)
    assert calls == []
    assert visible == text


def test_ids_are_unique_per_prefix():
    _, calls = parse_tool_calls('[ACTION:read|a] [ACTION:read|b]', SPECS, id_prefix="t4")
    assert [c.id for c in calls] == ["t4_0", "t4_1"]


def test_stream_filter_hides_tool_blocks_at_any_chunking():
    text = 'Let me look {at} this.\n{"tool": "read_file", "args": {"file_path": "a"}}\nbye'
    for size in (1, 2, 3, 7, 100):
        f = ToolBlockFilter()
        shown = "".join(f.feed(text[i:i + size]) for i in range(0, len(text), size)) + f.flush()
        assert shown == "Let me look {at} this.\n"


def test_stream_filter_passes_plain_text_through():
    f = ToolBlockFilter()
    shown = "".join(f.feed(c) for c in "a [b] {c} ```py\nx\n```") + f.flush()
    assert shown == "a [b] {c} ```py\nx\n```"
