"""How an edit matched, its warnings and a suggested stronger model reach every consumer:
the tool_result event, the session log, stream-json, the run's result and headless lines."""

from __future__ import annotations

import io
import json
from pathlib import Path

from agent_tui.core import events as ev
from agent_tui.core.sessions.log import read_events
from agent_tui.core.sessions.start import close_session, open_session
from agent_tui.tui.cli.headless import PROGRESS_LINES, run_headless
from tests.core.loop_helpers import HeadlessRun, run, settings_for
from tests.fakes.providers import Reply, ToolCall


async def test_a_failed_edit_suggests_escalation_in_stream_json_the_log_and_the_result(
        fake_provider, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "a.py"})]),
        Reply(tool_calls=[ToolCall("edit_file", {
            "file_path": "a.py", "old_text": "def g():\n    return 2\n",
            "new_text": "def g():\n    return 3\n"})]),
        Reply(text="I could not find it."),
    )

    settings = settings_for(fake_provider, approval_mode="auto-edit")
    opened = open_session(tmp_path, settings.model)
    out = io.StringIO()
    code = await run_headless(settings, tmp_path, "edit", "stream-json", out, io.StringIO(),
                              session=opened)
    close_session(opened)
    outcome = HeadlessRun(code, [json.loads(line) for line in out.getvalue().splitlines()], "")

    assert outcome.code == 0
    read, edit = outcome.of_type("tool_result")
    assert read["suggest_escalation"] is False and read["edit_tier"] is None
    assert edit["ok"] is False and edit["suggest_escalation"] is True
    assert edit["escalation_reason"]
    assert outcome.result["suggest_escalation"] is True
    assert outcome.result["escalation_reasons"] == [edit["escalation_reason"]]
    logged = [record for record in read_events(outcome.result["session_id"]).events
              if record.get("type") == "tool_result"]
    assert logged[-1]["suggest_escalation"] is True
    assert logged[-1]["escalation_reason"] == edit["escalation_reason"]
    assert (tmp_path / "a.py").read_text() == "def f():\n    return 1\n"


async def test_a_run_without_hints_suggests_nothing(fake_provider, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "a.py"})]),
        Reply(tool_calls=[ToolCall("edit_file", {
            "file_path": "a.py", "old_text": "x = 1", "new_text": "x = 2"})]),
        Reply(text="Done."),
    )

    outcome = await run(fake_provider, tmp_path, approval_mode="auto-edit")

    edit = outcome.of_type("tool_result")[-1]
    assert edit["ok"] is True and edit["edit_tier"] == "exact"
    assert outcome.result["suggest_escalation"] is False
    assert outcome.result["escalation_reasons"] == []


def test_headless_lines_say_how_an_edit_matched_its_warnings_and_escalation() -> None:
    line = PROGRESS_LINES[ev.ToolResultEvent]
    assert line(ev.ToolResultEvent("c1", "edit_file", True, "ok", duration=0.2,
                                   edit_tier="exact")) == "  ✓ edit_file (0.2s)"
    fuzzy = line(ev.ToolResultEvent("c1", "edit_file", True, "ok", duration=0.2,
                                    edit_tier="whitespace",
                                    warnings=["this edit adds a syntax error"]))
    assert fuzzy == ("  ✓ edit_file (0.2s), matched ignoring whitespace\n"
                     "  ! this edit adds a syntax error")
    failed = line(ev.ToolResultEvent("c1", "edit_file", False, "Error: old_text not found",
                                      suggest_escalation=True,
                                      escalation_reason="old_text is not in a.py"))
    assert failed == ("  ✗ edit_file: Error: old_text not found\n"
                      "  ↑ a stronger model may help: old_text is not in a.py")
