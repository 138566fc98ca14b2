"""Listing a folder's files without ripgrep, and reading globs the way ripgrep does.

Two primitives every file-finding tool shares: ``git_ls_files`` (what git shows, so
``.gitignore`` is honoured) and ``walk_files`` (``os.walk`` outside a repository). On top
of them, ``list_files_like_rg`` lists exactly what ``rg --files`` would, which lets
glob_files and grep print the same output with or without rg, and ``PathGlob`` reads a
glob as rg's ``--glob`` does.
"""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..core.text.glob_patterns import PathMatcher

SKIP_DIRS = (".git", "node_modules", "__pycache__", ".venv")
"""Names glob_files and grep never list or search, ignored by .gitignore or not. Tools that
skip more (build output, caches) add to these."""
VCS_AND_CACHE_DIRS = frozenset({".hg", ".svn", ".mypy_cache", ".pytest_cache", ".ruff_cache",
                                ".tox"})
"""Other version control and tool cache folders, which tools that need not list files as rg
does (code_search, read_many_files) skip as well."""


def git_ls_files(folder: Path, *args: str, env: Mapping[str, str] | None = None,
                 timeout: float | None = None) -> list[str] | None:
    """The paths ``git ls-files -z ARGS`` prints in ``folder``, relative to it (``/``-separated).

    Args:
        folder: Where git runs; only files under it are listed.
        *args: ``git ls-files`` options, e.g. ``--cached --others --exclude-standard``.
        env: The environment git runs in (None: this process's).
        timeout: Seconds git may take (None: no limit).

    Returns:
        The paths, or None when ``folder`` is not in a git work tree, git is missing or it
        took longer than ``timeout``.
    """
    try:
        done = subprocess.run(["git", "ls-files", "-z", *args], cwd=folder, env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout,
                              start_new_session=True, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return [os.fsdecode(name) for name in done.stdout.split(b"\0") if name]


def walk_files(folder: Path, skip: Collection[str]) -> Iterator[str]:
    """Every file under ``folder``, relative to it (``/``-separated), in sorted walk order.

    Folders named in ``skip`` are not entered; links to folders are not followed.
    """
    for top, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in skip)
        base = os.path.relpath(top, folder).replace(os.sep, "/")
        for name in sorted(names):
            yield name if base == "." else f"{base}/{name}"


def list_files_like_rg(root: Path, env: Mapping[str, str] | None = None) -> list[str]:
    """Files under ``root`` as ``rg --files`` would list them, without rg (blocking).

    Relative to ``root`` and sorted: in a git work tree what git shows minus tracked files
    .gitignore names, else every regular file; ``SKIP_DIRS`` left out either way.
    """
    listed = _git_listed(root, env, "--cached", "--others", "--exclude-standard")
    if not listed and listed is not None and _git_ignores(root, env):
        listed = None  # rg searches inside an ignored folder it is pointed at; so do we
    if listed is not None:
        # Tracked files that .gitignore matches: git lists them, rg does not.
        listed -= _git_listed(root, env, "--cached", "--ignored", "--exclude-standard") or set()
        found = [p for p in listed if _is_regular(root / p)]
    else:
        found = [p for p in walk_files(root, SKIP_DIRS) if _is_regular(root / p)]
    return sorted(p for p in found if not any(part in SKIP_DIRS for part in p.split("/")))


def _git_listed(root: Path, env: Mapping[str, str] | None, *args: str) -> set[str] | None:
    listed = git_ls_files(root, *args, env=env)
    return set(listed) if listed is not None else None


def _git_ignores(root: Path, env: Mapping[str, str] | None) -> bool:
    """Whether git ignores the folder ``root`` itself (e.g. ``build/``)."""
    try:
        return subprocess.run(["git", "check-ignore", "-q", "--no-index", "."], cwd=root,
                              env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              check=False).returncode == 0
    except OSError:
        return False


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


# --------------------------------------------------------------------------- globs


@dataclass(frozen=True, slots=True)
class PathGlob:
    """A glob read as ripgrep reads ``--glob``: gitignore style, ``!`` to exclude.

    The glob language is ``core.glob_patterns``'s. Without a ``/`` a glob matches a file's
    name at any depth; with one it matches the path relative to the searched folder. An
    excluding glob also excludes whole folders.
    """

    matcher: PathMatcher
    exclude: bool

    @classmethod
    def parse(cls, glob: str, *, anchored: bool = False) -> PathGlob:
        """Read ``glob``; ``anchored`` matches a slash-free glob against the whole path."""
        exclude = glob.startswith("!")
        body = glob[1:] if exclude else glob
        by_name = "/" not in body and not anchored
        body = body.removeprefix("./").lstrip("/")
        return cls(PathMatcher.parse(body, by_name=by_name), exclude)

    def keeps(self, path: str) -> bool:
        """Whether the file at relative ``path`` passes this glob."""
        if not self.exclude:
            return self.matcher.matches(path)
        return not self.matcher.matches_within(path)
