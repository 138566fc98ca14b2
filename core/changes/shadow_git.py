"""A git repository outside the project that records snapshots of the project's files.

The project folder is the work tree; the repository (``git_dir``), its index and its
configuration live under ``paths.checkpoints_dir``. git runs with every source of the
person's own configuration switched off (system and global config, hooks, pagers,
attributes that would convert line endings or run filters), so a snapshot holds the bytes
that are on disk and nothing the person set up can run. The project's own ``.git`` is
never opened for writing: git skips it as it skips every ``.git``, and only its
``info/exclude`` is read, to honour it like ``.gitignore``. Which files a snapshot holds is
:mod:`.snapshot_scope`'s choice; nested repositories are never entered, so their own
configuration is never read.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ..text.durable import write_atomically
from .snapshot_scope import (
    NEVER_TRACKED,
    FolderTooBig,
    SnapshotLimits,
    excluded,
    is_venv,
    select_files,
    too_big_message,
)

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""The id of git's empty tree (a project with no files)."""

GITLINK_MODE = 0o160000
SYMLINK_MODE = 0o120000

# Highest-priority attributes: store and check out bytes as they are, run no filters.
_ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding -export-subst\n"

_CONFIG = (
    "user.name=agent-tui",
    "user.email=checkpoints@agent-tui.invalid",
    "commit.gpgsign=false",
    "core.hooksPath=/dev/null",
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.fsmonitor=false",
    "core.quotePath=false",
    "core.symlinks=true",
    "core.fileMode=true",
    "core.pager=cat",
    "safe.directory=*",
    "advice.addEmbeddedRepo=false",
    "gc.autoDetach=false",
)


_HASHING: dict[Path, threading.Thread] = {}
"""Hashing that went on past a snapshot's time limit, by the index it writes: any
:class:`ShadowGit` of that session waits for it before using the index."""


class ShadowGitError(Exception):
    """git failed on the shadow repository; the message says what git said and what to do."""


class SnapshotTimedOut(ShadowGitError):
    """A snapshot ran past its time limit and was stopped (git's work so far is kept)."""


@functools.cache
def git_executable() -> str | None:
    """The git program on PATH, or None when there is none that runs."""
    found = shutil.which("git")
    if found is None:
        return None
    try:
        done = subprocess.run([found, "--version"], capture_output=True, timeout=10,
                              check=False, env=_clean_env())
    except (OSError, subprocess.SubprocessError):
        return None
    return found if done.returncode == 0 else None


@dataclass(frozen=True, slots=True)
class TreeChange:
    """One path that differs between two trees.

    Attributes:
        path: Project-relative, POSIX separators.
        old_mode: The git mode before (0 when the path did not exist).
        old_id: The blob before (all zeros when the path did not exist).
        new_mode: The git mode after (0 when the path was deleted).
        new_id: The blob after.
    """

    path: str
    old_mode: int
    old_id: str
    new_mode: int
    new_id: str


class ShadowGit:
    """git commands on one project's shadow repository.

    Args:
        root: The folder of the shadow repository (``paths.checkpoints_dir``).
        work_tree: The project folder.
        index_name: Names this user's index file; each session keeps its own so that two
            sessions on one project never share the index.
        limits: How many files, and how large, a snapshot holds.
    """

    def __init__(self, root: Path, work_tree: Path, index_name: str,
                 limits: SnapshotLimits | None = None) -> None:
        self.root = root
        self.git_dir = root / "repo"
        self.work_tree = Path(os.path.realpath(work_tree))
        self.index = root / "indexes" / f"{index_name}.index"
        self.limits = limits or SnapshotLimits()
        self._ready = False
        self._venvs: set[str] = set()  # found before: git need not walk them again
        # Too large once, left out for good: a snapshot without a file would otherwise
        # read as "created" once it shrinks, and a restore would remove it.
        self._too_large: set[str] = set()

    def ensure(self) -> None:
        """Create the repository on first use and bring its excludes up to date."""
        if not self._ready:
            if not (self.git_dir / "HEAD").is_file():
                self.root.mkdir(parents=True, exist_ok=True)
                self.run("init", "--quiet", "--bare", str(self.git_dir), git_dir=False)
                (self.root / "project").write_text(str(self.work_tree) + "\n", encoding="utf-8")
            self.index.parent.mkdir(parents=True, exist_ok=True)
            self._seed_index()
            info = self.git_dir / "info"
            info.mkdir(exist_ok=True)
            _write_if_changed(info / "attributes", _ATTRIBUTES.encode())
            self._ready = True
        _write_if_changed(self.git_dir / "info" / "exclude", self._project_excludes())

    def run(self, *args: str, stdin: bytes | None = None, git_dir: bool = True,
            ok_codes: tuple[int, ...] = (0,), index: Path | None = None,
            deadline: float | None = None, finish_late: bool = False,
            detach: bool = False) -> bytes:
        """Run ``git ARGS`` on the shadow repository and return its standard output.

        git's standard error is kept from the person's screen: it only ever reaches them
        inside a :class:`ShadowGitError`'s message.

        Args:
            index: The index file to use instead of the session's.
            deadline: ``time.monotonic()`` by which git must be done, or None.
            finish_late: Past ``deadline``, let git finish in the background (its work
                makes the next snapshot quicker) instead of stopping it.
            detach: Leave git to run in the background at once; its output is dropped and
                nothing is returned.

        Raises:
            SnapshotTimedOut: git ran past ``deadline`` (and was stopped, unless
                ``finish_late``).
            ShadowGitError: git is missing or exited with a code not in ``ok_codes``.
        """
        git = git_executable()
        if git is None:
            raise ShadowGitError("git was not found on PATH; install git to use checkpoints")
        command = [git]
        for item in _CONFIG:
            command += ["-c", item]
        command += list(args)
        env = _clean_env()
        if git_dir:
            env.update(GIT_DIR=str(self.git_dir), GIT_WORK_TREE=str(self.work_tree),
                       GIT_INDEX_FILE=str(index or self.index))
        env.update(HOME=str(self.root), XDG_CONFIG_HOME=str(self.root / "xdg"))
        try:
            process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, env=env,
                                       cwd=self.work_tree if git_dir else None)
        except OSError as exc:
            raise ShadowGitError(f"could not run git: {exc}; check that git is installed "
                                 "and the project folder exists") from exc
        if detach:
            threading.Thread(target=process.communicate, args=(stdin,), daemon=True,
                             name=f"checkpoint-{args[0]}").start()
            return b""
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            out, err = process.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            if finish_late:
                # communicate() again goes on feeding stdin and draining the output.
                hashing = threading.Thread(target=process.communicate, daemon=True,
                                           name="checkpoint-hashing")
                hashing.start()
                _HASHING[self.index] = hashing
                raise SnapshotTimedOut("hashing the project's files takes longer (it goes on "
                                       "in the background, so a later checkpoint is quicker)"
                                       ) from None
            self._stop(process)
            raise SnapshotTimedOut(f"git {args[0]} took longer and was stopped") from None
        if process.returncode not in ok_codes:
            message = err.decode("utf-8", "replace").strip() or f"exit {process.returncode}"
            raise ShadowGitError(f"git {args[0]} failed in the checkpoint repository "
                                 f"{self.git_dir}: {message}")
        return out

    def _stop(self, process: subprocess.Popen[bytes]) -> None:
        """End a git that ran too long; SIGTERM first, so that git removes its lock files."""
        process.terminate()
        try:
            process.communicate(timeout=2)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
        # Only this session writes its index: a lock left by a killed git is that git's.
        Path(f"{self.index}.lock").unlink(missing_ok=True)

    # -- snapshots ---------------------------------------------------------------------

    def write_tree(self, timeout: float | None = None) -> str:
        """Record the work tree's files that :mod:`.snapshot_scope` selects; the tree id.

        Files that cannot be read are left out rather than failing the whole snapshot.

        Args:
            timeout: Seconds the whole snapshot may take, or None. The files hashed before
                it ran out are kept, so the next snapshot takes less.

        Raises:
            FolderTooBig: The work tree holds more files than ``limits.max_files`` (or more
                than can be listed within ``timeout``).
            SnapshotTimedOut: Recording the files took longer than ``timeout``.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        self.ensure()
        self._wait_for_hashing(deadline)
        known = {v for v in self._venvs if is_venv(self.work_tree, v)}
        # The listing has a whole ``timeout`` of its own: only a listing that needs more
        # proves the folder too big, not one that started late.
        listed = self._listed(known, None if timeout is None else time.monotonic() + timeout)
        selection = select_files(self.work_tree, listed, self.limits)
        self._venvs = known | set(selection.venvs)
        self._too_large.update(selection.too_large)
        if self._too_large:
            selection.files = [p for p in selection.files if p not in self._too_large]
        wanted = set(selection.files)
        stale = [p for p in _paths(self.run("ls-files", "-z", "--cached", deadline=deadline))
                 if p not in wanted]
        if stale:  # deleted, newly ignored, grown too large, or a nested repository
            self.run("update-index", "-z", "--force-remove", "--stdin", deadline=deadline,
                     stdin=_nul_joined(stale))
        if selection.files:
            self.run("update-index", "-z", "--add", "--remove", "--stdin", deadline=deadline,
                     stdin=_nul_joined(selection.files), finish_late=True)
        return self.run("write-tree", deadline=deadline).decode().strip()

    def _wait_for_hashing(self, deadline: float | None) -> None:
        """Let the hashing an earlier snapshot left running finish (it holds the index)."""
        hashing = _HASHING.get(self.index)
        if hashing is None:
            return
        hashing.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        if hashing.is_alive():
            raise SnapshotTimedOut("the project's files are still being hashed for an earlier "
                                   "checkpoint")
        _HASHING.pop(self.index, None)

    def _listed(self, venvs: set[str], deadline: float | None) -> list[str]:
        """Every file git's ignore rules keep outside ``venvs``, and each nested repository
        as ``folder/``.

        git lists them against an empty index, so what the session's index already holds is
        listed too; it never enters a nested repository (nor reads its configuration).
        """
        try:
            out = self.run("ls-files", "-z", "--others", "--exclude-standard",
                           *sorted(excluded(v) for v in venvs),
                           index=self.root / "indexes" / "empty", deadline=deadline)
        except SnapshotTimedOut:
            raise FolderTooBig(too_big_message(None, self.limits), None) from None
        return _paths(out)

    def commit(self, tree: str, message: str, parent: str | None = None) -> str:
        """A commit of ``tree`` (with ``parent``, if any); returns its id."""
        args = ["commit-tree", tree, "-m", message]
        if parent:
            args += ["-p", parent]
        return self.run(*args).decode().strip()

    def set_ref(self, ref: str, commit: str) -> None:
        """Point ``ref`` at ``commit``."""
        self.run("update-ref", ref, commit)

    def delete_refs(self, names: list[str]) -> None:
        """Delete the refs ``names`` (one git call for all)."""
        if names:
            self.run("update-ref", "--stdin", stdin="".join(
                f"delete {name}\n" for name in names).encode())

    def refs(self, prefix: str) -> dict[str, tuple[str, str]]:
        """Refs under ``prefix``: name -> (commit id, tree id)."""
        if not (self.git_dir / "HEAD").is_file():
            return {}
        out = self.run("for-each-ref", "--format=%(refname) %(objectname) %(tree)", prefix)
        found: dict[str, tuple[str, str]] = {}
        for line in out.decode().splitlines():
            name, commit, tree = line.split(" ")
            found[name] = (commit, tree)
        return found

    # -- comparing and reading ---------------------------------------------------------

    def diff(self, old_tree: str, new_tree: str) -> list[TreeChange]:
        """The paths that differ between two trees (nested repositories left out)."""
        if old_tree == new_tree:
            return []
        out = self.run("diff-tree", "-r", "-z", "--raw", "--no-renames", "--full-index",
                       old_tree, new_tree)
        fields = out.split(b"\0")
        changes: list[TreeChange] = []
        for meta, raw_path in zip(fields[0::2], fields[1::2], strict=False):
            if not meta.startswith(b":"):
                continue
            old_mode, new_mode, old_id, new_id, _status = meta[1:].decode().split(" ")
            change = TreeChange(os.fsdecode(raw_path), int(old_mode, 8), old_id,
                                int(new_mode, 8), new_id)
            if GITLINK_MODE not in (change.old_mode, change.new_mode):
                changes.append(change)
        return changes

    def read_blobs(self, ids: list[str]) -> dict[str, bytes]:
        """The content of each blob in ``ids``."""
        wanted = sorted(set(ids))
        if not wanted:
            return {}
        out = self.run("cat-file", "--batch", stdin="".join(f"{i}\n" for i in wanted).encode())
        blobs: dict[str, bytes] = {}
        pos = 0
        for blob_id in wanted:
            end = out.index(b"\n", pos)
            header = out[pos:end].decode().split(" ")
            if len(header) != 3:
                raise ShadowGitError(f"blob {blob_id} is missing from the checkpoint "
                                     f"repository {self.git_dir}; its history is damaged")
            size = int(header[2])
            blobs[blob_id] = out[end + 1:end + 1 + size]
            pos = end + 1 + size + 1
        return blobs

    def _seed_index(self) -> None:
        """Start a new session's index from the newest other one.

        The index caches each file's stat data and blob id, so ``git add`` hashes only the
        files that changed since; without it a new session's first snapshot hashes them all.
        """
        if self.index.exists():
            return
        others = [p for p in self.index.parent.glob("*.index") if p != self.index]
        if not others:
            return
        newest = max(others, key=lambda p: p.stat().st_mtime)
        with contextlib.suppress(OSError):  # a cold index only costs time
            write_atomically(self.index, newest.read_bytes())

    def _project_excludes(self) -> bytes:
        """The project's own ``.git/info/exclude`` (read only), honoured like .gitignore,
        then the folders no snapshot holds."""
        try:
            own = (self.work_tree / ".git" / "info" / "exclude").read_bytes()
        except OSError:
            own = b""
        never = "".join(f"{pattern}\n" for pattern in NEVER_TRACKED).encode()
        return own + (b"\n" if own and not own.endswith(b"\n") else b"") + never


def _paths(out: bytes) -> list[str]:
    """The paths of git's ``-z`` output."""
    return [os.fsdecode(raw) for raw in out.split(b"\0") if raw]


def _nul_joined(paths: list[str]) -> bytes:
    return b"".join(os.fsencode(p) + b"\0" for p in paths)


def _clean_env() -> dict[str, str]:
    """The environment without any GIT_* variable a parent git may have set, no pager."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null", GIT_PAGER="cat",
               GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    return env


def _write_if_changed(path: Path, data: bytes) -> None:
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    write_atomically(path, data)  # git reads it on every snapshot: never half of it
