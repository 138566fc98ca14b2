"""The one seam between the engine and Textual: engine events become Textual messages."""

from __future__ import annotations

from textual.message import Message
from textual.message_pump import MessagePump

from agent_tui.core.events import Event


class AgentEvent(Message):
    """An engine event, delivered to the app on its message queue."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


class EventBridge:
    """An ``EventSink`` that posts each engine event to ``target`` as an ``AgentEvent``."""

    def __init__(self, target: MessagePump) -> None:
        self.target = target

    def __call__(self, event: Event) -> None:
        self.target.post_message(AgentEvent(event))
