"""Tests of the shell tool, on real bash subprocesses."""

from __future__ import annotations

import asyncio
import os
import re
import time
from pathlib import Path

import pytest

from agent_tui.tools.base import ToolArgumentError, ToolContext, ToolKind
from agent_tui.tools.shell import ShellTool
from tests.processes import gone


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workdir=tmp_path, output_dir=tmp_path / "out")


async def run(ctx: ToolContext, on_output=None, **args):
    return await ShellTool().build(args, ctx).execute(on_output)


def pids_in(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"^pid (\d+)$", text, flags=re.M)]


async def test_output_and_exit_code(ctx: ToolContext) -> None:
    result = await run(ctx, command="echo out; echo err >&2")
    assert result.ok
    assert result.llm_content == "out\nerr\nExit code: 0"
    assert list((ctx.output_dir).iterdir()) == []  # the small log was deleted


async def test_non_zero_exit_is_a_failure_with_output(ctx: ToolContext) -> None:
    result = await run(ctx, command="echo partial; exit 3")
    assert not result.ok
    assert result.error == "command exited with code 3"
    assert result.llm_content == "partial\nExit code: 3"


async def test_no_output(ctx: ToolContext) -> None:
    result = await run(ctx, command="true")
    assert result.llm_content == "(no output)\nExit code: 0"


async def test_invalid_utf8_is_replaced(ctx: ToolContext) -> None:
    result = await run(ctx, command=r"printf 'ok \377\n'")
    assert result.llm_content == "ok \ufffd\nExit code: 0"


async def test_output_streams_before_the_command_ends(ctx: ToolContext) -> None:
    chunks: list[tuple[float, str]] = []
    result = await run(ctx, lambda text: chunks.append((time.monotonic(), text)),
                       command="echo a; sleep 0.5; echo b")
    finished = time.monotonic()
    assert result.ok
    assert "".join(text for _, text in chunks) == "a\nb\n"
    assert chunks[0][1] == "a\n"
    assert finished - chunks[0][0] > 0.3


async def test_timeout_kills_the_process_group(ctx: ToolContext) -> None:
    started = time.monotonic()
    result = await run(ctx, command="sleep 30 & echo pid $!; sleep 30", timeout=300)
    assert time.monotonic() - started < 5
    assert not result.ok
    assert "timed out after 0.3 s" in result.error
    assert "timed out after 0.3 s" in result.llm_content and "timeout" in result.llm_content
    [child] = pids_in(result.llm_content)  # the partial output is kept
    assert await gone(child, 2.0)


async def test_cancellation_kills_the_process_group(ctx: ToolContext) -> None:
    seen: list[str] = []
    ready = asyncio.Event()

    def on_output(text: str) -> None:
        seen.append(text)
        if len(pids_in("".join(seen))) == 2:
            ready.set()

    task = asyncio.create_task(run(
        ctx, on_output, command="sleep 30 & echo pid $!; echo pid $$; sleep 30"))
    await asyncio.wait_for(ready.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for pid in pids_in("".join(seen)):
        assert await gone(pid, 2.0)


async def test_background_child_does_not_hang(ctx: ToolContext) -> None:
    started = time.monotonic()
    result = await run(ctx, command="sleep 30 & echo pid $!; echo done")
    try:
        assert time.monotonic() - started < 3
        assert result.ok
        assert "done\nExit code: 0" in result.llm_content
    finally:
        for pid in pids_in(result.llm_content):
            os.kill(pid, 9)


async def test_long_output_keeps_head_and_tail_and_saves_the_rest(ctx: ToolContext) -> None:
    ctx.output_limit = 1_000
    result = await run(ctx, command="seq 1 20000")
    full = "".join(f"{n}\n" for n in range(1, 20001))
    assert result.ok
    head, tail = full[:500], full[-500:]  # half of the limit each
    start = result.llm_content.index("[... ")
    marker = result.llm_content[start:].split("\n", 1)[0]
    separator = "" if head.endswith("\n") else "\n"
    assert result.llm_content == f"{head}{separator}{marker}\n{tail}Exit code: 0"
    assert marker.startswith(f"[... {len(full) - 1000:,} characters omitted; full output "
                             f"({len(full):,} characters) saved to ")
    log = Path(re.search(r"saved to (\S+\.log)", marker).group(1))
    assert log.parent == ctx.output_dir and log.name.startswith("shell-")
    assert log.read_text() == full


async def test_working_dir_relative_and_alias(ctx: ToolContext) -> None:
    (ctx.workdir / "sub").mkdir()
    result = await run(ctx, command="pwd", working_dir="sub")
    assert result.llm_content == f"{ctx.workdir / 'sub'}\nExit code: 0"
    result = await run(ctx, command="pwd", cwd="sub")
    assert result.llm_content.startswith(str(ctx.workdir / "sub"))
    result = await run(ctx, command="pwd")
    assert result.llm_content.startswith(f"{ctx.workdir}\n")


async def test_missing_working_dir_is_an_error(ctx: ToolContext) -> None:
    result = await run(ctx, command="pwd", working_dir="nowhere")
    assert not result.ok
    assert "does not exist" in result.error and "nowhere" in result.error


async def test_environment_comes_from_the_context(ctx: ToolContext) -> None:
    ctx.env = {"PATH": os.environ["PATH"], "GREETING": "hello"}
    result = await run(ctx, command="echo $GREETING")
    assert result.llm_content == "hello\nExit code: 0"


async def test_stdin_is_empty(ctx: ToolContext) -> None:
    result = await run(ctx, command="cat; echo end", timeout=5_000)
    assert result.llm_content == "end\nExit code: 0"


@pytest.mark.parametrize("args", [
    {"command": "ls", "timeout": 0}, {"command": "ls", "timeout": 3_600_001},
])
def test_timeout_bounds(ctx: ToolContext, args: dict) -> None:
    with pytest.raises(ToolArgumentError, match="timeout"):
        ShellTool().build(args, ctx)


def test_blank_command_is_rejected(ctx: ToolContext) -> None:
    with pytest.raises(ToolArgumentError, match="command is empty"):
        ShellTool().build({"command": "  "}, ctx)


def test_describe_and_confirmation(ctx: ToolContext) -> None:
    tool = ShellTool()
    assert tool.kind is ToolKind.EXECUTE and not tool.read_only
    invocation = tool.build({"command": "make test\nmake lint", "cwd": "src"}, ctx)
    assert invocation.describe() == "shell: make test …"
    confirmation = invocation.confirmation()
    assert confirmation.kind == "execute"
    assert confirmation.title == "Run a shell command"
    assert confirmation.command == "make test\nmake lint"
    assert confirmation.working_dir == ctx.workdir / "src"
