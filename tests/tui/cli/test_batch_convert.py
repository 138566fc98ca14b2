"""``agent-tui batch convert swebench``: a SWE-bench-like instance on a real tiny git
repository becomes a graded worktree task, and the batch grades it by the instance's tests
(real git, real pytest, the agent answering from the fake provider)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agent_tui.tui.cli.batch_convert import convert_main
from tests.fakes.providers import FakeProvider, RecordedRequest, Reply, ToolCall
from tests.tui.cli.test_batch import batch, results

BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
TESTS = "from calc import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n"
TEST_PATCH = "".join(line + "\n" for line in (
    "diff --git a/test_calc.py b/test_calc.py",
    "--- a/test_calc.py",
    "+++ b/test_calc.py",
    "@@ -3,3 +3,7 @@ from calc import add",
    " ",  # a context line that is empty
    " def test_zero():",
    "     assert add(0, 0) == 0",
    "+",
    "+",
    "+def test_add():",
    "+    assert add(2, 3) == 5",
))


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()


def calc_repo(repos: Path) -> tuple[Path, str]:
    """acme/calc: its base commit has the bug; a later commit (HEAD) fixed it."""
    repo = repos / "acme__calc"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "d@example.com")
    git(repo, "config", "user.name", "D")
    (repo / "calc.py").write_text(BUGGY)
    (repo / "test_calc.py").write_text(TESTS)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "calc")
    base = git(repo, "rev-parse", "HEAD")
    (repo / "calc.py").write_text(FIXED)
    (repo / "NEWS").write_text("add adds\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "fix add")
    return repo, base


def instance(instance_id: str, base: str, problem: str) -> dict:
    return {"instance_id": instance_id, "repo": "acme/calc", "base_commit": base,
            "problem_statement": problem, "test_patch": TEST_PATCH,
            "FAIL_TO_PASS": json.dumps(["test_calc.py::test_add"]),
            "PASS_TO_PASS": ["test_calc.py::test_zero"], "version": "0.1"}


def fixes_the_bug(request: RecordedRequest) -> Reply:
    """The prompt that says ``fix me`` gets calc.py fixed; any other is only answered."""
    if "fix me" in request.last_user_text() and not request.tool_results():
        return Reply(tool_calls=[ToolCall("shell", {"command":
                                                    "sed -i 's/a - b/a + b/' calc.py"})])
    return Reply(text="done")


def test_a_converted_task_set_runs_graded_by_its_tests_at_its_base_commit(tmp_path):
    repos = tmp_path / "repos"
    repo, base = calc_repo(repos)
    instances = tmp_path / "swe.jsonl"
    instances.write_text("".join(json.dumps(i) + "\n" for i in (
        instance("acme__calc-1", base, "add() subtracts; fix me"),
        instance("acme__calc-2", base, "add() subtracts"))))

    assert convert_main(["swebench", str(instances), "--repos", str(repos),
                         "--timeout", "300"]) == 0
    tasks = tmp_path / "swe.tasks.jsonl"
    lines = [json.loads(line) for line in tasks.read_text().splitlines()]
    assert [t["id"] for t in lines] == ["acme__calc-1", "acme__calc-2"]
    first = lines[0]
    assert first["folder"] == str(repo) and first["worktree"] is True
    assert first["setup"] == f"git reset -q --hard {base}" and first["timeout"] == 300
    assert first["prompt"].endswith("add() subtracts; fix me")
    patch = tmp_path / "swe.tasks.patches" / "acme__calc-1.patch"
    assert patch.read_text() == TEST_PATCH and str(patch) in first["check"]
    assert "test_calc.py::test_add test_calc.py::test_zero" in first["check"]

    with FakeProvider(responder=fixes_the_bug) as fake:
        done = batch(tmp_path, fake, str(tasks), "--workers", "1",
                     "-o", str(tmp_path / "tasks.results.jsonl"))
    assert done.returncode == 1, done.stderr  # the second task did not pass
    found = results(tmp_path)
    fixed, untouched = found["acme__calc-1"], found["acme__calc-2"]
    assert fixed["status"] == untouched["status"] == "done"
    assert fixed["passed"] is True and "2 passed" in fixed["check_output"]
    assert untouched["passed"] is False and "1 failed, 1 passed" in untouched["check_output"]
    # Counted from the base commit the setup moved to, not from the project's HEAD.
    assert fixed["changed_files"] == ["calc.py"] and untouched["changed_files"] == []
    worktree = Path(fixed["worktree"])
    assert (worktree / "calc.py").read_text() == FIXED
    assert (worktree / "test_calc.py").read_text() == TESTS  # the test patch taken out again
    assert git(worktree, "rev-parse", "HEAD") == base
    assert git(repo, "rev-parse", "--abbrev-ref", "HEAD") == "main"
    assert (repo / "NEWS").exists()  # the project's own checkout was left alone


def test_a_repository_without_a_clone_is_named_with_the_command_to_clone_it(tmp_path, capsys):
    instances = tmp_path / "swe.jsonl"
    instances.write_text(json.dumps(instance("x-1", "abc123", "p")) + "\n")
    assert convert_main(["swebench", str(instances), "--repos", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert f"no clone under {tmp_path / 'r'} of acme/calc" in err
    assert f"git clone https://github.com/acme/calc {tmp_path / 'r' / 'acme__calc'}" in err
    assert not (tmp_path / "swe.tasks.jsonl").exists()


@pytest.mark.parametrize(("change", "message"), [
    ({"base_commit": ""}, ':1: "base_commit" must be a non-empty string'),
    ({"repo": "calc"}, ":1: \"repo\" must be owner/name, not 'calc'"),
    ({"FAIL_TO_PASS": [], "PASS_TO_PASS": []}, ':1: no test command: give the instance a '
                                               '"test_cmd"'),
])
def test_a_bad_instance_is_a_usage_error_naming_its_line(tmp_path, capsys, change, message):
    instances = tmp_path / "swe.jsonl"
    instances.write_text(json.dumps({**instance("x-1", "abc", "p"), **change}) + "\n")
    assert convert_main(["swebench", str(instances), "--repos", str(tmp_path)]) == 2
    assert f"{instances}{message}" in capsys.readouterr().err


def test_an_instance_s_own_test_command_is_its_check(tmp_path):
    repos = tmp_path / "repos"
    _repo, base = calc_repo(repos)
    data = {**instance("own", base, "p"), "test_cmd": "make check"}
    del data["test_patch"]
    (tmp_path / "swe.jsonl").write_text(json.dumps([data]))  # one JSON array
    assert convert_main(["swebench", str(tmp_path / "swe.jsonl"), "--repos", str(repos),
                         "-o", str(tmp_path / "out.jsonl"), "--max-cost", "2"]) == 0
    task = json.loads((tmp_path / "out.jsonl").read_text())
    assert task["check"] == "make check" and task["max_cost"] == 2
    assert not (tmp_path / "out.patches").exists()
