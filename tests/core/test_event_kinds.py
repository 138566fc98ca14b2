"""Each kind of event is declared once, on its class in core/events.py: the session log's
transient kinds, replay, a resumed workbench session, stream-json and ACP all read it there,
and every front end has an answer for every kind."""

from __future__ import annotations

import dataclasses
import inspect
import io
import json
from typing import Any

import pytest

from agent_tui.core import events as ev
from agent_tui.core.sessions.replay import event_from_record
from agent_tui.core.sessions.resume import TRANSIENT_EVENTS
from agent_tui.tui.acp.updates import _TRANSLATIONS
from agent_tui.tui.cli.headless import PROGRESS_LINES, HeadlessPrinter
from agent_tui.tui.workbench.event_view import IGNORED_EVENTS, RESTORED_EVENTS, EventView

EVERY_EVENT_CLASS = {cls for _, cls in inspect.getmembers(ev, inspect.isclass)
                     if issubclass(cls, ev.Event) and cls is not ev.Event}

SAMPLES: dict[str, Any] = {
    "str": "x", "int": 3, "float": 1.5, "bool": True, "Any": {"path": "a.py"},
    "Usage": ev.Usage(10, 5, 0.01), "int | None": 7, "str | None": "y",
    "list[str]": ["a"], "list[dict[str, Any]]": [{"id": "c1"}],
    "list[dict[str, str]]": [{"path": "a.py", "kind": "created", "diff": "+x"}],
    "tuple[str, ...]": ("a.png",),
}


def sample(cls: type[ev.Event]) -> ev.Event:
    """An event of ``cls`` with every field set to a value other than its default."""
    values = {}
    for field in dataclasses.fields(cls):
        annotation = field.type if isinstance(field.type, str) else str(field.type)
        values[field.name] = SAMPLES[annotation]
    return cls(**values)


def test_every_event_class_declares_its_own_kind_once():
    assert set(ev.EVENT_TYPES.values()) == EVERY_EVENT_CLASS
    for kind, cls in ev.EVENT_TYPES.items():
        assert "type" in cls.__dict__ and kind == cls.type != "event", cls.__name__


@pytest.mark.parametrize("cls", sorted(EVERY_EVENT_CLASS, key=lambda c: c.type),
                         ids=lambda c: c.type)
def test_stream_json_writes_every_kind_with_its_type(cls):
    event = sample(cls)
    out = io.StringIO()
    HeadlessPrinter("stream-json", out, io.StringIO()).handle(event)
    line = json.loads(out.getvalue())
    assert next(iter(line)) == "type" and line["type"] == cls.type


@pytest.mark.parametrize("cls", sorted(EVERY_EVENT_CLASS, key=lambda c: c.type),
                         ids=lambda c: c.type)
def test_a_logged_record_reads_back_as_its_event_exactly_when_the_kind_is_replayed(cls):
    event = sample(cls)
    record = json.loads(json.dumps(event.to_dict()))
    back = event_from_record(record)
    if cls.replayed:
        assert type(back) is cls and json.loads(json.dumps(back.to_dict())) == record
    else:
        assert back is None


def test_transient_kinds_are_the_ones_sent_again_whole_and_never_replayed():
    assert TRANSIENT_EVENTS == {"text_delta", "thinking_delta", "tool_output"}
    assert not any(ev.EVENT_TYPES[kind].replayed for kind in TRANSIENT_EVENTS)


def test_the_workbench_redraws_and_ignores_what_the_classes_say():
    assert set(RESTORED_EVENTS) == {c for c in EVERY_EVENT_CLASS if c.restored}
    assert set(IGNORED_EVENTS) == {c for c in EVERY_EVENT_CLASS if not c.shown}
    assert set(RESTORED_EVENTS) <= {c for c in EVERY_EVENT_CLASS if c.replayed}
    assert EventView.handled() == {c for c in EVERY_EVENT_CLASS if c.shown}


def test_acp_has_a_translation_for_every_kind():
    assert set(_TRANSLATIONS) == EVERY_EVENT_CLASS, (
        "a new event class needs an entry in tui/acp/updates.py's _TRANSLATIONS "
        "(UpdateTranslator._nothing when a client has no place for it)")


def test_the_text_formats_print_lines_only_for_event_classes():
    assert set(PROGRESS_LINES) <= EVERY_EVENT_CLASS
