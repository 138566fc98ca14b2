"""Playing a recorded session back as engine events, at a chosen speed (demos, bug reports).

Nothing is re-run: the model's answers, the tool calls and their results all come from the log.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Iterator
from typing import Any, NamedTuple

from .. import events as ev
from .log import SessionLog

# The longest pause between two recorded events, at speed 1, so a coffee break in the log
# does not stall a demo.
LONGEST_PAUSE = 2.0
# Characters a second at which recorded answers are typed out, at speed 1.
TYPING_RATE = 400.0

_EVENT_TYPES: dict[str, type[ev.Event]] = {
    kind: cls for kind, cls in ev.EVENT_TYPES.items() if cls.replayed
}
_FIELD_NAMES: dict[type[ev.Event], tuple[str, ...]] = {
    cls: tuple(field.name for field in dataclasses.fields(cls)) for cls in _EVENT_TYPES.values()
}


def event_from_record(record: dict[str, Any]) -> ev.Event | None:
    """The engine event a log record was made from, or None for other records."""
    cls = _EVENT_TYPES.get(record.get("type", ""))
    if cls is None:
        return None
    if cls is ev.RunResult and "model_calls" not in record:  # logged as ``turns`` before
        record = {**record, "model_calls": record.get("turns", 0)}
    values: dict[str, Any] = {}
    for name in _FIELD_NAMES[cls]:
        if name not in record:
            continue
        value = record[name]
        if name in ("usage", "session") and isinstance(value, dict):
            value = ev.Usage.from_dict(value)
        values[name] = value
    try:
        return cls(**values)
    except TypeError:  # a record from another version of agent-tui, missing a field
        return None


class LoggedEvent(NamedTuple):
    """An engine event of a log and when it was recorded (None: the record has no time)."""

    event: ev.Event
    at: float | None


def logged_events(log: SessionLog) -> Iterator[LoggedEvent]:
    """The log's engine events in order, each with the time it was recorded: a resumed
    session shows its calls at their own times, not at the time it was resumed."""
    for record in log.events:
        if (event := event_from_record(record)) is not None:
            stamp = record.get("ts")
            yield LoggedEvent(event, float(stamp) if isinstance(stamp, int | float) else None)


async def replay(log: SessionLog, speed: float = 1.0) -> AsyncIterator[ev.Event]:
    """Yield the log's events in order, paced by their timestamps divided by ``speed``.

    An answer's text is typed out as ``TextDelta`` pieces before its ``AssistantMessage``, and
    its reasoning as ``ThinkingDelta`` pieces before its ``Thinking``.
    """
    speed = max(speed, 0.01)
    previous: float | None = None
    for record in log.events:
        event = event_from_record(record)
        if event is None:
            continue
        stamp = record.get("ts")
        if isinstance(stamp, int | float):
            if previous is not None:
                await asyncio.sleep(min(LONGEST_PAUSE, max(0.0, stamp - previous)) / speed)
            previous = stamp
        if isinstance(event, ev.AssistantMessage | ev.Thinking) and event.text:
            step = 24
            piece = ev.TextDelta if isinstance(event, ev.AssistantMessage) else ev.ThinkingDelta
            for start in range(0, len(event.text), step):
                yield piece(event.text[start:start + step])
                await asyncio.sleep(step / TYPING_RATE / speed)
        yield event
