"""Reviewing one changed file: accept or reject its hunks, reverting rejected ones on disk.

A ``FileReview`` wraps one changed file of the session (its bytes before and after) and
keeps the person's verdict on each hunk. Rejecting reverts at once, on disk, through an
atomic write that keeps the file's encoding, byte order mark and line endings; accepting a
hunk rejected earlier puts it back. The file may have changed elsewhere since: hunks are
located by their lines and context, and a hunk whose region changed is refused with a
``ReviewError``, never forced. ``review_note`` then tells the model what was rejected.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from ..text.text_files import (
    BINARY_SAMPLE_BYTES,
    atomic_write_text,
    decode_text,
    encoding_for,
    is_binary,
)
from .checkpoint_files import put_file, remove_file
from .hunks import Hunk, HunkConflict, compute_hunks, reapply_hunks, revert_hunks
from .shadow_git import SYMLINK_MODE

REGULAR_MODE = 0o100644
"""git's mode of a plain file: what a change without modes is taken to be."""

Verdict = Literal["pending", "accepted", "rejected"]
"""What the person said about one hunk (or a whole binary file)."""

FileKind = Literal["modified", "created", "deleted", "binary", "symlink", "mode"]
"""How a file changed. Text changes have hunks; a binary file, a symlink and a change of
the executable bit alone are accepted or rejected whole, and so is a text change without
hunks (an empty file created or deleted, bytes changed but not the text they decode to)."""

WHOLE_KINDS: frozenset[FileKind] = frozenset({"binary", "symlink", "mode"})
"""Kinds reviewed as one unit, without hunks."""

_State = tuple[bytes, bool] | None
"""A file on disk as (content, is a symlink), or None when there is none."""


class ChangedFile(Protocol):
    """A file's content before and after a change (``core.checkpoints.FileChange``).

    ``before_mode`` and ``after_mode`` (git modes), when the object has them, tell
    symlinks and executable files apart; without them files are plain.
    """

    @property
    def path(self) -> str:
        """Project-relative, POSIX separators."""
        ...

    @property
    def before(self) -> bytes | None:
        """None: the file did not exist before."""
        ...

    @property
    def after(self) -> bytes | None:
        """None: the file was deleted."""
        ...


class ReviewError(Exception):
    """A verdict could not be carried out on disk; ``message`` says why and what to do."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class Rejection:
    """What the person rejected in one file, for the note to the model.

    Attributes:
        path: The file, project-relative.
        kind: How the file changed.
        hunks: The rejected hunks (empty for a binary file, rejected whole).
        total: How many hunks the file's change has.
        reasons: The person's reason for each rejected hunk ("" when none was given).
        outside: The file was also changed outside the session's turns, so not all that
            was reverted was the model's change.
    """

    path: str
    kind: FileKind
    hunks: tuple[Hunk, ...]
    total: int
    reasons: tuple[str, ...]
    outside: bool = False


class FileReview:
    """One changed file under review: its hunks, the verdict on each, and the disk.

    Args:
        workdir: The project folder the change's path is relative to.
        change: The file's bytes before and after (with ``outside`` true when the file
            was also changed outside the session's turns).
    """

    def __init__(self, workdir: Path, change: ChangedFile) -> None:
        self.workdir = workdir
        self.path = change.path
        self.outside = bool(getattr(change, "outside", False))
        """The file also changed outside the session's turns: reverting it may undo
        changes the session did not make, so a person confirms it first."""
        self.before = change.before
        self.after = change.after
        self.before_mode: int | None = getattr(change, "before_mode", None) or (
            None if change.before is None else REGULAR_MODE)
        self.after_mode: int | None = getattr(change, "after_mode", None) or (
            None if change.after is None else REGULAR_MODE)
        self.kind: FileKind = self._kind()
        if self.kind in WHOLE_KINDS:
            self.before_text = self.after_text = ""
            self.hunks: list[Hunk] = []
        else:
            self.before_text = decode_text(change.before or b"").text
            self.after_text = decode_text(change.after or b"").text
            self.hunks = compute_hunks(self.before_text, self.after_text)
        units = max(len(self.hunks), 1)
        self.verdicts: list[Verdict] = ["pending"] * units
        self.reasons: list[str] = [""] * units

    def _kind(self) -> FileKind:
        if SYMLINK_MODE in (self.before_mode, self.after_mode):
            return "symlink"
        if any(is_binary(data[:BINARY_SAMPLE_BYTES]) for data in (self.before, self.after)
               if data):
            return "binary"
        if self.before is None:
            return "created"
        if self.after is None:
            return "deleted"
        if self.before == self.after:
            return "mode"
        return "modified"

    @property
    def units(self) -> int:
        """How many verdicts the file takes: one per hunk, or one for a whole file."""
        return len(self.verdicts)

    @property
    def whole(self) -> bool:
        """The file is accepted or rejected as one unit: it has no hunks to show."""
        return not self.hunks

    @property
    def counts(self) -> tuple[int, int]:
        """Lines removed and added over all hunks."""
        return sum(h.removed for h in self.hunks), sum(h.added for h in self.hunks)

    def summary(self) -> str:
        """``+3 -1``, ``new file``, ``binary, 1,204 → 1,388 bytes`` and the like."""
        if self.kind == "symlink":
            old, new = (_link_text(data, mode) for data, mode in
                        ((self.before, self.before_mode), (self.after, self.after_mode)))
            return f"symlink, {old} → {new}"
        if self.kind == "mode":
            return f"mode {self.before_mode or 0:o} → {self.after_mode or 0:o}"
        if self.kind == "binary":
            old = "none" if self.before is None else f"{len(self.before):,}"
            new = "none" if self.after is None else f"{len(self.after):,}"
            return f"binary, {old} → {new} bytes"
        removed, added = self.counts
        if self.kind == "created":
            return f"new file, +{added}" if self.hunks else "new empty file"
        if self.kind == "deleted":
            return f"deleted, -{removed}" if self.hunks else "deleted empty file"
        counts = f"+{added} -{removed}" if self.hunks else "same text, other bytes"
        if self.before_mode != self.after_mode:
            counts += f", mode {self.before_mode or 0:o} → {self.after_mode or 0:o}"
        return counts

    # ---------------------------------------------------------------- verdicts

    def accept(self, units: Iterable[int]) -> None:
        """Accept ``units``; any of them rejected before are put back on disk first.

        Raises:
            ReviewError: A rejected hunk cannot be put back; no verdict changed.
        """
        chosen = sorted(set(units))
        back = [u for u in chosen if self.verdicts[u] == "rejected"]
        if back:
            self._apply(back, forward=True)
        for unit in chosen:
            self.verdicts[unit] = "accepted"
            self.reasons[unit] = ""

    def reject(self, units: Iterable[int], reason: str = "") -> None:
        """Reject ``units`` and revert them on disk now (all of them or none).

        Raises:
            ReviewError: A hunk's region changed since, or the file cannot be written;
                nothing on disk and no verdict changed.
        """
        chosen = sorted(set(units))
        todo = [u for u in chosen if self.verdicts[u] != "rejected"]
        if todo:
            self._apply(todo, forward=False)
        for unit in chosen:
            self.verdicts[unit] = "rejected"
            self.reasons[unit] = reason.strip() or self.reasons[unit]

    def rejection(self) -> Rejection | None:
        """The rejected hunks and their reasons, or None when nothing is rejected."""
        rejected = [u for u, v in enumerate(self.verdicts) if v == "rejected"]
        if not rejected:
            return None
        hunks = tuple(self.hunks[u] for u in rejected) if self.hunks else ()
        return Rejection(self.path, self.kind, hunks, len(self.hunks),
                         tuple(self.reasons[u] for u in rejected), self.outside)

    # ---------------------------------------------------------------- disk

    def _root(self) -> Path:
        return Path(os.path.realpath(self.workdir))

    def _current(self) -> _State:
        """The file on disk now: its content and whether it is a symlink, or None."""
        target = self._root() / self.path
        try:
            info = os.lstat(target)
            if stat.S_ISLNK(info.st_mode):
                return os.fsencode(os.readlink(target)), True
            if not stat.S_ISREG(info.st_mode):
                raise ReviewError(f"{self.path} is not a regular file now; it was left alone")
            return target.read_bytes(), False
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise ReviewError(f"cannot read {self.path}: {exc.strerror or exc}") from exc

    def _side(self, after: bool) -> _State:
        """The file as the change left it (``after``) or found it."""
        data, mode = (self.after, self.after_mode) if after else (self.before, self.before_mode)
        return None if data is None else (data, mode == SYMLINK_MODE)

    def _apply(self, units: list[int], *, forward: bool) -> None:
        """Put ``units`` back (``forward``) or revert them, in the file on disk."""
        current = self._current()
        if len(units) == self.units and current == self._side(not forward):
            # The file is exactly as the change (or the revert) left it: the other side
            # goes back whole, byte for byte, with its mode.
            self._put(forward)
            return
        if self.whole or self.kind != "modified" or current is None or current[1]:
            raise ReviewError(self._changed_since(current))
        data = current[0]
        if is_binary(data[:BINARY_SAMPLE_BYTES]):
            raise ReviewError(f"{self.path} is binary now; its hunks cannot be placed. "
                              "Check it by hand")
        text = decode_text(data)
        hunks = [self.hunks[u] for u in units]
        try:
            new = (reapply_hunks if forward else revert_hunks)(text.text, hunks)
        except HunkConflict as exc:
            raise ReviewError(f"{self.path}: {exc.message}") from exc
        if new == (self.after_text if forward else self.before_text):
            # The last hunk of the file: the side comes back byte for byte, mode included.
            self._put(forward)
            return
        encoding = encoding_for(new, text.encoding)
        target = self._root() / self.path
        if Path(os.path.realpath(target.parent)) != target.parent:
            raise ReviewError(f"{self.path} is now reached through a symlinked folder; it "
                              "was left alone. Check it by hand")
        try:
            atomic_write_text(target, new, encoding=encoding,
                              bom=text.bom and encoding == "utf-8")
        except OSError as exc:
            raise ReviewError(f"cannot write {self.path}: {exc.strerror or exc}") from exc

    def _put(self, after: bool) -> None:
        """Make the file what it was before the change, or after it (atomically)."""
        data, mode = (self.after, self.after_mode) if after else (self.before, self.before_mode)
        try:
            if data is None:
                remove_file(self._root(), self.path)
            else:
                put_file(self._root(), self.path, data, mode or REGULAR_MODE)
        except OSError as exc:
            raise ReviewError(f"cannot write {self.path}: {exc.strerror or exc}") from exc

    def _changed_since(self, current: _State) -> str:
        if current is None:
            return (f"{self.path} was deleted since; there is nothing to revert. "
                    "Restore it with /undo or /rewind if you want it back")
        if self.kind == "created":
            return (f"{self.path} changed since it was created; reverting would lose those "
                    "changes, so it was left alone. Delete or edit it by hand")
        if self.kind == "deleted":
            return (f"{self.path} exists again; it was left alone rather than overwritten. "
                    "Edit it by hand")
        if self.kind == "modified" and current[1]:
            return f"{self.path} is a symlink now; it was left alone. Check it by hand"
        return (f"{self.path} changed since; this {self.kind} change was left alone. "
                "Restore it with /undo or /rewind, or by hand")


def _link_text(data: bytes | None, mode: int | None) -> str:
    """How one side of a symlink change reads: ``-> target``, a file, or none."""
    if data is None:
        return "none"
    if mode == SYMLINK_MODE:
        return f"-> {os.fsdecode(data)}"
    return f"a file of {len(data):,} bytes"


def review_note(rejections: Sequence[Rejection]) -> str | None:
    """What the model is told about the person's rejections, or None when there are none."""
    if not rejections:
        return None
    lines = ["The person reviewed your changes and rejected these; they were reverted on "
             "disk, so read each file again before you edit it and do not redo them unless "
             "asked:"]
    for item in rejections:
        lines.extend(_rejection_lines(item))
    return "\n".join(lines)


def _rejection_lines(item: Rejection) -> list[str]:
    """The note's lines for one file."""
    given = [r for r in item.reasons if r]
    whole = {"binary": "your change to this binary file was undone",
             "symlink": "your change to this symlink was undone",
             "mode": "your change of this file's mode was undone",
             "created": "the file you created was deleted",
             "deleted": "the file you deleted was restored"}
    because = f" (reason: {'; '.join(dict.fromkeys(given))})" if given else ""
    if item.outside and not item.hunks:
        # Someone else changed it too: what was undone is not all the model's.
        return [f"- {item.path}: put back as it was before your turns changed it; it was "
                f"also changed outside your turns, so not all that was undone was your "
                f"change{because}"]
    if not item.hunks:  # a change without hunks: its bytes, not its text
        return [f"- {item.path}: {whole.get(item.kind, 'your change to this file was undone')}"
                f"{because}"]
    if item.kind in whole and len(item.hunks) == item.total and not item.outside:
        return [f"- {item.path}: {whole[item.kind]}{because}"]
    out: list[str] = []
    for hunk, reason in zip(item.hunks, item.reasons, strict=True):
        where = (f"{hunk.new_range} after, {hunk.old_range} before" if item.outside else
                 f"your {hunk.new_range}, {hunk.old_range} before your change")
        why = f"; reason: {reason}" if reason else "; no reason given"
        out.append(f"- {item.path}, hunk {hunk.index + 1} of {item.total} ({where}){why}")
        out.extend(f"    {line}" for line in hunk.excerpt())
    if item.outside:
        out.append(f"    ({item.path} was also changed outside your turns: not all that was "
                   "reverted there was your change)")
    return out
