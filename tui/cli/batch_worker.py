"""One worker of ``agent-tui batch``: a process that imports the engine (and litellm) once and
runs task after task, each as a headless run with its own session.

It reads ``{"task": …, "overrides": …}`` lines on stdin and answers each with one result
line on stdout; stdout carries nothing else (whatever a library prints goes to stderr, which
the batch keeps in the worker's log). Nothing here imports textual.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from ...core.modes.batch import Task


def run_task(task: Task, overrides: dict[str, Any], log: TextIO) -> dict[str, Any]:
    """Run one task to its end; its result line (never raises for the task's own failures)."""
    from ...core.config import ConfigError, read_settings
    from ...core.sessions.log import SessionError
    from ...core.sessions.start import close_session, open_session
    from .cli_parser import default_model
    from .headless import run_headless

    started = time.monotonic()
    result: dict[str, Any] = {"id": task.id, "status": "failed", "folder": str(task.folder)}
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
        session = open_session(folder, settings.model)
    except Exception as exc:  # noqa: BLE001 - said in the task's result, the batch goes on
        result["error"] = str(exc)
        result["duration"] = round(time.monotonic() - started, 3)
        if task.worktree and "worktree" in result:
            _worktree_ended(task, result)
        return result
    out = io.StringIO()
    log.write(f"--- task {task.id} in {folder}\n")
    try:
        code = asyncio.run(run_headless(settings, folder, task.prompt, "json", out, log,
                                        session=session))
    except (SessionError, OSError) as exc:
        code, result["error"] = 1, str(exc)
    finally:
        close_session(session)
    run = _last_json(out.getvalue())
    usage = run.get("usage") or {}
    result.update(
        status="done" if code == 0 and run.get("ok", False) else "failed",
        # turns: the deprecated name of model_calls in the results file.
        answer=run.get("text", ""), model_calls=run.get("model_calls", 0),
        turns=run.get("model_calls", 0),
        tokens={k: usage.get(k, 0) for k in ("prompt_tokens", "completion_tokens",
                                              "total_tokens", "cache_read_tokens",
                                              "cache_write_tokens", "reasoning_tokens")},
        cost=usage.get("cost"), session_id=session.store.session_id,
        changed_files=_changed(task, folder, session.store.session_id),
        duration=round(time.monotonic() - started, 3))
    if run.get("error") and "error" not in result:
        result["error"] = run["error"]
    if code == 2:
        result["error"] = result.get("error") or "the run did not start (usage error)"
    if task.worktree:
        _worktree_ended(task, result)
    return result


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


def main() -> int:
    """Serve tasks from stdin until it closes."""
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
