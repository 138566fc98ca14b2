"""Several sessions open at once in one workbench: one in front, the others in the background.

The front session is the one the panes show. ``/bg PROMPT`` starts another session in the
background, in the same project: its own agent, context and session log, running while the
person goes on in front. ``F9`` (``/switch``) lists the open sessions with their states; any
one can be brought to the front, running or not, and the one in front goes to the
background, still running. Calls of background sessions that need approval wait in the
approval inbox (F8) without interrupting the front.

Every session, front or background, is a :class:`~.session.WorkbenchSession`; switching
changes which one the app holds in front (``app.front``). Every agent of the workbench reports
through a :class:`SessionBridge`, whose messages name their session and carry a sequence
number; the app draws the front session's and :meth:`BackgroundSessions.keep` keeps the rest
for the switcher. Bringing a session to the front redraws it from its log as it was at that
moment (the cut), then the text it has streamed since its last answer, then its live events
from after the cut.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from textual.css.query import NoMatches
from textual.message_pump import MessagePump

from ...core import events as ev
from .bridge import AgentEvent, EventBridge
from .session import QueuedPrompt, WorkbenchSession, title_of

if TYPE_CHECKING:
    from ...core.agent import Agent

_sequence = itertools.count(1)


def next_sequence() -> int:
    """The next number in the order the workbench's agents posted their events."""
    return next(_sequence)


class SessionBridge(EventBridge):
    """The event bridge of one session's agents: each message names the session and is
    numbered in posting order (``message.session_id``, ``message.sequence``)."""

    def __init__(
        self, target: MessagePump, session_id: str, secrets: Iterable[str] | None = None
    ) -> None:
        super().__init__(target, secrets)
        self.session_id = session_id

    def _post(self, event: ev.Event) -> None:
        self.target.post_message(AgentEvent(event, self.session_id, next_sequence()))

    def flush(self) -> None:
        """Post the streamed text gathered so far now."""
        self._pass_text()


class BackgroundSessions:
    """The workbench's open sessions besides the front one, and moving them to the front.

    Args:
        app: The workbench (:class:`~agent_tui.tui.app.AgentApp`); it holds the front
            session (``app.front``).
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self.sessions: dict[str, WorkbenchSession] = {}
        """The background sessions, oldest first."""
        self.shown_from: dict[str, int] = {}
        """Per session brought to the front: the first message number drawn live (earlier
        ones are in the log it was redrawn from)."""
        self._switcher: Any = None

    @property
    def front(self) -> WorkbenchSession:
        """The session in front (the app's)."""
        front: WorkbenchSession = self.app.front
        return front

    # -- the list ------------------------------------------------------------------------

    def state(self, session: WorkbenchSession) -> str:
        """``waiting`` (a call waits for approval), ``running``, or how it last ended."""
        if session.running:
            waiting = (
                self.app.approver.session_waiting(session.session_id)
                if self.app.has_approver
                else 0
            )
            return "waiting" if waiting else "running"
        return session.outcome

    def label(self, session_id: str) -> str:
        """How the inbox and notices name ``session_id``."""
        if session_id == self.app.session_id:
            return f"{session_id} (front)"
        session = self.sessions.get(session_id)
        return f"{session_id} {session.title}" if session else session_id

    def running(self) -> int:
        """How many background sessions run a prompt."""
        return sum(1 for session in self.sessions.values() if session.running)

    def watch(self, switcher: Any) -> None:
        """Tell ``switcher`` (the open switcher screen, or None) of every change."""
        self._switcher = switcher

    def changed(self) -> None:
        """Something the switcher or the status bar shows changed."""
        try:
            self.app.status.background = len(self.sessions)
        except NoMatches:  # the workbench is closing
            return
        if self._switcher is not None:
            self._switcher.show_sessions()

    def keep(self, message: AgentEvent) -> bool:
        """Count ``message``'s event for its session; True when it is not to be drawn: a
        background session's, or the front one's from before its redraw (its log has it)."""
        session_id = message.session_id
        if session_id is not None and (
            session_id != self.app.session_id
            or message.sequence < self.shown_from.get(session_id, 0)
        ):
            session = self.sessions.get(session_id)
            if session is not None and session.record(message.event):
                self.changed()
            return True
        if self.front.record(message.event):
            self.changed()
        return False

    # -- starting and ending -------------------------------------------------------------

    async def spawn(self, prompt: str) -> WorkbenchSession | None:
        """``/bg PROMPT``: a new session that works on ``prompt`` in the background."""
        app = self.app
        settings = app.settings
        opened = None
        if app.opened is not None:
            from ...core.sessions.start import open_session

            opened = await asyncio.to_thread(open_session, app.workdir, settings.model or "")
            session_id = opened.store.session_id
        else:
            from ...core import paths

            session_id = paths.new_session_id()
        agent = await app.agents.build(settings, session_id=session_id, opened=opened)
        session = WorkbenchSession(session_id, opened, agent, title=title_of(prompt))
        session.queue.append(QueuedPrompt(prompt))
        self.sessions[session_id] = session
        self.start(session)
        return session

    def start(self, session: WorkbenchSession) -> None:
        """Run the session's waiting prompts in its worker."""
        if session.running or not session.queue or session.agent is None:
            return
        session.running = True
        self.app.run_worker(self._run(session), group=session.group, exit_on_error=False)
        self.changed()

    async def _run(self, session: WorkbenchSession) -> None:
        agent = session.agent
        assert agent is not None
        cancelled = False
        try:
            while session.queue and self.sessions.get(session.session_id) is session:
                prompt = session.queue.popleft()
                self.app.outside_tools.offer_tools(agent)
                await self.app.turns.run_prompt(agent, prompt.text, prompt.images)
        except asyncio.CancelledError:
            cancelled = True
            raise
        except Exception as exc:  # the engine reports its own failures; this is a bug
            session.outcome = "failed"
            session.last = f"Unexpected error: {type(exc).__name__}: {exc}"
        finally:
            self.app.turns.work_ended(agent, cancelled=cancelled)

    def ended(self, agent: Agent, *, cancelled: bool = False) -> None:
        """A prompt of a background session (or of one sent there) ended: run its next
        prompt, or tell the person it is done."""
        session = next((s for s in self.sessions.values() if s.agent is agent), None)
        if session is None:
            return
        session.running = False
        if cancelled:
            session.outcome = "cancelled"
            session.queue.clear()
        if session.queue:
            self.start(session)
            return
        # After the messages the run posted (its result among them) were handled.
        self.app.call_later(self._announce, session)

    def _announce(self, session: WorkbenchSession) -> None:
        self.changed()
        if session.running or self.sessions.get(session.session_id) is not session:
            return
        state = self.state(session)
        self.app.notify(
            f"Background session {session.session_id} {state}: "
            f"{session.last or session.title} (F9 to switch)",
            markup=False,
            timeout=6,
            severity="error" if state == "failed" else "information",
        )
        self.app.away.turn_ended(session.session_id, state)

    def cancel(self, session_id: str) -> None:
        """Stop the session's running prompt (its stream and tools) and its waiting ones."""
        session = self.sessions.get(session_id)
        if session is not None:
            session.queue.clear()
            self.app.workers.cancel_group(self.app, session.group)

    async def close(self, session_id: str) -> None:
        """Stop the session and close it; it stays in the store, resumable (Ctrl+R)."""
        session = self.sessions.get(session_id)
        if session is None:
            return
        self.cancel(session_id)
        del self.sessions[session_id]
        if session.opened is not None:
            from ...core.sessions.start import close_session

            await asyncio.to_thread(close_session, session.opened)
        self.changed()

    async def close_all(self) -> None:
        """The workbench is closing: release every background session's log."""
        for session_id in list(self.sessions):
            await self.close(session_id)

    # -- front and back ----------------------------------------------------------------

    def send_front_to_back(self) -> WorkbenchSession | None:
        """Move the front session to the background, running or not, with its queued
        prompts; None when it holds nothing to keep (no agent yet, no log)."""
        app = self.app
        session = self.front
        if (
            session.agent is None
            and not session.running
            and (session.opened is None or session.opened.log is None)
        ):
            if session.opened is not None:
                from ...core.sessions.start import close_session

                close_session(session.opened)
            return None
        session.title = app.front_title()
        # In the background it says how its prompts end from now on (the front shows its own).
        session.outcome, session.last = "idle", ""
        session.streamed = [app.view.streamed_text()] if session.running else []
        for worker in app.workers:
            if worker.node is app and worker.group == "turn":
                worker.group = session.group  # it goes on; Esc in front no longer stops it
        self.sessions[session.session_id] = session
        return session

    async def bring_to_front(self, session_id: str) -> bool:
        """Show ``session_id`` in front, the front one going to the background."""
        app = self.app
        session = self.sessions.get(session_id)
        if session is None:
            return False
        if session.opened is None and session.agent is None:
            app.notice(f"Session {session_id} has nothing to show.", error=True)
            return False
        self.send_front_to_back()
        app.front = session  # its events are drawn from now on, the cut's on
        # The cut: the log as it is now holds every event posted before this number.
        if session.agent is not None and isinstance(session.agent.on_event, SessionBridge):
            session.agent.on_event.flush()
        log = None
        if session.opened is not None:
            from ...core.sessions.log import SessionError, read_events

            try:
                log = read_events(session_id)
            except SessionError as exc:
                app.notice(f"Could not read session {session_id}'s log: {exc}", error=True)
        self.shown_from[session_id] = next_sequence()
        for worker in app.workers:
            if worker.node is app and worker.group == session.group:
                worker.group = "turn"  # Esc stops it now
        if session.opened is not None and session.agent is None:
            session.opened.log = log  # the next turn's agent restores it
        app.call_later(self._redraw_front, session, log)
        return True

    async def _redraw_front(self, session: WorkbenchSession, log: Any) -> None:
        """Runs after the messages posted before the cut were handled (kept, not drawn)."""
        app = self.app
        # Every message posted before the cut was kept by now (the session was still
        # listed); it leaves the list and the panes show it.
        self.sessions.pop(session.session_id, None)
        waiting = list(session.queue)  # shown again in the emptied conversation
        await app.panes.clear(session.session_id)
        app.turns.set_busy(session.running)
        if log is not None:
            await app.show_restored(log)
        if streamed := "".join(session.streamed):
            await app.view.show(ev.TextDelta(streamed))
        for prompt in waiting:
            await app.turns.queue_prompt(prompt.text, prompt.images)
        app.approver.refresh()
        self.changed()
