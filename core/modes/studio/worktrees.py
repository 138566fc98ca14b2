"""Git worktrees for studio sessions: each session works on its own branch in its own folder,
then is merged back (or rebased and fast-forwarded) or thrown away.

Everything runs the real ``git``; a failure raises :class:`StudioError` whose message says
what happened and what to do.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

BRANCH_PREFIX = "agent-tui/"
"""Studio branches are ``agent-tui/NAME``."""
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
"""What a session's name may be: it names a branch and a folder."""


class StudioError(Exception):
    """A studio step failed; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class Change:
    """One file a session changed, as ``git diff --name-status`` says: ``A``, ``M``, ``D``…"""

    status: str
    path: str


@dataclass(frozen=True, slots=True)
class Merged:
    """How an accept went.

    Attributes:
        ok: The session's work is on the project's branch now.
        conflicts: Files left with conflicts for the person (the merge is in progress).
        committed: The commit made of the session's uncommitted work (None: there was none).
    """

    ok: bool
    conflicts: tuple[str, ...] = ()
    committed: str | None = None


def git(folder: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``git args`` in ``folder``; with ``check``, a failure raises StudioError."""
    done = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    if check and done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise StudioError(f"git {' '.join(args[:2])} failed: {said[-1] if said else done.returncode}")
    return done


def project_root(folder: Path) -> Path:
    """The top of the git repository ``folder`` is in."""
    done = git(folder, "rev-parse", "--show-toplevel", check=False)
    if done.returncode != 0:
        raise StudioError(f"{folder} is not in a git repository; studio sessions are git "
                          "worktrees. Run it in a repository (git init, then commit once).")
    return Path(done.stdout.strip())


def branch_of(name: str) -> str:
    """The branch of the session called ``name``."""
    return BRANCH_PREFIX + name


def create(root: Path, name: str, folder: Path) -> str:
    """A new worktree at ``folder`` on a new branch for ``name``, from the project's HEAD;
    returns the commit it starts from."""
    if not NAME.match(name):
        raise StudioError(f"{name!r} cannot name a session: use letters, digits, '.', '_' and "
                          "'-' (at most 64, starting with a letter or digit).")
    head = git(root, "rev-parse", "--verify", "--quiet", "HEAD", check=False)
    if head.returncode != 0:
        raise StudioError("the repository has no commit yet; a worktree starts from one. "
                          "Commit once, then start the session.")
    branch = branch_of(name)
    if git(root, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}",
           check=False).returncode == 0:
        raise StudioError(f"a branch {branch} exists already; pick another name, or delete "
                          f"it (git branch -D {branch}) if nothing on it matters.")
    if folder.exists():
        raise StudioError(f"{folder} exists already; discard the old session of that name "
                          f"(agent-tui studio discard {name}) or pick another name.")
    folder.parent.mkdir(parents=True, exist_ok=True)
    git(root, "worktree", "add", "-b", branch, str(folder), "HEAD")
    return head.stdout.strip()


def changes(folder: Path, base: str) -> list[Change]:
    """What the session changed since ``base``: committed, uncommitted and new files."""
    found: dict[str, str] = {}
    diff = git(folder, "diff", "--name-status", "--no-renames", base, check=False)
    for line in diff.stdout.splitlines():
        status, _, path = line.partition("\t")
        if path:
            found[path] = status[:1]
    untracked = git(folder, "ls-files", "--others", "--exclude-standard", check=False)
    for path in untracked.stdout.splitlines():
        found.setdefault(path, "A")
    return [Change(status, path) for path, status in sorted(found.items())]


def commit_all(folder: Path, message: str) -> str | None:
    """Commit everything the session left uncommitted; the commit, or None when clean."""
    git(folder, "add", "-A")
    if git(folder, "diff", "--cached", "--quiet", check=False).returncode == 0:
        return None
    git(folder, *_identity(folder), "commit", "--no-verify", "-q", "-m", message)
    return git(folder, "rev-parse", "HEAD").stdout.strip()


def accept(root: Path, folder: Path, name: str, message: str, *, rebase: bool = False) -> Merged:
    """Bring the session's work onto the project's current branch.

    Its uncommitted work is committed on its branch first. With ``rebase`` the branch is
    rebased onto the project's branch and fast-forwarded (a conflict aborts the rebase and
    says which files); else it is merged (a conflict is left in progress for the person).

    Raises:
        StudioError: the project's checkout has uncommitted changes to tracked files, or is
            on no branch, or git failed otherwise.
    """
    dirty = git(root, "status", "--porcelain", "--untracked-files=no").stdout.strip()
    if dirty:
        raise StudioError("the project has uncommitted changes; commit or stash them first, "
                          "so that accepting cannot mix them with the session's work.")
    target = git(root, "symbolic-ref", "--quiet", "--short", "HEAD", check=False)
    if target.returncode != 0:
        raise StudioError("the project's checkout is on no branch (a detached HEAD); check "
                          "out the branch the session's work should land on.")
    committed = commit_all(folder, message)
    branch = branch_of(name)
    if rebase:
        done = git(folder, "rebase", target.stdout.strip(), check=False)
        if done.returncode != 0:
            conflicts = _conflicts(folder)
            git(folder, "rebase", "--abort", check=False)
            return Merged(False, conflicts, committed)
        git(root, "merge", "--ff-only", "-q", branch)
        return Merged(True, (), committed)
    done = git(root, *_identity(root), "merge", "--no-ff", "--no-edit", "-q", "-m", message,
               branch, check=False)
    if done.returncode != 0:
        conflicts = _conflicts(root)
        if not conflicts:
            raise StudioError(f"git merge failed: {(done.stderr or done.stdout).strip()}")
        return Merged(False, conflicts, committed)
    return Merged(True, (), committed)


def _identity(folder: Path) -> tuple[str, ...]:
    """The person's git identity commits under; a stand-in where none is configured."""
    if git(folder, "config", "user.email", check=False).returncode == 0:
        return ()
    return ("-c", "user.name=agent-tui studio", "-c", "user.email=agent-tui@localhost")


def _conflicts(folder: Path) -> tuple[str, ...]:
    done = git(folder, "diff", "--name-only", "--diff-filter=U", check=False)
    return tuple(done.stdout.split())


def remove(root: Path, folder: Path, name: str) -> None:
    """Remove the session's worktree and delete its branch (what is left of either)."""
    if folder.exists():
        git(root, "worktree", "remove", "--force", str(folder))
    git(root, "worktree", "prune", check=False)
    git(root, "branch", "-D", branch_of(name), check=False)
