"""Reading a batch's tasks file: every bad line is a ``TasksError`` naming the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.modes.batch import (
    COMMAND_TIMEOUT,
    STATUSES,
    Task,
    TasksError,
    read_tasks,
    task_failed,
)


def test_a_number_too_long_to_read_is_a_tasks_error_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text('{"prompt": "ok"}\n{"prompt": "big", "n": ' + "7" * 5000 + "}\n")
    with pytest.raises(TasksError) as raised:
        read_tasks(path, tmp_path)
    message = str(raised.value)
    assert message.startswith(f"{path}:2: not JSON (Exceeds the limit (4300 digits)")
    assert "write one object per line" in message
    assert "set_int_max_str_digits" not in message


def test_a_line_that_is_not_json_is_a_tasks_error_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text('{"prompt": "ok"}\n{"prompt": \n')
    with pytest.raises(TasksError, match=r":2: not JSON \(Expecting value\); write one object"):
        read_tasks(path, tmp_path)


def test_a_graded_task_carries_its_setup_check_and_limits(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text('{"id": "g", "prompt": "fix it", "setup": "make deps", '
                    '"check": "make test", "timeout": 90, "max_cost": 0.5}\n'
                    '{"id": "plain", "prompt": "look"}\n')
    graded, plain = read_tasks(path, tmp_path)
    assert (graded.setup, graded.check, graded.timeout) == ("make deps", "make test", 90.0)
    assert graded.settings == {"max_cost": 0.5} and graded.command_timeout == 90.0
    assert Task.from_dict(graded.to_dict()) == graded
    assert (plain.setup, plain.check, plain.timeout) == (None, None, None)
    assert plain.command_timeout == COMMAND_TIMEOUT


@pytest.mark.parametrize(("line", "message"), [
    ('{"prompt": "p", "check": ""}', ':1: "check" must be a shell command'),
    ('{"prompt": "p", "setup": ["git", "checkout"]}', ':1: "setup" must be a shell command'),
    ('{"prompt": "p", "timeout": 0}', ':1: "timeout" must be a number above 0 (seconds the '
                                      'agent may run), not 0'),
    ('{"prompt": "p", "timeout": true}', ':1: "timeout" must be a number above 0'),
    ('{"prompt": "p", "max_cost": "1$"}', ':1: "max_cost" must be a number above 0 (US '
                                          'dollars the task may spend), not "1$"'),
])
def test_a_bad_graded_key_is_a_tasks_error_naming_the_line(tmp_path: Path, line: str,
                                                            message: str) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(TasksError) as raised:
        read_tasks(path, tmp_path)
    assert str(raised.value).startswith(f"{path}{message}")


def test_a_result_fails_unless_done_and_not_graded_false() -> None:
    assert not task_failed({"status": "done", "passed": None})
    assert not task_failed({"status": "done", "passed": True})
    assert task_failed({"status": "done", "passed": False})
    for status in STATUSES.keys() - {"done"}:
        assert task_failed({"status": status, "passed": True})
