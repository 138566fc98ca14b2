"""Tests of background_process and its registry, on real processes (checked in /proc)."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_tui.core.config import Settings
from agent_tui.tools.background import (
    BackgroundProcesses,
    BackgroundProcessInvocation,
    BackgroundProcessTool,
)
from agent_tui.tools.base import ToolArgumentError, ToolContext, ToolKind
from tests.processes import alive

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[BackgroundProcesses]:
    """A fresh registry for the tool; whatever a test started is stopped afterwards."""
    fresh = BackgroundProcesses()
    monkeypatch.setattr(BackgroundProcessInvocation, "registry", fresh)
    yield fresh
    fresh.stop_all(grace=0.5)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workdir=tmp_path, output_dir=tmp_path / "out")


async def start(ctx: ToolContext, **args: Any):
    return await BackgroundProcessTool().build(args, ctx).execute()


def group_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[2])


async def wait_for(predicate, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while not predicate():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


def pid_in(text: str) -> int:
    return int(re.search(r"\(pid (\d+)\)", text).group(1))


async def test_starts_in_its_own_group_and_returns_pid_and_log(
        registry: BackgroundProcesses, ctx: ToolContext) -> None:
    result = await start(ctx, name="sleeper", command="sleep 30")

    assert result.ok, result.llm_content
    pid = pid_in(result.llm_content)
    log = ctx.output_dir / "bg-sleeper.log"
    assert f"Log (stdout and stderr): {log}" in result.llm_content
    assert f"tail -n 50 {log}" in result.llm_content and f"kill -- -{pid}" in result.llm_content
    assert alive(pid) and group_of(pid) == pid != os.getpgrp()
    [proc] = registry.running()
    assert (proc.name, proc.pid, proc.command, proc.log) == ("sleeper", pid, "sleep 30", log)
    assert proc.alive and not proc.keep


async def test_a_server_logs_stdout_and_stderr(registry: BackgroundProcesses,
                                               ctx: ToolContext) -> None:
    command = f"{sys.executable} -u -m http.server 0 --bind 127.0.0.1"
    result = await start(ctx, name="web", command=command)
    assert result.ok, result.llm_content
    log = ctx.output_dir / "bg-web.log"

    assert await wait_for(lambda: "Serving HTTP" in log.read_text())
    port = re.search(r"port (\d+)", log.read_text()).group(1)
    async with httpx.AsyncClient(trust_env=False) as client:
        response = await client.get(f"http://127.0.0.1:{port}/")

    assert response.status_code == 200
    # http.server logs each request on stderr: it lands in the same log
    assert await wait_for(lambda: '"GET / HTTP/1.1" 200' in log.read_text())


async def test_duplicate_running_name_is_an_error_listing_names(
        registry: BackgroundProcesses, ctx: ToolContext) -> None:
    first = await start(ctx, name="one", command="sleep 30")
    await start(ctx, name="two", command="sleep 30")

    again = await start(ctx, name="one", command="sleep 5")

    assert not again.ok
    assert "named 'one' is already running" in again.error
    assert f"one (pid {pid_in(first.llm_content)})" in again.error and "two (pid" in again.error
    assert len(registry.running()) == 2


async def test_a_finished_name_can_be_reused(registry: BackgroundProcesses,
                                             ctx: ToolContext) -> None:
    done = await start(ctx, name="job", command="echo first")
    again = await start(ctx, name="job", command="sleep 30")

    assert done.ok and "exited at once with code 0" in done.llm_content
    assert "first" in done.llm_content
    assert again.ok and "Started background process 'job'" in again.llm_content


async def test_stop_all_kills_the_whole_groups(registry: BackgroundProcesses,
                                               ctx: ToolContext) -> None:
    await start(ctx, name="a", command="sleep 30 & echo child $!; sleep 30")
    await start(ctx, name="b", command="trap '' TERM; sleep 30")  # needs SIGKILL
    log = ctx.output_dir / "bg-a.log"
    assert await wait_for(lambda: "child" in log.read_text())
    child = int(re.search(r"child (\d+)", log.read_text()).group(1))
    leaders = [p.pid for p in registry.running()]
    assert alive(child) and all(alive(pid) for pid in leaders)

    started = time.monotonic()
    await asyncio.to_thread(registry.stop_all, 1.0)

    assert time.monotonic() - started < 3
    for pid in [child, *leaders]:
        assert await wait_for(lambda pid=pid: not alive(pid), 2), pid
    assert registry.running() == []
    assert [p.alive for p in registry.processes()] == [False, False]


async def test_stop_one_by_name(registry: BackgroundProcesses, ctx: ToolContext) -> None:
    await start(ctx, name="keep_me", command="sleep 30")
    result = await start(ctx, name="stop_me", command="sleep 30")

    assert await asyncio.to_thread(registry.stop, "stop_me")
    assert not registry.stop("nobody")
    assert [p.name for p in registry.running()] == ["keep_me"]
    assert await wait_for(lambda: not alive(pid_in(result.llm_content)))


async def test_working_dir_and_its_cwd_alias(registry: BackgroundProcesses,
                                             ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()

    here = await start(ctx, name="pwd1", command="pwd", working_dir="sub")
    alias = await start(ctx, name="pwd2", command="pwd", cwd=str(tmp_path / "sub"))
    missing = await start(ctx, name="pwd3", command="pwd", working_dir="nowhere")

    assert f"\n{tmp_path / 'sub'}\n" in here.llm_content
    assert f"\n{tmp_path / 'sub'}\n" in alias.llm_content
    assert not missing.ok and "does not exist" in missing.error


async def test_a_failing_command_reports_its_exit_and_output(
        registry: BackgroundProcesses, ctx: ToolContext) -> None:
    result = await start(ctx, name="bad", command="echo oops >&2; exit 3")

    assert not result.ok
    assert result.error == "the background process exited with code 3"
    assert "oops" in result.llm_content


async def test_keep_setting_survives_the_exit_hook(registry: BackgroundProcesses,
                                                   tmp_path: Path) -> None:
    ctx = ToolContext(workdir=tmp_path, output_dir=tmp_path / "out",
                      settings=Settings(keep_background_processes=True))
    kept = await start(ctx, name="kept", command="sleep 30")
    plain = ToolContext(workdir=tmp_path, output_dir=tmp_path / "out")
    dropped = await start(plain, name="dropped", command="sleep 30")

    await asyncio.to_thread(registry.stop_at_exit)

    assert "keeps running after agent-tui exits" in kept.llm_content
    assert "agent-tui stops it when it exits" in dropped.llm_content
    assert alive(pid_in(kept.llm_content))
    assert await wait_for(lambda: not alive(pid_in(dropped.llm_content)))


def test_processes_are_stopped_when_the_interpreter_exits(tmp_path: Path) -> None:
    script = textwrap.dedent(f"""
        import asyncio
        from pathlib import Path
        from agent_tui.tools.background import BackgroundProcessTool
        from agent_tui.tools.base import ToolContext

        ctx = ToolContext(workdir=Path({str(tmp_path)!r}), output_dir=Path({str(tmp_path)!r}))
        call = BackgroundProcessTool().build({{"name": "srv", "command": "sleep 30"}}, ctx)
        result = asyncio.run(call.execute())
        print(result.llm_content)
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                         text=True, timeout=30, check=True).stdout

    pid = pid_in(out)
    deadline = time.monotonic() + 2
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(pid)


def test_validation_and_confirmation(ctx: ToolContext) -> None:
    tool = BackgroundProcessTool()
    with pytest.raises(ToolArgumentError, match="command is empty"):
        tool.build({"name": "x", "command": "  "}, ctx)
    with pytest.raises(ToolArgumentError, match="is not usable"):
        tool.build({"name": "../evil", "command": "true"}, ctx)
    invocation = tool.build({"name": "dev", "command": "npm run dev", "cwd": "web"}, ctx)
    confirmation = invocation.confirmation()
    assert tool.kind == ToolKind.EXECUTE
    assert confirmation.kind == "execute" and confirmation.command == "npm run dev"
    assert confirmation.working_dir == ctx.workdir / "web"
    assert invocation.describe() == "background_process dev: npm run dev"
