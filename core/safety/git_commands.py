"""git commands: which are read-only, and when a repository's own config makes even those
run programs.

``git status`` runs ``core.fsmonitor``; ``git diff`` runs ``diff.external``, textconv drivers
and clean filters; ``git log`` runs ``core.pager``. A repository's ``.git/config`` can set any
of them, so a git command is only read-only when the repository's config sets none.
``git config`` writes ``.git/config``, which is protected.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

from .shell_parts import Access, Part, Word, path_like
from .workspace import Workspace

_RUNS_PROGRAMS = frozenset({"core.fsmonitor", "core.pager", "core.hookspath", "diff.external",
                            "gpg.program", "log.showsignature"})
_SECTIONS_RUNNING = frozenset({"pager", "include", "includeif"})
_DRIVER_KEYS = {"diff": {"textconv", "command"}, "merge": {"driver"},
                "filter": {"clean", "smudge", "process"}}
_BOOLEANS = frozenset({"", "true", "false", "yes", "no", "on", "off", "0", "1"})


def find_repository(start: Path) -> Path | None:
    """The git folder of the repository holding ``start`` (``.git`` or a worktree's)."""
    for folder in (start, *start.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return dot_git
        if dot_git.is_file():
            try:
                line = dot_git.read_text(errors="replace").strip()
            except OSError:
                return None
            if line.startswith("gitdir:"):
                target = Path(os.path.expanduser(line[7:].strip()))
                return target if target.is_absolute() else folder / target
            return None
    return None


def config_hazard(start: Path) -> str | None:
    """The first setting in the repository's config that runs a program (e.g.
    ``core.fsmonitor``), or None. Looks at the repository holding ``start``."""
    repo = find_repository(start)
    if repo is None:
        return None
    files = [repo / "config"]
    common = repo / "commondir"
    if common.is_file():
        try:
            files.append((repo / common.read_text().strip()) / "config")
        except OSError:
            pass
    for path in files:
        try:
            stamp = path.stat().st_mtime_ns
        except OSError:
            continue
        if hazard := _hazard_in(str(path), stamp):
            return hazard
    return None


@lru_cache(maxsize=32)
def _hazard_in(path: str, stamp: int) -> str | None:
    """The first program-running key in one config file (cached per modification time)."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return None
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line[1:].split("]", 1)[0].split(None, 1)[0].strip('"').lower()
            if section in _SECTIONS_RUNNING:
                return f"[{section}]"
            continue
        key, _, value = line.partition("=")
        key = key.strip().lower()
        value = value.strip().strip('"').lower()
        name = f"{section}.{key}"
        if name == "core.fsmonitor" and value in _BOOLEANS:
            continue
        if name in _RUNS_PROGRAMS or key in _DRIVER_KEYS.get(section, ()):
            return name
    return None


_GIT_READ = frozenset({
    "status", "diff", "log", "show", "rev-parse", "ls-files", "blame", "describe", "shortlog",
    "grep", "cat-file", "ls-tree", "rev-list", "show-ref", "name-rev", "merge-base",
    "whatchanged", "annotate", "cherry", "count-objects", "for-each-ref", "var", "version",
    "check-ignore", "check-attr", "diff-tree", "diff-files", "diff-index", "show-branch"})
_GIT_LISTING = {
    "branch": ({"-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "-l", "--list",
                "--show-current", "--color", "--no-color", "--column", "--no-column", "-q",
                "--quiet", "-i", "--ignore-case", "--omit-empty"},
               {"--merged", "--no-merged", "--contains", "--no-contains", "--points-at",
                "--sort", "--format", "--abbrev"}),
    "tag": ({"-l", "--list", "--column", "--no-column", "-i", "--ignore-case", "--color",
             "--no-color", "--omit-empty"},
            {"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort",
             "--format"}),
}
_GIT_CONFIG_READS = {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l"}


def git_access(part: Part, workspace: Workspace) -> Access:
    """Whether a git command is read-only, and what it reads or writes."""
    command = part.command
    index = 1
    reads: list[Word] = []
    repo_dir = part.cwd
    while index < len(command) and command[index].text.startswith("-"):
        text = command[index].text
        if text in ("-c", "--config-env") or text.startswith(("--config-env=", "--exec-path=")):
            return Access(False, f"git {text} sets configuration that can run programs")
        if text in ("-C", "--git-dir", "--work-tree", "--namespace") and index + 1 < len(
                command):
            reads.append(command[index + 1])
            if text == "-C" and repo_dir is not None:
                repo_dir = workspace.resolve(command[index + 1].text, repo_dir)
            index += 2
            continue
        if text.startswith(("--git-dir=", "--work-tree=")):
            reads.append(Word(text.split("=", 1)[1]))
        index += 1
    if index >= len(command):
        return Access(True, reads=tuple(reads))
    sub = command[index].text
    args = [w.text for w in command[index + 1:]]
    touches = path_like(command[index + 1:], part.cwd)
    if sub == "config":
        return _git_config(args, repo_dir, reads)
    if not _git_reads_only(sub, args):
        return Access(False, f"git {sub} is not read-only", touches=touches)
    if any(a.startswith("--output") for a in args) or (
            sub == "grep" and any(a in ("-O", "--open-files-in-pager") or a.startswith("-O")
                                  for a in args)):
        return Access(False, f"git {sub} with that option writes a file or runs a program")
    hazard = config_hazard(repo_dir) if repo_dir is not None else None
    if hazard is not None:
        return Access(False, f"the repository's git config sets {hazard}, which can run a "
                             f"program on git {sub}")
    if sub == "diff" and "--no-index" in args:
        reads.extend(w for w in command[index + 1:] if not w.text.startswith("-"))
    return Access(True, reads=tuple(reads))


def _git_reads_only(sub: str, args: list[str]) -> bool:
    if sub in _GIT_READ:
        return True
    if sub in _GIT_LISTING:
        flags, valued = _GIT_LISTING[sub]
        listing = any(a in ("-l", "--list") for a in args)
        expect_value = False
        for arg in args:
            if expect_value:
                expect_value = False
                continue
            name = arg.split("=", 1)[0]
            if name in valued:
                expect_value = "=" not in arg and name not in ("--merged", "--no-merged",
                                                               "--abbrev")
                continue
            if arg in flags or (sub == "tag" and re.fullmatch(r"-n\d*", arg)):
                continue
            if arg.startswith("-") or not listing:
                return False
        return True
    if sub == "remote":
        return not args or args in (["-v"], ["--verbose"]) or args[0] == "get-url"
    if sub == "stash":
        return bool(args) and args[0] in ("list", "show")
    if sub == "reflog":
        return not args or args[0] == "show" or args[0].startswith("-")
    if sub == "worktree":
        return args[:1] == ["list"]
    return False


def _git_config(args: list[str], repo_dir: Path | None, reads: list[Word]) -> Access:
    operands = [a for a in args if not a.startswith("-")]
    if (set(args) & _GIT_CONFIG_READS or args[:1] in (["get"], ["list"])
            or (len(operands) == 1 and not set(args) & {"--unset", "--unset-all", "--add",
                                                         "--replace-all", "-e", "--edit"})):
        return Access(True, reads=tuple(reads))
    if "--global" in args:
        target = "~/.gitconfig"
    elif "--system" in args:
        target = "/etc/gitconfig"
    elif "--file" in args or "-f" in args:
        at = args.index("--file") if "--file" in args else args.index("-f")
        target = args[at + 1] if at + 1 < len(args) else ".git/config"
    else:
        repo = find_repository(repo_dir) if repo_dir is not None else None
        target = str(repo / "config") if repo is not None else ".git/config"
    return Access(False, "git config changes git's configuration", writes=(Word(target),))
