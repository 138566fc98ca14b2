"""The skills agent-tui ships: they parse, their rules mean what they say, their scripts work
on real git repositories."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.safety.permission_rules import parse_rules
from agent_tui.core.skills import bundled_skills_folder, read_skill

from .helpers import git

BUNDLED = bundled_skills_folder()
NAMES = ("commit-message", "fix-failing-test", "review-diff")


def _script(skill: str, name: str) -> Path:
    return BUNDLED / skill / "scripts" / name


def _run(script: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run([str(script), *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=30)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with two commits."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / "app.py").write_text("def add(a, b):\n    return a + b\n")
    git(root, "add", "app.py")
    git(root, "commit", "-qm", "feat: add add()")
    (root / "README.md").write_text("# app\n")
    git(root, "add", "README.md")
    git(root, "commit", "-qm", "docs: a README")
    return root


@pytest.mark.parametrize("name", NAMES)
def test_each_bundled_skill_parses_and_names_its_script(name: str):
    problems: list[str] = []
    skill = read_skill(BUNDLED / name / "SKILL.md", "bundled", True, problems)
    assert problems == [] and skill is not None and skill.name == name
    assert 30 <= len(skill.body.splitlines()) <= 80
    assert len(skill.scripts) == 1
    script = skill.scripts[0]
    assert os.access(script, os.X_OK) and script.name in skill.body


@pytest.mark.parametrize("name", ["review-diff", "commit-message"])
def test_the_allowed_git_rules_cover_the_commands_the_skill_runs(name: str):
    problems: list[str] = []
    skill = read_skill(BUNDLED / name / "SKILL.md", "bundled", True, problems)
    rules = parse_rules(skill.allowed_tools)
    for command in ("git diff --cached", "git diff", "git log -10 --format=%s",
                    "git status --short"):
        assert any(rule.tool == "shell" and rule.matches_command(command) for rule in rules)
    assert not any(rule.matches_command("git push --force") for rule in rules)


def test_diff_summary_counts_lines_and_flags_suspicious_added_lines(repo: Path):
    (repo / "app.py").write_text(
        "def add(a, b):\n    print(a)\n    return a + b\n"
        'API_KEY = "sk-abcdefghijklmnopqrstuvwx"\n'
        "<<<<<<< HEAD\n")
    (repo / "ui.js").write_text("debugger;\nconst x = 1; // TODO: remove\n+++ not a header\n")
    git(repo, "add", "app.py", "ui.js")
    (repo / "README.md").write_text("# app\nmore\n")
    (repo / "notes.txt").write_text("untracked\n")

    out = _run(_script("review-diff", "diff-summary"), repo)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "== staged ==" in text and "== unstaged ==" not in text
    assert "+    3 -    0  app.py" in text
    assert "! debug output: app.py:2:" in text
    assert "! possible secret: app.py:4:" in text
    assert "! conflict marker: app.py:5:" in text
    assert "! debug output: ui.js:1:" in text and "! unfinished: ui.js:2:" in text
    assert "+    3 -    0  ui.js" in text and "not a header" not in text
    assert "notes.txt" in text

    everything = _run(_script("review-diff", "diff-summary"), repo, "--all").stdout
    assert "== unstaged ==" in everything and "README.md" in everything


def test_diff_summary_shows_unstaged_changes_when_nothing_is_staged(repo: Path):
    (repo / "README.md").write_text("# app\nfine line\n")
    text = _run(_script("review-diff", "diff-summary"), repo).stdout
    assert "== unstaged ==" in text and "no suspicious added lines" in text


def test_diff_summary_outside_a_repository_says_so(tmp_path: Path):
    out = _run(_script("review-diff", "diff-summary"), tmp_path)
    assert out.returncode != 0 and "git rev-parse" in out.stderr


def test_staged_context_prints_stat_subjects_and_the_diff_cut_at_400_lines(repo: Path):
    (repo / "big.txt").write_text("".join(f"line {i}\n" for i in range(600)))
    git(repo, "add", "big.txt")
    out = _run(_script("commit-message", "staged-context"), repo)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "big.txt | 600" in text
    assert "docs: a README\nfeat: add add()" in text
    diff = text.split("== staged diff (first 400 lines) ==\n", 1)[1]
    assert "line 390" in diff and "line 500" not in diff
    assert "more lines: git diff --cached -- PATH" in diff


def test_staged_context_with_nothing_staged_shows_the_status(repo: Path):
    (repo / "README.md").write_text("changed\n")
    out = _run(_script("commit-message", "staged-context"), repo)
    assert out.returncode == 0 and "Nothing is staged" in out.stdout
    assert "M README.md" in out.stdout


def test_staged_context_in_a_repository_without_commits(tmp_path: Path):
    git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("a\n")
    git(tmp_path, "add", "a.txt")
    out = _run(_script("commit-message", "staged-context"), tmp_path)
    assert out.returncode == 0, out.stderr
    assert "(no commits yet)" in out.stdout and "+a" in out.stdout


PROJECTS = [
    ({"pyproject.toml": "[tool.pytest.ini_options]\n"}, "python3 -m pytest -q"),
    ({"setup.py": "", "tests/test_x.py": ""}, "python3 -m pytest -q"),
    ({"setup.py": ""}, "python3 -m unittest discover -q"),
    ({"package.json": json.dumps({"scripts": {"test": "jest"}})}, "npm test"),
    ({"package.json": json.dumps({"scripts": {"test": "jest"}}), "yarn.lock": ""}, "yarn test"),
    ({"package.json": json.dumps({"scripts": {"test": "x"}}), "pnpm-lock.yaml": ""},
     "pnpm test"),
    ({"Cargo.toml": "[package]\n"}, "cargo test"),
    ({"go.mod": "module x\n"}, "go test ./..."),
    ({"Makefile": "build:\n\ttrue\ntest:\n\ttrue\n"}, "make test"),
    ({"pom.xml": "<project/>"}, "mvn -q test"),
    ({"gradlew": "", "build.gradle": ""}, "./gradlew test"),
    ({"build.gradle.kts": ""}, "gradle test"),
]


@pytest.mark.parametrize(("files", "command"), PROJECTS, ids=[c for _, c in PROJECTS])
def test_find_test_command_detects_the_project_kind(tmp_path: Path, files: dict[str, str],
                                                    command: str):
    git(tmp_path, "init", "-q")
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "sub").mkdir()
    out = _run(_script("fix-failing-test", "find-test-command"), tmp_path / "sub")
    assert out.returncode == 0, out.stderr
    assert out.stdout == f"{command}\n" and out.stderr.startswith("# ")


def test_find_test_command_without_a_known_setup_says_where_to_look(tmp_path: Path):
    git(tmp_path, "init", "-q")
    (tmp_path / "Makefile").write_text("build:\n\ttrue\n")
    out = _run(_script("fix-failing-test", "find-test-command"), tmp_path)
    assert out.returncode == 1 and out.stdout == ""
    assert "no known test setup" in out.stderr and "README" in out.stderr
