"""The tool calls of the model's last response, and the results logged for them, so that a
cancel or a hook's stop leaves none unanswered."""

from __future__ import annotations

from ...tools.base import ErrorType
from ..events import Event, EventSink, ToolResultEvent
from ..providers.base import Message, ToolCallRequest
from ..text_protocol import results_message
from .pipeline import CANCELLED_CALL


class ResponseCalls:
    """The last response's tool calls and their logged results (output, ok)."""

    def __init__(self) -> None:
        self.calls: list[ToolCallRequest] = []
        self.ended: dict[str, tuple[str, bool]] = {}

    def expect(self, calls: list[ToolCallRequest]) -> None:
        """A new response made ``calls``; none has a result yet."""
        self.calls = list(calls)
        self.ended = {}

    def saw(self, event: Event) -> None:
        """Note a call's result as it is logged."""
        if isinstance(event, ToolResultEvent):
            self.ended[event.id] = (event.output, event.ok)

    def answer_all(self, messages: list[Message], native_tools: bool, emit: EventSink,
                   why: str | None = None) -> None:
        """After a cancel (or a hook's stop), answer every call of the last response that
        has no result, in ``messages`` and in the session log (through ``emit``) alike:
        providers reject a history with a call left unanswered, now and when the session is
        resumed. A call no front end saw end is shown ended, as failed.

        Args:
            why: What stopped it (None: a cancel).
        """
        calls = self.calls
        last_assistant = next((i for i in range(len(messages) - 1, -1, -1)
                               if messages[i]["role"] == "assistant"), None)
        if not calls or last_assistant is None:
            return
        cancelled = CANCELLED_CALL if why is None else f"Error: {why}."
        error_type = ErrorType.CANCELLED if why is None else ErrorType.DENIED
        for call in calls:
            if call.id not in self.ended:
                emit(ToolResultEvent(call.id, call.name, False, cancelled,
                                     error_type=error_type))
        answered = {m.get("tool_call_id") for m in messages[last_assistant + 1:]}
        if native_tools:
            for call in calls:
                if call.id not in answered:
                    messages.append({"role": "tool", "tool_call_id": call.id,
                                     "content": self.ended[call.id][0]})
        elif last_assistant == len(messages) - 1:
            messages.append(results_message([(call, *self.ended[call.id]) for call in calls]))
