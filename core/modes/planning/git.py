"""The plan's commit: which files the plan changed, and the commit command run as the
agent's ``shell`` tool call through the pipeline every tool call takes
(:mod:`agent_tui.core.calls`), so the hooks, the permission check, the approver and the
checkpoints treat it as any command the model runs (``git add``/``git commit`` write to
``.git``: asked in ``default`` mode, refused in ``plan`` mode, allowed in ``yolo``)."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from ...providers.base import ToolCallRequest

if TYPE_CHECKING:
    from ....tools.base import ToolResult
    from ...agent import Agent

COMMIT_CALL_ID = "planning-commit"
"""The id of the commit's tool call in events."""


def _git(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, check=False)
    except OSError as exc:  # no git installed: the project is treated as outside git
        return subprocess.CompletedProcess(["git", *args], 127, "", str(exc))


def git_root(folder: Path) -> Path | None:
    """The top of the git worktree ``folder`` is in, or None outside git."""
    done = _git(folder, "rev-parse", "--show-toplevel")
    return Path(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else None


def _status_paths(project: Path, root: Path) -> list[str]:
    """The changed and untracked files under ``project``, relative to ``root``."""
    done = _git(project, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".")
    entries = done.stdout.split("\0")
    paths: list[str] = []
    index = 0
    while index < len(entries):
        entry = entries[index]
        index += 1
        if len(entry) < 4:
            continue
        paths.append(entry[3:])
        if entry[0] in "RC":  # a rename's or copy's source follows it
            paths.append(entries[index])
            index += 1
    return paths


def _content_hash(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:  # deleted, or a folder (a submodule)
        return None


def worktree_state(project: Path) -> dict[str, str | None]:
    """The files already changed under ``project`` (relative to the git root), each with
    its content's hash (None: deleted); {} outside git."""
    root = git_root(project)
    if root is None:
        return {}
    return {path: _content_hash(root / path) for path in _status_paths(project, root)}


def changed_since(project: Path, baseline: dict[str, str | None]) -> list[str]:
    """The files under ``project`` changed since ``baseline`` (a :func:`worktree_state`),
    relative to ``project``: changed then and not now are left out, as are files that were
    already changed and still have the same content (the person's own work in progress)."""
    root = git_root(project)
    if root is None:
        return []
    changed = [path for path in _status_paths(project, root)
               if path not in baseline or baseline[path] != _content_hash(root / path)]
    return sorted({os.path.relpath(root / path, project) for path in changed})


def diff_stat(project: Path, paths: list[str]) -> str:
    """``git diff --stat`` of ``paths`` against HEAD (new files are not in it)."""
    if not paths:
        return ""
    return _git(project, "diff", "--stat", "HEAD", "--", *paths).stdout


def commit_command(project: Path, paths: list[str], message_file: str) -> str:
    """The command that stages ``paths`` and commits them, and only them (what the person
    had staged stays staged), with the message in ``message_file``; both relative to
    ``project``. A deletion git has already staged (a rename's source) is committed, not
    added: ``git add`` refuses a path that is in neither the worktree nor the index."""
    indexed = set(_git(project, "ls-files", "-z", "--", *paths).stdout.split("\0")) \
        if paths else set()
    added = [path for path in paths if os.path.lexists(project / path) or path in indexed]
    quoted = " ".join(shlex.quote(path) for path in paths)
    add = f"git add -A -- {' '.join(shlex.quote(path) for path in added)} && " if added else ""
    return f"{add}git commit -F {shlex.quote(message_file)} -- {quoted}"


def head_commit(project: Path) -> str | None:
    """HEAD's commit id, or None (no commits yet, or outside git)."""
    done = _git(project, "rev-parse", "--verify", "-q", "HEAD")
    return done.stdout.strip() or None


async def run_command(agent: Agent, command: str, call_id: str = COMMIT_CALL_ID) -> ToolResult:
    """Run ``command`` as ``agent``'s ``shell`` tool call, without a model, as every tool call
    runs: its events, the ``PreToolUse``/``PostToolUse`` hooks, the permission check and the
    approver (a refusal, or a hook that stops the work, comes back as a failed result), and
    a checkpoint of the project before it changes anything (it counts as the agent's last
    turn's)."""
    call = ToolCallRequest(call_id, "shell", json.dumps({"command": command}))
    return await agent.calls.run_own(call)
