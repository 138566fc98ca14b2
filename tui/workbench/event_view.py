"""Engine events shown in the workbench: one handler per event type, live and resumed alike.

:class:`EventView` turns each :class:`~agent_tui.core.events.Event` into what the panes show
(conversation blocks, tool log rows, todos, the context gauge, notices) through a dispatch
table keyed by the event's class. A live turn, ``agent-tui replay`` and a resumed session all
go through the same handlers; a resumed session only differs in where blocks go
(:class:`~.restore_batch.RestoreBatch`): the earlier ones wait as records, built when
scrolled back to, and the tool log lists the newest calls, so a session of any length is on
screen at once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from ...core import events as ev
from ...core.sessions.replay import LoggedEvent
from ...tools.base import EDIT_TIER_NOTES
from ..widgets.conversation import BlockRecord, ConversationView, ToolBlock, UserBlock
from ..widgets.panels import ContextGauge, StatusBar, TodoPane
from ..widgets.thinking_block import ThinkingView, show_thinking
from ..widgets.tool_lane import LaneCall
from ..widgets.tool_log import ToolLog
from ..widgets.waiting import Awaited, WaitingLine, now, running_words
from .restore_batch import RestoreBatch, ToolBlockRecord
from .step_view import Step, check_step, check_wait, commit_step

if TYPE_CHECKING:
    from textual.widget import Widget

    from ..widgets.assistant_block import StreamedAnswer

RESTORED_EVENTS: tuple[type[ev.Event], ...] = tuple(
    cls for cls in ev.EVENT_TYPES.values() if cls.restored)
"""What a resumed session redraws: the transcript, the todos and the gauge as the session
left them (each event class says whether it is: ``restored``)."""

IGNORED_EVENTS: tuple[type[ev.Event], ...] = tuple(
    cls for cls in ev.EVENT_TYPES.values() if not cls.shown)
"""Events the workbench does not show: they are for the log, headless output or the model
(a preview is shown by the approval modal that asked for it)."""

Handler = Callable[["EventView", Any], Awaitable[None]]
_HANDLERS: dict[type[ev.Event], Handler] = {}


def shows(event_type: type[ev.Event]) -> Callable[[Handler], Handler]:
    """Declare the decorated method the handler of ``event_type`` (one per type)."""

    def register(method: Handler) -> Handler:
        if event_type in _HANDLERS:
            raise TypeError(f"two handlers for {event_type.__name__}")
        _HANDLERS[event_type] = method
        return method

    return register


class Panes(Protocol):
    """What the event view draws on: the app's panes, looked up when an event arrives."""

    def query_one(self, selector: Any) -> Any: ...

    def query(self, selector: Any) -> Any: ...

    def notice(self, text: str, *, error: bool = False) -> None: ...

    @property
    def last_key_at(self) -> float:
        """When the person last pressed a key (``time.monotonic()``)."""
        ...


def result_note(event: ev.ToolResultEvent) -> str:
    """What a call's line says after its status: how an edit matched, the first warning,
    and a stronger model suggested ("" when there is nothing to say)."""
    notes = []
    if tier_note := EDIT_TIER_NOTES.get(event.edit_tier or ""):
        notes.append(tier_note)
    if event.warnings:
        more = f" (+{len(event.warnings) - 1} more)" if len(event.warnings) > 1 else ""
        notes.append(f"⚠ {event.warnings[0]}{more}")
    if event.suggest_escalation:
        notes.append("↑ a stronger model may help")
    return " · ".join(notes)


_RESTORED_HANDLERS: dict[type[ev.Event], Handler] = {}
"""The handlers of ``RESTORED_EVENTS``, filled in once the handlers are declared."""


class EventView:
    """Shows engine events in the workbench's panes, one handler per event type.

    Args:
        panes: The app: its widgets are looked up as events arrive, so an event that comes
            while the app closes fails as a lookup (``NoMatches``) the app can ignore.
    """

    def __init__(self, panes: Panes) -> None:
        self.panes = panes
        self.prompt_shown = False
        """The prompt box already showed the prompt of the turn starting: its
        ``UserMessage`` adds no block."""
        self._assistant: StreamedAnswer | None = None  # the answer being streamed into
        self.thinking = ThinkingView(self._add)  # the model's reasoning, folded as it answers
        self._tool_blocks: dict[str, ToolBlock | ToolBlockRecord | LaneCall] = {}
        self._batch: RestoreBatch | None = None
        self._turn = False  # the front session runs a prompt: its waits are shown
        self._awaited: Awaited | None = None
        self._line: WaitingLine | None = None
        # Found when a prompt starts: a modal (the approval) may be on top when a wait changes.
        self._status: StatusBar | None = None
        self._pane: ConversationView | None = None
        self._calls: dict[str, str] = {}  # the response's calls not ended: id -> words
        self._running: dict[str, float] = {}  # id -> when it started running
        self._asking: dict[str, float] = {}  # id -> when its approval was asked

    @staticmethod
    def handled() -> frozenset[type[ev.Event]]:
        """The event types that have a handler."""
        return frozenset(_HANDLERS)

    async def show(self, event: ev.Event) -> None:
        """Show one event through its type's handler (events without one are not shown)."""
        handler = _HANDLERS.get(type(event))
        if handler is not None:
            await handler(self, event)

    async def restore(self, events: Iterable[ev.Event | LoggedEvent]) -> int:
        """Redraw a resumed session from its events (``RESTORED_EVENTS`` of them), each
        with the time it was recorded when given as a :class:`LoggedEvent`.

        Only the newest blocks become widgets now; the earlier ones are built when the
        person scrolls back to them.

        Returns:
            How many blocks the transcript holds.
        """
        # Every prompt of the log is shown: none was shown by the prompt box.
        prompt_shown, self.prompt_shown = self.prompt_shown, False
        self._batch = batch = RestoreBatch()
        try:
            for item in events:
                event, batch.at = item if isinstance(item, LoggedEvent) else (item, None)
                handler = _RESTORED_HANDLERS.get(type(event))
                if handler is not None:
                    await handler(self, event)
        finally:
            self._batch = None
            self.prompt_shown = prompt_shown
        # The calls' reports went to records; later reports go to the widgets built now.
        self._tool_blocks = {}
        for widget in await batch.flush(self.conversation, self.panes.query_one(ToolLog)):
            if isinstance(widget, ToolBlock):
                self._tool_blocks[widget.call_id] = widget
        return len(batch.blocks)

    def reset(self) -> None:
        """Forget the streaming answer and the calls (the panes are being emptied)."""
        self.prompt_shown = False
        self._assistant = None
        self._tool_blocks.clear()
        self._line = None  # emptied with the panes
        self._forget_calls()

    # -- what the running prompt waits for -----------------------------------------------

    def turn_started(self, *, loading: bool = False) -> None:
        """The front session runs a prompt: show what it waits for from now on (first the
        model library, when ``loading`` it)."""
        self._turn = True
        self._status = next(iter(self.panes.query(StatusBar)), None)
        self._pane = next(iter(self.panes.query(ConversationView)), None)
        self._forget_calls()
        self._wait("loading the model library" if loading else self._waiting_for_model())

    def turn_ended(self) -> None:
        """The prompt ended: no wait is shown."""
        self._turn = False
        self._awaited = None
        self._forget_calls()
        self._hide_line()
        if self._status is not None:
            self._status.show_waiting(None, 0.0)

    def tick(self) -> None:
        """The app's wait timer: redraw the spinner, the times and the countdown (only the
        status bar, the waiting line and the running tool blocks)."""
        if not self._turn or self._awaited is None:
            return
        moment = now()
        self._show_wait(moment)
        for call_id in self._running:
            if isinstance(block := self._tool_blocks.get(call_id), ToolBlock):
                block.show_elapsed(moment)

    def _forget_calls(self) -> None:
        self._calls.clear()
        self._running.clear()
        self._asking.clear()

    def _waiting_for_model(self) -> str:
        status = self._status
        model = (status.escalated_to or status.model) if status is not None else ""
        return f"waiting for {model or 'the model'}"

    def _wait(self, what: str, *, since: float | None = None,
              retry: ev.StreamRestart | None = None, in_conversation: bool = True) -> None:
        """The running prompt waits for ``what`` (since ``since``, else now)."""
        if not self._turn or self._batch is not None:
            return
        moment = now()
        self._awaited = Awaited(what, moment if since is None else since, retry,
                                in_conversation)
        if not in_conversation:
            self._hide_line()
        elif self._line is None and self._pane is not None:
            self._line = WaitingLine(self._awaited, moment)
            self._pane.show_live(self._line)
        self._show_wait(moment)

    def _show_wait(self, moment: float) -> None:
        if self._status is not None:
            self._status.show_waiting(self._awaited, moment)
        if self._line is not None and self._awaited is not None:
            self._line.show(self._awaited, moment)

    def _hide_line(self) -> None:
        line, self._line = self._line, None
        # Through the line's own pane: the app may be closing, its panes no longer found.
        if line is not None and isinstance(pane := line.parent, ConversationView):
            pane.hide_live()

    def _wait_for_calls(self) -> None:
        """Show the calls of the response: one waiting for approval, else the running ones
        (the first, and how many more); the model once they all ended."""
        if self._asking:
            self._wait("waiting for your approval", since=min(self._asking.values()))
        elif self._running:
            first, *more = self._running
            words = self._calls.get(first, "running a tool")
            self._wait(f"{words} and {len(more)} more" if more else words,
                       since=self._running[first])
        elif self._calls:
            self._wait(next(iter(self._calls.values())))
        else:
            self._wait(self._waiting_for_model())

    @property
    def conversation(self) -> ConversationView:
        """The conversation pane."""
        return self.panes.query_one(ConversationView)

    @property
    def _tool_log(self) -> ToolLog | RestoreBatch:
        return self._batch if self._batch is not None else self.panes.query_one(ToolLog)

    async def _add(self, widget: Callable[[], Widget]) -> None:
        """A new block: built and shown now, or kept as a record in a restore."""
        if self._batch is not None:
            self._batch.blocks.append(BlockRecord(widget))
        else:
            await self.conversation.add(widget())

    async def finish_assistant(self, text: str | None = None) -> None:
        """End the streamed answer: with its final ``text``, or as it stands (None)."""
        answer, self._assistant = self._assistant, None
        if answer is None:
            if text and text.strip():
                from ..widgets.assistant_block import split_answer

                for page in split_answer(text):
                    await self._add(page)
            return
        if text is not None and not text.strip():
            await answer.remove()
            return
        await answer.finish(text)

    def _update_tool(self, call_id: str, *, status: str, duration: float | None = None,
                     output: str | None = None, note: str | None = None) -> None:
        if block := self._tool_blocks.get(call_id):
            block.set_status(status, duration=duration, output=output, note=note)
        self._tool_log.update_call(call_id, status=status, duration=duration, output=output,
                                   note=note)

    def _escalated_to(self, model: str) -> None:
        """Name the model the running prompt was handed to in the status bar, if any."""
        for status in self.panes.query(StatusBar):
            status.escalated_to = model

    def streamed_text(self) -> str:
        """The answer being streamed so far ("" when none is)."""
        return self._assistant.text if self._assistant is not None else ""

    def awaiting_approval(self, call_id: str) -> None:
        """The call waits for the person's approval."""
        self._update_tool(call_id, status="approval")
        self._asking[call_id] = now()
        self._wait_for_calls()

    # -- the handlers ------------------------------------------------------------------

    @shows(ev.UserMessage)
    async def _user_message(self, event: ev.UserMessage) -> None:
        self._escalated_to("")  # a new prompt starts on the own model
        self._wait(self._waiting_for_model())
        if self.prompt_shown:
            self.prompt_shown = False
            return
        await self._add(partial(UserBlock, event.text, images=tuple(event.images)))

    @shows(ev.TextDelta)
    async def _text_delta(self, event: ev.TextDelta) -> None:
        if self._assistant is None:
            from ..widgets.assistant_block import StreamedAnswer

            # The answer takes the waiting line's place; the status bar goes on counting.
            model = self._waiting_for_model().removeprefix("waiting for ")
            self._wait(f"{model} is answering", in_conversation=False)
            self.thinking.fold()
            self._assistant = StreamedAnswer(self.conversation,
                                             last_key_at=lambda: self.panes.last_key_at)
            await self._assistant.start()
        self._assistant.write(event.text)

    @shows(ev.StreamRestart)
    async def _stream_restart(self, event: ev.StreamRestart) -> None:
        if self._assistant is not None:
            await self._assistant.remove()
            self._assistant = None
        # Shown live, counting down, where the answer will appear; the log keeps it.
        self._wait(self._waiting_for_model(), since=now() + event.delay, retry=event)

    @shows(ev.AssistantMessage)
    async def _assistant_message(self, event: ev.AssistantMessage) -> None:
        await self.finish_assistant(event.text)
        if not event.tool_calls:
            self._wait("finishing", in_conversation=False)

    @shows(ev.ToolCallStarted)
    async def _tool_call(self, event: ev.ToolCallStarted) -> None:
        if event.parent_id is not None:  # a task's sub-agent's call: a line in its lane
            self._tool_blocks[event.id] = LaneCall.under(self._tool_blocks.get(event.parent_id),
                                                         event)
        elif self._batch is not None:
            record = ToolBlockRecord(event.id, event.name, event.summary, event.args)
            self._tool_blocks[event.id] = record
            self._batch.blocks.append(record)
        else:
            from ...core.runtime.direct_commands import PERSON_SHELL_CALL

            block = ToolBlock(event.id, event.name, event.summary, event.args)
            if event.id.startswith(PERSON_SHELL_CALL):
                block.action_toggle()  # the person's `!command`: its output is what they want
            self._tool_blocks[event.id] = block
            await self.conversation.add(block)
        self._tool_log.add_call(event.id, event.name, event.summary, event.args)
        if self._batch is None:
            self._calls[event.id] = running_words(event.name, event.summary, event.args)
            self._wait_for_calls()

    @shows(ev.ApprovalDecided)
    async def _approval(self, event: ev.ApprovalDecided) -> None:
        status = "running" if event.decision == "allow" else "denied"
        if event.edited_summary:
            if block := self._tool_blocks.get(event.id):
                block.show_edited(event.edited_summary, event.edited_args)
            self._tool_log.edit_call(event.id, event.edited_summary, event.edited_args)
        self._update_tool(event.id, status=status,
                          output=None if status == "running" else event.reason)
        if self._batch is None and event.id in self._calls:
            self._asking.pop(event.id, None)
            if event.edited_summary:
                self._calls[event.id] = running_words("", event.edited_summary,
                                                      event.edited_args)
            if status == "running":
                self._running[event.id] = moment = now()
                if isinstance(block := self._tool_blocks.get(event.id), ToolBlock):
                    block.start_running(moment)
            self._wait_for_calls()

    @shows(ev.ToolOutput)
    async def _tool_output(self, event: ev.ToolOutput) -> None:
        if block := self._tool_blocks.get(event.id):
            block.add_output(event.text)
        self._tool_log.update_call(event.id, more_output=event.text)

    @shows(ev.ToolResultEvent)
    async def _tool_result(self, event: ev.ToolResultEvent) -> None:
        block = self._tool_blocks.get(event.id)
        denied = block is not None and block.status == "denied"
        status = ("denied" if denied else "cancelled" if event.cancelled
                  else "ok" if event.ok else "error")
        self._update_tool(event.id, status=status, duration=event.duration,
                          output=event.output, note=result_note(event))
        if self._batch is None and self._calls.pop(event.id, None) is not None:
            self._running.pop(event.id, None)
            self._asking.pop(event.id, None)
            self._wait_for_calls()  # the model, once the response's calls all ended
        if event.image_files and block is not None:
            # Drawn under the call's line; the block reads the files, off the loop, once it
            # is shown (a resumed session's deleted screenshot is named then).
            block.show_images(event.image_files)

    @shows(ev.TodoUpdated)
    async def _todos(self, event: ev.TodoUpdated) -> None:
        self.panes.query_one(TodoPane).show(event.content)

    @shows(ev.ContextUpdated)
    async def _context(self, event: ev.ContextUpdated) -> None:
        gauge = self.panes.query_one(ContextGauge)
        gauge.window = event.window
        gauge.tokens = event.tokens
        gauge.level = event.level

    @shows(ev.ContextThinned)
    async def _thinned(self, event: ev.ContextThinned) -> None:
        self.panes.query_one(ContextGauge).level = event.level
        self.panes.notice(
            f"Context at {event.level} %: {len(event.fragments)} old tool result(s) set aside "
            f"({event.tokens_before:,} -> {event.tokens_after:,} tokens); the agent can bring "
            "them back with rehydrate.")

    @shows(ev.Compacted)
    async def _compacted(self, event: ev.Compacted) -> None:
        self.panes.query_one(ContextGauge).compactions += 1
        self.panes.notice(f"Compacted the conversation: {event.tokens_before:,} -> "
                          f"{event.tokens_after:,} tokens.")

    @shows(ev.TurnUsage)
    async def _usage(self, event: ev.TurnUsage) -> None:
        gauge = self.panes.query_one(ContextGauge)
        gauge.call_cost = event.usage.cost
        gauge.session_cost = event.session.cost
        gauge.session_usage = event.session

    @shows(ev.LaneStarted)
    async def _lane(self, event: ev.LaneStarted) -> None:
        await self.finish_assistant()
        self._wait(self._waiting_for_model())
        what = "implementing" if event.role == "player" else "reviewing the player's work"
        self.panes.notice(f"▌ {event.role.capitalize()} · round {event.round}: {what}")

    @shows(ev.RoundEnded)
    async def _round(self, event: ev.RoundEnded) -> None:
        await self.finish_assistant()
        verdict = "the coach approves" if event.approved else "the coach asks for changes"
        self.panes.notice(f"Round {event.round}: {verdict}.")

    @shows(ev.Escalated)
    async def _escalated(self, event: ev.Escalated) -> None:
        await self.finish_assistant()
        self._escalated_to(event.model)
        self._wait(self._waiting_for_model())
        self.panes.notice(f"↑ Escalated to {event.model}: {event.reason}")

    @shows(ev.CheckRan)
    async def _check(self, event: ev.CheckRan) -> None:
        await self._step(check_step(event))
        self._wait(check_wait(event) or self._waiting_for_model())

    @shows(ev.AutoCommitted)
    async def _committed(self, event: ev.AutoCommitted) -> None:
        await self._step(commit_step(event))

    async def _step(self, step: Step) -> None:
        """agent-tui's own step (a check, a commit): a block as a shell call's, by its id."""
        if (block := self._tool_blocks.get(step.id)) is None:
            record = ToolBlockRecord(step.id, "shell", step.summary, step.args)
            block = self._tool_blocks[step.id] = record if self._batch else record._widget()
            if self._batch is not None:
                self._batch.blocks.append(record)
            else:
                await self.conversation.add(block)
        block.set_status(step.status, duration=step.duration, output=step.output, note=step.note)

    @shows(ev.ErrorEvent)
    async def _error(self, event: ev.ErrorEvent) -> None:
        await self.finish_assistant()
        self.panes.notice(event.message, error=True)


_HANDLERS.update(dict.fromkeys((ev.ThinkingDelta, ev.Thinking), show_thinking))
_RESTORED_HANDLERS.update({kind: _HANDLERS[kind] for kind in RESTORED_EVENTS})
