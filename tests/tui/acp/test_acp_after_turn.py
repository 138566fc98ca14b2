"""An ACP client sees each lint or test run as an execute call of its own, and an
auto-commit as a line of the answer."""

from __future__ import annotations

from agent_tui.core import events as ev
from agent_tui.tui.acp.updates import UpdateTranslator


def test_a_check_run_is_an_execute_call_that_ends_with_its_output(tmp_path):
    translator = UpdateTranslator(tmp_path)
    [started] = translator.updates(ev.CheckRan("c1", "lint", "ruff check a.py", "running"))
    assert started.tool_call_id == "c1" and started.title == "lint: ruff check a.py"
    assert started.kind == "execute" and started.status == "in_progress"
    [ended] = translator.updates(ev.CheckRan("c1", "lint", "ruff check a.py", "failed", 1,
                                             "a.py:1:1: E999 rude", 0.2, "fix it"))
    assert ended.tool_call_id == "c1" and ended.status == "failed"
    assert "E999 rude" in ended.content[0].content.text
    [passed] = translator.updates(ev.CheckRan("c2", "test", "pytest", "passed", 0, "", 1.0))
    assert passed.status == "completed" and not passed.content


def test_an_auto_commit_is_a_line_of_the_answer(tmp_path):
    [update] = UpdateTranslator(tmp_path).updates(ev.AutoCommitted(
        3, "abcdef1234567890", "feat: add a greeting\n\nWhy.", ["a.py"]))
    assert update.content.text == "\n\n*(committed abcdef1: feat: add a greeting)*\n\n"
