"""The workspace boundary: where a path really is, and which paths are protected.

Every path is resolved with ``realpath`` (symlinks followed) before it is judged, so a link
inside the project that points outside counts as outside. Writing into ``.git`` internals
or agent-tui's own configuration is never allowed without a person's yes.
"""

from __future__ import annotations

import glob
import itertools
import os
import re
from collections.abc import Iterable
from pathlib import Path

from .. import paths

SAFE_DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty",
                          "/dev/zero", "/dev/random", "/dev/urandom", "/dev/full"})
"""Device files reading or writing which touches nothing."""

MAX_EXPANSIONS = 512
"""How many paths a glob or brace pattern expands to before the rest are ignored."""

GLOB_CHARS = re.compile(r"[*?\[]")
"""The characters that make a path a glob pattern."""
_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")


def real_path(text: str, cwd: Path | None = None) -> Path | None:
    """``text`` as a real absolute path (``~`` expanded, relative to ``cwd``, symlinks
    followed); None when it is relative and ``cwd`` is only known at run time."""
    path = os.path.expanduser(text)
    if not os.path.isabs(path):
        if cwd is None:
            return None
        path = os.path.join(cwd, path)
    return Path(os.path.realpath(path))


def glob_root(pattern: str) -> str:
    """The folder an absolute glob starts in: ``/p/src/**/*.py`` searches ``/p/src``."""
    return os.path.dirname(GLOB_CHARS.split(pattern, 1)[0]) or "/"


class Workspace:
    """The project folder and the paths around it that matter to permissions."""

    def __init__(self, root: Path) -> None:
        self.root = Path(os.path.realpath(root))
        self.home = Path(os.path.realpath(os.path.expanduser("~")))
        self._own = tuple(dict.fromkeys(
            Path(os.path.realpath(p)) for p in (paths.config_dir(), paths.data_dir())))

    def resolve(self, text: str, cwd: Path | None = None) -> Path | None:
        """``text`` as a real absolute path (see :func:`real_path`)."""
        return real_path(text, cwd)

    def expand(self, text: str, cwd: Path | None) -> list[Path | None]:
        """The paths a shell word names after brace and glob expansion, resolved.

        A pattern that matches nothing still counts as its folder, so ``cat /etc/*.conf``
        is judged by ``/etc`` even before anything matches.
        """
        found: list[Path | None] = []
        for candidate in brace_expand(text):
            if not GLOB_CHARS.search(candidate):
                found.append(self.resolve(candidate, cwd))
                continue
            base = os.path.expanduser(candidate)
            if not os.path.isabs(base) and cwd is None:
                found.append(None)
                continue
            pattern = base if os.path.isabs(base) else os.path.join(cwd or "", base)
            matches = itertools.islice(glob.iglob(pattern), MAX_EXPANSIONS)
            found.extend(Path(os.path.realpath(m)) for m in matches)
            found.append(Path(os.path.realpath(glob_root(pattern))))
        return found

    def inside(self, path: Path) -> bool:
        """Whether the real ``path`` lies in the project folder (or is it)."""
        return path == self.root or self.root in path.parents

    def relative(self, path: Path) -> str | None:
        """``path`` relative to the project (``src/a.py``; ``.`` for the folder itself)."""
        if not self.inside(path):
            return None
        return path.relative_to(self.root).as_posix() if path != self.root else "."

    def shown(self, path: Path) -> str:
        """``path`` as people see it: relative inside the project, else absolute."""
        relative = self.relative(path)
        return relative if relative is not None else str(path)

    def harmless(self, path: Path) -> bool:
        """A device such as ``/dev/null`` that reading or writing touches nothing on disk."""
        text = str(path)
        return text in SAFE_DEVICES or text.startswith(("/dev/fd/", "/proc/self/fd/"))

    def protected(self, path: Path) -> str | None:
        """Why writing ``path`` needs a person's yes in every mode, or None.

        ``.git`` internals (of the project and any repository inside it) and agent-tui's own
        configuration and state are protected.
        """
        if self.inside(path):
            parts = path.relative_to(self.root).parts
            if ".git" in parts:
                return f"{self.shown(path)} is inside a .git folder (the repository's internals)"
            if parts and parts[0] == paths.PROJECT_DIR_NAME:
                return f"{self.shown(path)} is agent-tui's project configuration"
        for own in self._own:
            if path == own or own in path.parents:
                return f"{path} is agent-tui's own configuration and state"
        return None

    def first_outside(self, found: Iterable[Path | None]) -> Path | None:
        """The first path in ``found`` outside the project (ignoring harmless devices)."""
        return next((p for p in found if p is not None and not self.inside(p)
                     and not self.harmless(p)), None)


def brace_expand(text: str) -> list[str]:
    """``a{b,c}d`` -> ``abd``, ``acd`` (bash's brace expansion, at most MAX_EXPANSIONS)."""
    results = [text]
    done: list[str] = []
    while results and len(done) < MAX_EXPANSIONS:
        current = results.pop(0)
        match = _BRACES.search(current)
        if match is None:
            done.append(current)
            continue
        head, tail = current[:match.start()], current[match.end():]
        results.extend(head + choice + tail for choice in match.group(1).split(","))
    return done[:MAX_EXPANSIONS]
