"""The one seam between the engine and Textual: engine events become Textual messages.

Every event is redacted here (a :class:`~agent_tui.core.safety.redaction.RedactingSink`), on its
way to the screen, so no widget ever shows an API key, a bearer token or the value of a
secret environment variable, not even one split across two streamed pieces.

Events keep the text as it came (the log and the model need it exact); it is outside text,
and every widget shows it through :func:`~agent_tui.tui.outside_text.outside_text`: literal,
never markup, escape sequences shown rather than sent to the terminal.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from textual.message import Message
from textual.message_pump import MessagePump

from ...core.events import Event, TextDelta
from ...core.safety.redaction import RedactingSink, env_secrets


class AgentEvent(Message):
    """An engine event, delivered to the app on its message queue.

    Attributes:
        event: The event.
        session_id: The session whose agent sent it (None: not said).
        sequence: Its place in the order the workbench's agents posted their events
            (0: not numbered).
    """

    def __init__(self, event: Event, session_id: str | None = None, sequence: int = 0) -> None:
        super().__init__()
        self.event = event
        self.session_id = session_id
        self.sequence = sequence


TEXT_GATHER_S = 0.001
"""Seconds streamed text is gathered before it is redacted and posted: the chunks of a
burst go as one message. The stream worker already sends a fast stream's text in a few
hundred lines a second; a longer gathering here added to the display lag about as much as
it waited (4 ms: 2 ms at 200 words/s, p50, for no CPU saved)."""


class EventBridge(RedactingSink):
    """An ``EventSink`` that posts each engine event, redacted, to ``target`` as an ``AgentEvent``.

    Streamed text is gathered for ``TEXT_GATHER_S``, then redacted and posted as one
    message, in order with the events around it (any other event passes the text gathered
    so far on first): a stream of 1,000 chunks a second costs the app about a hundred
    redactions and messages a second, not a thousand.

    Args:
        target: Where the messages go (the app).
        secrets: Exact values to hide besides key shapes; by default the values of this
            process's secret environment variables.
    """

    def __init__(self, target: MessagePump, secrets: Iterable[str] | None = None) -> None:
        self.target = target
        self._pending_text: list[str] = []
        self._text_scheduled = False
        super().__init__(self._post, env_secrets() if secrets is None else secrets)

    def __call__(self, event: Event) -> None:
        if isinstance(event, TextDelta):
            self._pending_text.append(event.text)
            if not self._text_scheduled:
                try:
                    loop = asyncio.get_running_loop()
                except RuntimeError:  # no loop (a plain caller): pass it on now
                    self._pass_text()
                    return
                self._text_scheduled = True
                loop.call_later(TEXT_GATHER_S, self._pass_text)
            return
        self._pass_text()
        super().__call__(event)

    def _pass_text(self) -> None:
        """The text gathered so far, in one piece, on to redaction and the app."""
        self._text_scheduled = False
        if self._pending_text:
            text = "".join(self._pending_text)
            self._pending_text.clear()
            super().__call__(TextDelta(text))

    def _post(self, event: Event) -> None:
        self.target.post_message(AgentEvent(event))
