"""The one seam between the engine and Textual: engine events become Textual messages.

Every event is redacted here (a :class:`~agent_tui.core.safety.redaction.RedactingSink`), on its
way to the screen, so no widget ever shows an API key, a bearer token or the value of a
secret environment variable, not even one split across two streamed pieces.

Events keep the text as it came (the log and the model need it exact); it is outside text,
and every widget shows it through :func:`~agent_tui.tui.outside_text.outside_text`: literal,
never markup, escape sequences shown rather than sent to the terminal.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.message import Message
from textual.message_pump import MessagePump

from ..core.events import Event
from ..core.safety.redaction import RedactingSink, env_secrets


class AgentEvent(Message):
    """An engine event, delivered to the app on its message queue."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


class EventBridge(RedactingSink):
    """An ``EventSink`` that posts each engine event, redacted, to ``target`` as an ``AgentEvent``.

    Args:
        target: Where the messages go (the app).
        secrets: Exact values to hide besides key shapes; by default the values of this
            process's secret environment variables.
    """

    def __init__(self, target: MessagePump, secrets: Iterable[str] | None = None) -> None:
        self.target = target
        super().__init__(self._post, env_secrets() if secrets is None else secrets)

    def _post(self, event: Event) -> None:
        self.target.post_message(AgentEvent(event))
