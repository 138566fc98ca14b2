"""What the panes show of the front session besides its live turns: a new one's welcome line,
emptied for a new one, redrawn from the log of a resumed one, a recorded one played back
(``agent-tui replay``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..widgets.key_footer import bound_keys
from ..widgets.panels import TodoPane
from ..widgets.tool_log import ToolLog
from ..widgets.welcome import WelcomeLine, welcome_text

if TYPE_CHECKING:
    from ...core.config import CheckedSettings, Settings
    from ...core.sessions.log import SessionLog


def short_path(path: Path) -> str:
    """``path`` as the status bar and the welcome line show it: ``~/…`` under home."""
    home = Path.home()
    try:
        return "~/" + str(path.relative_to(home))
    except ValueError:
        return str(path)


class FrontPanes:
    """Empties and redraws the panes for the session in front.

    Args:
        app: The workbench (:class:`~agent_tui.tui.app.AgentApp`).
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    def welcome_lines(self, settings: Settings | CheckedSettings) -> list[WelcomeLine]:
        """The welcome line of a new session on ``settings``; none for a resumed or
        replayed one. (Before the first frame, the checked settings: no pydantic yet.)"""
        app = self.app
        if app.turns.replaying or (app.opened is not None and app.opened.log is not None):
            return []
        return [
            WelcomeLine(
                welcome_text(
                    settings.model or "",
                    short_path(app.workdir),
                    settings.approval_mode,
                    bound_keys(app.BINDINGS)["show_keys"],
                )
            )
        ]

    async def welcome(self) -> None:
        """Open the emptied conversation of a new session (``/new``) with its welcome."""
        for line in self.welcome_lines(self.app.settings):
            await self.app.conversation.add(line)

    async def show_restored(self, log: SessionLog) -> None:
        """Redraw a resumed session (its transcript, tool log, todos and gauge) from the
        typed events of its log, through the same handlers as a live turn."""
        from ...core.sessions.replay import logged_events

        blocks = await self.app.view.restore(logged_events(log))
        self.app.notice(f"Resumed session {self.app.session_id}: {blocks} blocks.")

    def play_back(self, log: SessionLog, speed: float) -> None:
        """``agent-tui replay``: show a recorded session as it happened, at ``speed``."""
        self.app.run_worker(
            self._play_back(log, speed), exclusive=True, group="turn", exit_on_error=False
        )

    async def _play_back(self, log: SessionLog, speed: float) -> None:
        from ...core.sessions.replay import replay

        app = self.app
        app.status.session_id = f"{log.session_id} (replay ×{speed:g})"
        app.turns.set_busy(True)
        try:
            async for event in replay(log, speed):
                await app.view.show(event)
        finally:
            app.turns.set_busy(False)
        app.notice(f"End of the replay of session {log.session_id}.")

    async def reset(self, session_id: str) -> None:
        """Empty the panes and forget the agent; the next turn starts ``session_id``'s."""
        app = self.app
        app.workers.cancel_group(app, "turn")
        app.agent = None
        app.close_browser()
        await self.clear(session_id)

    async def clear(self, session_id: str) -> None:
        """Empty the panes for ``session_id``, which the front shows from now on."""
        app = self.app
        if app.front.session_id != session_id:  # a new, resumed or forked session
            app.front.start_over(session_id)
        app.front.title = ""
        app.queue.clear()
        app.status.queued = 0
        app.view.reset()
        await app.conversation.remove_children()
        app.query_one(ToolLog).clear()
        app.status.session_id = app.session_id
        app.query_one(TodoPane).show("")
