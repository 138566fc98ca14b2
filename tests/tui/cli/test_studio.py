"""``agent-tui studio``: real git repositories and worktrees, the real command, the agent
answering through litellm and HTTP from the fake provider."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.providers import Reply, ToolCall


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True,
                          text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    folder = tmp_path / "repo"
    folder.mkdir()
    git(folder, "init", "-q", "-b", "main")
    git(folder, "config", "user.email", "dev@example.com")
    git(folder, "config", "user.name", "Dev")
    (folder / "app.py").write_text("print('v1')\n")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "first")
    return folder


def studio(repo: Path, tmp_path: Path, *args: str, fake=None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if not k.endswith("_API_KEY") and not k.startswith("AGENT_TUI_")}
    env["AGENT_TUI_HOME"] = str(tmp_path / ".home")
    flags = ["--model", "openai/fake-model", "--api-base", fake.openai_base, "--api-key",
             "sk-test", "--approval-mode", "yolo"] if fake is not None else []
    return subprocess.run([sys.executable, "-m", "agent_tui.tui.cli.main", "studio", *args, *flags],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=120)


def write_call(path: str, content: str) -> Reply:
    return Reply(tool_calls=[ToolCall("write_file", {"file_path": path, "content": content})])


def test_exec_works_in_a_worktree_and_accept_merges_it(fake_provider, repo, tmp_path):
    fake_provider.script(write_call("feature.py", "def feature():\n    return 1\n"),
                         Reply(text="Added feature.py."))
    done = studio(repo, tmp_path, "exec", "add a feature", "--name", "feat",
                  fake=fake_provider)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Added feature.py.\n"
    assert "feat done: 1 file changed" in done.stderr, done.stderr[-600:]
    assert not (repo / "feature.py").exists()  # the checkout is untouched
    status = json.loads(studio(repo, tmp_path, "status", "feat", "--json").stdout)
    assert status["state"] == "done" and status["model_calls"] == 2 and status["session_id"]
    assert status["changes"] == [{"status": "A", "path": "feature.py"}]
    worktree = Path(status["worktree"])
    assert (worktree / "feature.py").exists() and not worktree.is_relative_to(repo)
    assert "agent-tui/feat" in git(repo, "branch", "--list")

    accepted = studio(repo, tmp_path, "accept", "feat")
    assert accepted.returncode == 0, accepted.stderr
    assert (repo / "feature.py").read_text() == "def feature():\n    return 1\n"
    log = git(repo, "log", "--format=%s")
    assert "agent-tui studio feat: add a feature" in log
    assert git(repo, "status", "--porcelain") == ""
    assert not worktree.exists() and "agent-tui/feat" not in git(repo, "branch", "--list")
    assert "no studio sessions" in studio(repo, tmp_path, "list").stdout


def test_sessions_run_side_by_side_and_list_shows_them(fake_provider, repo, tmp_path):
    fake_provider.script(write_call("a.txt", "a\n"), Reply(text="a done"),
                         write_call("b.txt", "b\n"), Reply(text="b done"))
    assert studio(repo, tmp_path, "exec", "make a", "--name", "one",
                  fake=fake_provider).returncode == 0
    assert studio(repo, tmp_path, "exec", "make b", "--name", "two",
                  fake=fake_provider).returncode == 0
    rows = [json.loads(line) for line in studio(repo, tmp_path, "list", "--json").stdout
            .splitlines()]
    assert [(r["name"], r["state"], [c["path"] for c in r["changes"]]) for r in rows] == [
        ("one", "done", ["a.txt"]), ("two", "done", ["b.txt"])]
    table = studio(repo, tmp_path, "list").stdout
    assert "one" in table and "make b" in table
    assert studio(repo, tmp_path, "accept", "one", "--rebase").returncode == 0
    assert studio(repo, tmp_path, "accept", "two").returncode == 0
    assert (repo / "a.txt").exists() and (repo / "b.txt").exists()


def test_a_conflict_is_left_for_the_person_with_its_files(fake_provider, repo, tmp_path):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "app.py"})]),
        write_call("app.py", "print('agent')\n"), Reply(text="changed"))
    assert studio(repo, tmp_path, "exec", "change app", "--name", "clash",
                  fake=fake_provider).returncode == 0
    (repo / "app.py").write_text("print('person')\n")
    git(repo, "commit", "-qam", "the person's change")
    rebased = studio(repo, tmp_path, "accept", "clash", "--rebase")
    assert rebased.returncode == 1
    assert "does not rebase cleanly; conflicts in:\n  app.py" in rebased.stderr
    merged = studio(repo, tmp_path, "accept", "clash")
    assert merged.returncode == 1
    assert "merging clash left conflicts in:\n  app.py" in merged.stderr
    assert "<<<<<<<" in (repo / "app.py").read_text()  # left for the person to resolve
    git(repo, "merge", "--abort")
    assert studio(repo, tmp_path, "discard", "clash").returncode == 0
    assert "agent-tui/clash" not in git(repo, "branch", "--list")


def test_accept_refuses_a_dirty_checkout(fake_provider, repo, tmp_path):
    fake_provider.script(write_call("n.txt", "n\n"), Reply(text="ok"))
    studio(repo, tmp_path, "exec", "n", "--name", "n1", fake=fake_provider)
    (repo / "app.py").write_text("print('uncommitted')\n")
    refused = studio(repo, tmp_path, "accept", "n1")
    assert refused.returncode == 1
    assert "the project has uncommitted changes; commit or stash them first" in refused.stderr
    assert (repo / "app.py").read_text() == "print('uncommitted')\n"


def test_clear_errors(fake_provider, repo, tmp_path):
    git(repo, "branch", "agent-tui/taken")
    taken = studio(repo, tmp_path, "exec", "x", "--name", "taken", fake=fake_provider)
    assert taken.returncode == 1
    assert "a branch agent-tui/taken exists already" in taken.stderr
    bad = studio(repo, tmp_path, "exec", "x", "--name", "../up", fake=fake_provider)
    assert "cannot name a session" in bad.stderr
    unknown = studio(repo, tmp_path, "status", "nope")
    assert unknown.returncode == 2 and "there is no studio session 'nope'" in unknown.stderr
    plain = tmp_path / "plain"
    plain.mkdir()
    outside = studio(plain, tmp_path, "list")
    assert outside.returncode == 1 and "is not in a git repository" in outside.stderr


def test_a_failed_run_is_marked_failed(fake_provider, repo, tmp_path):
    failed = studio(repo, tmp_path, "exec", "x", "--name", "broken", "--api-base",
                    "http://127.0.0.1:9/v1", "--model", "openai/x", "--api-key", "k")
    assert failed.returncode == 1
    status = json.loads(studio(repo, tmp_path, "status", "broken", "--json").stdout)
    assert status["state"] == "failed" and status["error"]
