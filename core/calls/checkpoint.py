"""The checkpoints of a turn: a snapshot of the project before the turn's first call that
may change it, and one at the turn's end, for /undo, /rewind and the review."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from ...tools.base import Invocation, ToolParams
from ..changes.checkpoints import (
    CheckpointError,
    Checkpoints,
    CheckpointsTooBig,
    CheckpointTimedOut,
    checkpoints_off,
)
from ..events import Checkpoint, ErrorEvent, EventSink


class TurnCheckpoints:
    """Takes each turn's before- and after-snapshot; a failure is reported, never raised.

    Args:
        workdir: The project folder.
        checkpoints: The session's checkpoints; None when they are off in this folder.
        emit: Where the ``checkpoint`` events and the failures go.
        timeout: The ``checkpoint_timeout`` setting as it is now (for what a failure says).
    """

    def __init__(self, workdir: Path, checkpoints: Checkpoints | None, emit: EventSink,
                 timeout: Callable[[], float]) -> None:
        self.workdir = workdir
        self.checkpoints = checkpoints
        """The session's checkpoints; None when they are off (a sub-agent's are its
        parent's turn's)."""
        self.turn = 0
        """The number of the turn the snapshots are taken for."""
        self._emit = emit
        self._timeout = timeout
        self._before = ""  # "", "taken" or "failed": this turn's before-snapshot
        self._told_off = False
        self._off: str | None = None  # why: the folder proved too big to snapshot

    def start(self, turn: int) -> None:
        """A new turn, number ``turn``, starts: it has no before-snapshot yet."""
        self.turn = turn
        self._before = ""

    @property
    def turn_changed(self) -> bool:
        """A call that may change files ran in this turn (its before-snapshot was tried)."""
        return bool(self._before)

    async def before_change(self, invocation: Invocation[ToolParams]) -> None:
        """Snapshot the project ahead of the turn's first call that may change it."""
        if invocation.read_only or self._before:
            return
        self._before = "taken" if await self._snapshot("before") else "failed"

    async def before_outside_change(self) -> None:
        """Snapshot the project ahead of changes no tool call of ours makes (a delegate's
        own writes), so that the review and ``/undo`` see them as the turn's."""
        if not self._before:
            self._before = "taken" if await self._snapshot("before") else "failed"

    async def end_turn(self) -> None:
        """Snapshot the project at the end of a turn that took a before-snapshot.

        The turn keeps its before-snapshot: a call run after it and before the next turn
        (agent-tui's own, such as the planning commit) counts as the turn's, and its end
        moves the turn's after-snapshot on.
        """
        if self._before == "taken":
            await self._snapshot("after")

    async def _snapshot(self, phase: str) -> bool:
        """Take one snapshot and log it; failures are reported, never raised."""
        if self.checkpoints is None or self._off is not None:
            message = self._off or checkpoints_off(self.workdir)
            if message and not self._told_off:
                self._told_off = True
                self._emit(ErrorEvent(message))
            return False
        try:
            commit = await asyncio.to_thread(self.checkpoints.snapshot, self.turn, phase)
        except CheckpointsTooBig as exc:
            self._off = str(exc)  # listing it again each turn would cost as much
            return await self._snapshot(phase)
        except CheckpointTimedOut as exc:
            what = ("/undo and /rewind cannot restore this turn's files" if phase == "before"
                    else "what changes until the next checkpoint counts as this turn's")
            self._emit(ErrorEvent(
                f"No {phase}-checkpoint of turn {self.turn}: {exc}, so the turn went on "
                f"without it after checkpoint_timeout ({self._timeout():g} s); "
                f"{what}. Raise checkpoint_timeout to wait longer."))
            return False
        except CheckpointError as exc:
            self._emit(ErrorEvent(f"No {phase}-checkpoint of turn {self.turn}: {exc}. /undo "
                                  "and /rewind cannot restore this turn's files."))
            return False
        if commit is None:
            return False
        self._emit(Checkpoint(self.turn, phase, commit))
        return True
