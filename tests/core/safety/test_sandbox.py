"""The bubblewrap sandbox, with real bwrap and real processes (checked in /proc)."""

from __future__ import annotations

import asyncio
import os
import socket
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.safety.sandbox import (
    BwrapSandbox,
    SandboxUnavailable,
    check_bwrap,
    find_bwrap,
    make_sandbox,
    sandbox_problem,
)
from agent_tui.tools.background import (
    BackgroundProcesses,
    BackgroundProcessInvocation,
    BackgroundProcessTool,
)
from agent_tui.tools.base import ToolContext
from agent_tui.tools.shell import ShellTool
from tests.processes import alive, gone


def _bwrap_problem() -> str | None:
    try:
        check_bwrap(find_bwrap(), network=False)
    except SandboxUnavailable as exc:
        return str(exc)
    return None


BWRAP_PROBLEM = _bwrap_problem()
needs_bwrap = pytest.mark.skipif(
    BWRAP_PROBLEM is not None,
    reason=f"bubblewrap cannot run on this machine ({BWRAP_PROBLEM}); .ci/run installs it")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def ctx(tmp_path: Path, project: Path) -> ToolContext:
    return ToolContext(workdir=project, output_dir=tmp_path / "session" / "outputs",
                       sandbox=BwrapSandbox(tmp_path / "session" / "sandbox-tmp"))


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[BackgroundProcesses]:
    """A fresh registry for background_process; what a test started is stopped after it."""
    fresh = BackgroundProcesses()
    monkeypatch.setattr(BackgroundProcessInvocation, "registry", fresh)
    yield fresh
    fresh.stop_all(grace=0.5)


@pytest.fixture
def tcp_server() -> Iterator[int]:
    """A TCP server on 127.0.0.1 that accepts and closes connections; yields its port."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.1)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    server.close()


async def shell(ctx: ToolContext, command: str, on_output=None, **args: Any):
    return await ShellTool().build({"command": command, **args}, ctx).execute(on_output)


# Sleeps no other test (or other run) has: the tests find them by command line in /proc.
SLEEP = 5000 + os.getpid() % 4000


def connect(port: int) -> str:
    """A bash command that prints whether it could connect to ``port``."""
    return (f"if exec 3<>/dev/tcp/127.0.0.1/{port}; then echo connected; "
            "else echo refused; fi 2>/dev/null")


@needs_bwrap
async def test_the_project_is_writable(ctx: ToolContext, project: Path) -> None:
    result = await shell(ctx, "echo made > made.txt && mkdir -p sub && echo deep > sub/x")
    assert result.ok, result.llm_content
    assert (project / "made.txt").read_text() == "made\n"
    assert (project / "sub" / "x").read_text() == "deep\n"


@needs_bwrap
async def test_writing_outside_the_project_fails_read_only(ctx: ToolContext) -> None:
    target = Path.home() / f".agent-tui-sandbox-test-{os.getpid()}"
    result = await shell(ctx, f"touch {target}")
    assert not result.ok
    assert "Read-only file system" in result.llm_content
    assert not target.exists()


@needs_bwrap
async def test_root_cannot_remount_the_file_system_writable(ctx: ToolContext) -> None:
    """Run as root, bwrap would keep root's capabilities inside; they are dropped."""
    target = Path.home() / f".agent-tui-remount-test-{os.getpid()}"
    result = await shell(ctx, f"grep CapEff /proc/self/status; mount -o remount,rw / ; "
                              f"touch {target}")
    assert "CapEff:\t0000000000000000" in result.llm_content
    assert not target.exists()


@needs_bwrap
async def test_host_tmp_is_hidden_and_the_private_tmp_lasts_the_session(
        ctx: ToolContext, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    result = await shell(ctx, f"echo x > {outside}/leak.txt")
    assert not result.ok
    assert not (outside / "leak.txt").exists()

    assert (await shell(ctx, "echo kept > /tmp/note && echo $TMPDIR")).ok
    later = await shell(ctx, "cat /tmp/note")
    assert later.llm_content == "kept\nExit code: 0"
    assert (tmp_path / "session" / "sandbox-tmp" / "note").read_text() == "kept\n"
    assert not Path("/tmp/note").exists()


@needs_bwrap
async def test_agent_tuis_own_config_in_the_project_stays_read_only(
        ctx: ToolContext, project: Path) -> None:
    config = project / ".agent-tui" / "config.toml"
    config.parent.mkdir()
    config.write_text("approval_mode = 'default'\n")
    result = await shell(ctx, "echo \"approval_mode = 'yolo'\" >> .agent-tui/config.toml")
    assert not result.ok
    assert "Read-only file system" in result.llm_content
    assert config.read_text() == "approval_mode = 'default'\n"


@needs_bwrap
async def test_git_works_but_its_hooks_and_config_stay_read_only(
        ctx: ToolContext, project: Path) -> None:
    import subprocess

    subprocess.run(["git", "init", "-q", str(project)], check=True)
    git_config = (project / ".git" / "config").read_text()
    result = await shell(ctx, "echo hi > a.txt && git add a.txt && "
                              "git -c user.name=t -c user.email=t@t commit -qm one && git log "
                              "--oneline | wc -l")
    assert result.ok, result.llm_content
    assert result.llm_content.startswith("1\n")
    hook = await shell(ctx, "echo 'curl x | sh' > .git/hooks/pre-commit")
    assert not hook.ok and "Read-only file system" in hook.llm_content
    assert not (project / ".git" / "hooks" / "pre-commit").exists()
    hooks_path = await shell(ctx, "git config core.hooksPath /tmp/evil")
    assert not hooks_path.ok
    assert (project / ".git" / "config").read_text() == git_config


@needs_bwrap
async def test_the_network_is_off_unless_it_is_on(ctx: ToolContext, tcp_server: int) -> None:
    off = await shell(ctx, connect(tcp_server))
    assert off.llm_content.startswith("refused")
    ctx.network_enabled = True  # /net on, mid-session
    on = await shell(ctx, connect(tcp_server))
    assert on.llm_content.startswith("connected")
    ctx.network_enabled = False
    assert (await shell(ctx, connect(tcp_server))).llm_content.startswith("refused")


@needs_bwrap
async def test_cancelling_kills_the_sandboxed_process_group(ctx: ToolContext) -> None:
    seen: list[str] = []
    ready = asyncio.Event()

    def on_output(text: str) -> None:
        seen.append(text)
        if "started" in "".join(seen):
            ready.set()

    task = asyncio.create_task(shell(
        ctx, f"sleep {SLEEP}.1 & sleep {SLEEP}.1 & echo started; wait", on_output))
    await asyncio.wait_for(ready.wait(), 10)
    sleepers = await _running(f"sleep {SLEEP}.1", 2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for pid in sleepers:
        assert await gone(pid, 5.0)


@needs_bwrap
async def test_a_timeout_kills_the_sandboxed_command(ctx: ToolContext) -> None:
    result = await shell(ctx, f"sleep {SLEEP}.2 & echo started; wait", timeout=500)
    assert not result.ok and "timed out" in result.error
    assert "started" in result.llm_content
    deadline = time.monotonic() + 5
    while _processes_running(f"sleep {SLEEP}.2") and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert _processes_running(f"sleep {SLEEP}.2") == []


@needs_bwrap
async def test_a_background_process_is_sandboxed(
        ctx: ToolContext, project: Path, registry: BackgroundProcesses, tcp_server: int) -> None:
    target = Path.home() / f".agent-tui-sandbox-bg-{os.getpid()}"
    command = (f"touch {target}; echo inside > from_bg.txt; {connect(tcp_server)}; "
               f"echo ready; sleep {SLEEP}.3")
    result = await BackgroundProcessTool().build(
        {"name": "srv", "command": command}, ctx).execute()
    assert result.ok, result.llm_content
    proc = registry.get("srv")
    assert proc is not None
    deadline = time.monotonic() + 10
    while "ready" not in proc.log.read_text() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    log = proc.log.read_text()
    assert "Read-only file system" in log and "refused" in log
    assert not target.exists()
    assert (project / "from_bg.txt").read_text() == "inside\n"
    # Its log (under the session's folder, here in /tmp) is readable from a sandboxed shell.
    assert "ready" in (await shell(ctx, f"cat {proc.log}")).llm_content
    sleeper = await _running(f"sleep {SLEEP}.3", 1)
    assert proc.alive
    registry.stop("srv", grace=0.5)
    assert await gone(sleeper[0], 5.0)


async def test_missing_bwrap_on_path_is_a_clear_error_and_nothing_runs(
        ctx: ToolContext, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    result = await shell(ctx, "echo ran > ran.txt")
    assert not result.ok
    assert "bubblewrap (bwrap) is not installed" in result.error
    assert "apt-get install bubblewrap" in result.error and "--sandbox none" in result.error
    assert not (project / "ran.txt").exists()


async def test_a_bwrap_path_to_nothing_is_a_clear_error(
        tmp_path: Path, project: Path, registry: BackgroundProcesses) -> None:
    missing = tmp_path / "no" / "bwrap"
    ctx = ToolContext(workdir=project, output_dir=tmp_path / "out",
                      sandbox=BwrapSandbox(tmp_path / "stmp", str(missing)))
    result = await shell(ctx, "echo ran > ran.txt")
    assert not result.ok
    assert f"bwrap_path ({missing}) does not exist" in result.error
    assert "--sandbox none" in result.error
    background = await BackgroundProcessTool().build(
        {"name": "x", "command": "echo ran > ran.txt"}, ctx).execute()
    assert not background.ok and "bwrap_path" in background.error
    assert registry.processes() == []
    assert not (project / "ran.txt").exists()


async def test_bwrap_that_cannot_build_a_sandbox_is_a_clear_error(
        tmp_path: Path, project: Path) -> None:
    # What bwrap says where user namespaces are off.
    broken = tmp_path / "bwrap"
    broken.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace, likely "
                      "because the kernel does not allow non-privileged user namespaces.' >&2\n"
                      "exit 1\n")
    broken.chmod(broken.stat().st_mode | stat.S_IXUSR)
    ctx = ToolContext(workdir=project, output_dir=tmp_path / "out",
                      sandbox=BwrapSandbox(tmp_path / "stmp", str(broken)))
    result = await shell(ctx, "echo ran > ran.txt")
    assert not result.ok
    assert "cannot build a sandbox here: bwrap: No permissions" in result.error
    assert "user namespaces" in result.error and "--sandbox none" in result.error
    assert not (project / "ran.txt").exists()


async def test_bwrap_that_fails_for_another_reason_is_reported_in_its_own_words(
        tmp_path: Path, project: Path) -> None:
    # What bwrap says in a container that refuses to mount /proc: user namespaces work there.
    broken = tmp_path / "bwrap"
    broken.write_text("#!/bin/sh\necho 'bwrap: Can'\"'\"'t mount proc on /newroot/proc: "
                      "Operation not permitted' >&2\nexit 1\n")
    broken.chmod(broken.stat().st_mode | stat.S_IXUSR)
    ctx = ToolContext(workdir=project, output_dir=tmp_path / "out",
                      sandbox=BwrapSandbox(tmp_path / "stmp", str(broken)))
    result = await shell(ctx, "echo ran > ran.txt")
    assert not result.ok
    assert ("cannot build a sandbox here: bwrap: Can't mount proc on /newroot/proc: "
            "Operation not permitted." in result.error)
    assert "user namespaces" not in result.error and "--sandbox none" in result.error
    assert not (project / "ran.txt").exists()


@needs_bwrap
async def test_a_working_dir_hidden_by_the_private_tmp_is_a_clear_error(
        ctx: ToolContext, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = await shell(ctx, "pwd", working_dir=str(elsewhere))
    assert not result.ok
    assert "replaces with a private temp folder" in result.error


def test_settings_choose_the_sandbox(tmp_path: Path) -> None:
    from agent_tui.core.config import Settings

    assert make_sandbox(Settings(), tmp_path) is None
    sandbox = make_sandbox(Settings(sandbox="bwrap", bwrap_path="/opt/bwrap",
                                    keep_background_processes=True), tmp_path)
    assert isinstance(sandbox, BwrapSandbox)
    assert (sandbox.binary, sandbox.tmp_dir, sandbox.keep_tmp) == ("/opt/bwrap", tmp_path, True)
    assert sandbox_problem(Settings()) is None
    assert "does not exist" in (sandbox_problem(
        Settings(sandbox="bwrap", bwrap_path=str(tmp_path / "nope"))) or "")


async def _running(needle: str, count: int) -> list[int]:
    """The pids of ``count`` processes running ``needle``, once they all have started."""
    deadline = time.monotonic() + 10
    while len(found := _processes_running(needle)) < count:
        assert time.monotonic() < deadline, f"{count} x {needle!r} never started"
        await asyncio.sleep(0.02)
    assert len(found) == count
    return found


def _processes_running(needle: str) -> list[int]:
    """Pids of live processes whose command line contains ``needle``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if needle in cmdline and not cmdline.startswith(("bwrap", "/usr/bin/bwrap")) \
                and "bash" not in cmdline and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


@needs_bwrap
async def test_the_agent_runs_commands_in_the_sandbox(fake_provider, tmp_path: Path) -> None:
    from tests.core.loop_helpers import run
    from tests.fakes.providers import Reply, ToolCall

    project = tmp_path / "work"
    project.mkdir()
    target = Path.home() / f".agent-tui-sandbox-loop-{os.getpid()}"
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": f"echo ok > in.txt; touch {target}"})]),
        Reply(text="done"),
    )
    outcome = await run(fake_provider, project, approval_mode="yolo", sandbox="bwrap")
    assert outcome.code == 0, outcome.stderr
    seen = fake_provider.requests[1].tool_results()[0]["content"]
    assert "Read-only file system" in seen
    assert (project / "in.txt").read_text() == "ok\n"
    assert not target.exists()


def test_the_sandbox_flag_and_a_missing_bwrap_on_the_command_line(
        fake_provider, tmp_path: Path) -> None:
    import json

    from tests.fakes.providers import Reply, ToolCall
    from tests.tui.cli.test_cli import agent_tui, fake_flags

    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "echo ran > ran.txt"})]),
        Reply(text="done"),
    )
    missing = tmp_path / "no-bwrap"
    done = agent_tui("-p", "run it", "--output-format", "stream-json", "--sandbox", "bwrap",
                     "--approval-mode", "yolo", *fake_flags(fake_provider), cwd=tmp_path,
                     env_extra={"AGENT_TUI_BWRAP_PATH": str(missing)})
    assert done.returncode == 0, done.stderr
    assert f"warning: the sandbox is on but bwrap_path ({missing}) does not exist" in done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines()
               if json.loads(line)["type"] == "tool_result"]
    assert not results[0]["ok"] and "--sandbox none" in results[0]["output"]
    assert not (tmp_path / "ran.txt").exists()

    bad = agent_tui("-p", "x", "--sandbox", "docker", cwd=tmp_path)
    assert bad.returncode == 2 and "--sandbox" in bad.stderr
