"""Autonomous mode in the workbench: ``/auto REQUIREMENT`` (accumulative).

Each ``/auto`` adds its requirement to the ones the session has accumulated and runs the
coach-player loop on all of them: the session's agent is the player, a coach with its own
context (and no editing tools) reviews. Both show in the conversation, each part of a round
under its own lane marker; the coach's calls ask for approval like any other.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...core.agent import Agent

USAGE = ("/auto REQUIREMENT adds a requirement and runs the coach-player loop on all of them "
         "(/auto @FILE reads it from a file); /auto shows them; /auto clear forgets them.")


class AutonomousActions:
    """The session's accumulated requirements and its coach-player runs.

    Args:
        app: The workbench (:class:`~agent_tui.tui.app.AgentApp`).
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self.requirements: list[str] = []
        self.rounds: int | None = None
        """Rounds each run may take (None: ``core.modes.autonomous.DEFAULT_ROUNDS``)."""

    def accumulated(self) -> str:
        """The requirements so far, numbered when there are several."""
        if len(self.requirements) == 1:
            return self.requirements[0]
        return "\n".join(f"{n}. {text}" for n, text in enumerate(self.requirements, 1))

    async def command(self, arg: str) -> None:
        """``/auto [REQUIREMENT | @FILE | clear]``."""
        from ..widgets.conversation import UserBlock

        arg = arg.strip()
        if not arg:
            shown = self.accumulated() if self.requirements else "none yet"
            self.app.notice(f"Accumulated requirements: {shown}\n{USAGE}")
            return
        if arg == "clear":
            self.requirements.clear()
            self.app.notice("Accumulated requirements cleared.")
            return
        text = arg
        if arg.startswith("@"):
            path = (self.app.workdir / Path(arg[1:]).expanduser())
            try:
                text = path.read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError) as exc:
                self.app.notice(f"Cannot read the requirements {arg[1:]}: {exc}", error=True)
                return
            if not text:
                self.app.notice(f"The requirements file {arg[1:]} is empty.", error=True)
                return
        self.requirements.append(text)
        await self.app.conversation.add(UserBlock(f"/auto {arg}"))
        self.app.start_work(self._run)

    async def _run(self, player: Agent) -> None:
        from ...core.modes.autonomous import DEFAULT_ROUNDS, coach_player
        from ...core.safety.redaction import settings_secrets
        from .bridge import EventBridge

        coach = await self._coach(player.session_id)
        rounds = EventBridge(self.app, settings_secrets(self.app.settings))
        try:
            outcome = await coach_player(self.accumulated(), player, coach,
                                         self.rounds or DEFAULT_ROUNDS, rounds)
        finally:
            coach.close()
        if outcome.approved:
            self.app.notice(f"Autonomous: the coach approved after {outcome.rounds} round"
                            f"{'' if outcome.rounds == 1 else 's'}.")
        elif outcome.error:
            self.app.notice(f"Autonomous: {outcome.error}", error=True)

    async def _coach(self, session_id: str) -> Agent:
        """A coach for the player's session: its own context, the coach's role, no session
        log; its calls are asked as the player's are, in that session's name."""
        from ...core.events import ContextUpdated, Event
        from ...core.modes.autonomous import coach_persona
        from ...core.runtime.assembly import open_agent
        from ...core.safety.redaction import settings_secrets
        from .bridge import EventBridge

        app = self.app
        settings = app.settings
        bridge = EventBridge(app, settings_secrets(settings))

        def show(event: Event) -> None:
            if not isinstance(event, ContextUpdated):  # the gauge is the player's context
                bridge(event)

        return await open_agent(settings, app.workdir, app.approver.for_session(session_id),
                                show, knowledge=await app.knowledge.ready(),
                                memory=app.knowledge.memory, persona=coach_persona(),
                                stream_worker=True)
