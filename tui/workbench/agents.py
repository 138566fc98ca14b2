"""The workbench's agents: one per open session, built on first use through
:func:`~agent_tui.core.runtime.assembly.open_agent`, with the session's browser and
checkpoints."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...core.agent import Agent
    from ...core.changes.checkpoints import Checkpoints
    from ...core.config import Settings
    from ...core.providers.base import Provider
    from ...core.sessions.start import OpenedSession

FRONT: Any = object()
"""``opened`` of :meth:`WorkbenchAgents.build` when the agent is the front session's."""


class WorkbenchAgents:
    """Builds the agents of the workbench's sessions and ends the browser they share.

    Args:
        app: The workbench (:class:`~agent_tui.tui.app.AgentApp`): its settings, knowledge,
            approver and front session; the browser is ``app.browser``.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def build(
        self,
        settings: Settings,
        *,
        session_id: str | None = None,
        opened: OpenedSession | None = FRONT,
    ) -> Agent:
        """An agent with ``settings``: its log, its browser, the project's knowledge and
        memory; of the front session unless ``session_id`` and ``opened`` name another."""
        from ...core.providers.litellm import load_litellm
        from ...core.providers.stream_process import streams_in_worker
        from ...core.runtime.assembly import open_agent
        from ...core.safety.redaction import settings_secrets
        from .background import SessionBridge

        app = self.app
        if not (settings.stream_process and settings.model and streams_in_worker(settings.model)):
            await asyncio.to_thread(load_litellm)  # else the worker's litellm answers for it
        knowledge = await app.knowledge.ready()
        if opened is FRONT:
            opened = app.opened
        session_id = session_id or app.session_id
        # The workbench read the knowledge (and told its problems); ensure_agent restores.
        agent = await open_agent(
            settings,
            app.workdir,
            app.approver.for_session(session_id),
            SessionBridge(app, session_id, settings_secrets(settings)),
            session=opened,
            session_id=session_id,
            resume=False,
            knowledge=knowledge,
            memory=app.knowledge.memory,
            stream_worker=True,
        )
        agent.session_source = app.session_source
        # The browser belongs to the session, not to one agent (/model makes a new one).
        if app.browser is None:
            from ...tools.browser.session import BrowserSession

            app.browser = BrowserSession()
        agent.tool_ctx.browser = app.browser
        return agent

    @staticmethod
    def make_provider(settings: Settings) -> Provider:
        """The provider of an agent with ``settings``: its streams in the shared worker
        process unless ``stream_process`` is off (the workbench's loop draws and answers
        keys; litellm's parsing of a fast stream would take much of it)."""
        from ...core.runtime.assembly import make_provider

        return make_provider(settings, stream_worker=True)

    async def ensure_front(self) -> Agent:
        """The front session's agent, built on first use (from the resumed log, if any)."""
        front = self.app.front
        if front.agent is None:
            opened = front.opened
            front.agent = await self.build(self.app.settings)
            if opened is not None and opened.log is not None:
                front.agent.restore(opened.log)
                opened.log = None  # restored once; later agents (e.g. /model) carry history
        agent: Agent = front.agent
        return agent

    def checkpoints(self) -> Checkpoints | None:
        """The front session's checkpoints; None when they are off (no git, or a home
        folder)."""
        from ...core.changes.checkpoints import Checkpoints, checkpoints_off
        from ...core.changes.snapshot_scope import SnapshotLimits

        app = self.app
        if app.agent is not None:
            return app.agent.checkpoints
        return (
            Checkpoints(app.workdir, app.session_id, SnapshotLimits.of(app.settings))
            if checkpoints_off(app.workdir) is None
            else None
        )

    def close_browser(self) -> None:
        """End the session's browser, if one runs (a new session starts without one)."""
        browser, self.app.browser = self.app.browser, None
        if browser is not None:
            self.app.run_worker(
                asyncio.to_thread(browser.close), group="browser", exit_on_error=False
            )
