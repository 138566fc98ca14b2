"""Planning mode, headless: the real ``agent-tui --planning`` in a real git repository, the
planner, the player, the coach and the commit writer answering through litellm and HTTP from
one fake provider (told apart by their system prompts)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.fakes.providers import FakeProvider, RecordedRequest, Reply, ToolCall
from tests.fakes.repo_map import last_message

REFINED = "# answer() returns 2\n\n1. answer.py defines answer(), which returns 2.\n"
MESSAGE = "Add answer(), which returns 2\n\nThe planned requirement: answer.py's answer()."
STAMPED = re.compile(r"^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-(.+)$")


def role_of(request: RecordedRequest) -> str:
    system = str(request.messages[0]["content"])
    for marker, role in (("You are the coach in a coach-player pair", "coach"),
                         ("You are the planner", "planner"),
                         ("You write git commit messages", "committer")):
        if marker in system:
            return role
    return "player"


class Plan:
    """The planner refines; the player writes answer.py; the coach approves ``return 2``
    (never, when stubborn); the commit writer answers with :data:`MESSAGE`."""

    def __init__(self, stubborn: bool = False) -> None:
        self.stubborn = stubborn

    def __call__(self, request: RecordedRequest) -> Reply:
        role = role_of(request)
        last = last_message(request)
        if role == "planner":
            return Reply(text=f"```markdown\n{REFINED}```")
        if role == "committer":
            return Reply(text=MESSAGE)
        if role == "coach":
            if last["role"] == "user":
                return Reply(tool_calls=[ToolCall("read_file", {"file_path": "answer.py"})])
            if "return 2" in request.tool_results()[-1]["content"] and not self.stubborn:
                return Reply(text="IMPLEMENTATION_APPROVED\nanswer() returns 2.")
            return Reply(text="1. answer.py:2: answer() must return 2, not 3.")
        if last["role"] == "user":
            return Reply(tool_calls=[ToolCall("write_file", {
                "file_path": "answer.py", "content": "def answer():\n    return 2\n"})])
        return Reply(text="Wrote answer.py.")


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True,
                          check=True).stdout


def repository(folder: Path) -> Path:
    git(folder, "init", "-q", "-b", "main")
    git(folder, "config", "user.email", "t@example.com")
    git(folder, "config", "user.name", "Tester")
    (folder / "README.md").write_text("project\n")
    (folder / ".gitignore").write_text(".home/\n")  # the test's AGENT_TUI_HOME
    git(folder, "add", "README.md", ".gitignore")
    git(folder, "commit", "-q", "-m", "Start")
    return folder


def run(folder: Path, fake: FakeProvider | None, *args: str,
        mode: str = "yolo") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if not k.endswith("_API_KEY") and not k.startswith("AGENT_TUI_")}
    env["AGENT_TUI_HOME"] = str(folder / ".home")
    model = ["--model", "openai/fake-model", "--api-base", fake.openai_base,
             "--api-key", "sk-test"] if fake is not None else []
    return subprocess.run(
        [sys.executable, "-m", "agent_tui.tui.cli.main", *model, "--approval-mode", mode,
         "--planning", *args], cwd=folder, env=env, capture_output=True, text=True,
        stdin=subprocess.DEVNULL, timeout=120)


def write_requirements(folder: Path) -> Path:
    new = folder / "agent-tui-plan" / "new_requirements.md"
    new.parent.mkdir(exist_ok=True)
    new.write_text("make answer() return 2\n")
    return new


def archived(folder: Path) -> dict[str, str]:
    """The archive's files by their names without the timestamp."""
    found = {}
    for path in (folder / "agent-tui-plan" / "archive").iterdir():
        match = STAMPED.match(path.name)
        assert match, path.name
        found[match.group(1)] = path.read_text()
    return found


def test_a_plan_is_refined_implemented_archived_and_committed(tmp_path):
    folder = repository(tmp_path)
    write_requirements(folder)
    (folder / "notes.txt").write_text("the person's own work in progress\n")
    with FakeProvider(responder=Plan()) as fake:
        done = run(folder, fake, "--yes", "--output-format", "json")
        roles = [role_of(r) for r in fake.requests if r.method == "POST"]
    assert done.returncode == 0, done.stderr
    assert roles[0] == "planner" and roles[-1] == "committer"
    assert {"player", "coach"} <= set(roles)
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["planning"] and result["ok"] and result["approved"]
    assert result["committed"] is True and result["commit"]
    plan = folder / "agent-tui-plan"
    assert not (plan / "current_requirements.md").exists()
    assert not (plan / "new_requirements.md").exists()
    assert not (plan / "refined_requirements.md").exists()
    assert archived(folder) == {"new_requirements.md": "make answer() return 2\n",
                                "current_requirements.md": REFINED,
                                "commit_message.md": MESSAGE + "\n"}
    assert git(folder, "log", "-1", "--format=%B").strip() == MESSAGE
    committed = set(git(folder, "show", "--name-only", "--format=", "HEAD").split())
    assert "answer.py" in committed
    assert {f"agent-tui-plan/archive/{p.name}" for p in (plan / "archive").iterdir()} \
        <= committed
    # The person's own uncommitted work is not swept into the plan's commit.
    assert "notes.txt" not in committed
    assert git(folder, "status", "--porcelain").strip() == "?? notes.txt"


def test_in_default_mode_the_commit_is_refused_and_its_command_shown(tmp_path):
    folder = repository(tmp_path)
    write_requirements(folder)
    with FakeProvider(responder=Plan()) as fake:
        done = run(folder, fake, "--yes", mode="auto-edit")
    assert done.returncode == 0, done.stderr
    assert "The coach approved after 1 round" in done.stdout
    assert "Not committed:" in done.stdout
    command = done.stdout.split("To commit it yourself, run:\n")[1].strip()
    assert command.startswith("git add -A -- ") and "git commit -F agent-tui-plan/archive/" \
        in command
    assert git(folder, "log", "--format=%s") == "Start\n"
    # The printed command works as it is.
    subprocess.run(command, shell=True, cwd=folder, check=True, capture_output=True)
    assert git(folder, "log", "-1", "--format=%s").strip() == MESSAGE.splitlines()[0]


def test_the_commit_refusal_names_what_really_allows_a_commit(tmp_path):
    folder = repository(tmp_path)
    write_requirements(folder)
    with FakeProvider(responder=Plan()) as fake:
        done = run(folder, fake, "--yes", mode="auto-edit")
    assert done.returncode == 0, done.stderr
    refusal = done.stdout.split("Not committed: ")[1].split("\nTo commit it yourself")[0]
    assert "run agent-tui --planning in a terminal" in refusal
    assert "--approval-mode yolo" in refusal
    rules = refusal.split("allow_rules = ")[1].split(" to your config.toml")[0]
    assert rules == '["shell(git add *)", "shell(git commit *)"]'
    assert git(folder, "log", "--format=%s") == "Start\n"
    # The rules it names let the next plan commit in the same mode, unasked.
    (folder / ".home" / "config.toml").write_text(f"allow_rules = {rules}\n")
    write_requirements(folder)
    with FakeProvider(responder=Plan()) as fake:
        again = run(folder, fake, "--yes", mode="auto-edit")
    assert again.returncode == 0, again.stderr
    assert "Not committed" not in again.stdout
    assert git(folder, "log", "-1", "--format=%s").strip() == MESSAGE.splitlines()[0]


def test_without_requirements_a_template_is_written(tmp_path):
    done = run(tmp_path, None)
    assert done.returncode == 0
    template = tmp_path / "agent-tui-plan" / "new_requirements.md"
    assert "Write what you want built below" in template.read_text()
    assert "wrote agent-tui-plan/new_requirements.md. Write your requirements there" in \
        done.stderr
    # Still only the template: nothing to do, and it says so.
    again = run(tmp_path, None)
    assert again.returncode == 2
    assert "has no requirements yet" in again.stderr


def test_without_a_terminal_or_yes_the_refinement_waits(tmp_path):
    folder = repository(tmp_path)
    new = write_requirements(folder)
    with FakeProvider(responder=Plan()) as fake:
        done = run(folder, fake)
        roles = [role_of(r) for r in fake.requests if r.method == "POST"]
    assert done.returncode == 0, done.stderr
    assert roles == ["planner"]
    assert "agent-tui --planning --yes" in done.stdout
    refined = folder / "agent-tui-plan" / "refined_requirements.md"
    assert refined.read_text() == REFINED
    assert new.exists() and not (folder / "answer.py").exists()
    assert not (folder / "agent-tui-plan" / "archive").exists()
    # The person edits the refinement; --yes approves it as edited, without refining again.
    refined.write_text(REFINED + "2. answer.py has no other functions.\n")
    with FakeProvider(responder=Plan()) as fake:
        done = run(folder, fake, "--yes")
        roles = [role_of(r) for r in fake.requests if r.method == "POST"]
        first_player = next(r for r in fake.requests if r.method == "POST"
                            and role_of(r) == "player")
    assert done.returncode == 0, done.stderr
    assert "planner" not in roles
    assert "2. answer.py has no other functions." in str(first_player.messages[-1]["content"])


def test_a_coach_that_never_approves_keeps_the_plan_to_resume(tmp_path):
    folder = repository(tmp_path)
    write_requirements(folder)
    with FakeProvider(responder=Plan(stubborn=True)) as fake:
        done = run(folder, fake, "--yes", "--max-turns", "2")
    assert done.returncode == 1
    assert "The coach did not approve after 2 rounds." in done.stdout
    assert "must return 2, not 3" in done.stdout
    current = folder / "agent-tui-plan" / "current_requirements.md"
    assert current.read_text() == REFINED
    assert git(folder, "log", "--format=%s") == "Start\n"
    # The next run resumes it: no refinement, and done this time.
    with FakeProvider(responder=Plan()) as fake:
        again = run(folder, fake)
        roles = [role_of(r) for r in fake.requests if r.method == "POST"]
    assert again.returncode == 0, again.stderr
    assert "resuming the unfinished plan" in again.stderr
    assert "planner" not in roles
    assert not current.exists()
    assert git(folder, "log", "-1", "--format=%s").strip() == MESSAGE.splitlines()[0]


def test_usage_errors(tmp_path):
    for args, said in ((["-p", "x"], "leave out -p"), (["--preview"], "do not go with")):
        done = run(tmp_path, None, *args)
        assert done.returncode == 2 and said in done.stderr


def test_on_a_terminal_the_person_edits_approves_and_allows_the_commit(tmp_path):
    """The refinement is shown; ``e`` opens $EDITOR on it, ``a`` approves it as edited; the
    player's edit and the commit, which default mode does not allow on their own, are asked
    on the terminal."""
    import pty
    import threading

    folder = repository(tmp_path)
    write_requirements(folder)
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nprintf "2. answer.py has a docstring.\\n" >> "$1"\n')
    editor.chmod(0o755)
    master, slave = pty.openpty()
    os.write(master, b"e\na\ny\ny\n")  # typed ahead: the terminal hands them over line by line
    env = {k: v for k, v in os.environ.items()
           if not k.endswith("_API_KEY") and not k.startswith("AGENT_TUI_")}
    env.update(AGENT_TUI_HOME=str(folder / ".home"), EDITOR=str(editor), VISUAL="")
    shown = bytearray()

    def drain() -> None:
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                return
            if not chunk:
                return
            shown.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    with FakeProvider(responder=Plan()) as fake:
        process = subprocess.run(
            [sys.executable, "-m", "agent_tui.tui.cli.main", "--model", "openai/fake-model",
             "--api-base", fake.openai_base, "--api-key", "sk-test", "--approval-mode",
             "default", "--planning"], cwd=folder, env=env, stdin=slave, stderr=slave,
            stdout=subprocess.PIPE, text=True, timeout=120)
        player = next(r for r in fake.requests if r.method == "POST" and role_of(r) == "player")
    os.close(slave)
    reader.join(timeout=5)
    os.close(master)
    terminal = shown.decode(errors="replace")
    assert process.returncode == 0, terminal
    assert "[a]pprove / [e]dit in $EDITOR / [q]uit?" in terminal
    assert "+++ b/answer.py" in terminal and "+    return 2" in terminal  # the edit's diff
    assert terminal.count("Allow it? [y/N]") == 2 and "needs your approval" in terminal
    assert "2. answer.py has a docstring." in str(player.messages[-1]["content"])
    assert git(folder, "log", "-1", "--format=%s").strip() == MESSAGE.splitlines()[0]
    assert "Committed " in process.stdout
