"""One open session of the workbench, front or background alike.

A :class:`WorkbenchSession` holds what one conversation needs: its id, its session log, its
agent, the prompts typed for it that wait their turn, its title, whether a prompt of it runs
and how the last one ended, and the tally the session switcher (F9) shows, kept from its
events as they arrive. The app holds the open sessions and which one is in front
(:class:`~agent_tui.tui.workbench.background.BackgroundSessions`); switching changes which
session is in front, never copies one session's state into another.

This module loads before the first frame: it imports neither the engine nor its events.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from ...core import events as ev
    from ...core.agent import Agent
    from ...core.sessions.start import OpenedSession
    from ...tools.base import ImagePart

T = TypeVar("T")

TITLE_WIDTH = 48
"""Characters of its first prompt a session's title keeps."""


def title_of(prompt: str, width: int = TITLE_WIDTH) -> str:
    """A session's title from its first prompt: one line, cut to ``width`` with …."""
    line = " ".join(prompt.split())
    return line if len(line) <= width else line[: width - 1] + "…"


@dataclass(eq=False)
class QueuedPrompt:
    """A prompt waiting in a session until its running one ends.

    Attributes:
        text: What runs.
        images: The images it attaches (name, part), read when it was typed.
        block: Its block in the conversation while the session is in front (marked sent
            when it runs); None in the background.
    """

    text: str
    images: tuple[tuple[str, ImagePart], ...] = ()
    block: Any = None


@dataclass(eq=False)
class WorkbenchSession:
    """One open session of the workbench, the one in front or one in the background.

    Attributes:
        session_id: Its id in the session store.
        opened: Its session log (None: the workbench keeps none).
        agent: Its agent (None: built on its next prompt, from the log if it has one).
        title: Its first prompt, for the switcher ("" before any).
        running: A prompt of it runs now.
        outcome: How its last prompt ended: ``done``, ``failed``, ``cancelled``, or ``idle``
            before any.
        queue: Prompts waiting for it, run one after another.
        model_calls: Model calls it made.
        usage: Its tokens and cost so far (None before its first model call).
        changed: Files its edits changed.
        last: Its last answer's first line, or its last error.
        streamed: Text it has streamed since its last answer.
    """

    session_id: str
    opened: OpenedSession | None = None
    agent: Agent | None = None
    title: str = ""
    running: bool = False
    outcome: str = "idle"
    queue: deque[QueuedPrompt] = field(default_factory=deque)
    model_calls: int = 0
    usage: ev.Usage | None = None
    changed: set[str] = field(default_factory=set)
    last: str = ""
    streamed: list[str] = field(default_factory=list)
    _edits: dict[str, str] = field(default_factory=dict)

    @property
    def group(self) -> str:
        """The worker group its prompts run in while it is in the background."""
        return f"background-{self.session_id}"

    def start_over(self, session_id: str) -> None:
        """Become the new session ``session_id`` (``/new``, a resumed or forked one): no
        title, no waiting prompts, nothing counted yet."""
        self.session_id = session_id
        self.title = ""
        self.queue.clear()
        self.outcome, self.model_calls, self.usage, self.last = "idle", 0, None, ""
        self.changed, self.streamed, self._edits = set(), [], {}

    def record(self, event: ev.Event) -> bool:
        """Keep what the switcher shows of ``event``; True when that changed."""
        recorder = _RECORDERS.get(type(event).__name__)
        return recorder(self, event) if recorder is not None else False

    # -- one recorder per event kind the switcher counts ----------------------------------

    def _text_delta(self, event: ev.TextDelta) -> bool:
        self.streamed.append(event.text)
        return False

    def _assistant_message(self, event: ev.AssistantMessage) -> bool:
        self.streamed.clear()
        if event.text.strip():
            self.last = event.text.strip().splitlines()[0]
        return True

    def _tool_call_started(self, event: ev.ToolCallStarted) -> bool:
        from ...tools.names import EDIT_TOOLS

        args = event.args if isinstance(event.args, dict) else {}
        path = args.get("path") or args.get("file_path")
        if event.name in EDIT_TOOLS and isinstance(path, str):
            self._edits[event.id] = path
        return False

    def _tool_result(self, event: ev.ToolResultEvent) -> bool:
        path = self._edits.pop(event.id, None)
        if event.ok and path is not None and path not in self.changed:
            self.changed.add(path)
            return True
        return False

    def _turn_usage(self, event: ev.TurnUsage) -> bool:
        self.model_calls += 1
        self.usage = event.usage if self.usage is None else self.usage + event.usage
        return True

    def _error(self, event: ev.ErrorEvent) -> bool:
        if not event.fatal:
            return False
        self.last = event.message
        return True

    def _run_result(self, event: ev.RunResult) -> bool:
        self.outcome = "done" if event.ok else "failed"
        return True


# By class name: the engine's events are not imported before the first frame.
_RECORDERS: dict[str, Callable[[WorkbenchSession, Any], bool]] = {
    "TextDelta": WorkbenchSession._text_delta,
    "AssistantMessage": WorkbenchSession._assistant_message,
    "ToolCallStarted": WorkbenchSession._tool_call_started,
    "ToolResultEvent": WorkbenchSession._tool_result,
    "TurnUsage": WorkbenchSession._turn_usage,
    "ErrorEvent": WorkbenchSession._error,
    "RunResult": WorkbenchSession._run_result,
}


class InFront(Generic[T]):
    """An attribute of the app that is the front session's: ``app.session_id`` reads and
    sets ``app.front.session_id`` (``field`` names another attribute of the session)."""

    def __init__(self, field: str = "") -> None:
        self.field = field

    def __set_name__(self, owner: type, name: str) -> None:
        self.field = self.field or name

    def __get__(self, app: Any, owner: type | None = None) -> T:
        if app is None:
            return self  # type: ignore[return-value]  # the class's own attribute
        value: T = getattr(app.front, self.field)
        return value

    def __set__(self, app: Any, value: T) -> None:
        setattr(app.front, self.field, value)
