"""SWE-bench-like task sets as batch tasks (``agent-tui batch convert swebench``).

An instance is one JSON object with ``instance_id``, ``repo`` (``owner/name``),
``base_commit``, ``problem_statement``, and either a ``test_cmd`` (or ``test_command``) or
SWE-bench's ``FAIL_TO_PASS`` and ``PASS_TO_PASS`` test lists, with an optional
``test_patch`` (the tests that grade it, hidden from the agent). Each becomes a graded task
that runs in a worktree of the local clone of its repository: its setup moves the
worktree to the base commit, its check puts the test patch in, runs the tests and takes the
patch out again.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .batch import TasksError

PROMPT_LEAD = ("Resolve the following issue in this repository. Change the code, not the "
               "tests; the tests that check your fix are not shown to you.\n\n")
"""What comes before each instance's problem statement in its task's prompt."""
_MODIFIED = re.compile(r"^--- a/(.+)$", re.MULTILINE)
_BAD_ID_CHARS = re.compile(r"[^A-Za-z0-9._-]")


@dataclass(frozen=True, slots=True)
class Instance:
    """One instance of the task set, checked.

    Attributes:
        id: Its ``instance_id``, as a task id.
        repo: ``owner/name``.
        base_commit: The commit the work starts from.
        problem: The problem statement.
        test_command: The shell command whose exit status grades the work.
        test_patch: The patch that adds the grading tests ("" when none).
    """

    id: str
    repo: str
    base_commit: str
    problem: str
    test_command: str
    test_patch: str


def read_instances(path: Path) -> list[Instance]:
    """The instances of a JSON-lines file (or of one JSON array).

    Raises:
        TasksError: the file cannot be read, or an instance lacks a field or has one of
            the wrong kind; the message names the line (or the array's item).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TasksError(f"cannot read {path}: {exc.strerror or exc}") from None
    if text.lstrip().startswith("["):
        try:
            items = json.loads(text)
        except ValueError as exc:
            raise TasksError(f"{path}: not a JSON array ({exc}); write one object per line "
                             "or one array of objects") from None
        found = [(f"{path} item {n}", item) for n, item in enumerate(items, 1)]
    else:
        found = []
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    found.append((f"{path}:{number}", json.loads(line)))
                except ValueError as exc:
                    raise TasksError(f"{path}:{number}: not JSON ({exc}); write one instance "
                                     "object per line") from None
    instances = [_instance(where, data) for where, data in found]
    if not instances:
        raise TasksError(f"{path} has no instances; write one JSON object per line")
    return instances


def _instance(where: str, data: Any) -> Instance:
    if not isinstance(data, dict):
        raise TasksError(f"{where}: an instance is a JSON object")
    fields = {}
    for key in ("instance_id", "repo", "base_commit", "problem_statement"):
        value = data.get(key)
        if not isinstance(value, str) or not value.strip():
            raise TasksError(f"{where}: \"{key}\" must be a non-empty string")
        fields[key] = value.strip() if key != "problem_statement" else value
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", fields["repo"]):
        raise TasksError(f"{where}: \"repo\" must be owner/name, not {fields['repo']!r}")
    test_patch = data.get("test_patch") or ""
    if not isinstance(test_patch, str):
        raise TasksError(f"{where}: \"test_patch\" must be a patch (a string)")
    return Instance(task_id(fields["instance_id"]), fields["repo"], fields["base_commit"],
                    fields["problem_statement"], _test_command(where, data), test_patch)


def task_id(instance_id: str) -> str:
    """A task id for ``instance_id`` (characters a branch name cannot take become ``-``)."""
    return _BAD_ID_CHARS.sub("-", instance_id).lstrip(".-_")[:64] or "instance"


def _test_command(where: str, data: dict[str, Any]) -> str:
    """The instance's own test command, else pytest on its FAIL_TO_PASS and PASS_TO_PASS
    tests (SWE-bench counts an instance resolved when all of them pass)."""
    for key in ("test_cmd", "test_command"):
        if isinstance(data.get(key), str) and data[key].strip():
            return str(data[key])
    tests: list[str] = []
    for key in ("FAIL_TO_PASS", "PASS_TO_PASS"):
        value = data.get(key) or []
        if isinstance(value, str):  # the Hugging Face datasets carry the lists as JSON text
            try:
                value = json.loads(value)
            except ValueError:
                value = [value]
        if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
            raise TasksError(f"{where}: \"{key}\" must be a list of test names")
        tests += value
    if not tests:
        raise TasksError(f"{where}: no test command: give the instance a \"test_cmd\" or "
                         "FAIL_TO_PASS tests")
    return "python -m pytest -q -rA " + " ".join(shlex.quote(t) for t in tests)


def to_task(instance: Instance, folder: Path, patch_file: Path | None) -> dict[str, Any]:
    """The task line of ``instance``, run in a worktree of ``folder`` (its repository's
    clone); ``patch_file`` holds its test patch (None: it has none)."""
    base = shlex.quote(instance.base_commit)
    check = instance.test_command
    if patch_file is not None:
        patch = shlex.quote(str(patch_file))
        modified = sorted(set(_MODIFIED.findall(instance.test_patch)))
        # As SWE-bench's harness: the tests the patch touches go back to the base commit's
        # first, so a change the agent made to them cannot stop the patch applying.
        restore = (f"git checkout -q {base} -- {' '.join(shlex.quote(m) for m in modified)} && "
                   if modified else "")
        check = (f"{restore}git apply {patch} && {{ {check}; status=$?; "
                 f"git apply -R {patch}; exit $status; }}")
    return {"id": instance.id, "prompt": PROMPT_LEAD + instance.problem, "folder": str(folder),
            "worktree": True, "setup": f"git reset -q --hard {base}", "check": check}


def clone_candidates(repos: Path, repo: str) -> list[Path]:
    """Where a clone of ``repo`` (``owner/name``) may be under ``repos``, in the order
    looked at: ``owner__name`` (SWE-bench's own layout), ``owner/name``, ``name``."""
    owner, name = repo.split("/", 1)
    return [repos / f"{owner}__{name}", repos / owner / name, repos / name]


def find_clone(repos: Path, repo: str) -> Path | None:
    """The local clone of ``repo`` under ``repos`` (a folder with a ``.git``), or None."""
    for candidate in clone_candidates(repos, repo):
        if (candidate / ".git").exists():
            return candidate.resolve()
    return None
