"""``agent-tui batch``: real worker processes, real files and git, the agent answering
through litellm and HTTP from the fake provider (one reply per request, by the task's
prompt, so tasks on two workers may interleave freely)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.providers import FakeProvider, RecordedRequest, Reply, ToolCall


def by_prompt(request: RecordedRequest) -> Reply:
    """``write NAME`` writes NAME.txt then answers; ``die`` kills its worker; ``fail`` has
    its command fail."""
    prompt = request.last_user_text()
    results = len(request.tool_results())
    if prompt == "die" and results == 0:
        return Reply(tool_calls=[ToolCall("shell", {"command": "kill -9 $PPID"})])
    match = re.match(r"write (\S+)", prompt)
    if match and results == 0:
        return Reply(tool_calls=[ToolCall("write_file", {"file_path": f"{match[1]}.txt",
                                                         "content": f"{match[1]}\n"})])
    return Reply(text=f"finished: {prompt}")


@pytest.fixture
def fake():
    with FakeProvider(responder=by_prompt) as provider:
        yield provider


def batch(folder: Path, fake: FakeProvider, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if not k.endswith("_API_KEY") and not k.startswith("AGENT_TUI_")}
    env["AGENT_TUI_HOME"] = str(folder / ".home")
    return subprocess.run(
        [sys.executable, "-m", "agent_tui.tui.cli.main", "batch", *args, "--model",
         "openai/fake-model", "--api-base", fake.openai_base, "--api-key", "sk-test",
         "--approval-mode", "yolo"], cwd=folder, env=env, capture_output=True, text=True,
        timeout=180)


def tasks_file(folder: Path, *tasks: dict) -> Path:
    path = folder / "tasks.jsonl"
    path.write_text("".join(json.dumps(task) + "\n" for task in tasks))
    return path


def results(folder: Path) -> dict[str, dict]:
    found = {}
    for line in (folder / "tasks.results.jsonl").read_text().splitlines():
        try:
            result = json.loads(line)
        except ValueError:
            continue  # a line torn by a crash
        found[result["id"]] = result
    return found


def test_tasks_run_on_two_workers_and_each_gets_a_result(fake, tmp_path):
    tasks = tasks_file(tmp_path, *({"id": f"t{n}", "prompt": f"write t{n}"}
                                   for n in range(1, 6)))
    done = batch(tmp_path, fake, str(tasks), "--workers", "2")
    assert done.returncode == 0, done.stderr
    found = results(tmp_path)
    assert sorted(found) == ["t1", "t2", "t3", "t4", "t5"]
    for name, result in found.items():
        assert result["status"] == "done"
        assert result["answer"] == f"finished: write {name}"
        assert result["model_calls"] == 2 and result["tokens"]["total_tokens"] > 0
        assert result["changed_files"] == [f"{name}.txt"] and result["session_id"]
        assert (tmp_path / f"{name}.txt").read_text() == f"{name}\n"
    assert len({r["worker_pid"] for r in found.values()}) == 2  # litellm imported twice
    assert "[5/5]" in done.stderr and "5 done, 0 failed" in done.stderr


def test_a_second_run_goes_on_where_the_first_stopped(fake, tmp_path):
    tasks = tasks_file(tmp_path, {"id": "a", "prompt": "write a"},
                       {"id": "b", "prompt": "write b"})
    assert batch(tmp_path, fake, str(tasks), "--workers", "1").returncode == 0
    asked = len(fake.requests)
    with (tmp_path / "tasks.results.jsonl").open("a") as handle:
        handle.write('{"id": "c", "stat')  # a line torn by a crash
    tasks_file(tmp_path, {"id": "a", "prompt": "write a"}, {"id": "b", "prompt": "write b"},
               {"id": "c", "prompt": "write c"})
    again = batch(tmp_path, fake, str(tasks))
    assert again.returncode == 0, again.stderr
    assert "2 of 3 tasks already have a result" in again.stderr
    assert all(r.last_user_text() == "write c" for r in fake.requests[asked:])
    assert sorted(results(tmp_path)) == ["a", "b", "c"]


def test_a_worker_that_dies_fails_its_task_and_the_batch_goes_on(fake, tmp_path):
    tasks = tasks_file(tmp_path, {"id": "doomed", "prompt": "die"},
                       {"id": "after", "prompt": "write after"})
    done = batch(tmp_path, fake, str(tasks), "--workers", "1")
    assert done.returncode == 1
    found = results(tmp_path)
    assert found["doomed"]["status"] == "failed"
    assert "the worker died (killed by signal 9)" in found["doomed"]["error"]
    assert found["after"]["status"] == "done"
    assert (tmp_path / "after.txt").exists()
    retried = batch(tmp_path, fake, str(tasks), "--retry-failed")
    assert "1 of 2 tasks already have a result" in retried.stderr


def test_a_worktree_task_leaves_its_work_on_a_branch(fake, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    for args in (["init", "-q", "-b", "main"], ["config", "user.email", "d@example.com"],
                 ["config", "user.name", "D"], ["commit", "-q", "--allow-empty", "-m", "0"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    tasks = tasks_file(tmp_path, {"id": "wt", "prompt": "write wt", "folder": "repo",
                                  "worktree": True})
    done = batch(tmp_path, fake, str(tasks))
    assert done.returncode == 0, done.stderr
    result = results(tmp_path)["wt"]
    assert result["branch"] == "agent-tui/batch-wt" and result["changed_files"] == ["wt.txt"]
    assert not (repo / "wt.txt").exists()
    assert (Path(result["worktree"]) / "wt.txt").exists()
    env = {**os.environ, "AGENT_TUI_HOME": str(tmp_path / ".home")}
    listed = subprocess.run([sys.executable, "-m", "agent_tui.tui.cli.main", "studio", "list",
                             "--json"], cwd=repo, env=env, capture_output=True, text=True)
    assert json.loads(listed.stdout)["name"] == "batch-wt"


def test_a_broken_tasks_file_is_a_usage_error_naming_the_line(fake, tmp_path):
    path = tmp_path / "tasks.jsonl"
    path.write_text('{"id": "ok", "prompt": "write ok"}\n{"id": "x", "promt": "typo"}\n')
    done = batch(tmp_path, fake, str(path))
    assert done.returncode == 2
    assert f"{path}:2: unknown key promt" in done.stderr
    assert fake.requests == []
