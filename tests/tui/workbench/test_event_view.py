"""Engine events in the workbench: one handler per event type, for live and resumed sessions."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

from textual.app import App, ComposeResult

from agent_tui.core import events as ev
from agent_tui.tui.outside_text import visible
from agent_tui.tui.widgets.assistant_block import AssistantBlock
from agent_tui.tui.widgets.conversation import (
    BlockRecord,
    ConversationView,
    NoticeBlock,
    ToolBlock,
    UserBlock,
)
from agent_tui.tui.widgets.panels import ContextGauge, TodoPane
from agent_tui.tui.widgets.tool_log import ToolLog
from agent_tui.tui.widgets.waiting import WaitingLine
from agent_tui.tui.workbench.event_view import IGNORED_EVENTS, RESTORED_EVENTS, EventView
from agent_tui.tui.workbench.restore_batch import ToolBlockRecord
from tests.tui.test_app import SIZE

EVENT_TYPES = {cls for _, cls in inspect.getmembers(ev, inspect.isclass)
               if issubclass(cls, ev.Event) and cls is not ev.Event}


def test_every_engine_event_is_handled_or_declared_not_shown() -> None:
    handled = EventView.handled()
    ignored = set(IGNORED_EVENTS)
    assert not handled & ignored
    assert EVENT_TYPES == handled | ignored, (
        "a new event type needs a handler in tui/workbench/event_view.py (or a place in IGNORED_EVENTS)")


def test_a_resumed_session_redraws_through_the_live_handlers() -> None:
    assert set(RESTORED_EVENTS) <= EventView.handled()


def test_a_type_has_one_handler() -> None:
    from agent_tui.tui.workbench.event_view import shows

    try:
        shows(ev.TextDelta)(lambda view, event: None)  # type: ignore[arg-type, return-value]
    except TypeError as exc:
        assert "TextDelta" in str(exc)
    else:
        raise AssertionError("a second handler for TextDelta was accepted")


class Panes(App[None]):
    """The panes the event view draws on, without an agent."""

    last_key_at = 0.0

    def __init__(self) -> None:
        super().__init__()
        self.view = EventView(self)
        self.notices: list[str] = []

    def compose(self) -> ComposeResult:
        yield ConversationView()
        yield TodoPane()
        yield ContextGauge()
        yield ToolLog()

    def notice(self, text: str, *, error: bool = False) -> None:
        self.notices.append(text)


def session() -> list[ev.Event]:
    """A turn with an answer, an allowed call, a denied call and the side panes' events."""
    return [
        ev.UserMessage("tidy up"),
        ev.AssistantMessage("Looking.", [{"id": "c1"}, {"id": "c2"}]),
        ev.ToolCallStarted("c1", "read_file", {"file_path": "a.py"}, "read_file a.py"),
        ev.ApprovalDecided("c1", "allow"),
        ev.ToolResultEvent("c1", "read_file", True, "x = 1", duration=0.5),
        ev.ToolCallStarted("c2", "shell", {"command": "rm -r build"}, "shell rm -r build"),
        ev.ApprovalDecided("c2", "deny", "not now", by="user"),
        ev.ToolResultEvent("c2", "shell", False, "denied: not now", duration=0.0),
        ev.TodoUpdated("- [x] tidy\n"),
        ev.ContextUpdated(1200, 128_000),
        ev.TurnUsage(ev.Usage(1000, 200, 0.01), ev.Usage(1000, 200, 0.01)),
        ev.AssistantMessage("Done."),
    ]


def shown(app: Panes) -> list[tuple[str, Any]]:
    """What the conversation and tool log show, block by block and row by row."""
    blocks: list[tuple[str, Any]] = []
    for block in app.query_one(ConversationView).query("UserBlock, AssistantBlock, ToolBlock"):
        if isinstance(block, ToolBlock):
            blocks.append(("tool", (block.call_id, block.status, block.duration, block.output)))
        else:
            blocks.append((type(block).__name__, block.text))
    log = app.query_one(ToolLog)
    rows = [(r.call_id, r.status, r.duration, r.output) for r in log.records.values()]
    return blocks + [("row", row) for row in rows]


async def test_live_and_resumed_show_the_same_session() -> None:
    live = Panes()
    async with live.run_test(size=SIZE) as pilot:
        for event in session():
            await live.view.show(event)
        await pilot.pause()
        live_shown = shown(live)
        live_gauge = dataclasses.astuple(_gauge(live))

    resumed = Panes()
    async with resumed.run_test(size=SIZE) as pilot:
        blocks = await resumed.view.restore(session())
        await pilot.pause()
        assert blocks == 5
        assert shown(resumed) == live_shown
        assert dataclasses.astuple(_gauge(resumed)) == live_gauge
        assert "tidy" in resumed.query_one(TodoPane).source
    assert ("tool", ("c2", "denied", 0.0, "denied: not now")) in live_shown
    assert ("UserBlock", "tidy up") in live_shown


async def test_a_resume_keeps_earlier_blocks_as_records_and_skips_notices() -> None:
    events: list[ev.Event] = [ev.ErrorEvent("the provider failed"),
                              ev.Compacted(9000, 1000, "summary")]
    for turn in range(30):
        events += [ev.UserMessage(f"prompt {turn}"),
                   ev.ToolCallStarted(f"c{turn}", "read_file", {}, "read_file m.py"),
                   ev.ToolResultEvent(f"c{turn}", "read_file", True, "x", duration=0.1)]
    app = Panes()
    async with app.run_test(size=SIZE) as pilot:
        assert await app.view.restore(events) == 60
        await pilot.pause()
        view = app.query_one(ConversationView)
        earlier = view._earlier
        assert all(isinstance(record, BlockRecord) for record in earlier)
        assert any(isinstance(record, ToolBlockRecord) and record.status == "ok"
                   for record in earlier)
        assert not app.query(NoticeBlock) and app.notices == []
        # A call shown after the resume is reported to as in a live turn.
        await app.view.show(ev.ToolResultEvent("c29", "read_file", False, "gone"))
        assert app.query(ToolBlock)[-1].status == "error"


async def test_the_echo_of_a_prompt_the_box_showed_adds_no_block() -> None:
    app = Panes()
    async with app.run_test(size=SIZE) as pilot:
        app.view.prompt_shown = True
        await app.view.show(ev.UserMessage("typed"))
        await app.view.show(ev.UserMessage("replayed"))
        await pilot.pause()
        assert [u.text for u in app.query(UserBlock)] == ["replayed"]


async def test_a_retry_drops_the_streamed_text_and_counts_down_where_it_stood() -> None:
    app = Panes()
    async with app.run_test(size=SIZE) as pilot:
        app.view.turn_started()
        await app.view.show(ev.TextDelta("half an ans"))
        await pilot.pause()
        assert app.query(AssistantBlock) and not app.query(WaitingLine)
        # The provider's words are outside text: shown literally, escapes made visible.
        await app.view.show(ev.StreamRestart(1, 2.5, "HTTP 500 [/x] \x1b]0;title\x07", 5))
        await pilot.pause()
        assert not app.query(AssistantBlock)
        [line] = app.query(WaitingLine)
        assert str(line.render()).endswith(
            "retrying in 3 s (1 of 5): HTTP 500 [/x] " + visible("\x1b]0;title\x07"))
        assert "\x1b" not in str(line.render())
        assert app.notices == []  # shown live, not as a notice left behind
        app.view.turn_ended()
        await pilot.pause()
        assert not app.query(WaitingLine)


@dataclasses.dataclass
class _Gauge:
    tokens: int
    window: int
    call_cost: float | None
    session_cost: float | None


def _gauge(app: Panes) -> _Gauge:
    gauge = app.query_one(ContextGauge)
    return _Gauge(gauge.tokens, gauge.window, gauge.call_cost, gauge.session_cost)


async def test_a_call_shows_how_an_edit_matched_its_warning_and_escalation_live_and_resumed(
) -> None:
    events: list[ev.Event] = [
        ev.UserMessage("fix it"),
        ev.ToolCallStarted("c1", "edit_file", {"file_path": "a.py"}, "edit_file a.py",
                           called_as="replace"),
        ev.ToolResultEvent("c1", "edit_file", True, "Edited a.py", duration=0.1,
                           edit_tier="whitespace",
                           warnings=["this edit adds a syntax error at line 3"]),
        ev.ToolCallStarted("c2", "edit_file", {"file_path": "b.py"}, "edit_file b.py"),
        ev.ToolResultEvent("c2", "edit_file", False, "Error: old_text not found",
                           suggest_escalation=True, escalation_reason="not in b.py"),
    ]
    notes = {}
    for resumed in (False, True):
        app = Panes()
        async with app.run_test(size=SIZE) as pilot:
            if resumed:
                await app.view.restore(events)
            else:
                for event in events:
                    await app.view.show(event)
            await pilot.pause()
            blocks = {b.call_id: b for b in app.query(ToolBlock)}
            log = app.query_one(ToolLog)
            notes[resumed] = ({k: b.note for k, b in blocks.items()},
                              {k: r.note for k, r in log.records.items()})
            assert str(blocks["c1"].content).endswith(
                "matched ignoring whitespace · ⚠ this edit adds a syntax error at line 3")
            cells = [str(log.table.get_row("c1")[3]), str(log.table.get_row("c2")[3])]
            assert cells == ["ok ⚠", "error ↑"]
    assert notes[False] == notes[True]
    assert notes[False][0]["c2"] == "↑ a stronger model may help"


async def test_the_tool_log_columns_fit_what_the_rows_show_however_fast_a_call_ends() -> None:
    """A call's status and duration change after its row is added: the columns are measured
    again (a 123.4 s call shows its whole duration), and the widths are the same whether the
    table was drawn between the events or the call ended before it was."""
    events: list[ev.Event] = [
        ev.ToolCallStarted("c1", "shell", {"command": "make"}, "shell make"),
        ev.ApprovalDecided("c1", "allow"),
        ev.ToolResultEvent("c1", "shell", True, "built", duration=123.4),
    ]
    widths = {}
    for drawn_between in (True, False):
        app = Panes()
        async with app.run_test(size=SIZE) as pilot:
            for event in events:
                await app.view.show(event)
                if drawn_between:
                    await pilot.pause()
            await pilot.pause()
            table = app.query_one(ToolLog).table
            widths[drawn_between] = {
                str(column.label): column.get_render_width(table)
                for column in table.ordered_columns}
            row = "".join(segment.text for segment in table.render_line(1))
            assert "123.4s" in row
    assert widths[True] == widths[False]
    assert widths[True]["status"] == len("status") + 2


async def test_a_row_drawn_before_its_columns_were_measured_is_drawn_again() -> None:
    """A frame can draw a new row before the table measures it (it measures when idle): once
    measured, the row is drawn at the new widths, not from what the frame cached."""
    app = Panes()
    async with app.run_test(size=SIZE) as pilot:
        log = app.query_one(ToolLog)
        log.add_call("c1", "read_file", "read_file a.py", {})
        await pilot.pause()
        log.add_call("c2", "todo_write", "todo_write 1/2 done", {})
        log.update_call("c2", status="ok", duration=0.0)
        log.table.render_line(2)  # the frame drawn before the table was idle
        await pilot.pause()
        assert "todo_write" in "".join(segment.text for segment in log.table.render_line(2))


async def test_the_gauge_names_the_last_model_calls_cost_and_the_sessions() -> None:
    """The gauge's costs say what they are: the last model call's, not a turn's."""
    app = Panes()
    async with app.run_test(size=SIZE) as pilot:
        await app.view.show(ev.TurnUsage(ev.Usage(1000, 200, 0.01), ev.Usage(1000, 200, 0.01)))
        await app.view.show(ev.TurnUsage(ev.Usage(1500, 50, 0.02), ev.Usage(2500, 250, 0.03)))
        await pilot.pause()
        lines = str(app.query_one(ContextGauge).render()).splitlines()
        assert lines[-1] == "last call $0.0200 · session $0.0300"


async def test_the_gauge_shows_what_the_prompt_cache_read_and_wrote() -> None:
    """With a provider that caches prompts, the gauge says which share of the session's
    input was read from the cache and how much was written to it."""
    app = Panes()
    async with app.run_test(size=SIZE) as pilot:
        await app.view.show(ev.TurnUsage(ev.Usage(4000, 50, 0.02, 3000, 900),
                                         ev.Usage(10_000, 250, 0.05, 9000, 900)))
        await pilot.pause()
        lines = str(app.query_one(ContextGauge).render()).splitlines()
        assert lines[-1] == "cache: 90% of input read · 900 written"
