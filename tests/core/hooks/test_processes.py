"""How hook processes run: concurrently, killed as a group, capped, and never when not needed."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agent_tui.core.hooks import HookRunner, HookSet, load_hooks
from agent_tui.core.hooks.process import OUTPUT_LIMIT
from tests.core.hooks.conftest import hook_entry
from tests.processes import alive, gone

Script = Callable[[str], str]


@pytest.fixture
def pid_file(tmp_path: Path) -> Iterator[Path]:
    """Where a hook writes the pid of a child it starts; that child is killed afterwards."""
    path = tmp_path / "child.pid"
    yield path
    if path.exists() and alive(pid := int(path.read_text())):
        os.kill(pid, signal.SIGKILL)


async def _wait_for(path: Path) -> None:
    async with asyncio.timeout(30):
        while not path.exists() or not path.read_text().strip():
            await asyncio.sleep(0.02)


async def test_a_hook_past_its_timeout_is_killed_with_its_children(runner, script: Script,
                                                                   pid_file: Path):
    hooks = runner(hook_entry("PreToolUse", script(f"sleep 100 &\necho $! > {pid_file}\nwait"),
                              timeout=1))
    verdict = await hooks.pre_tool_use("shell", {}, "c")
    assert verdict.decision is None
    [failure] = verdict.failures
    assert "did not finish within 1 s and was killed; the call goes on" in failure
    assert "raise its `timeout`" in failure
    assert await gone(int(pid_file.read_text()), within=10)


async def test_cancelling_the_awaiting_task_kills_the_hook_and_its_children(
        runner, script: Script, pid_file: Path):
    hooks = runner(hook_entry("Stop", script(f"sleep 100 &\necho $! > {pid_file}\nwait")))
    task = asyncio.ensure_future(hooks.stop("Done."))
    await _wait_for(pid_file)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await gone(int(pid_file.read_text()), within=10)


async def test_a_background_child_holding_the_output_open_does_not_hold_up_the_answer(
        runner, script: Script, pid_file: Path):
    hooks = runner(hook_entry("SessionStart", script(
        f"sleep 100 &\necho $! > {pid_file}\necho 'context before exit'")))
    outcome = await asyncio.wait_for(hooks.session_start("startup"), timeout=30)
    assert (outcome.context, outcome.failures) == ("context before exit", [])


async def test_matching_hooks_of_an_event_run_at_the_same_time(runner, script: Script,
                                                               tmp_path: Path):
    def waits_for(mine: str, other: str) -> str:
        # Each starts, then waits for the other: one after the other, neither would finish.
        return hook_entry("PreToolUse", script(
            f"touch {tmp_path}/{mine}\n"
            f"for i in $(seq 1 600); do [ -e {tmp_path}/{other} ] && exit 0; sleep 0.05; done\n"
            "echo 'the other hook never started' >&2; exit 1"), timeout=60)

    hooks = runner(waits_for("a", "b"), waits_for("b", "a"))
    verdict = await hooks.pre_tool_use("shell", {}, "c")
    assert verdict.failures == []


@pytest.mark.parametrize("call", [
    lambda r: r.pre_tool_use("shell", {}, "c"),
    lambda r: r.post_tool_use("shell", {}, "c", True, "out"),
    lambda r: r.user_prompt_submit("hi"),
    lambda r: r.stop("Done."),
    lambda r: r.session_start("startup"),
])
async def test_without_hooks_each_event_returns_at_once_and_starts_nothing(
        call, project: Path, monkeypatch: pytest.MonkeyPatch):
    async def no_spawning(*args: object, **kwargs: object) -> None:
        raise AssertionError("a process was started")

    monkeypatch.setattr(asyncio, "create_subprocess_exec", no_spawning)
    coro = call(HookRunner(HookSet(), project, "s"))
    with pytest.raises(StopIteration) as done:  # finished without ever suspending
        coro.send(None)
    assert done.value.value.failures == []


async def test_hooks_for_other_tools_or_events_are_not_started(runner, script: Script,
                                                              tmp_path: Path):
    marker = tmp_path / "ran"
    hooks = runner(hook_entry("PreToolUse", script(f"touch {marker}"), matcher="write_file"),
                   hook_entry("Stop", script(f"touch {marker}")))
    await hooks.pre_tool_use("shell", {}, "c")
    await hooks.post_tool_use("write_file", {}, "c", True, "")
    await hooks.user_prompt_submit("hi")
    assert not marker.exists()


async def test_output_past_the_limit_is_dropped_without_blocking_the_hook(runner,
                                                                         script: Script):
    hooks = runner(hook_entry("SessionStart", script(
        "head -c 1000000 /dev/zero | tr '\\0' x; head -c 1000000 /dev/zero >&2")))
    outcome = await hooks.session_start("startup")
    assert outcome.failures == []
    assert outcome.context == "x" * OUTPUT_LIMIT


async def test_a_hook_that_cannot_start_is_reported(tmp_path: Path, user_config: Path,
                                                    project: Path):
    user_config.write_text(hook_entry("UserPromptSubmit", "true"))
    hooks = HookRunner(load_hooks(project), tmp_path / "gone", "s")
    verdict = await hooks.user_prompt_submit("hi")
    assert not verdict.blocked
    [failure] = verdict.failures
    assert "hook `true` (UserPromptSubmit, from" in failure
    assert "could not start" in failure and "the prompt goes on" in failure
