"""One worker of ``agent-tui batch``: a process that imports the engine (and litellm) once and
runs task after task, each as a headless run with its own session.

It reads ``{"task": …, "overrides": …}`` lines on stdin and answers each with one result
line on stdout; stdout carries nothing else (whatever a library prints goes to stderr, which
the batch keeps in the worker's log). Nothing here imports textual.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from ...core.modes.batch import Task

CHECK_OUTPUT = 2_000
"""Characters of the end of a setup's or check's output a result keeps."""
LOG_TAIL = 1_500
"""Characters of a dead worker's log told in its task's result."""


def run_task(task: Task, overrides: dict[str, Any], log: TextIO) -> dict[str, Any]:
    """Run one task to its end (setup, agent, check); its result line (never raises for the
    task's own failures)."""
    started = time.monotonic()
    result: dict[str, Any] = {"id": task.id, "status": "failed", "folder": str(task.folder),
                              "passed": None}
    try:
        asyncio.run(_run_task(task, overrides, log, result))
    finally:
        if task.worktree and "worktree" in result:
            _worktree_ended(task, result)
        result["wall_time"] = round(time.monotonic() - started, 3)
        result.setdefault("duration", 0.0)
    return result


async def _run_task(task: Task, overrides: dict[str, Any], log: TextIO,
                    result: dict[str, Any]) -> None:
    """Fill ``result`` in as the task's setup, agent run and check go."""
    from ...core.config import ConfigError, read_settings
    from ...core.safety.subprocess_env import subprocess_env
    from ...core.sessions.log import SessionError
    from ...core.sessions.start import close_session, open_session
    from .cli_parser import default_model
    from .headless import run_headless

    folder = task.folder
    try:
        if task.worktree:
            folder = _worktree_for(task)
            result["worktree"] = str(folder)
            result["branch"] = f"agent-tui/batch-{task.id}"
        settings = read_settings(folder, {**overrides, **task.settings}).validate()
        if not settings.model and (model := default_model()) is not None:
            settings = settings.model_copy(update={"model": model})
        if not settings.model:
            raise ConfigError("no model configured; pass --model to agent-tui batch or give "
                              "the task a \"model\"")
        env = subprocess_env(settings)  # the agent's shell's: the worker's, keys left out
        if task.setup is not None and not await _setup(task, folder, env, log, result):
            return
        session = open_session(folder, settings.model)
    except Exception as exc:  # noqa: BLE001 - said in the task's result, the batch goes on
        result["error"] = str(exc)
        return
    out = io.StringIO()
    log.write(f"--- task {task.id} in {folder}\n")
    agent_started = time.monotonic()
    code, timed_out = 1, False
    try:
        code = await asyncio.wait_for(
            run_headless(settings, folder, task.prompt, "json", out, log, session=session),
            task.timeout)
    except TimeoutError:
        timed_out = True
    except (SessionError, OSError) as exc:
        result["error"] = str(exc)
    finally:
        close_session(session)
    result["duration"] = round(time.monotonic() - agent_started, 3)
    run = _last_json(out.getvalue())
    usage = run.get("usage") or {}
    calls = run.get("model_calls", 0)
    if timed_out:
        calls, usage = _usage_so_far(session.store.session_id)
    result.update(
        status=_agent_status(code, run, usage, settings.max_cost, timed_out),
        # turns: the deprecated name of model_calls in the results file.
        answer=run.get("text", ""), model_calls=calls, turns=calls,
        tokens={k: usage.get(k, 0) for k in ("prompt_tokens", "completion_tokens",
                                              "total_tokens", "cache_read_tokens",
                                              "cache_write_tokens", "reasoning_tokens")},
        cost=usage.get("cost"), session_id=session.store.session_id,
        changed_files=_changed(task, folder, session.store.session_id))
    if timed_out:
        result["error"] = (f"the agent was stopped after its timeout of {task.timeout:g} s; "
                           "give the task a larger \"timeout\" if it needs more time")
    if run.get("error") and "error" not in result:
        result["error"] = run["error"]
    if code == 2:
        result["error"] = result.get("error") or "the run did not start (usage error)"
    if task.check is not None:
        await _check(task, folder, env, log, result)


def _agent_status(code: int, run: dict[str, Any], usage: dict[str, Any],
                  max_cost: float | None, timed_out: bool) -> str:
    """How the agent's run ended, as a result's status."""
    if timed_out:
        return "timeout"
    if code == 0 and run.get("ok", False):
        return "done"
    cost = usage.get("cost")
    if max_cost is not None and isinstance(cost, int | float) and cost >= max_cost:
        return "over_budget"
    return "failed"


async def _setup(task: Task, folder: Path, env: dict[str, str], log: TextIO,
                 result: dict[str, Any]) -> bool:
    """Run the task's setup; False (with the result saying why) when it failed."""
    from ...core.after_turn import run_command

    assert task.setup is not None
    log.write(f"--- setup of {task.id}: {task.setup}\n")
    outcome = await run_command(task.setup, folder, env, task.command_timeout, "the task's timeout")
    if outcome.passed:
        if task.worktree:
            _rebase_record(task, folder)  # a setup that checks out a commit starts there
        return True
    result["status"] = "setup_failed"
    result["setup_output"] = outcome.output[-CHECK_OUTPUT:]
    ended = f"exited {outcome.exit_code}" if outcome.exit_code is not None else \
        f"did not finish in {task.command_timeout:g} s"
    result["error"] = (f"the setup command {ended}, so the agent did not run; the end of "
                       "its output is in setup_output")
    return False


async def _check(task: Task, folder: Path, env: dict[str, str], log: TextIO,
                 result: dict[str, Any]) -> None:
    """Run the task's check and grade the task by its exit status."""
    from ...core.after_turn import run_command

    assert task.check is not None
    log.write(f"--- check of {task.id}: {task.check}\n")
    outcome = await run_command(task.check, folder, env, task.command_timeout, "the task's timeout")
    result["check_output"] = outcome.output[-CHECK_OUTPUT:]
    if outcome.exit_code is None:
        problem = (f"the check did not finish in {task.command_timeout:g} s"
                   if outcome.duration >= task.command_timeout else
                   f"the check could not start ({outcome.output.strip()})")
    elif outcome.exit_code in (126, 127):  # bash: not executable, or not found
        problem = (f"the check could not run (exit {outcome.exit_code}: its command was not "
                   "found or not executable)")
    else:
        result["passed"] = outcome.exit_code == 0
        return
    if result["status"] == "done":
        result["status"] = "check_error"
        result["error"] = f"{problem}; the end of its output is in check_output"
    else:
        result["check_output"] = f"{result['check_output']}\n[{problem}]".lstrip("\n")


def _usage_so_far(session_id: str) -> tuple[int, dict[str, Any]]:
    """The model calls and usage a session's log recorded (a run stopped before it could
    say them itself)."""
    from ...core.sessions.log import SessionNotFound, read_events

    try:
        records = read_events(session_id).events
    except SessionNotFound:
        return 0, {}
    usages = [r for r in records if r.get("type") == "usage"]
    return len(usages), dict(usages[-1].get("session") or {}) if usages else {}


def _rebase_record(task: Task, folder: Path) -> None:
    """Count the worktree's changes from the commit its setup left it on."""
    import subprocess

    from ...core.modes.studio import project_root, save
    from ...core.modes.studio.registry import load

    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, capture_output=True,
                          text=True, check=False)
    record = load(project_root(task.folder), f"batch-{task.id}")
    if record is not None and head.returncode == 0 and head.stdout.strip() != record.base:
        record.base = head.stdout.strip()
        save(record)


def _worktree_for(task: Task) -> Path:
    """A studio worktree for the task (a leftover of an earlier, unfinished try is replaced)."""
    from ...core.modes.studio import StudioSession, create, project_root, save, worktree_folder
    from ...core.modes.studio.registry import forget, load
    from ...core.modes.studio.worktrees import remove

    root = project_root(task.folder)
    name = f"batch-{task.id}"
    folder = worktree_folder(root, name)
    if load(root, name) is not None:
        remove(root, folder, name)
        forget(root, name)
    base = create(root, name, folder)
    save(StudioSession(name, str(root), str(folder), base, task.prompt, pid=os.getpid()))
    return folder / task.folder.relative_to(root)


def _worktree_ended(task: Task, result: dict[str, Any]) -> None:
    """Tell the task's studio record how it ended (``agent-tui studio list`` shows it)."""
    from ...core.modes.studio import project_root, save
    from ...core.modes.studio.registry import load

    root = project_root(task.folder)
    record = load(root, f"batch-{task.id}")
    if record is not None:
        record.state, record.pid = result["status"], None
        record.session_id = result.get("session_id")
        record.model_calls = result.get("model_calls", 0)
        record.cost, record.error = result.get("cost"), result.get("error")
        record.answer = str(result.get("answer", ""))[:2000]
        save(record)


def _changed(task: Task, folder: Path, session_id: str) -> list[str]:
    """What the task changed: the worktree's changes, else the files its file tools wrote."""
    if task.worktree:
        from ...core.modes.studio import changes, project_root
        from ...core.modes.studio.registry import load

        root = project_root(task.folder)
        record = load(root, f"batch-{task.id}")
        if record is None:
            return []
        return [c.path for c in changes(Path(record.worktree), record.base)]
    from ...core.sessions.log import read_events
    from ...tools.names import EDIT_TOOLS

    written: list[str] = []
    calls: dict[str, str] = {}
    for record in read_events(session_id).events:
        if record.get("type") == "tool_call" and record.get("name") in EDIT_TOOLS:
            path = (record.get("args") or {}).get("file_path")
            if isinstance(path, str):
                calls[record["id"]] = path
        elif record.get("type") == "tool_result" and record.get("ok") and \
                record.get("id") in calls:
            path = os.path.normpath(calls[record["id"]])
            if path not in written:
                written.append(path)
    return written


def _last_json(text: str) -> dict[str, Any]:
    for line in reversed(text.strip().splitlines()):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict):
            return data
    return {}


class Worker:
    """One worker process and its log."""

    def __init__(self, process: asyncio.subprocess.Process, log: Path) -> None:
        self.process = process
        self.log = log

    @classmethod
    async def start(cls, log: Path) -> Worker:
        """A worker with litellm imported and ready for tasks."""
        with log.open("ab") as handle:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "agent_tui.tui.cli.batch_worker",
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=handle,
                limit=64 * 1024 * 1024)
        worker = cls(process, log)
        assert process.stdout is not None
        await process.stdout.readline()  # {"ready": pid}, or EOF when it could not start
        return worker

    async def run(self, task: Task, overrides: dict[str, Any]) -> dict[str, Any] | None:
        """The task's result, or None when the worker died before giving it."""
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(json.dumps(
                {"task": task.to_dict(), "overrides": overrides}).encode() + b"\n")
            await self.process.stdin.drain()
            line = await self.process.stdout.readline()
        except (BrokenPipeError, ConnectionResetError):
            line = b""
        if not line:
            await self.process.wait()
            return None
        result: dict[str, Any] = json.loads(line)
        result["worker_pid"] = self.process.pid
        return result

    def died(self, task: Task) -> dict[str, Any]:
        """The result of the task this worker died running: failed, with the end of its log."""
        return {"id": task.id, "status": "failed", "folder": str(task.folder),
                "error": f"the worker died ({self.exit_description()}); "
                f"the end of its log:\n{self.log_tail()}"}

    def exit_description(self) -> str:
        code = self.process.returncode
        if code is not None and code < 0:
            return f"killed by signal {-code}"
        return f"exit code {code}"

    def log_tail(self) -> str:
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")[-LOG_TAIL:].strip()
        except OSError:
            return "(no log)"

    async def stop(self) -> None:
        """Close its input and wait for it to end (killed after 10 s)."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), 10)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            await self.process.wait()


def _end_with_parent() -> None:
    """Have the kernel end this worker when the process that started it dies (a batch driver
    or a Ray worker killed mid-task): its stdin closing only ends it between tasks, and a task
    left running would go on editing its folder beside the rerun of the same task."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    parent = os.getppid()
    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent:  # it died before the kernel was told
        os._exit(1)


def main() -> int:
    """Serve tasks from stdin until it closes."""
    _end_with_parent()
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1, encoding="utf-8")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints go to the log
    from ...core.providers.litellm import preload

    preload()  # litellm's import, paid once for every task this worker runs
    protocol.write(json.dumps({"ready": os.getpid()}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        result = run_task(Task.from_dict(message["task"]), message["overrides"], sys.stderr)
        result["worker_peak_mb"] = round(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
        sys.stderr.flush()
        protocol.write(json.dumps(result, ensure_ascii=False, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
