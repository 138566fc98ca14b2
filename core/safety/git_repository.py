"""Which repository a git command uses, and whether its configuration makes even a read run
a program.

git walks up from the folder it runs in and takes the first ``.git`` folder, ``.git`` file
(``gitdir: elsewhere``) or bare repository it meets (a folder holding ``HEAD``, ``objects/``
and ``refs/``; git 2.39 reads bare repositories found this way, as ``safe.bareRepository``
defaults to ``all``). A bare repository committed as plain files inside a project is one, so
``git -C planted log -p`` reads ``planted/config``. Besides that repository's ``config`` git
reads a worktree's ``config.worktree`` and its common folder's ``config``, every file they
include, and the user's and system's files; a ``post-index-change`` hook runs when
``git status`` refreshes the index.
"""

from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass
from pathlib import Path

from .git_config import ConfigSyntaxError, includes, read_entries, runs_program

MAX_INCLUDE_DEPTH = 10
"""git's own limit on nested includes."""
_MAX_SUBMODULES = 64
_HEX_HEAD = re.compile(r"^([0-9a-f]{40}|[0-9a-f]{64})$")
_READ_HOOKS = ("post-index-change",)
"""Hooks a read-only command can run (``git status`` writes the refreshed index)."""


@dataclass(frozen=True, slots=True)
class Findings:
    """What the configuration of a repository says.

    Attributes:
        hazard: The first setting that runs a program, with its file ("core.fsmonitor in
            /p/.git/config"), or None.
        worktrees: Folders ``core.worktree`` points git at; it reads them.
    """

    hazard: str | None = None
    worktrees: tuple[Path, ...] = ()


def find_repository(start: Path) -> Path | None:
    """The git folder git uses when run in ``start`` (``.git``, a worktree's or a bare
    repository), or None outside any repository."""
    found = discover(start)
    return found[-1] if found else None


def discover(start: Path) -> list[Path]:
    """The git folders git may use when run in ``start``, nearest first.

    git skips a folder that looks like a repository but is not a valid one (a ``HEAD``
    it cannot read) and goes on up; each of those is listed, so that every config git might
    read is checked. The last one is the one git uses.
    """
    found: list[Path] = []
    for folder in (start, *start.parents):
        dot_git = folder / ".git"
        if dot_git.is_file():
            target = _gitfile_target(dot_git)
            return [*found, target] if target is not None else found
        for candidate in (dot_git, folder):
            looks, valid = _git_folder(candidate)
            if looks or candidate is dot_git and dot_git.is_dir():
                found.append(candidate)  # a `.git` folder git skips is still checked
            if valid:
                return found
    return found


def _gitfile_target(dot_git: Path) -> Path | None:
    """Where a ``.git`` file (``gitdir: ../x``) points, relative to its folder."""
    try:
        line = dot_git.read_text(errors="replace").strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    target = Path(os.path.expanduser(line[7:].strip()))
    return target if target.is_absolute() else dot_git.parent / target


def _git_folder(folder: Path) -> tuple[bool, bool]:
    """Whether ``folder`` looks like a git folder (has ``HEAD``), and whether git would take
    it (``HEAD`` names a ref or a commit, ``objects/`` and ``refs/`` exist)."""
    head = folder / "HEAD"
    if not head.is_file():
        return False, False
    common = _common_dir(folder)
    if not ((common / "objects").is_dir() and (common / "refs").is_dir()):
        return True, False
    try:
        if head.is_symlink():
            return True, os.readlink(head).startswith("refs/")
        text = head.read_text(errors="replace").strip()
    except OSError:
        return True, False
    return True, text.startswith("ref: refs/") or bool(_HEX_HEAD.match(text))


def _common_dir(git_dir: Path) -> Path:
    """The folder a worktree shares with its main repository (``commondir``), or itself."""
    try:
        text = (git_dir / "commondir").read_text(errors="replace").strip()
    except OSError:
        return git_dir
    return git_dir / text if text else git_dir


def config_files(git_dir: Path) -> list[Path]:
    """The repository's own config files: ``config``, ``config.worktree``, the common
    folder's ``config`` and its submodules' (``modules/*/config``)."""
    common = _common_dir(git_dir)
    files = [git_dir / "config", git_dir / "config.worktree"]
    if common != git_dir:
        files += [common / "config", common / "config.worktree"]
    modules = common / "modules"
    if modules.is_dir():
        nested = itertools.chain.from_iterable(modules.glob("*/" * depth + "config")
                                               for depth in range(1, 4))
        files += list(itertools.islice(nested, _MAX_SUBMODULES))
    return files


def user_config_files() -> list[Path]:
    """The config files git reads whatever the repository: the system's and the user's."""
    home = Path(os.path.expanduser("~"))
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(home / ".config")
    return [Path("/etc/gitconfig"), Path(xdg) / "git" / "config", home / ".gitconfig"]


def repository_findings(git_dirs: list[Path]) -> Findings:
    """What the configuration of the repositories in ``git_dirs`` (and the user's and
    system's files) sets that matters to a read-only command."""
    worktrees: list[Path] = []
    for git_dir in git_dirs:
        for path in config_files(git_dir):
            hazard = _scan(path, 0, worktrees if path.parent == git_dir else None)
            if hazard:
                return Findings(hazard, tuple(worktrees))
        if hazard := _hook(git_dir):
            return Findings(hazard, tuple(worktrees))
    for path in user_config_files():
        if hazard := _scan(path, 0, None):
            return Findings(hazard, tuple(worktrees))
    return Findings(None, tuple(worktrees))


def _scan(path: Path, depth: int, worktrees: list[Path] | None) -> str | None:
    """The first program-running setting in ``path`` or the files it includes."""
    try:
        entries = read_entries(path)
    except ConfigSyntaxError as error:
        return f"{path}, which agent-tui cannot read as git does ({error})"
    for entry in entries or ():
        if runs_program(entry):
            return f"{entry.name} in {path}"
        if includes(entry) and entry.value:
            if depth >= MAX_INCLUDE_DEPTH:
                return f"includes nested deeper than git reads, in {path}"
            target = Path(os.path.expanduser(entry.value))
            if hazard := _scan(path.parent / target, depth + 1, worktrees):
                return hazard
        elif worktrees is not None and entry.name == "core.worktree" and entry.value:
            worktrees.append(path.parent / os.path.expanduser(entry.value))
    return None


def _hook(git_dir: Path) -> str | None:
    """A hook a read-only command runs, present in the repository."""
    hooks = _common_dir(git_dir) / "hooks"
    for name in _READ_HOOKS:
        hook = hooks / name
        if hook.is_file() and os.access(hook, os.X_OK):
            return f"the {name} hook in {hooks}"
    return None

