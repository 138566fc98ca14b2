"""Committing a turn's files to the project's own git repository, and taking it back.

``auto_commit`` commits, at the end of a turn, exactly the files the turn changed (as its
checkpoints saw them) and nothing else: a file the person had changed or staged before the
turn is left out, so no change of theirs is swept into the agent's commit, and whatever
else is staged stays staged. The commit is built with plumbing on a temporary index
(``read-tree``, ``update-index``, ``commit-tree``, ``update-ref``), so no hook runs and the
person's index is touched only for the committed paths.

``/undo`` of such a turn removes the commit again (:func:`remove_commit`), but only while
HEAD is still that commit and its files are as it left them (:func:`undo_blocked`).

Every function blocks on git; call them off the event loop (``asyncio.to_thread``).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .checkpoints import FileChange
from .shadow_git import git_executable

GIT_TIMEOUT = 60.0
"""Seconds one git command of an auto-commit may take."""

_IN_PROGRESS = {
    "MERGE_HEAD": "a merge",
    "rebase-merge": "a rebase",
    "rebase-apply": "a rebase or `git am`",
    "CHERRY_PICK_HEAD": "a cherry-pick",
    "REVERT_HEAD": "a revert",
    "BISECT_LOG": "a bisect",
}


class AutoCommitError(Exception):
    """git failed; the message says what it said and what to do."""


@dataclass(frozen=True, slots=True)
class CommitPlan:
    """Which of a turn's files an auto-commit takes.

    Attributes:
        files: Project-relative paths to commit.
        left_out: Project-relative paths the turn changed that had the person's own
            uncommitted (or staged) changes before it, so they are not committed.
    """

    files: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)


class ProjectRepo:
    """The git repository the project folder is in (the folder may be a sub-folder of it).

    Args:
        top: The repository's work tree.
        prefix: The project folder relative to ``top``, POSIX, ending in ``/`` ("" at the top).
    """

    def __init__(self, top: Path, prefix: str) -> None:
        self.top = top
        self.prefix = prefix

    @classmethod
    def find(cls, workdir: Path) -> ProjectRepo | None:
        """The repository ``workdir`` is in; None when it is in none (or git is missing)."""
        if git_executable() is None:
            return None
        try:
            done = subprocess.run(
                ["git", "rev-parse", "--show-toplevel", "--show-prefix"],
                cwd=workdir,
                capture_output=True,
                text=True,
                timeout=GIT_TIMEOUT,
                check=False,
                env=_git_env(),
            )
        except (OSError, subprocess.SubprocessError):
            return None
        lines = done.stdout.splitlines()
        if done.returncode != 0 or not lines:
            return None
        return cls(Path(lines[0]), lines[1] if len(lines) > 1 else "")

    def git(
        self,
        *args: str,
        stdin: str | bytes | None = None,
        env: Mapping[str, str] | None = None,
        ok_codes: Sequence[int] = (0,),
    ) -> str:
        """Run git at the top of the work tree; its stdout.

        Raises:
            AutoCommitError: git could not run, or exited with a code not in ``ok_codes``.
        """
        data = stdin.encode() if isinstance(stdin, str) else stdin
        try:
            done = subprocess.run(
                ["git", "-c", "core.quotePath=false", *args],
                cwd=self.top,
                input=data,
                capture_output=True,
                timeout=GIT_TIMEOUT,
                check=False,
                env={**_git_env(), **(env or {})},
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise AutoCommitError(f"`git {args[0]}` could not run: {exc}") from exc
        if done.returncode not in ok_codes:
            said = done.stderr.decode(errors="replace").strip() or f"exit {done.returncode}"
            raise AutoCommitError(f"`git {args[0]}` failed: {said}")
        return done.stdout.decode(errors="replace")

    def status(self, args: Sequence[str]) -> int:
        """The exit code of ``git ARGS`` (for the ``--quiet`` comparisons)."""
        try:
            return subprocess.run(
                ["git", *args],
                cwd=self.top,
                capture_output=True,
                timeout=GIT_TIMEOUT,
                check=False,
                env=_git_env(),
            ).returncode
        except (OSError, subprocess.SubprocessError) as exc:
            raise AutoCommitError(f"`git {args[0]}` could not run: {exc}") from exc

    def head(self) -> str | None:
        """The commit HEAD names; None on a branch with no commit yet."""
        out = self.git("rev-parse", "-q", "--verify", "HEAD^{commit}", ok_codes=(0, 1))
        return out.strip() or None

    def busy(self) -> str | None:
        """What git operation is in progress (a merge, a rebase …), or None."""
        for name, what in _IN_PROGRESS.items():
            where = self.git("rev-parse", "--git-path", name).strip()
            if (self.top / where).exists():
                return what
        return None

    def full(self, path: str) -> str:
        """A project-relative path relative to the top of the work tree."""
        return self.prefix + path

    def plan(self, changes: Iterable[FileChange]) -> CommitPlan:
        """Split a turn's changes into the files to commit and those to leave out.

        A file is committed when, before the turn, it was as HEAD has it and nothing of it
        was staged (nor is now): then every change of it is the turn's.
        """
        changes = list(changes)
        if not changes:
            return CommitPlan()
        fulls = [self.full(c.path) for c in changes]
        head = self.head()
        in_head = (
            _entries(self.git("ls-tree", "-r", "-z", "--full-tree", head, "--", *fulls), tree=True)
            if head
            else {}
        )
        staged = _entries(self.git("ls-files", "-s", "-z", "--", *fulls), tree=False)
        algorithm = self.git("rev-parse", "--show-object-format").strip() or "sha1"
        plan = CommitPlan()
        for change, full in zip(changes, fulls, strict=True):
            before = (
                None
                if change.before is None or change.before_mode is None
                else (change.before_mode, blob_id(change.before, algorithm))
            )
            clean = before == in_head.get(full) and staged.get(full) == in_head.get(full)
            (plan.files if clean else plan.left_out).append(change.path)
        return plan

    def commit(self, paths: Sequence[str], message: str, reflog: str) -> str | None:
        """Commit the working tree's ``paths`` (project-relative) on top of HEAD, alone.

        Returns:
            The new commit's id; None when the files are as HEAD has them already.
        """
        fulls = [self.full(p) for p in paths]
        head = self.head()
        with tempfile.TemporaryDirectory(prefix="agent-tui-commit-") as scratch:
            index = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
            self.git("read-tree", *([head] if head else ["--empty"]), env=index)
            self.git(
                "update-index",
                "--add",
                "--remove",
                "-z",
                "--stdin",
                stdin="".join(f"{p}\0" for p in fulls),
                env=index,
            )
            tree = self.git("write-tree", env=index).strip()
        if head and tree == self.git("rev-parse", f"{head}^{{tree}}").strip():
            return None
        commit = self.git(
            "commit-tree", tree, *(["-p", head] if head else []), "-F", "-", stdin=message
        ).strip()
        self.git("update-ref", "-m", reflog, "HEAD", commit, head or "")
        # The person's index follows for these paths alone: the rest stays staged as it was.
        self.git("reset", "-q", commit, "--", *fulls)
        return commit

    def undo_blocked(self, commit: str, paths: Sequence[str]) -> str | None:
        """Why ``commit`` cannot simply be taken back now; None when it can.

        It can while HEAD is still that commit and its files, on disk and staged, are as
        it left them.
        """
        short = commit[:7]
        head = self.head()
        if head != commit:
            return (
                f"HEAD is no longer that commit ({'at ' + head[:7] if head else 'no commit'})"
                f", so it stays in the history; `git revert {short}` undoes it there"
            )
        fulls = [self.full(p) for p in paths]
        if self.status(["diff", "--quiet", commit, "--", *fulls]) or self.status(
            ["diff", "--cached", "--quiet", commit, "--", *fulls]
        ):
            return (
                f"its files changed since it was made, so it stays; `git reset --soft "
                f"{short}~1` takes it back by hand"
            )
        return None

    def remove_commit(self, commit: str, paths: Sequence[str]) -> None:
        """Move HEAD back to ``commit``'s parent (as ``git reset --soft HEAD~1``) and give
        its files' index entries the parent's content again (the files on disk were put
        back already)."""
        fulls = [self.full(p) for p in paths]
        parent = self.git("rev-parse", "-q", "--verify", f"{commit}^", ok_codes=(0, 1)).strip()
        reflog = f"agent-tui: /undo took back {commit[:7]}"
        if parent:
            self.git("update-ref", "-m", reflog, "HEAD", parent, commit)
            self.git("reset", "-q", parent, "--", *fulls)
        else:
            self.git("update-ref", "-m", reflog, "-d", "HEAD", commit)
            self.git("rm", "-q", "-r", "--cached", "--ignore-unmatch", "--", *fulls)


def blob_id(content: bytes, algorithm: str = "sha1") -> str:
    """git's object id of a blob holding ``content``."""
    digest = hashlib.new(algorithm)
    digest.update(b"blob %d\0" % len(content))
    digest.update(content)
    return digest.hexdigest()


def turn_commit(records: Iterable[Mapping[str, Any]], turn: int) -> Mapping[str, Any] | None:
    """The ``auto_commit`` record of ``turn`` in a session log, or None (the latest wins)."""
    found = None
    for record in records:
        if record.get("type") == "auto_commit" and record.get("turn") == turn:
            found = record
    return found


def _entries(listing: str, *, tree: bool) -> dict[str, tuple[int, str]]:
    """``ls-tree -z`` or ``ls-files -s -z`` output as path -> (mode, id); an index entry
    in conflict (stage > 0) counts as a change of the person's."""
    found: dict[str, tuple[int, str]] = {}
    for line in filter(None, listing.split("\0")):
        meta, _, path = line.partition("\t")
        parts = meta.split()
        if tree:
            found[path] = (int(parts[0], 8), parts[2])
        else:
            stage = parts[2]
            found[path] = (int(parts[0], 8), parts[1] if stage == "0" else f"stage {stage}")
    return found


def _git_env() -> dict[str, str]:
    """The environment git runs with: the person's, without what would redirect it to
    another repository, and never a prompt for credentials or an editor."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")
    }
    env.update(GIT_TERMINAL_PROMPT="0", GIT_EDITOR="true", LC_ALL="C")
    return env


@dataclass(frozen=True, slots=True)
class CommitUndo:
    """The auto-commit of a turn being undone, and whether it can be taken back.

    Attributes:
        repo: The project's repository.
        commit: The turn's auto-commit.
        files: The files it committed (project-relative).
        blocked: Why it cannot be taken back (checked before the files are put back);
            None when it can.
    """

    repo: ProjectRepo
    commit: str
    files: list[str]
    blocked: str | None

    def finish(self) -> str:
        """Once the turn's files are back: take the commit back, or not; a sentence for
        the person saying which."""
        short = self.commit[:7]
        if self.blocked is not None:
            return f" Its commit {short} stays: {self.blocked}."
        try:
            self.remove_commit()
        except AutoCommitError as exc:
            return f" Its commit {short} could not be taken back: {exc}."
        return f" Its commit {short} is taken back too (as `git reset --soft HEAD~1`)."

    def remove_commit(self) -> None:
        """Take the commit back (see :meth:`ProjectRepo.remove_commit`)."""
        self.repo.remove_commit(self.commit, self.files)


def commit_undo(
    workdir: Path, records: Iterable[Mapping[str, Any]], turn: int
) -> CommitUndo | None:
    """The auto-commit of ``turn`` in a session log, checked before its files are put
    back; None when the turn made none (or the project is no longer a repository)."""
    record = turn_commit(records, turn)
    if record is None:
        return None
    repo = ProjectRepo.find(workdir)
    if repo is None:
        return None
    commit, files = str(record.get("commit", "")), list(record.get("files") or [])
    try:
        blocked = repo.undo_blocked(commit, files)
    except AutoCommitError as exc:
        blocked = str(exc)
    return CommitUndo(repo, commit, files, blocked)
