"""g3's duplicate check: a call that repeats the call right before it is not run again."""

from __future__ import annotations

from tests.core.loop_helpers import run
from tests.fakes.providers import Reply, ToolCall


async def test_a_call_repeated_right_after_itself_is_not_run_again(fake_provider, tmp_path):
    log = tmp_path / "runs.log"
    command = f"echo ran >> {log}"
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": command})]),
        Reply(tool_calls=[ToolCall("shell", {"command": command})]),
        Reply(text="done"),
    )

    outcome = await run(fake_provider, tmp_path, approval_mode="yolo")

    assert outcome.code == 0
    assert log.read_text() == "ran\n"  # the second call never ran
    second = fake_provider.requests[2].tool_results()[-1]["content"]
    assert "same as the call just before it" in second
    assert [r["ok"] for r in outcome.of_type("tool_result")] == [True, False]


async def test_text_between_the_calls_or_other_arguments_let_it_run(fake_provider, tmp_path):
    log = tmp_path / "runs.log"
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": f"echo a >> {log}"})]),
        Reply(text="Running it again after my fix.",
              tool_calls=[ToolCall("shell", {"command": f"echo a >> {log}"})]),
        Reply(tool_calls=[ToolCall("shell", {"command": f"echo b >> {log}"})]),
        Reply(text="done"),
    )

    outcome = await run(fake_provider, tmp_path, approval_mode="yolo")

    assert outcome.code == 0
    assert log.read_text() == "a\na\nb\n"


async def test_a_failed_call_may_be_retried_at_once(fake_provider, tmp_path):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "later.txt"})]),
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "later.txt"})]),
        Reply(text="done"),
    )

    await run(fake_provider, tmp_path)

    second = fake_provider.requests[2].tool_results()[-1]["content"]
    assert "same as the call just before it" not in second


async def test_the_same_call_twice_in_one_reply_runs_once(fake_provider, tmp_path):
    (tmp_path / "a.txt").write_text("alpha\n")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "a.txt"}),
                          ToolCall("read_file", {"file_path": "a.txt"})]),
        Reply(text="done"),
    )

    await run(fake_provider, tmp_path)

    first, second = fake_provider.requests[1].tool_results()
    assert "alpha" in first["content"]
    assert "same as the call just before it" in second["content"]
