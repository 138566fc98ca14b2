"""The workbench's change actions: ``/undo``, ``/rewind`` and the diff review (F7, ``/diff``).

:class:`ChangeActions` works on the app it is given: its agent, session, ``busy`` and
``notice``. What the person did reaches the model as a note with the next prompt
(:meth:`ChangeActions.tell_model`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...core.changes.checkpoints import Checkpoints
    from ..screens.rewind import RewindChoice
    from . import Workbench
    from .session_actions import SessionActions


class ChangeActions:
    """``/undo``, ``/rewind``, ``/diff`` and F7, over the session's checkpoints.

    Args:
        app: The workbench whose session's changes these act on.
        sessions: Its session actions (a rewind of the conversation forks the session).
    """

    def __init__(self, app: Workbench, sessions: SessionActions) -> None:
        self.app = app
        self.sessions = sessions

    async def undo(self) -> None:
        """``/undo``: put back the files of the last turn that changed some, and say so;
        the turn's auto-commit is taken back too while HEAD is still that commit."""
        from ...core.changes.auto_commit import commit_undo
        from ...core.changes.checkpoints import CheckpointError, checkpoints_off

        app = self.app
        checkpoints = app.checkpoints()
        if checkpoints is None:
            app.notice(checkpoints_off(app.workdir) or "Checkpoints are off.", error=True)
            return
        try:
            turn = await asyncio.to_thread(checkpoints.last_undoable)
            if turn is None:
                app.notice("Nothing to undo: no turn of this session changed files, or they "
                           "are all undone already.")
                return
            records = await asyncio.to_thread(self._log_records)
            committed = await asyncio.to_thread(commit_undo, app.workdir, records, turn)
            restored = await asyncio.to_thread(checkpoints.restore, turn)
        except CheckpointError as exc:
            app.notice(f"Could not undo: {exc}", error=True)
            return
        said = await asyncio.to_thread(committed.finish) if committed is not None else ""
        app.notice(f"Undid turn {turn}: {_file_list(restored)} back as before it.{said} "
                   "/undo again undoes the turn before it.")
        await self.tell_model(f"The person undid turn {turn} with /undo: its file changes are "
                              f"gone; {_file_list(restored)} are back as they were before it."
                              f"{said} Read a file again before you change it.")

    def _log_records(self) -> list[dict[str, Any]]:
        """The session log's records ([] when the workbench keeps no log, or it cannot be
        read: then no auto-commit is found to take back)."""
        from ...core.sessions.log import SessionError, read_events

        if self.app.opened is None:
            return []
        try:
            return read_events(self.app.session_id).events
        except SessionError:
            return []

    async def rewind(self) -> None:
        """``/rewind``: pick a turn; go back to before it in the conversation, files or both."""
        from ...core.changes.checkpoints import CheckpointError
        from ...core.sessions.log import SessionError, read_events
        from ..screens.rewind import RewindScreen, turn_rows

        app = self.app
        if app.opened is None:
            app.notice("This workbench keeps no session log to rewind.", error=True)
            return
        checkpoints = app.checkpoints()
        try:
            log = await asyncio.to_thread(read_events, app.session_id)
            rows = await asyncio.to_thread(turn_rows, log.events, checkpoints)
        except (SessionError, CheckpointError) as exc:
            app.notice(f"Could not list the turns: {exc}", error=True)
            return
        screen = RewindScreen(rows, files_available=checkpoints is not None)
        await app.push_screen(screen, self._on_rewind)

    async def _on_rewind(self, choice: RewindChoice | None) -> None:
        from ...core.changes.checkpoints import CheckpointError

        app = self.app
        if choice is None:
            return
        if app.busy:
            app.notice("Wait for the turn to finish (or press Esc) before rewinding.",
                       error=True)
            return
        turn, old_id = choice.turn, app.session_id
        checkpoints = app.checkpoints()
        restored: list[str] = []
        try:
            if choice.files and checkpoints is not None:
                restored = await asyncio.to_thread(checkpoints.restore, turn)
        except CheckpointError as exc:
            app.notice(f"Could not rewind: {exc}", error=True)
            return
        files = (f" Files: {_file_list(restored)} back as before turn {turn}."
                 if choice.files else "")
        if not choice.conversation:
            app.notice(f"Rewound the files to before turn {turn}.{files}")
            await self.tell_model(
                f"The person rewound the files to before turn {turn} with /rewind: the file "
                f"changes of turn {turn} and later are gone; {_file_list(restored)} are back "
                "as they were. Read a file again before you change it.")
            return
        kept_on_disk: list[str] = []
        if checkpoints is not None and not choice.files:
            try:
                kept_on_disk = await asyncio.to_thread(_changed_since, checkpoints, turn)
            except CheckpointError as exc:
                app.notice(f"Could not list the files changed since turn {turn}: {exc}",
                           error=True)
        new_id = await self.sessions.fork_into(old_id, turn, announce=False)
        if new_id is None:
            return
        app.notice(f"Rewound the conversation to before turn {turn}: now in session {new_id};"
                   f" session {old_id} stays whole in the browser (Ctrl+R).{files}")
        if kept_on_disk:
            await self.tell_model(
                f"The conversation was rewound to before this prompt, but the files were left "
                f"as they are: changes made after it are still on disk in "
                f"{', '.join(kept_on_disk)}. Read a file again before you change it.")

    async def review(self, arg: str = "") -> None:
        """``/diff [TURN]``: every file the session (or turn TURN) changed, hunk by hunk."""
        from ...core.changes.checkpoints import CheckpointError, checkpoints_off
        from ...core.changes.file_review import FileReview
        from ..screens.diff_review import DiffReviewScreen

        app = self.app
        if len(app.screen_stack) > 1:
            return  # F7 over another screen (an approval, the browser): not now
        if app.busy:
            app.notice("Wait for the turn to finish (or press Esc) before reviewing: the "
                       "agent may still be changing files.", error=True)
            return
        if arg and not arg.isdigit():
            app.notice("Usage: /diff [TURN]: TURN is a turn number, 0 for the first prompt.",
                       error=True)
            return
        checkpoints = app.checkpoints()
        if checkpoints is None:
            app.notice(checkpoints_off(app.workdir) or "Checkpoints are off.", error=True)
            return
        turn = int(arg) if arg else None
        try:
            changes = await asyncio.to_thread(checkpoints.changes, turn)
            turns = await asyncio.to_thread(checkpoints.turns) if turn is not None else []
        except CheckpointError as exc:
            app.notice(f"Could not read the changes: {exc}", error=True)
            return
        if turn is not None and not changes:
            listed = ", ".join(map(str, turns)) if turns else "none yet"
            app.notice(f"Turn {turn} changed no files. Turns that did: {listed}.", error=True)
            return
        title = "Changes in this session" if turn is None else f"Changes in turn {turn}"
        reviews = await asyncio.to_thread(
            lambda: [FileReview(app.workdir, change) for change in changes])
        await app.push_screen(DiffReviewScreen(app.workdir, reviews, title),
                              self._on_review_closed)

    async def _on_review_closed(self, note: str | None) -> None:
        if note:
            await self.tell_model(note)
            self.app.notice("Rejected changes were reverted; the model reads which ones, and "
                            "why, with your next prompt.")

    async def tell_model(self, text: str) -> None:
        """Have the model hear ``text`` with the next prompt (logged in the session now)."""
        from ...core.events import ModelNote

        app = self.app
        opened = app.opened
        if app.agent is None and opened is not None and (
                opened.log is not None or not app.settings.model):
            # The agent is built later from this log: the note goes there and into the file.
            record = ModelNote(text).to_dict()
            await asyncio.to_thread(opened.store.append, record)
            if opened.log is not None:
                opened.log.events.append(record)
            return
        if app.agent is None and not app.settings.model:
            return  # no session and no model: nobody will read it
        (await app.ensure_agent()).add_note(text)


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
