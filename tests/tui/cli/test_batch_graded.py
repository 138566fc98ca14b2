"""Graded batch tasks: ``setup`` before the agent, ``check`` after it, ``timeout`` and
``max_cost``. Real worker processes, real shell commands and the agent answering through
litellm and HTTP from the fake provider."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.providers import FakeProvider, RecordedRequest, Reply, ToolCall
from tests.tui.cli.test_batch import batch, results, tasks_file


def by_prompt(request: RecordedRequest) -> Reply:
    """``write NAME`` writes NAME.txt; ``sleep`` runs a long command; ``spend`` calls a tool
    at every request, each call a million prompt tokens ($2.50 for openai/gpt-4o)."""
    prompt = request.last_user_text()
    results_seen = len(request.tool_results())
    if prompt == "spend":
        return Reply(tool_calls=[ToolCall("shell", {"command": "true"})],
                     usage=(1_000_000, 10))
    if prompt == "sleep" and results_seen == 0:
        return Reply(tool_calls=[ToolCall("shell", {"command": "sleep 60"})])
    match = re.match(r"write (\S+)", prompt)
    if match and results_seen == 0:
        return Reply(tool_calls=[ToolCall("write_file", {"file_path": f"{match[1]}.txt",
                                                         "content": f"{match[1]}\n"})])
    return Reply(text=f"finished: {prompt}")


@pytest.fixture
def fake():
    with FakeProvider(responder=by_prompt) as provider:
        yield provider


def running(pid: int) -> bool:
    """Whether ``pid`` is alive (a killed process nobody reaped yet is not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def asked(fake: FakeProvider, prompt: str) -> int:
    return sum(r.last_user_text() == prompt for r in fake.requests)


def test_a_failing_setup_is_reported_as_such_and_the_agent_never_runs(fake, tmp_path):
    tasks = tasks_file(tmp_path, {"id": "s", "prompt": "write s",
                                  "setup": "echo preparing; echo no such commit >&2; exit 3",
                                  "check": "true"})
    done = batch(tmp_path, fake, str(tasks))
    assert done.returncode == 1
    result = results(tmp_path)["s"]
    assert result["status"] == "setup_failed" and result["passed"] is None
    assert "the setup command exited 3, so the agent did not run" in result["error"]
    assert "preparing" in result["setup_output"] and "no such commit" in result["setup_output"]
    assert "check_output" not in result and result["wall_time"] >= 0
    assert fake.requests == []
    assert not (tmp_path / "s.txt").exists()


def test_the_check_grades_each_task_after_its_setup_and_agent(fake, tmp_path):
    tasks = tasks_file(
        tmp_path,
        {"id": "good", "prompt": "write good", "setup": "echo ready > good.setup",
         "check": "test -f good.setup && grep -q good good.txt && echo all 3 tests passed"},
        {"id": "bad", "prompt": "write bad",
         "check": "echo 'FAILED test_bad - assert 1 == 2'; exit 1"})
    done = batch(tmp_path, fake, str(tasks), "--workers", "1")
    assert done.returncode == 1, done.stderr  # a task that did not pass fails the batch
    found = results(tmp_path)
    good, bad = found["good"], found["bad"]
    assert good["status"] == "done" and good["passed"] is True
    assert good["check_output"].strip() == "all 3 tests passed"
    assert bad["status"] == "done" and bad["passed"] is False
    assert "FAILED test_bad" in bad["check_output"]
    for result in (good, bad):
        assert result["wall_time"] >= result["duration"] > 0
        assert result["tokens"]["total_tokens"] > 0
        assert {"cache_read_tokens", "cache_write_tokens"} <= set(result["tokens"])


def test_a_check_past_the_timeout_is_killed_and_is_a_check_error(fake, tmp_path):
    pid_file = tmp_path / "check.pid"
    tasks = tasks_file(tmp_path, {"id": "slow", "prompt": "write slow", "timeout": 8,
                                  "check": f"sleep 300 & echo $! > {pid_file}; wait"})
    done = batch(tmp_path, fake, str(tasks))
    assert done.returncode == 1
    result = results(tmp_path)["slow"]
    assert result["status"] == "check_error" and result["passed"] is None
    assert "the check did not finish in 8 s" in result["error"]
    assert "[killed after 8 s: the task's timeout]" in result["check_output"]
    assert result["wall_time"] < 120
    assert not running(int(pid_file.read_text()))  # the check's whole group was killed


def test_a_check_whose_command_does_not_exist_is_a_check_error(fake, tmp_path):
    tasks = tasks_file(tmp_path, {"id": "x", "prompt": "write x",
                                  "check": "no-such-test-runner --all"})
    assert batch(tmp_path, fake, str(tasks)).returncode == 1
    result = results(tmp_path)["x"]
    assert result["status"] == "check_error" and result["passed"] is None
    assert "not found" in result["check_output"]


def test_an_agent_past_its_timeout_is_stopped_and_the_check_still_grades(fake, tmp_path):
    tasks = tasks_file(tmp_path, {"id": "long", "prompt": "sleep", "timeout": 5,
                                  "check": "echo graded anyway"},
                       {"id": "next", "prompt": "write next"})
    done = batch(tmp_path, fake, str(tasks), "--workers", "1")
    assert done.returncode == 1
    found = results(tmp_path)
    result = found["long"]
    assert result["status"] == "timeout"
    assert "stopped after its timeout of 5 s" in result["error"]
    assert result["model_calls"] == 1 and result["tokens"]["total_tokens"] > 0
    assert 5 <= result["duration"] < 60
    assert result["passed"] is True and "graded anyway" in result["check_output"]
    assert found["next"]["status"] == "done"  # the same worker goes on with the next task


def test_an_agent_over_its_budget_stops_before_its_next_model_call(fake, tmp_path):
    tasks = tasks_file(tmp_path, {"id": "pricey", "prompt": "spend", "max_cost": 4,
                                  "model": "openai/gpt-4o"})
    done = batch(tmp_path, fake, str(tasks))
    assert done.returncode == 1
    result = results(tmp_path)["pricey"]
    assert result["status"] == "over_budget"
    assert asked(fake, "spend") == 2 and result["model_calls"] == 2
    assert result["cost"] == pytest.approx(5.0002)  # $2.50 + $0.0001 a call
    assert "stopped after spending $5.0002 (max_cost $4); raise --max-cost" in result["error"]


def test_resume_skips_graded_results_and_retry_failed_reruns_every_failure(fake, tmp_path):
    gate = tmp_path / "gate"
    tasks = tasks_file(
        tmp_path,
        {"id": "ok", "prompt": "write ok", "check": "true"},
        {"id": "unready", "prompt": "write unready", "setup": f"test -f {gate}"},
        {"id": "red", "prompt": "write red", "check": f"test -f {gate}"},
        {"id": "broken", "prompt": "write broken", "check": f"test -f {gate} || exit 127"})
    assert batch(tmp_path, fake, str(tasks), "--workers", "1").returncode == 1
    first = results(tmp_path)
    assert [first[i]["status"] for i in ("ok", "unready", "red", "broken")] == \
        ["done", "setup_failed", "done", "check_error"]
    assert first["red"]["passed"] is False

    again = batch(tmp_path, fake, str(tasks))
    assert again.returncode == 0 and "4 of 4 tasks already have a result" in again.stderr

    gate.write_text("open")
    before = len(fake.requests)
    retried = batch(tmp_path, fake, str(tasks), "--retry-failed", "--workers", "1")
    assert retried.returncode == 0, retried.stderr
    assert "1 of 4 tasks already have a result" in retried.stderr
    assert {r.last_user_text() for r in fake.requests[before:]} == \
        {"write unready", "write red", "write broken"}
    final = results(tmp_path)
    assert all(r["status"] == "done" for r in final.values())
    assert [final[i]["passed"] for i in ("ok", "unready", "red", "broken")] == \
        [True, None, True, True]
    lines = (tmp_path / "tasks.results.jsonl").read_text().splitlines()
    assert len([json.loads(line) for line in lines]) == 7


def test_max_cost_stops_a_headless_run_too(fake, tmp_path):
    env = {k: v for k, v in os.environ.items()
           if not k.endswith("_API_KEY") and not k.startswith("AGENT_TUI_")}
    env["AGENT_TUI_HOME"] = str(tmp_path / ".home")
    run = subprocess.run(
        [sys.executable, "-m", "agent_tui.tui.cli.main", "-p", "spend", "--max-cost", "2",
         "--model", "openai/gpt-4o", "--api-base", fake.openai_base, "--api-key", "sk-test",
         "--approval-mode", "yolo", "--output-format", "json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
    assert run.returncode == 1
    result = json.loads(run.stdout.splitlines()[-1])
    assert result["model_calls"] == 1 and asked(fake, "spend") == 1
    assert result["error"] == ("stopped after spending $2.5001 (max_cost $2); raise "
                               "--max-cost to let the agent go on")
