"""Failed tool calls say why in a word (``error_type``) that scripts and hooks act on: in
stream-json from the real ``agent-tui -p``, in the session log, and when old logs are read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.core.events import ToolResultEvent
from agent_tui.core.sessions.replay import event_from_record
from agent_tui.tui.cli.cli_parser import ACD_NOTE
from tests.core.loop_helpers import run
from tests.fakes.providers import FakeProvider, Reply, ToolCall
from tests.tui.cli.test_cli import agent_tui, fake_flags


def _results(stdout: str) -> dict[str, dict[str, Any]]:
    """The ``tool_result`` lines of a stream-json output, by call id."""
    events = [json.loads(line) for line in stdout.splitlines()]
    return {e["id"]: e for e in events if e["type"] == "tool_result"}


def _logged_results(home: Path) -> dict[str, dict[str, Any]]:
    """The ``tool_result`` records of the one session log under ``home``."""
    [log] = home.rglob("events.jsonl")
    records = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    return {r["id"]: r for r in records if r.get("type") == "tool_result"}


def _step(call: ToolCall) -> Reply:
    return Reply(tool_calls=[call])


def test_refusals_and_bad_calls_carry_their_error_type(fake_provider: FakeProvider,
                                                        tmp_path: Path) -> None:
    (tmp_path / "here.txt").write_text("x\n")
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\x02" * 100)
    fake_provider.script(
        _step(ToolCall("read_file", {"file_path": "missing.txt"}, id="c_missing")),
        _step(ToolCall("frobnicate", {}, id="c_unknown")),
        _step(ToolCall("read_file", {"file_path": "here.txt", "bogus": 1}, id="c_bad")),
        _step(ToolCall("shell", {"command": "touch made.txt"}, id="c_denied")),
        _step(ToolCall("web_fetch", {"url": "https://example.com"}, id="c_offline")),
        _step(ToolCall("read_file", {"file_path": "blob.bin"}, id="c_binary")),
        _step(ToolCall("read_file", {"file_path": "here.txt"}, id="c_read")),
        Reply(text="done"),
    )
    done = agent_tui("-p", "q", "--output-format", "stream-json", *fake_flags(fake_provider),
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    expected = {"c_missing": "not_found", "c_unknown": "invalid_arguments",
                "c_bad": "invalid_arguments", "c_denied": "denied", "c_offline": "unavailable",
                "c_binary": "failed"}
    for results in (_results(done.stdout), _logged_results(tmp_path / ".home")):
        assert {i: results[i].get("error_type") for i in expected} == expected
        assert results["c_read"]["ok"] and "error_type" not in results["c_read"]
    assert not (tmp_path / "made.txt").exists()


def test_timeouts_missing_edits_and_repeats_carry_their_error_type(
        fake_provider: FakeProvider, tmp_path: Path) -> None:
    fake_provider.script(
        _step(ToolCall("shell", {"command": "sleep 20", "timeout": 500}, id="c_slow")),
        _step(ToolCall("edit_file", {"file_path": "gone.py", "old_text": "a", "new_text": "b"},
                       id="c_gone")),
        _step(ToolCall("shell", {"command": "echo hi"}, id="c_first")),
        _step(ToolCall("shell", {"command": "echo hi"}, id="c_again")),
        Reply(text="done"),
    )
    done = agent_tui("-p", "q", "--output-format", "stream-json", "--approval-mode", "yolo",
                     *fake_flags(fake_provider), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    expected = {"c_slow": "timeout", "c_gone": "not_found", "c_again": "repeated"}
    for results in (_results(done.stdout), _logged_results(tmp_path / ".home")):
        assert {i: results[i].get("error_type") for i in expected} == expected
        assert "error_type" not in results["c_first"]


def test_a_log_written_before_error_types_still_reads() -> None:
    failed = event_from_record({"type": "tool_result", "id": "c1", "name": "shell",
                                "ok": False, "output": "Error: boom", "duration": 0.1})
    cancelled = event_from_record({"type": "tool_result", "id": "c2", "name": "shell",
                                   "ok": False, "output": "Error: stopped", "cancelled": True})
    passed = event_from_record({"type": "tool_result", "id": "c3", "name": "shell",
                                "ok": True, "output": "hi"})
    assert isinstance(failed, ToolResultEvent) and failed.error_type is None
    assert failed.to_dict()["error_type"] == "failed"
    assert isinstance(cancelled, ToolResultEvent)
    assert cancelled.to_dict()["error_type"] == "cancelled"
    assert isinstance(passed, ToolResultEvent) and "error_type" not in passed.to_dict()
    timed_out = ToolResultEvent("c4", "shell", False, "Error: slow", error_type="timeout")
    assert event_from_record(timed_out.to_dict()) == timed_out


def test_acd_is_accepted_and_says_it_changes_nothing(fake_provider: FakeProvider,
                                                      tmp_path: Path) -> None:
    fake_provider.script(Reply(text="answer"))
    done = agent_tui("-p", "q", "--acd", *fake_flags(fake_provider), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "answer"
    assert done.stderr.splitlines().count(ACD_NOTE) == 1
    helped = agent_tui("--help", cwd=tmp_path)
    assert "--acd" in helped.stdout and "dehydration" in helped.stdout


async def test_a_post_tool_use_hook_reads_the_error_type(fake_provider: FakeProvider,
                                                         tmp_path: Path,
                                                         agent_tui_home: Path) -> None:
    seen = tmp_path / "seen.jsonl"
    hook = tmp_path / "record.sh"
    hook.write_text(f"#!/usr/bin/env bash\ncat >> {seen}; echo >> {seen}\n")
    hook.chmod(0o755)
    (agent_tui_home / "config.toml").write_text(
        f'[[hooks.PostToolUse]]\nmatcher = "read_file"\ncommand = "{hook}"\n')
    (tmp_path / "here.txt").write_text("x\n")
    fake_provider.script(
        _step(ToolCall("read_file", {"file_path": "missing.txt"})),
        _step(ToolCall("read_file", {"file_path": "here.txt"})),
        Reply(text="done"))

    outcome = await run(fake_provider, tmp_path)

    assert outcome.code == 0, outcome.stderr
    missing, found = [json.loads(line)["tool_response"]
                      for line in seen.read_text().splitlines() if line.strip()]
    assert missing["ok"] is False and missing["error_type"] == "not_found"
    assert found["ok"] is True and "error_type" not in found
