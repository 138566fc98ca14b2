"""The workbench's change commands: ``/undo``, ``/rewind`` and the diff review (F7, ``/diff``).

``ChangeActions`` is mixed into :class:`~agent_tui.tui.app.AgentApp`; it uses the app's
agent, session, ``busy``, ``notice`` and the prompt box. What the person did reaches the model
as a note with the next prompt (``_tell_model``).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core.changes.checkpoints import Checkpoints
    from .screens.rewind import RewindChoice


class ChangeActions:
    """``/undo``, ``/rewind``, ``/diff`` and F7, over the session's checkpoints."""

    def _checkpoints(self) -> Checkpoints | None:
        """This session's checkpoints; None when they are off (no git, or a home folder)."""
        from ..core.changes.checkpoints import Checkpoints, checkpoints_off

        if self.agent is not None:
            return self.agent.checkpoints
        return (Checkpoints(self.workdir, self.session_id)
                if checkpoints_off(self.workdir) is None else None)

    async def undo_turn(self) -> None:
        """``/undo``: put back the files of the last turn that changed some, and say so."""
        from ..core.changes.checkpoints import CheckpointError, checkpoints_off

        if self.busy:
            self.notice("Wait for the turn to finish (or press Esc) before undoing.", error=True)
            return
        checkpoints = self._checkpoints()
        if checkpoints is None:
            self.notice(checkpoints_off(self.workdir) or "Checkpoints are off.", error=True)
            return
        try:
            turn = await asyncio.to_thread(checkpoints.last_undoable)
            if turn is None:
                self.notice("Nothing to undo: no turn of this session changed files, or they "
                            "are all undone already.")
                return
            restored = await asyncio.to_thread(checkpoints.restore, turn)
        except CheckpointError as exc:
            self.notice(f"Could not undo: {exc}", error=True)
            return
        self.notice(f"Undid turn {turn}: {_file_list(restored)} back as before it. "
                    "/undo again undoes the turn before it.")
        await self._tell_model(f"The person undid turn {turn} with /undo: its file changes are "
                               f"gone; {_file_list(restored)} are back as they were before it. "
                               "Read a file again before you change it.")

    async def rewind(self) -> None:
        """``/rewind``: pick a turn; go back to before it in the conversation, files or both."""
        from ..core.changes.checkpoints import CheckpointError
        from ..core.sessions.log import SessionError, read_events
        from .screens.rewind import RewindScreen, turn_rows

        if self.busy:
            self.notice("Wait for the turn to finish (or press Esc) before rewinding.",
                        error=True)
            return
        if self.opened is None:
            self.notice("This workbench keeps no session log to rewind.", error=True)
            return
        checkpoints = self._checkpoints()
        try:
            log = await asyncio.to_thread(read_events, self.session_id)
            rows = await asyncio.to_thread(turn_rows, log.events, checkpoints)
        except (SessionError, CheckpointError) as exc:
            self.notice(f"Could not list the turns: {exc}", error=True)
            return
        screen = RewindScreen(rows, files_available=checkpoints is not None)
        await self.push_screen(screen, self._on_rewind)

    async def _on_rewind(self, choice: RewindChoice | None) -> None:
        from ..core.changes.checkpoints import CheckpointError

        if choice is None:
            return
        if self.busy:
            self.notice("Wait for the turn to finish (or press Esc) before rewinding.",
                        error=True)
            return
        turn, old_id = choice.turn, self.session_id
        checkpoints = self._checkpoints()
        restored: list[str] = []
        try:
            if choice.files and checkpoints is not None:
                restored = await asyncio.to_thread(checkpoints.restore, turn)
        except CheckpointError as exc:
            self.notice(f"Could not rewind: {exc}", error=True)
            return
        files = (f" Files: {_file_list(restored)} back as before turn {turn}."
                 if choice.files else "")
        if not choice.conversation:
            self.notice(f"Rewound the files to before turn {turn}.{files}")
            await self._tell_model(
                f"The person rewound the files to before turn {turn} with /rewind: the file "
                f"changes of turn {turn} and later are gone; {_file_list(restored)} are back "
                "as they were. Read a file again before you change it.")
            return
        kept_on_disk: list[str] = []
        if checkpoints is not None and not choice.files:
            try:
                kept_on_disk = await asyncio.to_thread(_changed_since, checkpoints, turn)
            except CheckpointError as exc:
                self.notice(f"Could not list the files changed since turn {turn}: {exc}",
                            error=True)
        new_id = await self.fork_into(old_id, turn, announce=False)
        if new_id is None:
            return
        self.notice(f"Rewound the conversation to before turn {turn}: now in session {new_id};"
                    f" session {old_id} stays whole in the browser (Ctrl+R).{files}")
        if kept_on_disk:
            await self._tell_model(
                f"The conversation was rewound to before this prompt, but the files were left "
                f"as they are: changes made after it are still on disk in "
                f"{', '.join(kept_on_disk)}. Read a file again before you change it.")

    async def action_review_changes(self) -> None:
        """F7: review the files this session changed (as ``/diff``)."""
        await self.review_changes()

    async def review_changes(self, arg: str = "") -> None:
        """``/diff [TURN]``: every file the session (or turn TURN) changed, hunk by hunk."""
        from ..core.changes.checkpoints import CheckpointError, checkpoints_off
        from ..core.changes.file_review import FileReview
        from .screens.diff_review import DiffReviewScreen

        if len(self.screen_stack) > 1:
            return  # F7 over another screen (an approval, the browser): not now
        if self.busy:
            self.notice("Wait for the turn to finish (or press Esc) before reviewing: the "
                        "agent may still be changing files.", error=True)
            return
        if arg and not arg.isdigit():
            self.notice("Usage: /diff [TURN]: TURN is a turn number, 0 for the first prompt.",
                        error=True)
            return
        checkpoints = self._checkpoints()
        if checkpoints is None:
            self.notice(checkpoints_off(self.workdir) or "Checkpoints are off.", error=True)
            return
        turn = int(arg) if arg else None
        try:
            changes = await asyncio.to_thread(checkpoints.changes, turn)
            turns = await asyncio.to_thread(checkpoints.turns) if turn is not None else []
        except CheckpointError as exc:
            self.notice(f"Could not read the changes: {exc}", error=True)
            return
        if turn is not None and not changes:
            listed = ", ".join(map(str, turns)) if turns else "none yet"
            self.notice(f"Turn {turn} changed no files. Turns that did: {listed}.", error=True)
            return
        title = "Changes in this session" if turn is None else f"Changes in turn {turn}"
        reviews = await asyncio.to_thread(
            lambda: [FileReview(self.workdir, change) for change in changes])
        await self.push_screen(DiffReviewScreen(self.workdir, reviews, title),
                               self._on_review_closed)

    async def _on_review_closed(self, note: str | None) -> None:
        if note:
            await self._tell_model(note)
            self.notice("Rejected changes were reverted; the model reads which ones, and "
                        "why, with your next prompt.")

    async def _tell_model(self, text: str) -> None:
        """Have the model hear ``text`` with the next prompt (logged in the session now)."""
        from ..core.events import ModelNote

        opened = self.opened
        if self.agent is None and opened is not None and (
                opened.log is not None or not self.settings.model):
            # The agent is built later from this log: the note goes there and into the file.
            record = ModelNote(text).to_dict()
            await asyncio.to_thread(opened.store.append, record)
            if opened.log is not None:
                opened.log.events.append(record)
            return
        if self.agent is None and not self.settings.model:
            return  # no session and no model: nobody will read it
        (await self._ensure_agent()).add_note(text)


def _file_list(paths: list[str], shown: int = 8) -> str:
    """``2 files (a.py, b.py)`` for a notice or a note."""
    if not paths:
        return "no files"
    names = ", ".join(paths[:shown]) + (f" and {len(paths) - shown} more" if len(paths) > shown
                                        else "")
    return f"{len(paths)} file{'s' if len(paths) != 1 else ''} ({names})"


def _changed_since(checkpoints: Checkpoints, turn: int) -> list[str]:
    """The files turns from ``turn`` on changed (and not undone): still on disk after a rewind."""
    undone = checkpoints.undone()
    return sorted({path for t in checkpoints.turns() if t >= turn and t not in undone
                   for path in checkpoints.changed_paths(t)})
