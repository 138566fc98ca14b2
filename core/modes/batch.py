"""Batch runs: the tasks file, the results file, and resuming a batch that was stopped.

A tasks file has one JSON object per line::

    {"id": "t1", "prompt": "add a --verbose flag", "folder": "services/api"}
    {"id": "t2", "prompt": "port the tests to pytest", "worktree": true, "model": "openai/gpt-4.1"}

``prompt`` is required; ``id`` defaults to ``line-N``; ``folder`` (relative to the batch's
folder) defaults to it; ``worktree`` runs the task in a studio worktree of the folder's git
repository (``agent-tui studio accept batch-ID`` keeps its work); ``model``,
``approval_mode``, ``max_turns`` and ``max_cost`` override the batch's flags for that task.

A graded task also has ``setup`` (a shell command run in the task's folder before the agent)
and ``check`` (one run after it; its exit status is the grade), and may limit the agent's run
to ``timeout`` seconds (setup and check get the same limit each, or
:data:`COMMAND_TIMEOUT` when the task sets none).

The results file gets one JSON object per finished task, appended and synced as each ends, so
a batch stopped half-way goes on where it stopped when it is run again. Its ``status`` is one
of :data:`STATUSES`.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TASK_KEYS = frozenset({"id", "prompt", "folder", "worktree", "model", "approval_mode",
                       "max_turns", "max_cost", "setup", "check", "timeout"})
"""The keys a task may have."""
TASK_SETTINGS = ("model", "approval_mode", "max_turns", "max_cost")
"""A task's keys that override the batch's settings."""
COMMAND_TIMEOUT = 1800.0
"""Seconds a task's setup or check may run when the task gives no ``timeout``."""
STATUSES = {
    "done": "the agent finished its work (``passed`` grades it when the task has a check)",
    "failed": "the agent or its provider failed, or the task could not start",
    "setup_failed": "the setup command exited non-zero or ran out of time; the agent did not run",
    "timeout": "the agent ran out of the task's timeout and was stopped",
    "over_budget": "the session's cost reached max_cost and the agent was stopped",
    "check_error": "the agent finished but the check could not run or ran out of time",
}
"""Each result status and what it means; every one but ``done`` is a failure."""
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class TasksError(Exception):
    """The tasks file cannot be run; the message names the line and what to fix."""


@dataclass(frozen=True, slots=True)
class Task:
    """One task of a batch.

    Attributes:
        id: Its id (unique in the file).
        prompt: What the agent is asked.
        folder: Where it runs (absolute).
        worktree: Run it in a studio worktree of the folder's repository.
        settings: Settings it overrides (model, approval_mode, max_turns, max_cost).
        setup: A shell command run in its folder before the agent (None: none).
        check: A shell command run in its folder after the agent; exit 0 passes the task.
        timeout: Seconds the agent may run (None: no limit); setup and check each get as
            many, or :data:`COMMAND_TIMEOUT`.
    """

    id: str
    prompt: str
    folder: Path
    worktree: bool = False
    settings: dict[str, Any] = field(default_factory=dict)
    setup: str | None = None
    check: str | None = None
    timeout: float | None = None

    @property
    def command_timeout(self) -> float:
        """Seconds its setup, and then its check, may run."""
        return self.timeout if self.timeout is not None else COMMAND_TIMEOUT

    def to_dict(self) -> dict[str, Any]:
        """The task as a worker receives it."""
        return {"id": self.id, "prompt": self.prompt, "folder": str(self.folder),
                "worktree": self.worktree, "settings": self.settings, "setup": self.setup,
                "check": self.check, "timeout": self.timeout}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Task:
        """The task :meth:`to_dict` made."""
        return cls(data["id"], data["prompt"], Path(data["folder"]), bool(data["worktree"]),
                   dict(data["settings"]), data.get("setup"), data.get("check"),
                   data.get("timeout"))


def read_tasks(path: Path, base: Path) -> list[Task]:
    """The tasks of the file at ``path``; folders resolve against ``base``.

    Raises:
        TasksError: a line is not a JSON object, lacks a prompt, has an unknown key, a
            bad id or a duplicate one, a setup, check, timeout or max_cost of the wrong
            kind, or names a folder that does not exist.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise TasksError(f"cannot read {path}: {exc.strerror or exc}") from None
    tasks: list[Task] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = json.loads(line)
        except ValueError as exc:
            # A JSONDecodeError, or a plain ValueError for an integer too long to convert,
            # whose message ends in advice meant for programmers.
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc).partition(":")[0]
            raise TasksError(f"{where}: not JSON ({why}); write one object per line") \
                from None
        if not isinstance(data, dict):
            raise TasksError(f"{where}: a task is a JSON object with at least a \"prompt\"")
        unknown = sorted(set(data) - TASK_KEYS)
        if unknown:
            raise TasksError(f"{where}: unknown key {', '.join(unknown)}; a task takes "
                             f"{', '.join(sorted(TASK_KEYS))}")
        prompt = data.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            raise TasksError(f"{where}: \"prompt\" must be a non-empty string")
        task_id = str(data.get("id", f"line-{number}"))
        if not _ID.match(task_id):
            raise TasksError(f"{where}: id {task_id!r} must be letters, digits, '.', '_' or "
                             "'-' (it names a branch when the task runs in a worktree)")
        if task_id in seen:
            raise TasksError(f"{where}: the id {task_id!r} is used twice; ids must be unique")
        seen.add(task_id)
        folder = (base / str(data.get("folder", "."))).expanduser().resolve()
        if not folder.is_dir():
            raise TasksError(f"{where}: the folder {folder} does not exist")
        commands = {key: _command(data, key, where) for key in ("setup", "check")}
        timeout = _positive(data, "timeout", where, "seconds the agent may run")
        _positive(data, "max_cost", where, "US dollars the task may spend")
        tasks.append(Task(task_id, prompt, folder, bool(data.get("worktree", False)),
                          {k: data[k] for k in TASK_SETTINGS if k in data},
                          commands["setup"], commands["check"], timeout))
    if not tasks:
        raise TasksError(f"{path} has no tasks; write one JSON object per line, e.g. "
                         '{"id": "t1", "prompt": "…"}')
    return tasks


def _command(data: dict[str, Any], key: str, where: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise TasksError(f"{where}: \"{key}\" must be a shell command (a non-empty string), "
                         f"e.g. \"{key}\": \"make test\"")
    return value


def _positive(data: dict[str, Any], key: str, where: str, meaning: str) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise TasksError(f"{where}: \"{key}\" must be a number above 0 ({meaning}), "
                         f"not {json.dumps(value)}")
    return float(value)


def task_failed(result: dict[str, Any]) -> bool:
    """Whether a result line counts as a failure: any status but ``done``, or a check that
    did not pass."""
    return result.get("status") != "done" or result.get("passed") is False


def finished_ids(results: Path, *, retry_failed: bool = False) -> set[str]:
    """Ids the results file already has a result for (failed ones, as :func:`task_failed`
    says, left out when ``retry_failed``); a torn last line (a crash mid-write) is
    ignored."""
    try:
        lines = results.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return set()
    done: set[str] = set()
    for line in lines:
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and "id" in data:
            if retry_failed and task_failed(data):
                done.discard(str(data["id"]))
                continue
            done.add(str(data["id"]))
    return done


def append_result(results: Path, result: dict[str, Any]) -> None:
    """Append one result line and sync it to disk before going on."""
    results.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(result, ensure_ascii=False) + "\n"
    with results.open("a+b") as handle:
        handle.seek(0, os.SEEK_END)
        if handle.tell() > 0:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) != b"\n":  # a line torn by a crash stays apart from this one
                line = "\n" + line
        handle.write(line.encode("utf-8"))
        handle.flush()
        os.fsync(handle.fileno())
