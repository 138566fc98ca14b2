"""Local models' own tool-call formats in the text protocol, as those models emit them."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from agent_tui.core.sessions.history import last_todo_list
from agent_tui.core.text_protocol import ToolBlockFilter, parse_tool_calls, tool_specs
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.registry import ToolRegistry
from tests.core.loop_helpers import run
from tests.fakes.providers import Reply

SPECS = tool_specs(ToolRegistry(builtin_tools()).schemas())


def calls_in(text: str) -> list[tuple[str, dict[str, object]]]:
    return [(c.name, json.loads(c.arguments)) for c in parse_tool_calls(text, SPECS)[1]]


def streamed(text: str, size: int = 1) -> str:
    """What a person sees of ``text`` streamed in pieces of ``size`` characters."""
    stream = ToolBlockFilter(SPECS)
    pieces = [stream.feed(text[i : i + size]) for i in range(0, len(text), size)]
    return "".join(pieces) + stream.flush()


def assert_streams_as(text: str, expected: str) -> None:
    for size in (1, 2, 3, 5, 8, 1000):
        assert streamed(text, size) == expected, size


# -- Hermes / Qwen ---------------------------------------------------------------------

QWEN3 = (
    "<think>\nThe user wants the notes and the folder listing. I will call read_file and "
    "shell.\n</think>\n\n"
    '<tool_call>\n{"name": "read_file", "arguments": {"file_path": "notes.txt"}}\n</tool_call>\n'
    '<tool_call>\n{"name": "shell", "arguments": "{\\"command\\": \\"ls -la\\"}"}\n</tool_call>'
)


def test_qwen3_tool_call_blocks_after_thinking_with_string_arguments():
    visible, calls = parse_tool_calls(QWEN3, SPECS)
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("read_file", {"file_path": "notes.txt"}),
        ("shell", {"command": "ls -la"}),
    ]
    assert [c.id for c in calls] == ["call_0", "call_1"]
    assert "<tool_call>" not in visible and visible.endswith("</think>")


def test_qwen25_call_with_text_before_and_no_closing_tag():
    text = 'I will read it.\n<tool_call>\n{"name": "read_file", "arguments": {"file_path": "a.py"}}'
    visible, calls = parse_tool_calls(text, SPECS)
    assert visible == "I will read it."
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("read_file", {"file_path": "a.py"})
    ]


def test_qwen3_coder_xml_parameters_inside_tool_call():
    text = (
        "I'll write the file.\n<tool_call>\n<function=write_file>\n<parameter=file_path>\n"
        "out.py\n</parameter>\n<parameter=content>\nprint('hi')\nprint('bye')\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    visible, calls = parse_tool_calls(text, SPECS)
    assert visible == "I'll write the file."
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("write_file", {"file_path": "out.py", "content": "print('hi')\nprint('bye')"})
    ]
    assert_streams_as(text, "I'll write the file.\n")
    assert calls_in('<function=shell>{"command": "ls"}</function>') == [
        ("shell", {"command": "ls"})
    ]


def test_stream_shows_the_thinking_and_never_the_tool_call():
    expected = QWEN3[: QWEN3.index("<tool_call>")]
    assert_streams_as(QWEN3, expected)


def test_stream_holds_a_partial_tool_call_tag_and_releases_it_when_it_is_not_one():
    stream = ToolBlockFilter(SPECS)
    assert stream.feed("Done. <tool_c") == "Done. "
    assert stream.feed("ommand> is not a tag") == "<tool_command> is not a tag"
    assert_streams_as(
        "The <tool_call> tag is how I call tools.", "The <tool_call> tag is how I call tools."
    )


async def test_a_tool_call_block_with_broken_json_reaches_the_model_as_an_error(
    fake_provider, tmp_path
):
    broken = (
        '<tool_call>\n{"name": "write_file", "arguments": {"file_path": "a.py", '
        '"content": "print("hi")"}}\n</tool_call>'
    )
    fixed = (
        '<tool_call>\n{"name": "write_file", "arguments": {"file_path": "a.py", '
        '"content": "print(\\"hi\\")"}}\n</tool_call>'
    )
    fake_provider.script(Reply(text=broken), Reply(text=fixed), Reply(text="Written."))

    outcome = await run(fake_provider, tmp_path, tool_protocol="text", approval_mode="yolo")

    assert outcome.code == 0
    assert [r["ok"] for r in outcome.of_type("tool_result")] == [False, True]
    assert "not valid JSON" in fake_provider.requests[1].last_user_text()
    assert (tmp_path / "a.py").read_text() == 'print("hi")'


def test_unknown_tool_name_is_still_a_call_as_g3_blocks_are():
    assert calls_in('{"tool": "nope", "args": {}}') == [("nope", {})]
    assert calls_in('<tool_call>{"name": "nope", "arguments": {}}</tool_call>') == [("nope", {})]


# -- Mistral ---------------------------------------------------------------------------


def test_mistral_tool_calls_array_with_several_calls():
    text = (
        '[TOOL_CALLS] [{"name": "read_file", "arguments": {"file_path": "a.py"}, '
        '"id": "a1b2c3d4e"}, {"name": "shell", "arguments": {"command": "pwd"}}]</s>'
    )
    visible, calls = parse_tool_calls(text, SPECS)
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("read_file", {"file_path": "a.py"}),
        ("shell", {"command": "pwd"}),
    ]
    assert visible == "</s>"


def test_mistral_name_args_form_one_marker_per_call():
    text = (
        'Reading both.[TOOL_CALLS]read_file[ARGS]{"file_path": "a.py"}'
        '[TOOL_CALLS]read_file[ARGS]{"file_path": "b.py"}'
    )
    visible, calls = parse_tool_calls(text, SPECS)
    assert visible == "Reading both."
    assert [json.loads(c.arguments)["file_path"] for c in calls] == ["a.py", "b.py"]
    assert calls_in('[TOOL_CALLS]shell{"command": "ls"}') == [("shell", {"command": "ls"})]
    assert calls_in('[TOOL_CALLS]shell[CALL_ID]abc123XYZ[ARGS]{"command": "ls"}') == [
        ("shell", {"command": "ls"})
    ]


def test_mistral_array_without_its_token_when_every_item_names_a_tool():
    text = (
        '[{"name": "read_file", "arguments": {"file_path": "a.py"}}, '
        '{"name": "shell", "arguments": {"command": "ls"}}]'
    )
    assert calls_in(text) == [("read_file", {"file_path": "a.py"}), ("shell", {"command": "ls"})]
    assert_streams_as("Both:\n" + text, "Both:\n")
    data = 'People: [{"name": "Ada", "born": 1815}, {"name": "Grace", "born": 1906}]'
    assert parse_tool_calls(data, SPECS) == (data, [])
    assert_streams_as(data, data)


def test_mistral_stream_hides_the_calls_and_holds_a_partial_marker():
    text = 'Reading.[TOOL_CALLS]read_file[ARGS]{"file_path": "a.py"}'
    assert_streams_as(text, "Reading.")
    stream = ToolBlockFilter(SPECS)
    assert stream.feed("see [TOOL_") == "see "
    assert stream.feed("BOX]") == "[TOOL_BOX]"


# -- Llama 3.x -------------------------------------------------------------------------


def test_llama_python_tag_with_calls_separated_by_semicolons():
    text = (
        '<|python_tag|>{"name": "read_file", "parameters": {"file_path": "a.py"}}; '
        '{"name": "shell", "parameters": {"command": "ls"}}<|eom_id|>'
    )
    visible, calls = parse_tool_calls(text, SPECS)
    assert visible == ""
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("read_file", {"file_path": "a.py"}),
        ("shell", {"command": "ls"}),
    ]


def test_llama_bare_json_call_naming_a_registered_tool():
    assert calls_in('{"name": "read_file", "parameters": {"file_path": "a.py"}}') == [
        ("read_file", {"file_path": "a.py"})
    ]
    assert calls_in('{"type": "function", "name": "shell", "parameters": {"command": "ls"}}') == [
        ("shell", {"command": "ls"})
    ]
    assert calls_in('{"name": "read_file", "arguments": {"file_path": "a.py"}}') == [
        ("read_file", {"file_path": "a.py"})
    ]


def test_bare_json_that_names_no_tool_or_has_more_keys_is_left_alone():
    for text in (
        'The package is {"name": "left-pad", "arguments": {"x": 1}}.',
        '{"name": "read_file", "description": "Reads a file", "parameters": {}}',
        '{"name": "read_file"}',
    ):
        assert parse_tool_calls(text, SPECS) == (text, [])
        assert_streams_as(text, text)


def test_stream_holds_a_bare_call_until_it_is_whole():
    text = 'Looking.\n{"name": "read_file", "parameters": {"file_path": "a.py"}}'
    assert_streams_as(text, "Looking.\n")
    stream = ToolBlockFilter(SPECS)
    assert stream.feed('Looking. {"name": "read_file", "param') == "Looking. "
    assert stream.feed('eters": {"file_path": "a.py"}} and more') == ""


# -- DeepSeek --------------------------------------------------------------------------

DEEPSEEK_R1 = (
    "<think>\nI need the file, then the listing.\n</think>\n\n"
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n"
    '```json\n{"file_path": "a.py"}\n```<｜tool▁call▁end｜>\n'
    "<｜tool▁call▁begin｜>function<｜tool▁sep｜>shell\n"
    '```json\n{"command": "ls"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
)


def test_deepseek_r1_markers_with_fenced_arguments():
    visible, calls = parse_tool_calls(DEEPSEEK_R1, SPECS)
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("read_file", {"file_path": "a.py"}),
        ("shell", {"command": "ls"}),
    ]
    assert visible == "<think>\nI need the file, then the listing.\n</think>"


def test_deepseek_v31_markers():
    text = (
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>"
        '{"file_path": "a.py"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
    )
    assert calls_in(text) == [("read_file", {"file_path": "a.py"})]


def test_deepseek_stream_holds_a_partial_marker():
    assert_streams_as(DEEPSEEK_R1, DEEPSEEK_R1[: DEEPSEEK_R1.index("<｜")])
    stream = ToolBlockFilter(SPECS)
    assert stream.feed("ok <｜tool") == "ok "


# -- quoted calls are never run --------------------------------------------------------

QUOTED = [
    'To call a tool, Qwen writes:\n```text\n<tool_call>\n{"name": "shell", "arguments": '
    '{"command": "rm -rf build"}}\n</tool_call>\n```\nThat is all.',
    'In Python:\n```python\nprompt = \'<tool_call>{"name": "shell", "arguments": {}}</tool_call>\'\n```',
    'Mistral marks calls with `[TOOL_CALLS][{"name": "shell", "arguments": {}}]` in its output.',
    'Llama writes `<|python_tag|>{"name": "shell", "parameters": {"command": "ls"}}` then stops.',
    'A g3 block looks like ``{"tool": "shell", "args": {"command": "ls"}}``, on its own line.',
    "```\nExample: <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>shell<｜tool▁sep｜>{}"
    "<｜tool▁call▁end｜><｜tool▁calls▁end｜> and so on\n```",
    '<think>\nMaybe <tool_call>{"name": "shell", "arguments": {"command": "ls"}}</tool_call>? '
    "No, I know the answer.\n</think>\n\nThe answer is 4.",
    # A chat template that opens <think> itself: the text only closes it.
    'I could run <tool_call>{"name": "shell", "arguments": {"command": "ls"}}</tool_call>, '
    "but I know it.\n</think>\n\nIt is 4.",
]


@pytest.mark.parametrize("text", QUOTED)
def test_a_call_the_model_quotes_is_not_run(text):
    assert parse_tool_calls(text, SPECS) == (text.strip(), [])
    assert_streams_as(text, text)


def test_text_hidden_after_a_marker_that_was_no_call_shows_when_the_stream_ends():
    text = "[TOOL_CALLS] is the token Mistral writes before its calls."
    stream = ToolBlockFilter(SPECS)
    assert stream.feed(text) == ""
    assert stream.flush() == text


FRAGMENTS = [
    "Hello ",
    "`ls`",
    "`",
    "``",
    "```python\nx = 1\n```\n",
    "```json\n",
    "```\n",
    "\n",
    "<think>",
    "</think>",
    "{",
    "}",
    "[",
    "<",
    ";",
    "the <tool_call> tag ",
    '<tool_call>{"name": "shell", "arguments": {"command": "ls"}}</tool_call>',
    '[TOOL_CALLS]shell[ARGS]{"command": "ls"}',
    "[TOOL_CALLS]",
    '{"name": "read_file", "parameters": {"file_path": "a"}}',
    '{"name": "x", "y": 1}',
    '<|python_tag|>{"name": "shell", "parameters": {"command": "ls"}}',
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>shell<｜tool▁sep｜>{}<｜tool▁call▁end｜>"
    "<｜tool▁calls▁end｜>",
    '{"tool": "shell", "args": {}}',
    "[ACTION:run|ls]",
    "<function=shell>{}</function>",
]


def test_the_stream_never_shows_a_call_and_shows_everything_else():
    rng = random.Random(31)
    for _ in range(300):
        text = "".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 7)))
        visible, calls = parse_tool_calls(text, SPECS)
        for size in (1, 3, 1000):
            shown = streamed(text, size)
            assert text.startswith(shown), (text, size)
            if not calls:
                assert shown == text, (text, size)
            else:
                assert parse_tool_calls(shown, SPECS)[1] == [], (text, size)
                assert visible.startswith(re.sub(r"\n{3,}", "\n\n", shown).strip()), (text, size)


def test_a_fenced_block_holding_only_calls_is_run():
    text = (
        '```json\n<tool_call>\n{"name": "read_file", "arguments": {"file_path": "a.py"}}\n'
        "</tool_call>\n```\nThen I will summarise."
    )
    visible, calls = parse_tool_calls(text, SPECS)
    assert visible == "Then I will summarise."
    assert [c.name for c in calls] == ["read_file"]
    assert_streams_as(text, "")


def test_a_fence_closed_on_the_calls_own_line_still_runs_it():
    text = 'Listing.\n```json\n{"tool": "shell", "args": {"command": "ls"}}```\nDone.'
    visible, calls = parse_tool_calls(text, SPECS)
    assert visible == "Listing.\n\nDone."
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("shell", {"command": "ls"})]


def test_calls_after_quoted_code_still_run():
    text = (
        "Run `ls` to see it, or:\n```bash\nls -la\n```\n"
        '<tool_call>{"name": "shell", "arguments": {"command": "ls -la"}}</tool_call>'
    )
    visible, calls = parse_tool_calls(text, SPECS)
    assert visible == "Run `ls` to see it, or:\n```bash\nls -la\n```"
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("shell", {"command": "ls -la"})]
    assert_streams_as(text, text[: text.index("<tool_call>")])


def test_a_resumed_text_protocol_session_finds_its_todo_list_in_any_format():
    todo = "- [ ] read\n- [x] plan\n"
    call = json.dumps({"name": "todo_write", "arguments": {"content": todo}})
    messages = [
        {"role": "user", "content": "plan it"},
        {"role": "assistant", "content": f"Planning.\n<tool_call>\n{call}\n</tool_call>"},
    ]
    assert last_todo_list(messages) == todo


def test_the_protocol_modules_stay_small():
    core = Path(__file__).resolve().parents[2] / "core"
    for name in ("text_protocol.py", "tool_call_formats.py"):
        assert len((core / name).read_text().splitlines()) <= 600, name


# -- the loop --------------------------------------------------------------------------


async def test_qwen_style_reply_runs_the_tool_and_finishes(fake_provider, tmp_path):
    (tmp_path / "notes.txt").write_text("rotate keys every 90 days\n")
    fake_provider.script(
        Reply(
            text="<think>\nI should read the notes first.\n</think>\n\n<tool_call>\n"
            '{"name": "read_file", "arguments": {"file_path": "notes.txt"}}\n'
            "</tool_call>",
            chunk_size=3,
        ),
        Reply(text="Every 90 days."),
    )

    outcome = await run(fake_provider, tmp_path, tool_protocol="text")

    assert outcome.code == 0
    assert [c["name"] for c in outcome.of_type("tool_call")] == ["read_file"]
    assert outcome.of_type("tool_result")[0]["ok"] is True
    sent_back = fake_provider.requests[1].last_user_text()
    assert "<tool_result" in sent_back and "rotate keys every 90 days" in sent_back
    shown = "".join(e["text"] for e in outcome.of_type("text_delta"))
    assert "<tool_call>" not in shown and "read_file" not in shown
    assert outcome.result["text"] == "Every 90 days."


async def test_json_that_names_no_tool_streams_as_the_answer(fake_provider, tmp_path):
    answer = 'Its package.json starts with {"name": "left-pad", "arguments": ["x"]}.'
    fake_provider.script(Reply(text=answer, chunk_size=2))

    outcome = await run(fake_provider, tmp_path, tool_protocol="text")

    assert outcome.code == 0
    assert outcome.of_type("tool_call") == []
    assert "".join(e["text"] for e in outcome.of_type("text_delta")) == answer
