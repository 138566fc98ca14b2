"""The agent loop end to end: litellm over real HTTP to the fake providers."""

from __future__ import annotations

import pytest

from tests.core.loop_helpers import run
from tests.fakes.providers import Fault, Reply, ToolCall


async def test_text_reply_streams_and_ends_with_result(fake_provider, tmp_path):
    fake_provider.script(Reply(text="Hello from the model.", usage=(120, 7)))

    outcome = await run(fake_provider, tmp_path, "say hello")

    assert outcome.code == 0
    kinds = [e["type"] for e in outcome.events]
    assert kinds[0] == "session_start"
    assert kinds[-1] == "result"
    assert "".join(e["text"] for e in outcome.of_type("text_delta")) == "Hello from the model."
    assert outcome.result["text"] == "Hello from the model."
    assert outcome.result["model_calls"] == 1
    assert outcome.result["usage"]["prompt_tokens"] == 120
    assert outcome.result["usage"]["completion_tokens"] == 7
    assert outcome.of_type("context")[-1]["tokens"] == 127
    assert fake_provider.requests[0].last_user_text() == "say hello"


async def test_tool_result_reaches_the_model(fake_provider, tmp_path):
    (tmp_path / "notes.txt").write_text("alpha\nbeta\n")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "notes.txt"})]),
        Reply(text="The file says alpha and beta."),
    )

    outcome = await run(fake_provider, tmp_path)

    assert outcome.code == 0
    results = fake_provider.requests[1].tool_results()
    assert len(results) == 1
    assert "alpha" in results[0]["content"] and "beta" in results[0]["content"]
    call = outcome.of_type("tool_call")[0]
    assert call["name"] == "read_file" and call["args"] == {"file_path": "notes.txt"}
    assert outcome.of_type("tool_result")[0]["ok"] is True
    assert outcome.result["model_calls"] == 2


async def test_parallel_tool_calls_answer_in_order(fake_provider, tmp_path):
    (tmp_path / "a.txt").write_text("content of a\n")
    (tmp_path / "b.txt").write_text("content of b\n")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "a.txt"}),
                          ToolCall("read_file", {"path": "b.txt"})]),
        Reply(text="done"),
    )

    outcome = await run(fake_provider, tmp_path)

    results = fake_provider.requests[1].tool_results()
    assert [r["id"] for r in results] == [c["id"] for c in outcome.of_type("tool_call")]
    assert "content of a" in results[0]["content"]
    assert "content of b" in results[1]["content"]


async def test_anthropic_wire_format(fake_provider, tmp_path):
    (tmp_path / "x.py").write_text("print('x')\n")
    fake_provider.script(
        Reply(text="Reading.", tool_calls=[ToolCall("read_file", {"file_path": "x.py"})]),
        Reply(text="It prints x."),
    )

    outcome = await run(fake_provider, tmp_path, anthropic=True)

    assert outcome.code == 0, outcome.stderr
    assert fake_provider.requests[0].path.endswith("/v1/messages")
    assert "print('x')" in fake_provider.requests[1].tool_results()[0]["content"]
    assert outcome.result["text"] == "It prints x."


@pytest.mark.parametrize(
    ("mode", "tool", "args", "allowed"),
    [
        ("default", "write_file", {"file_path": "new.txt", "content": "hi"}, False),
        ("default", "shell", {"command": "touch made.txt"}, False),
        ("auto-edit", "write_file", {"file_path": "new.txt", "content": "hi"}, True),
        ("auto-edit", "shell", {"command": "touch made.txt"}, False),
        ("plan", "write_file", {"file_path": "new.txt", "content": "hi"}, False),
        ("yolo", "shell", {"command": "touch made.txt"}, True),
    ],
)
async def test_approval_modes_headless(fake_provider, tmp_path, mode, tool, args, allowed):
    fake_provider.script(Reply(tool_calls=[ToolCall(tool, args)]), Reply(text="ok"))

    outcome = await run(fake_provider, tmp_path, approval_mode=mode)

    assert outcome.code == 0
    target = tmp_path / ("new.txt" if tool == "write_file" else "made.txt")
    assert target.exists() is allowed
    approval = outcome.of_type("approval")[0]
    assert approval["decision"] == ("allow" if allowed else "deny")
    told = fake_provider.requests[1].tool_results()[0]["content"]
    if not allowed:
        assert "denied" in told
        hint = "plan mode" if mode == "plan" else "--approval-mode"
        assert hint in told


async def test_edit_outside_project_asks_even_in_auto_edit(fake_provider, tmp_path):
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    fake_provider.script(
        Reply(tool_calls=[ToolCall("write_file", {"file_path": str(outside), "content": "x"})]),
        Reply(text="ok"),
    )

    outcome = await run(fake_provider, tmp_path, approval_mode="auto-edit")

    assert not outside.exists()
    assert outcome.of_type("approval")[0]["decision"] == "deny"


async def test_hard_denied_command_refused_in_yolo(fake_provider, tmp_path):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "echo hi; rm -rf / --no-preserve-root"})]),
        Reply(text="ok"),
    )

    outcome = await run(fake_provider, tmp_path, approval_mode="yolo")

    told = fake_provider.requests[1].tool_results()[0]["content"]
    assert "never runs it" in told
    assert outcome.of_type("approval")[0]["decision"] == "deny"


async def test_shell_output_streams_as_events(fake_provider, tmp_path):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "echo first; echo second"})]),
        Reply(text="ok"),
    )

    outcome = await run(fake_provider, tmp_path, approval_mode="yolo")

    streamed = "".join(e["text"] for e in outcome.of_type("tool_output"))
    assert "first" in streamed and "second" in streamed
    assert "Exit code: 0" in fake_provider.requests[1].tool_results()[0]["content"]


async def test_unknown_tool_is_reported_and_the_loop_goes_on(fake_provider, tmp_path):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("delete_everything", {"now": True})]),
        Reply(text="Sorry, I will use a real tool."),
    )

    outcome = await run(fake_provider, tmp_path)

    assert outcome.code == 0
    told = fake_provider.requests[1].tool_results()[0]["content"]
    assert "no tool named 'delete_everything'" in told
    assert "read_file" in told
    assert outcome.result["text"] == "Sorry, I will use a real tool."


async def test_malformed_arguments_come_back_with_the_schema(fake_provider, tmp_path):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", raw_arguments='{"file_path": ')]),
        Reply(tool_calls=[ToolCall("read_file", {"start_line": 1})]),
        Reply(text="giving up"),
    )

    outcome = await run(fake_provider, tmp_path)

    assert outcome.code == 0
    malformed = fake_provider.requests[1].tool_results()[0]["content"]
    assert "not valid JSON" in malformed and '"file_path"' in malformed
    missing = fake_provider.requests[2].tool_results()[-1]["content"]
    assert "file_path" in missing and "Field required" in missing


async def test_rate_limit_honours_retry_after(fake_provider, tmp_path):
    fake_provider.script(Fault.rate_limit(retry_after=0.3), Reply(text="after the wait"))

    outcome = await run(fake_provider, tmp_path)

    assert outcome.code == 0
    retry = outcome.of_type("retry")[0]
    assert retry["delay"] == pytest.approx(0.3)
    assert len(fake_provider.requests) == 2
    assert outcome.result["text"] == "after the wait"


@pytest.mark.parametrize(
    "fault",
    [Fault.server_error(500, "upstream exploded"), Fault.server_error(503, "overloaded"),
     Fault.cut_stream(text="partial answer ", after_chunks=2)],
    ids=["500", "503", "cut-stream"],
)
async def test_transient_failures_are_retried(fake_provider, tmp_path, fault):
    fake_provider.script(fault, Reply(text="recovered"))

    outcome = await run(fake_provider, tmp_path)

    assert outcome.code == 0, outcome.stderr
    assert len(outcome.of_type("retry")) == 1
    assert outcome.result["text"] == "recovered"


async def test_stalled_stream_hits_the_idle_timeout_and_is_retried(fake_provider, tmp_path):
    fake_provider.script(Fault.stall(seconds=5, text="thinking"), Reply(text="back"))

    outcome = await run(fake_provider, tmp_path, stream_idle_timeout=0.3)

    assert outcome.code == 0
    assert "silent" in outcome.of_type("retry")[0]["reason"]
    assert outcome.result["text"] == "back"


@pytest.mark.parametrize(("status", "message"), [(400, "bad request body"),
                                                 (401, "invalid api key")])
async def test_client_errors_are_not_retried(fake_provider, tmp_path, status, message):
    fake_provider.script(Fault.server_error(status, message), Reply(text="never sent"))

    outcome = await run(fake_provider, tmp_path)

    assert outcome.code == 1
    assert len(fake_provider.requests) == 1
    assert not outcome.of_type("retry")
    assert message in outcome.result["error"]
    assert outcome.result["ok"] is False


async def test_a_provider_that_keeps_failing_gives_up(fake_provider, tmp_path):
    fake_provider.script(*[Fault.server_error(500, "still broken")] * 4)

    outcome = await run(fake_provider, tmp_path, max_retries=3)

    assert outcome.code == 1
    assert len(fake_provider.requests) == 4
    assert len(outcome.of_type("retry")) == 3
    assert "still broken" in outcome.of_type("error")[0]["message"]


async def test_max_turns_stops_the_run(fake_provider, tmp_path):
    (tmp_path / "a.txt").write_text("a")
    fake_provider.script(*[Reply(tool_calls=[ToolCall("read_file", {"file_path": "a.txt"})])] * 3)

    outcome = await run(fake_provider, tmp_path, max_turns=2)

    assert outcome.code == 1
    assert "max_turns" in outcome.result["error"]
    assert outcome.result["model_calls"] == 2
    assert fake_provider.pending == 1


async def test_native_protocol_is_used_for_openai_compatible_servers(fake_provider, tmp_path):
    fake_provider.script(Reply(text="hi"))

    outcome = await run(fake_provider, tmp_path)

    assert outcome.events[0]["tool_protocol"] == "native"
    names = {t["function"]["name"] for t in fake_provider.requests[0].tools}
    assert {"read_file", "write_file", "edit_file", "shell"} <= names


async def test_text_protocol_json_blocks(fake_provider, tmp_path):
    (tmp_path / "a.txt").write_text("needle in a file\n")
    fake_provider.script(
        Reply(text='Let me read it.\n{"tool": "read_file", "args": {"file_path": "a.txt"}}\n'),
        Reply(text="Found the needle."),
    )

    outcome = await run(fake_provider, tmp_path, tool_protocol="text")

    assert outcome.code == 0
    first = fake_provider.requests[0]
    assert not first.tools
    assert "read_file" in first.messages[0]["content"]  # tools described in the prompt
    assert '"tool"' not in "".join(e["text"] for e in outcome.of_type("text_delta"))
    assert outcome.of_type("assistant_message")[0]["text"] == "Let me read it."
    sent_back = fake_provider.requests[1].last_user_text()
    assert "<tool_result" in sent_back and "needle in a file" in sent_back


async def test_text_protocol_gltch_action_tags(fake_provider, tmp_path):
    fake_provider.script(
        Reply(text="[ACTION:write|out.txt|a | b]"),
        Reply(text="[ACTION:run|cat out.txt]"),
        Reply(text="done"),
    )

    outcome = await run(fake_provider, tmp_path, tool_protocol="text", approval_mode="yolo")

    assert outcome.code == 0
    assert (tmp_path / "out.txt").read_text() == "a | b"
    assert "a | b" in fake_provider.requests[2].last_user_text()
    assert [c["name"] for c in outcome.of_type("tool_call")] == ["write_file", "shell"]


async def test_todo_write_is_reported_as_a_todo_event(fake_provider, tmp_path):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("todo_write", {"content": "- [ ] one\n- [x] two\n"})]),
        Reply(text="planned"),
    )

    outcome = await run(fake_provider, tmp_path)

    assert outcome.of_type("todo")[0]["content"] == "- [ ] one\n- [x] two\n"
    assert outcome.of_type("approval")[0]["decision"] == "allow"
