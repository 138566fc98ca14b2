"""A task's sub-agent in the workbench: its calls drawn inside the task's block (its lane),
listed in the tool log, the block collapsed to a count once the task ended."""

from __future__ import annotations

from agent_tui.tui.widgets.conversation import ToolBlock
from agent_tui.tui.widgets.tool_lane import LaneCall
from agent_tui.tui.widgets.tool_log import ToolLog
from tests.fakes.providers import Reply, ToolCall
from tests.tui.test_snapshots import SIZE, _submit, _until, project, snapshot_app

__all__ = ["project"]  # the fixture, used by name

TASK = ToolCall("task", {"description": "Read the greeting",
                         "prompt": "Read hello.txt and say what it says.", "read_only": True})


def _script(fake) -> None:
    fake.script(
        Reply(text="I will ask a sub-agent.", usage=(1200, 20), tool_calls=[TASK]),
        Reply(usage=(800, 10), tool_calls=[ToolCall("read_file", {"file_path": "hello.txt"})]),
        Reply(usage=(900, 10), tool_calls=[ToolCall("glob_files", {"pattern": "hello.*"})]),
        Reply(text="hello.txt says hello.", usage=(1000, 10)),
        Reply(text="The sub-agent says the file says **hello**.", usage=(1500, 30)),
    )


async def test_a_tasks_calls_are_lines_in_its_block_and_rows_in_the_tool_log(
        fake_provider, project) -> None:
    _script(fake_provider)
    app = snapshot_app(fake_provider)
    async with app.run_test(size=SIZE) as pilot:
        await _submit("what does hello.txt say?")(pilot)
        await _until(pilot, lambda: len(fake_provider.requests) == 5 and not app.busy, 60)
        await pilot.pause(0.2)
        blocks = list(app.query(ToolBlock))
        assert [b.tool_name for b in blocks] == ["task"]
        [block] = blocks
        assert block.summary == "task: Read the greeting" and block.status == "ok"
        assert [(c.tool_name, c.status) for c in block.lane.calls] == [
            ("read_file", "ok"), ("glob_files", "ok")]
        assert all(isinstance(c, LaneCall) for c in block.lane.calls)
        assert "2 calls" in str(block.render())
        records = app.query_one(ToolLog).records
        assert [r.name for r in records.values()] == ["task", "read_file", "glob_files"]
        assert all(r.status == "ok" for r in records.values())


def test_an_expanded_task_shows_each_call_of_its_lane(snap_compare, fake_provider, project):
    """After the turn, the task's block expanded: its title "task: Read the greeting", the
    lines "└ ✓ read_file: hello.txt" and "└ ✓ glob_files: hello.*" under it, then its arguments and the
    sub-agent's answer; the tool log lists the task and its two calls."""
    _script(fake_provider)
    submit = _submit("what does hello.txt say?")

    async def run_before(pilot):
        await submit(pilot)
        await _until(pilot, lambda: len(fake_provider.requests) == 5 and not pilot.app.busy,
                     60)
        pilot.app.query_one(ToolBlock).action_toggle()
        await pilot.pause(0.3)

    assert snap_compare(snapshot_app(fake_provider), terminal_size=SIZE, run_before=run_before)


async def test_a_childs_write_asks_in_the_modal_and_its_line_shows_the_answer(
        fake_provider, tmp_path) -> None:
    from agent_tui.tui.screens.approval import ApprovalScreen
    from tests.tui.test_app import app_for, type_prompt, until

    fake_provider.script(
        Reply(tool_calls=[ToolCall("task", {"description": "Write two files",
                                            "prompt": "Write a.txt and b.txt."})]),
        Reply(tool_calls=[ToolCall("write_file", {"file_path": "a.txt", "content": "A\n"})]),
        Reply(tool_calls=[ToolCall("write_file", {"file_path": "b.txt", "content": "B\n"})]),
        Reply(text="Wrote a.txt; b.txt was refused."),
        Reply(text="done"),
    )
    app = app_for(fake_provider, tmp_path)

    def asking():
        return app.screen if isinstance(app.screen, ApprovalScreen) else None

    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "go")
        await until(pilot, lambda: asking() is not None, 60)
        [block] = app.query(ToolBlock)
        assert [(c.tool_name, c.status) for c in block.lane.calls] == [("write_file", "approval")]
        assert asking().request.call_id.startswith(f"{block.call_id}/")
        await pilot.press("y")
        await until(pilot, lambda: asking() is not None and len(block.lane.calls) == 2, 60)
        await pilot.press("n")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 5, 60)
        assert (tmp_path / "a.txt").read_text() == "A\n" and not (tmp_path / "b.txt").exists()
        assert [c.status for c in block.lane.calls] == ["ok", "denied"]
        assert block.status == "ok" and "1 failed" in str(block.render())
        assert [b.tool_name for b in app.query(ToolBlock)] == ["task"]


async def test_a_resumed_session_draws_the_lane_as_the_live_one_did() -> None:
    from agent_tui.core import events as ev
    from tests.tui.workbench.test_event_view import Panes

    events = [
        ev.UserMessage("review"),
        ev.AssistantMessage("", [{"id": "t1"}]),
        ev.ToolCallStarted("t1", "task", {"description": "Review"}, "task (reviewer): Review"),
        ev.ApprovalDecided("t1", "allow"),
        ev.ToolCallStarted("t1/c1", "read_file", {"file_path": "a.py"}, "read_file a.py",
                           parent_id="t1"),
        ev.ApprovalDecided("t1/c1", "allow", parent_id="t1"),
        ev.ToolResultEvent("t1/c1", "read_file", True, "x = 1", duration=0.5, parent_id="t1"),
        ev.ToolCallStarted("t1/c2", "shell", {"command": "rm x"}, "shell rm x", parent_id="t1"),
        ev.ApprovalDecided("t1/c2", "deny", "plan mode", parent_id="t1"),
        ev.ToolResultEvent("t1/c2", "shell", False, "denied", parent_id="t1"),
        ev.ToolResultEvent("t1", "task", True, "Looks fine.", duration=2.0),
        ev.AssistantMessage("The reviewer says it looks fine."),
    ]

    def lane(app: Panes) -> tuple[list[tuple[str, str, float | None]], str]:
        [block] = app.query(ToolBlock)
        calls = [(c.summary, c.status, c.duration) for c in block.lane.calls]
        return calls, str(block.render())

    live = Panes()
    async with live.run_test(size=SIZE) as pilot:
        for event in events:
            await live.view.show(event)
        await pilot.pause()
        live_lane = lane(live)
    resumed = Panes()
    async with resumed.run_test(size=SIZE) as pilot:
        await resumed.view.restore(events)
        await pilot.pause()
        assert lane(resumed) == live_lane
    assert live_lane[0] == [("read_file a.py", "ok", 0.5), ("shell rm x", "denied", 0.0)]
    assert "2 calls, 1 failed" in live_lane[1]
