"""Checkpoints: snapshots of the project's files around each turn that changes them.

Before the first change of a turn the agent takes a ``before`` snapshot, and at the end of
that turn an ``after`` one. Each is a commit in the project's shadow git repository
(:mod:`.shadow_git`), under ``refs/agent-tui/<session>/<turn>/<phase>``, so the history of
a session is rebuilt from the repository alone: after a resume, or when the workbench
builds a new :class:`~agent_tui.core.agent.Agent`. Restoring a turn writes a third ref,
``.../<turn>/undone``, pointing at the files as they were just before the restore.

Every method blocks on git; call them off the event loop (``asyncio.to_thread``).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .. import paths
from .checkpoint_files import put_file, remove_file
from .shadow_git import ShadowGit, ShadowGitError, SnapshotTimedOut, TreeChange, git_executable
from .snapshot_scope import FolderTooBig, SnapshotLimits

REF_ROOT = "refs/agent-tui"
PHASES = ("before", "after")
UNDONE = "undone"


class CheckpointError(Exception):
    """A checkpoint could not be taken, read or restored; the message says what to do."""


class CheckpointsTooBig(CheckpointError):
    """The folder holds too many files to snapshot; checkpoints are off for it."""


class CheckpointTimedOut(CheckpointError):
    """A snapshot took longer than its time limit and was not taken."""


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file as it was and as it is (or was at the end of a turn).

    Attributes:
        path: Project-relative, POSIX separators.
        before: The content before; None when the file did not exist.
        after: The content after; None when the file was deleted.
        before_mode: git's mode before (0o100644, 0o100755, 0o120000 for a symlink whose
            target is the content); None when the file did not exist.
        after_mode: git's mode after; None when the file was deleted.
        outside: In a session's changes, the file was also changed outside the session's
            turns (by hand, by another program) after a turn first changed it, so
            reverting it may undo changes the session did not make.
    """

    path: str
    before: bytes | None
    after: bytes | None
    before_mode: int | None = None
    after_mode: int | None = None
    outside: bool = False


def checkpoints_off(workdir: Path) -> str | None:
    """Why checkpoints cannot work for ``workdir``, to tell the person; None when they can.

    They need git, and they are not taken of a home folder or of ``/``, whose files are
    far too many to snapshot at every turn.
    """
    if git_executable() is None:
        return ("Checkpoints are off: git was not found on PATH, so /undo and /rewind cannot "
                "restore files. Install git (e.g. `apt-get install git`) and restart agent-tui.")
    real = Path(os.path.realpath(workdir))
    if real == Path(real.anchor) or real == Path(os.path.realpath(Path.home())):
        return (f"Checkpoints are off: {real} is your home folder or the file system's root, "
                "too big to snapshot at every turn, so /undo and /rewind cannot restore files. "
                "Start agent-tui in a project folder to have them.")
    return None


_Snapshots = dict[int, dict[str, tuple[str, str]]]  # turn -> phase -> (commit, tree)


class Checkpoints:
    """The checkpoints of one session in one project.

    Args:
        workdir: The project folder.
        session_id: The session whose turns are recorded.
        limits: How many files, how large, and how long a snapshot may take (the
            ``checkpoint_*`` settings); the defaults when None.
    """

    def __init__(self, workdir: Path, session_id: str,
                 limits: SnapshotLimits | None = None) -> None:
        self.workdir = Path(os.path.realpath(workdir))
        self.session_id = session_id
        self._git = ShadowGit(paths.checkpoints_dir(self.workdir), self.workdir, session_id,
                              limits)
        self._prefix = f"{REF_ROOT}/{session_id}/"
        self._lock = threading.RLock()

    @property
    def repository(self) -> Path:
        """The shadow repository's folder (outside the project)."""
        return self._git.git_dir

    def available(self) -> bool:
        """Whether git is present and the shadow repository can be used."""
        if git_executable() is None:
            return False
        try:
            with self._lock:
                self._git.ensure()
        except (ShadowGitError, OSError):
            return False
        return True

    def snapshot(self, turn: int, phase: str) -> str | None:
        """Record the project's files as they are now for ``turn``'s ``phase``.

        Args:
            turn: The turn's number (the count of earlier prompts in the session).
            phase: ``"before"`` (the turn's first change) or ``"after"`` (its end).

        Returns:
            The commit id, or None when git is missing.

        Raises:
            CheckpointsTooBig: The folder holds more files than the limits allow.
            CheckpointTimedOut: It took longer than the limits' ``timeout`` and was not
                taken (the files hashed so far make the next one quicker).
            CheckpointError: git failed or the repository cannot be written.
        """
        if phase not in PHASES:
            raise ValueError(f"phase must be one of {PHASES}, not {phase!r}")
        if git_executable() is None:
            return None
        with self._lock, _reported("take a checkpoint"):
            tree = self._git.write_tree(self._git.limits.timeout)
            snapshots = self._snapshots()
            parent = _latest_commit(snapshots)
            commit = self._git.commit(tree, f"{self.session_id} turn {turn} {phase}", parent)
            self._git.set_ref(f"{self._prefix}{turn}/{phase}", commit)
            if phase == "after":
                # Plumbing never packs; past git's threshold this packs the loose objects and
                # drops the trees that comparisons with the disk left behind. In the
                # background, as git's own auto gc: packing a big project takes seconds.
                self._git.run("gc", "--auto", "--quiet", detach=True)
            return commit

    def turns(self) -> list[int]:
        """The turns that changed something, oldest first (undone ones included)."""
        with self._lock, _reported("read the checkpoints"):
            snapshots = self._snapshots()
            disk = _Lazy(self._git.write_tree)
            return [turn for turn in _started(snapshots)
                    if snapshots[turn]["before"][1] != self._end_tree(snapshots, turn, disk)]

    def undone(self) -> set[int]:
        """The turns whose files were put back by :meth:`restore`."""
        with self._lock, _reported("read the checkpoints"):
            return {turn for turn, phases in self._snapshots().items() if UNDONE in phases}

    def last_undoable(self) -> int | None:
        """The latest turn that changed files and is not undone yet, or None."""
        undone = self.undone()
        remaining = [turn for turn in self.turns() if turn not in undone]
        return remaining[-1] if remaining else None

    def changed_paths(self, turn: int | None = None) -> list[str]:
        """The paths :meth:`changes` would report, without reading any content."""
        with self._lock, _reported("read the checkpoints"):
            if turn is None:
                return [c.path for c, _ in self._session_tree_changes()]
            return [c.path for c in self._tree_changes(turn)]

    def changes(self, turn: int | None = None) -> list[FileChange]:
        """What changed, file by file, sorted by path.

        Args:
            turn: None for the whole session: the files its turns changed (not undone),
                each from before the first turn that changed it to the end of the last
                one; files changed only outside the turns (by hand, by another program)
                are left out, and those also changed outside them are marked ``outside``.
                A number for that turn, from its ``before`` snapshot to its ``after`` one
                (or to the next snapshot, or to the disk, when it has none yet). A turn
                without a checkpoint changed nothing: the list is empty.
        """
        with self._lock, _reported("read the checkpoints"):
            if turn is None:
                found = self._session_tree_changes()
            else:
                found = [(c, False) for c in self._tree_changes(turn)]
            blobs = self._git.read_blobs([c.old_id for c, _ in found if c.old_mode]
                                         + [c.new_id for c, _ in found if c.new_mode])
            return [FileChange(c.path,
                               blobs[c.old_id] if c.old_mode else None,
                               blobs[c.new_id] if c.new_mode else None,
                               c.old_mode or None, c.new_mode or None, outside)
                    for c, outside in found]

    def restore(self, turn: int) -> list[str]:
        """Put the files back as they were before ``turn``.

        Every file that ``turn`` or a later turn of the session changed (turns undone
        already aside) gets its content and mode from before ``turn``: created files are removed (with the folders they
        leave empty), deleted ones recreated. Files no turn touched stay as they are, so
        the person's own edits elsewhere survive. ``turn`` and the later turns count as
        undone afterwards.

        Returns:
            The project-relative paths written or removed, sorted.

        Raises:
            CheckpointError: git failed, or some files could not be written (the message
                lists them; the others were restored).
        """
        with self._lock, _reported("restore the files"):
            snapshots = self._snapshots()
            later = [t for t in _started(snapshots) if t >= turn]
            if not later:
                return []
            disk_tree = self._git.write_tree()
            disk = _Lazy(lambda: disk_tree)
            touched: set[str] = set()
            for t in later:
                if UNDONE in snapshots[t]:
                    continue  # put back already: what its files hold now is no turn's doing
                start = snapshots[t]["before"][1]
                touched.update(c.path for c in self._git.diff(start, self._end_tree(
                    snapshots, t, disk)))
            base = snapshots[later[0]]["before"][1]
            wanted = [c for c in self._git.diff(disk_tree, base) if c.path in touched]
            blobs = self._git.read_blobs([c.new_id for c in wanted if c.new_mode])
            restored: list[str] = []
            failed: list[str] = []
            # Removals first: a file may come back where a folder of new files was.
            for change in sorted(wanted, key=lambda c: (c.new_mode != 0, c.path)):
                try:
                    if change.new_mode:
                        put_file(self.workdir, change.path, blobs[change.new_id],
                                 change.new_mode)
                    else:
                        remove_file(self.workdir, change.path)
                except OSError as exc:
                    failed.append(f"{change.path} ({exc.strerror or exc})")
                else:
                    restored.append(change.path)
            if failed:
                raise CheckpointError(
                    f"restored {len(restored)} file(s) but could not restore "
                    f"{', '.join(failed)}; fix that (permissions, a folder in the way) and "
                    "run it again")
            marker = self._git.commit(disk_tree, f"{self.session_id} before restoring turn "
                                      f"{turn}", _latest_commit(snapshots))
            for t in later:
                self._git.set_ref(f"{self._prefix}{t}/{UNDONE}", marker)
            return sorted(restored)

    def inherit(self, source_session_id: str, below_turn: int) -> int:
        """Copy another session's checkpoints of turns before ``below_turn`` into this one.

        For a session forked from ``source_session_id`` before ``below_turn``: its turns
        0..below_turn-1 are the source's, and so are their files. Returns how many refs
        were copied.
        """
        with self._lock, _reported("copy the checkpoints"):
            source = f"{REF_ROOT}/{source_session_id}/"
            copied = 0
            for name, (commit, _tree) in self._git.refs(source).items():
                turn, _, phase = name[len(source):].partition("/")
                if turn.isdigit() and int(turn) < below_turn:
                    self._git.set_ref(f"{self._prefix}{turn}/{phase}", commit)
                    copied += 1
            return copied

    def forget(self) -> int:
        """Drop this session's checkpoints (its session was deleted); returns how many refs.

        The snapshots' objects go with the repository's next ``gc`` once no other session
        (a fork, say) still points at them.
        """
        with self._lock, _reported("delete the checkpoints"):
            names = list(self._git.refs(self._prefix))
            self._git.delete_refs(names)
            self._git.index.unlink(missing_ok=True)
            return len(names)

    # -- reading the refs --------------------------------------------------------------

    def _snapshots(self) -> _Snapshots:
        found: _Snapshots = {}
        for name, ids in self._git.refs(self._prefix).items():
            turn, _, phase = name[len(self._prefix):].partition("/")
            if turn.isdigit():
                found.setdefault(int(turn), {})[phase] = ids
        return found

    def _end_tree(self, snapshots: _Snapshots, turn: int, disk: _Lazy) -> str:
        """The tree at the end of ``turn``: its after snapshot, the next one, or the disk."""
        if "after" in snapshots[turn]:
            return snapshots[turn]["after"][1]
        following = [t for t in _started(snapshots) if t > turn]
        return snapshots[following[0]]["before"][1] if following else disk()

    def _tree_changes(self, turn: int) -> list[TreeChange]:
        snapshots = self._snapshots()
        started = _started(snapshots)
        disk = _Lazy(self._git.write_tree)
        if turn not in started:
            return []
        return self._git.diff(snapshots[turn]["before"][1],
                              self._end_tree(snapshots, turn, disk))


    def _session_tree_changes(self) -> list[tuple[TreeChange, bool]]:
        """Each path the session's turns changed (undone turns aside), with its net change
        from before the first of them to the end of the last, and whether it also changed
        outside the turns afterwards (between two of them, or since the last)."""
        snapshots = self._snapshots()
        undone = {turn for turn, phases in snapshots.items() if UNDONE in phases}
        disk = _Lazy(self._git.write_tree)
        first: dict[str, TreeChange] = {}
        last: dict[str, tuple[TreeChange, str]] = {}  # path -> (latest change, its end tree)
        outside: set[str] = set()
        for turn in _started(snapshots):
            if turn in undone:
                continue
            end = self._end_tree(snapshots, turn, disk)
            for change in self._git.diff(snapshots[turn]["before"][1], end):
                previous = last.get(change.path)
                if previous is None:
                    first[change.path] = change
                elif _new_side(previous[0]) != _old_side(change):
                    outside.add(change.path)  # it changed between the two turns
                last[change.path] = (change, end)
        by_end: dict[str, set[str]] = {}
        for path, (_, end) in last.items():
            by_end.setdefault(end, set()).add(path)
        for end, paths_ended in by_end.items():
            if end != disk():
                outside.update(c.path for c in self._git.diff(end, disk())
                               if c.path in paths_ended)
        net = [TreeChange(path, *_old_side(first[path]), *_new_side(last[path][0]))
               for path in sorted(first)]
        return [(c, c.path in outside) for c in net
                if (c.old_mode, c.old_id) != (c.new_mode, c.new_id)]


def _old_side(change: TreeChange) -> tuple[int, str]:
    return change.old_mode, change.old_id


def _new_side(change: TreeChange) -> tuple[int, str]:
    return change.new_mode, change.new_id


class _Lazy:
    """A tree id computed on first use (the disk's tree costs a ``git add``)."""

    def __init__(self, compute: Callable[[], str]) -> None:
        self._compute = compute
        self._value: str | None = None

    def __call__(self) -> str:
        if self._value is None:
            self._value = self._compute()
        return self._value


def _started(snapshots: _Snapshots) -> list[int]:
    return sorted(turn for turn, phases in snapshots.items() if "before" in phases)


def _latest_commit(snapshots: _Snapshots) -> str | None:
    if not snapshots:
        return None
    latest = snapshots[max(snapshots)]
    for phase in (UNDONE, "after", "before"):
        if phase in latest:
            return latest[phase][0]
    return None


@contextlib.contextmanager
def _reported(doing: str) -> Iterator[None]:
    """Turn git and file-system failures into a :class:`CheckpointError` saying ``doing``."""
    try:
        yield
    except FolderTooBig as exc:
        raise CheckpointsTooBig(str(exc)) from exc
    except SnapshotTimedOut as exc:
        raise CheckpointTimedOut(str(exc)) from exc
    except ShadowGitError as exc:
        raise CheckpointError(f"could not {doing}: {exc}") from exc
    except OSError as exc:
        raise CheckpointError(
            f"could not {doing}: {exc}; check that {paths.data_dir()} and the project "
            "folder are writable and have free space") from exc
