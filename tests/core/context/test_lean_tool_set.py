"""A small context window gets the lean tool set: fewer, shorter tools and instructions."""

from __future__ import annotations

import json
from pathlib import Path

from agent_tui.core.agent import Agent
from agent_tui.core.approval import HeadlessApprover
from agent_tui.core.providers.litellm import LitellmProvider, load_litellm
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.lean import LEAN_TOOLS
from agent_tui.tools.registry import ToolRegistry
from tests.core.loop_helpers import run, settings_for
from tests.fakes.providers import RecordedRequest, Reply, ToolCall

BIG_FILES = 8


def big_file(path: Path, n: int) -> None:
    """About 2,400 tokens of source-like lines, each naming its file."""
    path.write_text(
        "".join(
            f"def f{n}_{i}(value):  # file {n} line {i}\n    return value\n" for i in range(1, 161)
        )
    )


def reader(files: int):
    """A model that reads part1.py … part<files>.py one call at a time, then answers; a
    compaction request (no tools) gets a summary."""
    calls = iter(range(1, files + 1))

    def respond(request: RecordedRequest) -> Reply:
        if not request.tools:
            return Reply(text="Summary: reading the parts one by one.")
        n = next(calls, None)
        if n is None:
            return Reply(text=f"Read all {files}.")
        return Reply(tool_calls=[ToolCall("read_file", {"file_path": f"part{n}.py"}, id=f"c{n}")])

    return respond


def fixed_tokens(request: RecordedRequest) -> int:
    """Tokens of the request's system prompt and tool schemas, by litellm's counter."""
    text = request.messages[0]["content"] + json.dumps(request.tools)
    return int(load_litellm().token_counter(model="gpt-4o", text=text))


async def test_loop_eight_large_results_in_an_8k_window_end_with_the_answer(
    fake_provider, tmp_path: Path
) -> None:
    for n in range(1, BIG_FILES + 1):
        big_file(tmp_path / f"part{n}.py", n)
    fake_provider.responder = reader(BIG_FILES)
    outcome = await run(fake_provider, tmp_path, approval_mode="yolo", context_window=8000)

    assert outcome.code == 0, outcome.stderr
    assert outcome.result["ok"] and outcome.result["text"] == f"Read all {BIG_FILES}."
    assert not outcome.of_type("error")
    results = outcome.of_type("tool_result")
    assert [r["ok"] for r in results] == [True] * BIG_FILES
    assert "file 8 line 160" in results[-1]["output"]
    first = fake_provider.requests[0]
    assert [t["function"]["name"] for t in first.tools] == [
        "read_file",
        "write_file",
        "edit_file",
        "grep",
        "shell",
        "rehydrate",
    ]
    assert fixed_tokens(first) < 1000


async def test_full_set_for_a_large_window_or_when_set(fake_provider, tmp_path: Path) -> None:
    for overrides in ({}, {"context_window": 8000, "tool_set": "full"}):
        fake_provider.script(Reply(text="ok"))
        outcome = await run(fake_provider, tmp_path, **overrides)
        assert outcome.code == 0, outcome.stderr
        request = fake_provider.requests[-1]
        assert len(request.tools) > 20
        assert "Working rules:" in request.messages[0]["content"]


async def test_lean_set_when_set_for_a_large_window(fake_provider, tmp_path: Path) -> None:
    fake_provider.script(Reply(text="ok"))
    outcome = await run(fake_provider, tmp_path, tool_set="lean")
    assert outcome.code == 0, outcome.stderr
    names = [t["function"]["name"] for t in fake_provider.requests[0].tools]
    assert sorted(names) == sorted(LEAN_TOOLS)


def test_a_tool_the_lean_set_leaves_out_is_refused_saying_how_to_get_it(
    fake_provider, tmp_path: Path
) -> None:
    settings = settings_for(fake_provider, context_window=8000)
    registry = ToolRegistry(builtin_tools())
    agent = Agent(
        LitellmProvider(settings),
        registry,
        settings,
        tmp_path,
        HeadlessApprover("default"),
        lambda event: None,
    )
    assert registry.lean
    try:
        registry.build("ls", {}, agent.tool_ctx)
    except Exception as exc:  # noqa: BLE001 - the message is the point
        message = str(exc)
    else:
        raise AssertionError("ls was built under the lean set")
    assert "lean tool set" in message and 'tool_set = "full"' in message
    # The lean form still accepts what the full tool takes.
    assert registry.build("read_file", {"file_path": "x", "start": 0}, agent.tool_ctx)


def test_the_tool_set_flag_sets_the_setting_and_reaches_the_browser_workbench(
    tmp_path: Path,
) -> None:
    from agent_tui.tui.cli.cli_parser import build_parser, settings_overrides
    from agent_tui.tui.cli.serve import workbench_command

    args = build_parser().parse_args(["--tool-set", "lean"])
    assert settings_overrides(args)["tool_set"] == "lean"
    assert "--tool-set lean" in workbench_command(args, tmp_path)
