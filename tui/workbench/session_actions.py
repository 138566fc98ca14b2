"""The workbench's session actions: the browser, new sessions, forks, switching, export.

:class:`SessionActions` works on the app it is given: its ``session_id``, ``opened``,
``busy``, ``notice``, the panes (``reset_view``, ``show_restored``) and the prompt box
(``edit_prompt``).
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING, Any

from ...core import paths

if TYPE_CHECKING:
    from . import Workbench


class SessionActions:
    """Ctrl+R and ``/sessions``, ``/new``, ``/fork [TURN]``, ``/export``, switching sessions.

    Args:
        app: The workbench whose session these act on.
    """

    def __init__(self, app: Workbench) -> None:
        self.app = app

    def browse(self) -> None:
        """Ctrl+R or ``/sessions``: the session browser; resume, fork or export from it."""
        from ..screens.session_browser import SessionBrowser

        self.app.push_screen(SessionBrowser(project=None), self._on_browser_action)

    async def new_session(self) -> None:
        """``/new``, ``/clear``: forget the conversation and start a new session."""
        app = self.app
        app.workers.cancel_group(app, "turn")
        app.agent = None
        app.session_source = "clear"  # what the new session's SessionStart hooks are told
        app.close_browser()
        if app.opened is not None:
            from ...core.sessions.start import close_session, open_session

            close_session(app.opened)
            app.opened = open_session(app.workdir, app.settings.model or "")
            session_id = app.opened.store.session_id
        else:
            session_id = paths.new_session_id()
        await app.reset_view(session_id)
        await app.welcome()
        app.notice(f"New session {app.session_id}.")

    async def _on_browser_action(self, action: Any) -> None:
        app = self.app
        if action is None:
            return
        if action.kind == "export":
            await self.export(session_id=action.session_id)
            return
        if app.busy:
            app.notice("Wait for the turn to finish (or press Esc) first.", error=True)
            return
        target = action.session_id
        if action.kind == "resume" and target == app.session_id:
            app.notice(f"Already in session {target}.")
            return
        if action.kind == "fork":
            await self.fork_into(target, action.turn)
            return
        if await self.switch(target):
            app.notice(f"Resumed: now in session {target}.")

    async def fork(self, arg: str = "") -> None:
        """``/fork [TURN]``: go on in a copy of this session, whole or before turn TURN."""
        app = self.app
        if app.opened is None:
            app.notice("This workbench keeps no session log to fork.", error=True)
            return
        if arg and not arg.strip().isdigit():
            app.notice("Usage: /fork [TURN]: TURN is a turn number, 0 for the first prompt.",
                       error=True)
            return
        await self.fork_into(app.session_id, int(arg) if arg else None)

    async def fork_into(self, source_id: str, turn: int | None = None, *,
                        announce: bool = True) -> str | None:
        """Go on in a copy of ``source_id``: whole, or keeping the turns before ``turn``.

        The copy keeps the checkpoints of the turns it keeps (so /undo and /diff go on
        working), and the prompt of turn ``turn`` comes back in the prompt box, to edit and
        send again. Returns the new session's id, or None (the person was told why).
        """
        from ...core.changes.checkpoints import CheckpointError, Checkpoints
        from ...core.sessions.log import (
            SessionError,
            fork_before_turn,
            read_events,
            turn_starts,
        )

        app = self.app
        try:
            log = await asyncio.to_thread(read_events, source_id)
            new_id = await asyncio.to_thread(partial(fork_before_turn, source_id, turn, log=log))
        except SessionError as exc:
            app.notice(f"Could not fork: {exc}", error=True)
            return None
        starts = turn_starts(log.events)
        kept = len(starts) if turn is None else turn
        if app.checkpoints() is not None:
            try:
                await asyncio.to_thread(Checkpoints(app.workdir, new_id).inherit, source_id,
                                        kept)
            except CheckpointError as exc:
                app.notice(f"The copy starts without the checkpoints of {source_id}: {exc}",
                           error=True)
        if not await self.switch(new_id):
            return None
        if announce:
            where = "" if turn is None else f" before turn {turn}"
            app.notice(f"Forked session {source_id}{where}: now in session {new_id}; "
                       f"session {source_id} stays whole in the browser (Ctrl+R).")
        if turn is not None and turn < len(starts):
            app.edit_prompt(str(log.events[starts[turn]].get("text", "")))
        return new_id

    async def switch(self, session_id: str) -> bool:
        """Leave the current session and go on with ``session_id`` (redrawn from its log)."""
        from ...core.sessions.log import SessionError
        from ...core.sessions.start import close_session, open_session

        app = self.app
        try:
            opened = open_session(app.workdir, app.settings.model or "", resume=session_id)
        except SessionError as exc:
            app.notice(f"Could not open session {session_id}: {exc}", error=True)
            return False
        if app.opened is not None:
            close_session(app.opened)
        app.opened = opened
        await app.reset_view(session_id)
        if opened.log is not None:
            await app.show_restored(opened.log)
        return True

    async def export(self, arg: str = "", session_id: str | None = None) -> None:
        """``/export [FILE]``: a session as Markdown (default: agent-tui-<id>.md here)."""
        from ...core.sessions.export import to_markdown
        from ...core.sessions.log import SessionError, read_events

        app = self.app
        session_id = session_id or app.session_id
        target = app.workdir / (arg or f"agent-tui-{session_id}.md")
        try:
            text = to_markdown(await asyncio.to_thread(read_events, session_id))
            await asyncio.to_thread(target.write_text, text, encoding="utf-8")
        except (SessionError, OSError) as exc:
            app.notice(f"Could not export the session: {exc}", error=True)
            return
        app.notice(f"Exported the session to {target}.")
