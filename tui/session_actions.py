"""The workbench's session commands: the browser, forks, switching sessions, export.

``SessionActions`` is mixed into :class:`~agent_tui.tui.app.AgentApp`; it uses the app's
``session_id``, ``opened``, ``busy``, ``notice`` and the prompt box.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any

from .widgets.prompt import PromptInput


class SessionActions:
    """Ctrl+R and ``/sessions``, ``/fork [TURN]``, ``/export``, and switching sessions."""

    def action_browse_sessions(self) -> None:
        """Ctrl+R or ``/sessions``: the session browser; resume, fork or export from it."""
        from .screens.session_browser import SessionBrowser

        self.push_screen(SessionBrowser(project=None), self._on_browser_action)

    async def _on_browser_action(self, action: Any) -> None:
        if action is None:
            return
        if action.kind == "export":
            await self.export_session(session_id=action.session_id)
            return
        if self.busy:
            self.notice("Wait for the turn to finish (or press Esc) first.", error=True)
            return
        target = action.session_id
        if action.kind == "resume" and target == self.session_id:
            self.notice(f"Already in session {target}.")
            return
        if action.kind == "fork":
            await self.fork_into(target, action.turn)
            return
        if await self.switch_session(target):
            self.notice(f"Resumed: now in session {target}.")

    async def fork_session(self, arg: str = "") -> None:
        """``/fork [TURN]``: go on in a copy of this session, whole or before turn TURN."""
        if self.busy:
            self.notice("Wait for the turn to finish (or press Esc) before forking.", error=True)
            return
        if self.opened is None:
            self.notice("This workbench keeps no session log to fork.", error=True)
            return
        if arg and not arg.strip().isdigit():
            self.notice("Usage: /fork [TURN]: TURN is a turn number, 0 for the first prompt.",
                        error=True)
            return
        await self.fork_into(self.session_id, int(arg) if arg else None)

    async def fork_into(self, source_id: str, turn: int | None = None, *,
                        announce: bool = True) -> str | None:
        """Go on in a copy of ``source_id``: whole, or keeping the turns before ``turn``.

        The copy keeps the checkpoints of the turns it keeps (so /undo and /diff go on
        working), and the prompt of turn ``turn`` comes back in the prompt box, to edit and
        send again. Returns the new session's id, or None (the person was told why).
        """
        from ..core.changes.checkpoints import CheckpointError, Checkpoints
        from ..core.sessions.log import (
            SessionError,
            fork_before_turn,
            read_events,
            turn_starts,
        )

        try:
            log = await asyncio.to_thread(read_events, source_id)
            new_id = await asyncio.to_thread(partial(fork_before_turn, source_id, turn, log=log))
        except SessionError as exc:
            self.notice(f"Could not fork: {exc}", error=True)
            return None
        starts = turn_starts(log.events)
        kept = len(starts) if turn is None else turn
        if self._checkpoints() is not None:
            try:
                await asyncio.to_thread(Checkpoints(self.workdir, new_id).inherit, source_id,
                                        kept)
            except CheckpointError as exc:
                self.notice(f"The copy starts without the checkpoints of {source_id}: {exc}",
                            error=True)
        if not await self.switch_session(new_id):
            return None
        if announce:
            where = "" if turn is None else f" before turn {turn}"
            self.notice(f"Forked session {source_id}{where}: now in session {new_id}; "
                        f"session {source_id} stays whole in the browser (Ctrl+R).")
        if turn is not None and turn < len(starts):
            box = self.query_one(PromptInput)
            box.text = str(log.events[starts[turn]].get("text", ""))
            box.focus()
        return new_id

    async def switch_session(self, session_id: str) -> bool:
        """Leave the current session and go on with ``session_id`` (redrawn from its log)."""
        from ..core.sessions.log import SessionError
        from ..core.sessions.start import close_session, open_session

        try:
            opened = open_session(self.workdir, self.settings.model or "", resume=session_id)
        except SessionError as exc:
            self.notice(f"Could not open session {session_id}: {exc}", error=True)
            return False
        if self.opened is not None:
            close_session(self.opened)
        self.opened = opened
        await self._reset_view(session_id)
        if opened.log is not None:
            await self.show_restored(opened.log)
        return True

    async def export_session(self, arg: str = "", session_id: str | None = None) -> None:
        """``/export [FILE]``: a session as Markdown (default: agent-tui-<id>.md here)."""
        from ..core.sessions.export import to_markdown
        from ..core.sessions.log import SessionError, read_events

        session_id = session_id or self.session_id
        target = self.workdir / (arg or f"agent-tui-{session_id}.md")
        try:
            text = to_markdown(await asyncio.to_thread(read_events, session_id))
            await asyncio.to_thread(target.write_text, text, encoding="utf-8")
        except (SessionError, OSError) as exc:
            self.notice(f"Could not export the session: {exc}", error=True)
            return
        self.notice(f"Exported the session to {target}.")
