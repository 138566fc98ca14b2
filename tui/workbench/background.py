"""Several sessions open at once in one workbench: one in front, the others in the background.

The front session is the one the panes show. ``/bg PROMPT`` starts another session in the
background, in the same project: its own agent, context and session log, running while the
person goes on in front. ``F9`` (``/switch``) lists the open sessions with their states; any
one can be brought to the front, running or not, and the one in front goes to the
background, still running. Calls of background sessions that need approval wait in the
approval inbox (F8) without interrupting the front.

Every agent of the workbench reports through a :class:`SessionBridge`, whose messages name
their session and carry a sequence number; the app draws the front session's and hands the
rest to :meth:`BackgroundSessions.record`, which keeps what the switcher shows. Bringing a
session to the front redraws it from its log as it was at that moment (the cut), then the
text it has streamed since its last answer, then its live events from after the cut.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual.css.query import NoMatches
from textual.message_pump import MessagePump

from ...core import events as ev
from ...tools.names import EDIT_TOOLS
from .bridge import AgentEvent, EventBridge

if TYPE_CHECKING:
    from ...core.agent import Agent
    from ...core.sessions.start import OpenedSession

_sequence = itertools.count(1)


def next_sequence() -> int:
    """The next number in the order the workbench's agents posted their events."""
    return next(_sequence)


class SessionBridge(EventBridge):
    """The event bridge of one session's agents: each message names the session and is
    numbered in posting order (``message.session_id``, ``message.sequence``)."""

    def __init__(self, target: MessagePump, session_id: str,
                 secrets: Iterable[str] | None = None) -> None:
        super().__init__(target, secrets)
        self.session_id = session_id

    def _post(self, event: ev.Event) -> None:
        self.target.post_message(AgentEvent(event, self.session_id, next_sequence()))

    def flush(self) -> None:
        """Post the streamed text gathered so far now."""
        self._pass_text()


Queued = tuple[str, tuple[Any, ...]]
"""A prompt waiting in a session: its text and its images."""


@dataclass(eq=False)
class BackgroundSession:
    """An open session that is not in front.

    Attributes:
        session_id: Its id in the session store.
        title: Its first prompt, for the switcher.
        opened: Its session log (None: the workbench keeps none).
        agent: Its agent (None: built from the log when it comes to the front).
        running: A prompt of it runs now.
        outcome: How its last prompt ended: ``done``, ``failed``, ``cancelled``, or ``idle``
            before any.
        prompts: Prompts waiting for it, run one after another.
        model_calls: Model calls it made.
        usage: Its tokens and cost so far.
        changed: Files its edits changed.
        last: Its last answer's first line, or its last error.
        streamed: Text it has streamed since its last answer.
    """

    session_id: str
    title: str
    opened: OpenedSession | None
    agent: Agent | None
    running: bool = False
    outcome: str = "idle"
    prompts: deque[Queued] = field(default_factory=deque)
    model_calls: int = 0
    usage: ev.Usage = field(default_factory=ev.Usage)
    changed: set[str] = field(default_factory=set)
    last: str = ""
    streamed: list[str] = field(default_factory=list)
    _edits: dict[str, str] = field(default_factory=dict)

    @property
    def group(self) -> str:
        """The worker group its prompts run in while it is in the background."""
        return f"background-{self.session_id}"

    def record(self, event: ev.Event) -> bool:
        """Keep what the switcher shows of ``event``; True when that changed."""
        if isinstance(event, ev.TextDelta):
            self.streamed.append(event.text)
            return False
        if isinstance(event, ev.AssistantMessage):
            self.streamed.clear()
            if event.text.strip():
                self.last = event.text.strip().splitlines()[0]
            return True
        if isinstance(event, ev.ToolCallStarted):
            args = event.args if isinstance(event.args, dict) else {}
            path = args.get("path") or args.get("file_path")
            if event.name in EDIT_TOOLS and isinstance(path, str):
                self._edits[event.id] = path
            return False
        if isinstance(event, ev.ToolResultEvent):
            path = self._edits.pop(event.id, None)
            if event.ok and path is not None and path not in self.changed:
                self.changed.add(path)
                return True
            return False
        if isinstance(event, ev.TurnUsage):
            self.model_calls += 1
            self.usage = self.usage + event.usage
            return True
        if isinstance(event, ev.ErrorEvent) and event.fatal:
            self.last = event.message
            return True
        if isinstance(event, ev.RunResult):
            self.outcome = "done" if event.ok else "failed"
            return True
        return False


class BackgroundSessions:
    """The workbench's open sessions besides the front one, and moving them to the front.

    Args:
        app: The workbench (:class:`~agent_tui.tui.app.AgentApp`).
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self.sessions: dict[str, BackgroundSession] = {}
        """The background sessions, oldest first."""
        self.shown_from: dict[str, int] = {}
        """Per session brought to the front: the first message number drawn live (earlier
        ones are in the log it was redrawn from)."""
        self._switcher: Any = None
        self.front = BackgroundSession("", "", None, None)
        """The front session's tally (model calls, cost, changed files), kept as each
        background session keeps its own and handed on when it changes place: the
        switcher shows every session alike."""

    # -- the list ------------------------------------------------------------------------

    def state(self, session: BackgroundSession) -> str:
        """``waiting`` (a call waits for approval), ``running``, or how it last ended."""
        if session.running:
            waiting = self.app.approver.session_waiting(session.session_id) \
                if self.app.has_approver else 0
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

    def record(self, session_id: str, event: ev.Event) -> None:
        """An event of a session that is not drawn (in the background, or from before its
        redraw): keep what the switcher shows."""
        session = self.sessions.get(session_id)
        if session is not None and session.record(event):
            self.changed()

    def record_front(self, event: ev.Event) -> None:
        """An event the front session drew: keep its tally for the switcher too."""
        if self.front.session_id != self.app.session_id:  # a new or resumed session
            self.front = BackgroundSession(self.app.session_id, "", None, None)
        if self.front.record(event):
            self.changed()

    # -- starting and ending -------------------------------------------------------------

    async def spawn(self, prompt: str) -> BackgroundSession | None:
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
        agent = await app.build_agent(settings, session_id=session_id, opened=opened)
        session = BackgroundSession(session_id, _title(prompt), opened, agent)
        session.prompts.append((prompt, ()))
        self.sessions[session_id] = session
        self.start(session)
        return session

    def start(self, session: BackgroundSession) -> None:
        """Run the session's waiting prompts in its worker."""
        if session.running or not session.prompts or session.agent is None:
            return
        session.running = True
        self.app.run_worker(self._run(session), group=session.group, exit_on_error=False)
        self.changed()

    async def _run(self, session: BackgroundSession) -> None:
        agent = session.agent
        assert agent is not None
        cancelled = False
        try:
            while session.prompts and self.sessions.get(session.session_id) is session:
                text, images = session.prompts.popleft()
                self.app.outside_tools.offer_tools(agent)
                await self.app.run_prompt(agent, text, images)
        except asyncio.CancelledError:
            cancelled = True
            raise
        except Exception as exc:  # the engine reports its own failures; this is a bug
            session.outcome = "failed"
            session.last = f"Unexpected error: {type(exc).__name__}: {exc}"
        finally:
            self.app.work_ended(agent, cancelled=cancelled)

    def ended(self, agent: Agent, *, cancelled: bool = False) -> None:
        """A prompt of a background session (or of one sent there) ended: run its next
        prompt, or tell the person it is done."""
        session = next((s for s in self.sessions.values() if s.agent is agent), None)
        if session is None:
            return
        session.running = False
        if cancelled:
            session.outcome = "cancelled"
            session.prompts.clear()
        if session.prompts:
            self.start(session)
            return
        # After the messages the run posted (its result among them) were handled.
        self.app.call_later(self._announce, session)

    def _announce(self, session: BackgroundSession) -> None:
        self.changed()
        if session.running or self.sessions.get(session.session_id) is not session:
            return
        state = self.state(session)
        self.app.notify(f"Background session {session.session_id} {state}: "
                        f"{session.last or session.title} (F9 to switch)",
                        markup=False, timeout=6, severity="error" if state == "failed"
                        else "information")
        self.app.ring_if_away(f"Background session {session.session_id} {state}.")

    def cancel(self, session_id: str) -> None:
        """Stop the session's running prompt (its stream and tools) and its waiting ones."""
        session = self.sessions.get(session_id)
        if session is not None:
            session.prompts.clear()
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

    def send_front_to_back(self) -> BackgroundSession | None:
        """Move the front session to the background, running or not, with its queued
        prompts; None when it holds nothing to keep (no agent yet, no log)."""
        app = self.app
        agent: Agent | None = app.agent
        queued = [(text, images) for text, _block, images in app.queue]
        if agent is None and not app.busy and (app.opened is None or app.opened.log is None):
            if app.opened is not None:
                from ...core.sessions.start import close_session

                close_session(app.opened)
            return None
        front = self.front if self.front.session_id == app.session_id else None
        session = BackgroundSession(app.session_id, app.front_title(), app.opened, agent,
                                    running=app.busy)
        if front is not None:  # its tally goes on in the background
            session.model_calls, session.usage = front.model_calls, front.usage
            session.changed, session._edits = front.changed, front._edits
        session.prompts.extend(queued)
        session.streamed = [app.view.streamed_text()] if app.busy else []
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
        app.session_id = session_id  # its events are drawn from now on, the cut's on
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
        self.front = session  # its tally goes on in front
        for worker in app.workers:
            if worker.node is app and worker.group == session.group:
                worker.group = "turn"  # Esc stops it now
        app.agent = session.agent
        app.opened = session.opened
        if app.opened is not None and session.agent is None:
            app.opened.log = log  # the next turn's agent restores it
        app.queue.clear()
        app.call_later(self._redraw_front, session, log)
        return True

    async def _redraw_front(self, session: BackgroundSession, log: Any) -> None:
        """Runs after the messages posted before the cut were handled (kept, not drawn)."""
        app = self.app
        # Every message posted before the cut was kept by now (the session was still
        # listed); it leaves the list and the panes show it.
        self.sessions.pop(session.session_id, None)
        await app.clear_panes(session.session_id)
        app.set_busy(session.running)
        if log is not None:
            await app.show_restored(log)
        if streamed := "".join(session.streamed):
            await app.view.show(ev.TextDelta(streamed))
        for text, images in session.prompts:
            await app.queue_prompt(text, images)
        session.prompts.clear()
        app.approver.refresh()
        self.changed()


def _title(prompt: str, width: int = 48) -> str:
    line = " ".join(prompt.split())
    return line if len(line) <= width else line[: width - 1] + "…"
