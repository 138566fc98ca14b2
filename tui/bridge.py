"""The one seam between the engine and Textual: engine events become Textual messages.

Every event is redacted here, on its way to the screen, so no widget ever shows an API key,
a bearer token or the value of a secret environment variable. Streamed text (assistant
deltas, live tool output) goes through a :class:`StreamRedactor` per stream, so a key split
across two pieces is caught too.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.message import Message
from textual.message_pump import MessagePump

from agent_tui.core.events import Event, StreamRestart, TextDelta, ToolOutput, ToolResultEvent
from agent_tui.core.redaction import StreamRedactor, env_secrets, redact_fields


class AgentEvent(Message):
    """An engine event, delivered to the app on its message queue."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


class EventBridge:
    """An ``EventSink`` that posts each engine event, redacted, to ``target`` as an ``AgentEvent``.

    Args:
        target: Where the messages go (the app).
        secrets: Exact values to hide besides key shapes; by default the values of this
            process's secret environment variables.
    """

    def __init__(self, target: MessagePump, secrets: Iterable[str] | None = None) -> None:
        self.target = target
        self.secrets = env_secrets() if secrets is None else tuple(secrets)
        self._text = StreamRedactor(self.secrets)
        self._outputs: dict[str, StreamRedactor] = {}

    def __call__(self, event: Event) -> None:
        if isinstance(event, TextDelta):
            if text := self._text.feed(event.text):
                self._post(TextDelta(text))
            return
        if isinstance(event, StreamRestart):
            self._text.flush()  # the text streamed so far is void; the app drops it
        elif isinstance(event, ToolOutput):
            stream = self._outputs.setdefault(event.id, StreamRedactor(self.secrets))
            if text := stream.feed(event.text):
                self._post(ToolOutput(event.id, text))
            return
        # Anything else ends the assistant's stream (its message, a tool call, an error),
        # so what it held back is shown first.
        if rest := self._text.flush():
            self._post(TextDelta(rest))
        if isinstance(event, ToolResultEvent) and (stream := self._outputs.pop(event.id, None)):
            if rest := stream.flush():
                self._post(ToolOutput(event.id, rest))
        self._post(redact_fields(event, self.secrets))

    def _post(self, event: Event) -> None:
        self.target.post_message(AgentEvent(event))
