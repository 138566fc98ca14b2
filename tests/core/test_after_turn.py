"""Aider's loop as settings, through the real loop, litellm and the fake provider, in a real
git repository: auto_commit, lint_command and test_command fed back until green."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest

from agent_tui.core import events
from agent_tui.core.changes.auto_commit import ProjectRepo, blob_id
from agent_tui.core.sessions.log import SessionLog
from agent_tui.core.sessions.resume import restore
from agent_tui.tui.cli.headless import run_headless
from tests.core.loop_helpers import run, settings_for
from tests.fakes.providers import Fault, Reply, ToolCall


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with one commit: keep.txt and dirty.txt."""
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "user.name", "Test Person")
    git(project, "config", "user.email", "person@example.invalid")
    (project / "keep.txt").write_text("keep\n")
    (project / "dirty.txt").write_text("committed\n")
    git(project, "add", "keep.txt", "dirty.txt")
    git(project, "commit", "-q", "-m", "start")
    return project


def user_said(request) -> str:
    """Every user message of a recorded request, one after another (the model reads them
    all, whatever else the loop adds after the failure it was sent)."""
    texts = []
    for message in request.messages:
        if message.get("role") == "user":
            content = message.get("content")
            texts += [content] if isinstance(content, str) else [
                block.get("text", "") for block in content or [] if isinstance(block, dict)]
    return "\n".join(texts)


def write(path: str, content: str) -> Reply:
    return Reply(tool_calls=[ToolCall("write_file", {"file_path": path, "content": content})])


COMMIT_MESSAGE = "feat: add a greeting module\n\nAdds a.py, which says hello."


async def test_auto_commit_commits_exactly_the_turns_file_with_the_models_message(
        fake_provider, repo):
    (repo / "dirty.txt").write_text("the person's own change\n")  # changed, not staged
    (repo / "staged.txt").write_text("staged by the person\n")
    git(repo, "add", "staged.txt")
    fake_provider.script(write("a.py", "print('hello')\n"), Reply(text="Wrote a.py."),
                         Reply(text=COMMIT_MESSAGE))

    result = await run(fake_provider, repo, "add a greeting", approval_mode="yolo",
                       auto_commit=True)

    assert result.code == 0, result.stderr
    assert git(repo, "log", "-1", "--format=%B").strip() == COMMIT_MESSAGE
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["a.py"]
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "2"
    # The person's changes stay theirs: dirty.txt unstaged, staged.txt still staged.
    assert git(repo, "diff", "--name-only").split() == ["dirty.txt"]
    assert git(repo, "diff", "--cached", "--name-only").split() == ["staged.txt"]
    [committed] = result.of_type("auto_commit")
    assert committed["files"] == ["a.py"] and committed["left_out"] == []
    assert committed["commit"] == git(repo, "rev-parse", "HEAD").strip()
    # The message was asked for with the turn's diff, apart from the conversation.
    asked = fake_provider.requests[2]
    assert "+print('hello')" in asked.last_user_text() and "add a greeting" in (
        asked.last_user_text())
    assert not asked.tools
    # The commit is reported before the run's result.
    kinds = [e["type"] for e in result.events]
    assert kinds.index("auto_commit") < kinds.index("result")


async def test_a_file_the_person_had_changed_before_the_turn_is_left_out(fake_provider, repo):
    (repo / "dirty.txt").write_text("the person's own change\n")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("write_file", {"file_path": "b.py", "content": "b = 1\n"}),
                          ToolCall("shell", {"command": "echo agent >> dirty.txt"})]),
        Reply(text="Done."), Reply(text="feat: add b"))

    result = await run(fake_provider, repo, approval_mode="yolo", auto_commit=True)

    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["b.py"]
    [committed] = result.of_type("auto_commit")
    assert committed["left_out"] == ["dirty.txt"]
    assert (repo / "dirty.txt").read_text() == "the person's own change\nagent\n"
    assert git(repo, "diff", "--name-only").split() == ["dirty.txt"]


async def test_the_message_falls_back_to_the_files_when_the_model_call_fails(
        fake_provider, repo):
    fake_provider.script(write("a.py", "x = 1\n"), Reply(text="Done."), Fault.unauthorized())

    result = await run(fake_provider, repo, approval_mode="yolo", auto_commit=True)

    assert result.code == 0
    message = git(repo, "log", "-1", "--format=%B")
    assert message.startswith("chore: agent-tui turn 0 changed 1 file") and "- a.py" in message


async def test_auto_commit_outside_a_repository_says_so_and_commits_nothing(
        fake_provider, tmp_path):
    project = tmp_path / "plain"
    project.mkdir()
    fake_provider.script(write("a.py", "x = 1\n"), Reply(text="Done."))

    result = await run(fake_provider, project, approval_mode="yolo", auto_commit=True)

    assert result.code == 0 and (project / "a.py").exists()
    assert any("not in a git repository" in e["message"] for e in result.of_type("error"))
    assert not result.of_type("auto_commit") and len(fake_provider.requests) == 2


async def test_a_turn_that_changed_nothing_commits_nothing(fake_provider, repo):
    fake_provider.script(Reply(text="Nothing to change."))

    result = await run(fake_provider, repo, approval_mode="yolo", auto_commit=True)

    assert not result.of_type("auto_commit")
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "1"


FAILS_ONCE = """\
if [ -e "$MARK" ]; then echo "all clean: $*"; exit 0; fi
touch "$MARK"
echo "a.py:1:1: E999 the greeting is rude"
exit 1
"""


async def test_a_failing_lint_goes_back_to_the_model_until_it_passes(fake_provider, repo,
                                                                    tmp_path):
    script = tmp_path / "lint.sh"
    script.write_text(FAILS_ONCE.replace("$MARK", str(tmp_path / "linted-once")))
    fake_provider.script(write("a.py", "print('go away')\n"), Reply(text="Done."),
                         write("a.py", "print('hello')\n"), Reply(text="Fixed the greeting."))

    result = await run(fake_provider, repo, approval_mode="yolo",
                       lint_command=f"bash {script} {{files}}")

    assert result.code == 0, result.stderr
    told = user_said(fake_provider.requests[2])
    assert "E999 the greeting is rude" in told and f"$ bash {script} a.py" in told
    assert "lint command failed" in told
    assert len(fake_provider.requests) == 4  # green after the fix: the turn ends
    checks = [(e["kind"], e["status"]) for e in result.of_type("check")]
    assert checks == [("lint", "running"), ("lint", "failed"),
                      ("lint", "running"), ("lint", "passed")]
    failed = result.of_type("check")[1]
    assert failed["exit_code"] == 1 and "E999" in failed["output"] and failed["feedback"]
    assert "all clean: a.py" in result.of_type("check")[3]["output"]
    assert result.result["text"] == "Fixed the greeting."


async def test_fix_attempts_bounds_the_loop(fake_provider, repo):
    fake_provider.script(write("a.py", "x = 1\n"), Reply(text="Done."),
                         Reply(text="I tried."), Reply(text="I tried again."),
                         Reply(text="never asked"))

    result = await run(fake_provider, repo, approval_mode="yolo",
                       test_command="echo 'FAILED test_a'; exit 3", fix_attempts=2)

    assert result.code == 0
    assert len(fake_provider.requests) == 4  # the answer and two attempts to fix
    failed = [e for e in result.of_type("check") if e["status"] == "failed"]
    assert [bool(e["feedback"]) for e in failed] == [True, True, False]
    assert all(e["exit_code"] == 3 and e["kind"] == "test" for e in failed)
    assert "this is the last attempt" in user_said(fake_provider.requests[3])
    assert any("test_command still fails (exit 3) after 2 attempt(s)" in e["message"]
               for e in result.of_type("error"))


async def test_tests_run_once_the_lint_passes_and_the_commit_follows_the_fix(
        fake_provider, repo, tmp_path):
    marker = tmp_path / "tested-once"
    fake_provider.script(write("a.py", "x = 1\n"), Reply(text="Done."),
                         write("a.py", "x = 2\n"), Reply(text="Fixed."),
                         Reply(text="fix: set x to 2"))

    result = await run(
        fake_provider, repo, approval_mode="yolo", auto_commit=True,
        lint_command="true {files}",
        test_command=f"[ -e {marker} ] || {{ touch {marker}; echo 'assert x == 2'; exit 1; }}")

    checks = [(e["kind"], e["status"]) for e in result.of_type("check")
              if e["status"] != "running"]
    assert checks == [("lint", "passed"), ("test", "failed"), ("lint", "passed"),
                      ("test", "passed")]
    assert "assert x == 2" in user_said(fake_provider.requests[2])
    assert git(repo, "show", "HEAD:a.py") == "x = 2\n"
    assert git(repo, "log", "-1", "--format=%s").strip() == "fix: set x to 2"


async def test_no_checks_run_when_the_turn_changed_no_file(fake_provider, repo):
    fake_provider.script(Reply(tool_calls=[ToolCall("read_file", {"file_path": "keep.txt"})]),
                         Reply(text="It says keep."))

    result = await run(fake_provider, repo, approval_mode="yolo", lint_command="false")

    assert not result.of_type("check") and len(fake_provider.requests) == 2


def test_a_blob_id_is_gits(repo):
    content = b"some bytes\n"
    (repo / "x.bin").write_bytes(content)
    assert blob_id(content) == git(repo, "hash-object", "x.bin").strip()


def test_the_repository_of_a_sub_folder_commits_by_the_folders_paths(repo):
    sub = repo / "pkg"
    sub.mkdir()
    (sub / "m.py").write_text("m = 1\n")
    found = ProjectRepo.find(sub)
    assert found is not None and found.prefix == "pkg/"
    commit = found.commit(["m.py"], "feat: m\n", "test")
    assert commit is not None
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["pkg/m.py"]
    assert found.commit(["m.py"], "again\n", "test") is None  # nothing new to commit


def test_a_resumed_history_keeps_the_failure_the_model_was_sent():
    told = "The project's lint command failed after your changes (exit 1):\n$ lint\nE1"
    records = [ev.to_dict() for ev in (
        events.UserMessage("write a"),
        events.AssistantMessage("Done.", []),
        events.CheckRan("c1", "lint", "lint", "running"),
        events.CheckRan("c1", "lint", "lint", "failed", 1, "E1", 0.1, told),
        events.AssistantMessage("Fixed.", []),
        events.CheckRan("c2", "lint", "lint", "running"),
        events.CheckRan("c2", "lint", "lint", "passed", 0, "", 0.1),
    )]
    restored = restore(SessionLog("s", {}, records), native_tools=True)
    assert [(m["role"], m["content"]) for m in restored.messages] == [
        ("user", "write a"), ("assistant", "Done."), ("user", told), ("assistant", "Fixed.")]


async def test_a_check_past_check_timeout_is_killed_and_counts_as_failed(fake_provider, repo):
    fake_provider.script(write("a.py", "x = 1\n"), Reply(text="Done."))

    result = await run(fake_provider, repo, approval_mode="yolo", fix_attempts=0,
                       test_command="echo started; sleep 60", check_timeout=0.5)

    [failed] = [e for e in result.of_type("check") if e["status"] == "failed"]
    assert failed["exit_code"] is None and failed["feedback"] == ""
    assert "started" in failed["output"] and "killed after 0.5 s" in failed["output"]
    assert len(fake_provider.requests) == 2 and result.code == 0


async def test_the_text_format_prints_each_run_and_the_commit_on_stderr(fake_provider, repo):
    fake_provider.script(write("a.py", "x = 1\n"), Reply(text="Done."), Reply(text="I tried."),
                         Reply(text="feat: add a"))
    out, err = io.StringIO(), io.StringIO()
    settings = settings_for(fake_provider, approval_mode="yolo", auto_commit=True,
                            fix_attempts=1, lint_command="echo 'E1 bad'; exit 2")

    code = await run_headless(settings, repo, "add a", "text", out, err)

    assert code == 0 and out.getvalue() == "I tried.\n"
    lines = err.getvalue()
    assert "● lint: echo 'E1 bad'; exit 2" in lines
    assert "  ✗ lint failed (exit 2, sent to the model to fix)\n    E1 bad" in lines
    assert "  ✗ lint failed (exit 2)\n" in lines and "still fails" in lines
    commit = git(repo, "rev-parse", "--short=7", "HEAD").strip()
    assert f"● committed {commit} feat: add a" in lines
