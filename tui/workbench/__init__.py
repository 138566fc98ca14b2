"""The Textual workbench's sessions: what the app drives, and what its commands act on.

Entry points: :mod:`.session` (:class:`~.session.WorkbenchSession`, one open session, front
and background alike), :mod:`.background` (the open sessions besides the front one, and
switching which one is in front), :mod:`.turns` (the front session's prompts and turns),
:mod:`.agents` (each session's agent), :mod:`.front_panes` (a new, resumed or replayed
session in the panes), :mod:`.commands` (every slash command, declared once in a
:mod:`.slash_registry`), :mod:`.event_view` (one handler per engine event, live and resumed),
:mod:`.bridge` (engine events become Textual messages), :mod:`.approver` (approvals as
modals, and the inbox), the session, change, settings, knowledge and autonomous actions,
:mod:`.key_actions` (what the keys do), :mod:`.palette`, :mod:`.outside_tools` (MCP servers
and discovered tools), :mod:`.start_up` (after the first frame), and what keeps the app
responsive and lets it leave cleanly: :mod:`.pauses`, :mod:`.terminal_watch`,
:mod:`.web_driver`.

This file declares what the workbench's actions and commands may use of the app, as a
protocol: :class:`~agent_tui.tui.app.AgentApp` satisfies :class:`Workbench`; the session and
change actions and the slash commands are typed against it, so they never import the app
(which imports them).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.worker_manager import WorkerManager

    from ...core.agent import Agent
    from ...core.changes.checkpoints import Checkpoints
    from ...core.config import Settings
    from ...core.sessions.log import SessionLog
    from ...core.sessions.start import OpenedSession

NO_MODEL = ("No model is configured. Type /model NAME (e.g. /model openai/gpt-4.1), or quit "
            "and set ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY or OPENROUTER_API_KEY.")
"""What the workbench says when something needs a model and none is configured."""


class Workbench(Protocol):
    """The app as its actions and commands see it: the session, the agent and the panes."""

    settings: Settings
    workdir: Path
    session_id: str
    opened: OpenedSession | None
    agent: Agent | None
    busy: bool
    """A turn runs."""
    session_source: str
    """What the next agent's ``SessionStart`` hooks are told: ``startup`` or ``clear``."""

    def notice(self, text: str, *, error: bool = False) -> None:
        """A line from agent-tui in the conversation."""

    async def ensure_agent(self) -> Agent:
        """The session's agent, built on first use."""
        ...

    def checkpoints(self) -> Checkpoints | None:
        """The session's checkpoints; None when they are off."""

    async def reset_view(self, session_id: str) -> None:
        """Empty the panes; the next turn starts ``session_id``'s."""

    async def show_restored(self, log: SessionLog) -> None:
        """Redraw a resumed session from its log."""

    async def welcome(self) -> None:
        """Open the emptied conversation of a new session with its welcome line."""

    def edit_prompt(self, text: str) -> None:
        """Put ``text`` in the prompt box, to edit and send, and focus it."""

    # Textual's, as the App has them.
    @property
    def workers(self) -> WorkerManager: ...

    @property
    def screen_stack(self) -> list[Any]: ...

    def push_screen(self, screen: Any, callback: Any = None, **kwargs: Any) -> Any: ...

    def query_one(self, selector: Any, expect_type: Any = None) -> Any: ...
