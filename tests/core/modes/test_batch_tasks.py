"""Reading a batch's tasks file: every bad line is a ``TasksError`` naming the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.modes.batch import TasksError, read_tasks


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
