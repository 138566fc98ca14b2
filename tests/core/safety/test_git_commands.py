"""git commands judged as git runs them: every claim is shown with real git in a scratch
repository. Where the judge asks, git really runs the program (or writes the file); where it
allows, git runs and nothing in the project changes."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.safety.permission_rules import RuleSet
from agent_tui.core.safety.permissions import Decision, Verdict, decide_command
from agent_tui.core.safety.workspace import Workspace

PWNED = "pwned"


def git(*args: str, cwd: Path, env: dict[str, str] | None = None) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, **(env or {})})


def bash(command: str, cwd: Path, env: dict[str, str] | None = None) -> None:
    """Run a command line as the shell tool would (its exit status does not matter)."""
    subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, timeout=30,
                   stdin=subprocess.DEVNULL, env={**os.environ, **(env or {})})


def judge(command: str, project: Path, cwd: Path | None = None) -> Decision:
    return decide_command(command, "default", Workspace(project), RuleSet(), cwd or project)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its content; git's own index refresh left out."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name not in ("index", "index.lock")}


def commit(repo: Path) -> None:
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c", cwd=repo)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    git("init", "-q", cwd=root)
    (root / "a.txt").write_text("hello\n")
    git("add", "a.txt", cwd=root)
    commit(root)
    return root


def append_config(repo_git_dir: Path, text: str) -> None:
    with (repo_git_dir / "config").open("a") as handle:
        handle.write(text)


# --------------------------------------------------------------------------- config spellings

FSMONITOR_SPELLINGS = [
    '[core]\n\tfsmonitor = "touch pwned"\n',
    "[core] fsmonitor = touch pwned\n",
    "[core]fsmonitor=touch pwned\n",
    "[Core]\n\tFSMonitor = touch pwned\n",
    "[core]\n\tfsmonitor = touch \\\n pwned\n",
    "[core]\n\tfsmonitor = touch pwned ; a comment\n",
    '[core "x"]\n\tfoo = 1\n[core]\n\tfsmonitor = touch pwned\n',
]


@pytest.mark.parametrize("spelling", FSMONITOR_SPELLINGS)
def test_fsmonitor_in_any_spelling_runs_on_status_and_asks(project: Path, spelling: str) -> None:
    append_config(project / ".git", spelling)
    decision = judge("git status", project)
    assert decision.verdict == Verdict.ASK and "core.fsmonitor" in decision.reason
    bash("git status", project)
    assert (project / PWNED).exists()


@pytest.mark.parametrize("include", ["[include]\n\tpath = extra.cfg\n",
                                     '[includeIf "gitdir:/nowhere/"]\n\tpath = extra.cfg\n',
                                     '[includeIf "gitdir:**"]\n\tpath = extra.cfg\n'])
def test_a_setting_in_an_included_file_asks(project: Path, include: str) -> None:
    (project / ".git" / "extra.cfg").write_text("[core]\n\tfsmonitor = touch pwned\n")
    append_config(project / ".git", include)
    decision = judge("git status", project)
    assert decision.verdict == Verdict.ASK and "extra.cfg" in decision.reason


def test_an_included_file_that_sets_nothing_risky_is_fine(project: Path) -> None:
    (project / ".git" / "extra.cfg").write_text("[user]\n\tname = someone\n")
    append_config(project / ".git", "[include]\n\tpath = extra.cfg\n")
    assert judge("git status", project).verdict == Verdict.ALLOW


def test_the_old_subsection_form_of_a_textconv_driver_runs_on_diff_and_asks(
        project: Path) -> None:
    append_config(project / ".git", "[diff.evil]\n\ttextconv = touch pwned; cat\n")
    (project / ".gitattributes").write_text("*.txt diff=evil\n")
    (project / "a.txt").write_text("changed\n")
    decision = judge("git diff", project)
    assert decision.verdict == Verdict.ASK and "diff.evil.textconv" in decision.reason
    bash("git diff", project)
    assert (project / PWNED).exists()


def test_a_boolean_fsmonitor_runs_nothing_and_is_allowed(project: Path) -> None:
    append_config(project / ".git", "[core]\n\tfsmonitor = false\n")
    append_config(project / ".git", "[pager]\n\tlog = true\n")
    assert judge("git status && git log", project).verdict == Verdict.ALLOW
    before = snapshot(project)
    bash("git status && git log", project)
    assert snapshot(project) == before


def test_a_config_file_git_would_refuse_asks(project: Path) -> None:
    append_config(project / ".git", '[core]\n\tfsmonitor = "touch pwned\n')
    decision = judge("git status", project)
    assert decision.verdict == Verdict.ASK and "cannot read as git does" in decision.reason


def test_a_hook_that_status_runs_asks(project: Path) -> None:
    hook = project / ".git" / "hooks" / "post-index-change"
    hook.write_text(f"#!/bin/sh\ntouch {project / PWNED}\n")
    hook.chmod(0o755)
    (project / "a.txt").touch()
    decision = judge("git status", project)
    assert decision.verdict == Verdict.ASK and "post-index-change" in decision.reason
    os.utime(project / "a.txt", (1, 1))
    bash("git status", project)
    assert (project / PWNED).exists()


def test_the_users_config_file_counts_too(project: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    xdg = tmp_path / "xdg"
    (xdg / "git").mkdir(parents=True)
    (xdg / "git" / "config").write_text("[core]\n\tfsmonitor = touch pwned\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    decision = judge("git status", project)
    assert decision.verdict == Verdict.ASK and str(xdg) in decision.reason
    bash("git status", project)
    assert (project / PWNED).exists()


def test_a_worktree_set_by_the_config_is_read(project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    append_config(project / ".git", f"[core]\n\tworktree = {elsewhere}\n")
    decision = judge("git status", project)
    assert decision.verdict == Verdict.ASK and str(elsewhere) in decision.reason


# --------------------------------------------------------------------------- which repository


@pytest.fixture
def planted(project: Path) -> Path:
    """A bare repository committed into the project as plain files, whose config runs a
    textconv driver on every diff it shows."""
    bare = project / "planted"
    git("init", "-q", "--bare", str(bare), cwd=project)
    git("push", "-q", str(bare), "HEAD:refs/heads/master", cwd=project)
    (bare / "info" / "attributes").write_text("* diff=evil\n")
    append_config(bare, "[diff \"evil\"]\n\ttextconv = touch pwned; cat\n")
    return bare


@pytest.mark.parametrize(("command", "where"), [
    ("git -C planted log -p", "."), ("cd planted && git log -p", "."),
    ("cd planted/refs/heads && git log -p", "."), ("git log -p", "planted/objects"),
    ("git --git-dir=planted log -p", "."), ("git --git-dir planted log -p", "."),
])
def test_a_planted_bare_repository_is_the_one_whose_config_is_checked(
        project: Path, planted: Path, command: str, where: str) -> None:
    cwd = project / where
    decision = judge(command, project, cwd)
    assert decision.verdict == Verdict.ASK and "diff.evil.textconv" in decision.reason
    bash(command, cwd)
    assert list(project.rglob(PWNED))


def test_a_planted_bare_repository_with_a_work_tree_runs_fsmonitor(
        project: Path, planted: Path) -> None:
    append_config(planted, "[core]\n\tbare = false\n\tworktree = ..\n"
                           "\tfsmonitor = touch pwned-fsmonitor\n")
    decision = judge("git -C planted status", project)
    assert decision.verdict == Verdict.ASK and str(planted / "config") in decision.reason
    bash("git -C planted status", project)
    assert list(project.rglob("pwned-fsmonitor"))


def test_a_dot_git_file_pointing_elsewhere_is_followed(project: Path) -> None:
    other = project / "vendor" / "other.git"
    other.parent.mkdir()
    git("init", "-q", "--bare", str(other), cwd=project)
    append_config(other, "[core]\n\tbare = false\n\tfsmonitor = touch pwned\n")
    sub = project / "sub"
    sub.mkdir()
    (sub / ".git").write_text("gitdir: ../vendor/other.git\n")
    decision = judge("git -C sub status", project)
    assert decision.verdict == Verdict.ASK and "core.fsmonitor" in decision.reason
    bash("git -C sub status", project)
    assert (sub / PWNED).exists()


def test_a_worktree_reads_the_config_of_its_common_folder(project: Path) -> None:
    git("worktree", "add", "-q", "wt", cwd=project)
    append_config(project / ".git", "[core]\n\tfsmonitor = touch pwned\n")
    decision = judge("git status", project, project / "wt")
    assert decision.verdict == Verdict.ASK and "core.fsmonitor" in decision.reason
    bash("git status", project / "wt")
    assert (project / "wt" / PWNED).exists()


@pytest.mark.parametrize("command", ['git -C "$D" status', "cd $D && git log",
                                     "git --git-dir=$D log", "git $SUB"])
def test_a_repository_only_known_at_run_time_asks(project: Path, command: str) -> None:
    assert judge(command, project).verdict == Verdict.ASK


@pytest.mark.parametrize("command", ["git -C /tmp log", "git --git-dir=/tmp/x status",
                                     "git --work-tree=/etc status"])
def test_a_repository_outside_the_project_asks(project: Path, command: str) -> None:
    decision = judge(command, project)
    assert decision.verdict == Verdict.ASK and "outside the project" in decision.reason


# --------------------------------------------------------------------------- options


@pytest.mark.parametrize("command", [
    "git grep -O'touch pwned; true' hello", "git grep -nO'touch pwned; true' hello",
    "git grep --open-files-in-pager='touch pwned; true' hello",
    "git grep --open='touch pwned; true' hello", "git grep --op='touch pwned; true' hello",
])
def test_grep_open_in_pager_runs_a_program_in_every_spelling(project: Path,
                                                             command: str) -> None:
    decision = judge(command, project)
    assert decision.verdict == Verdict.ASK and "runs a program" in decision.reason
    bash(command, project)
    assert (project / PWNED).exists()


@pytest.mark.parametrize("command", ["git grep -O hello", "git grep --open hello",
                                     "git grep --open-files-in-pager hello"])
def test_grep_open_in_pager_without_a_value_runs_the_pager(project: Path,
                                                          command: str) -> None:
    assert judge(command, project).verdict == Verdict.ASK
    bash(command, project, env={"GIT_PAGER": "touch pwned; true"})
    assert (project / PWNED).exists()


@pytest.mark.parametrize("command", ["git diff --output=out.txt HEAD",
                                     "git log -p --output out.txt -1",
                                     "git show --output=out.txt"])
def test_output_writes_a_file_and_asks(project: Path, command: str) -> None:
    assert judge(command, project).verdict == Verdict.ASK
    bash(command, project)
    assert (project / "out.txt").exists()


@pytest.mark.parametrize("command", [
    "git log --outp=out.txt", "git diff --ou=out.txt", "git log --bogus", "git status --frob",
    "git log --format --output=out.txt", "git log --help", "git grep --no-such hello",
])
def test_an_option_that_cannot_be_resolved_or_hides_another_asks(project: Path,
                                                                 command: str) -> None:
    assert judge(command, project).verdict == Verdict.ASK


@pytest.mark.parametrize("command", [
    "git blame --contents /etc/hostname a.txt", "git diff --no-index a.txt /etc/hostname",
    "git diff a.txt /etc/hostname", "git diff -O/etc/hostname", "git grep -f /etc/hostname",
    "git -C .. status",
])
def test_reads_outside_the_project_in_option_values_ask(project: Path, command: str) -> None:
    decision = judge(command, project)
    assert decision.verdict == Verdict.ASK and "outside the project" in decision.reason


def test_an_alias_is_not_read_only(project: Path) -> None:
    append_config(project / ".git", "[alias]\n\tst = !touch pwned\n")
    assert judge("git st", project).verdict == Verdict.ASK
    bash("git st", project)
    assert (project / PWNED).exists()


def test_global_options_git_does_not_know_ask(project: Path) -> None:
    for command in ("git --git-di=x status", "git -Cx status", "git -c core.pager=x log",
                    "git --config-env=core.pager=X log", "git --exec-path=/tmp log"):
        assert judge(command, project).verdict == Verdict.ASK, command


# --------------------------------------------------------------------------- git config


@pytest.mark.parametrize("command", [
    "git config --unset-a user.x", "git config --unset-all user.x", "git config --unset user.x",
    "git config --remove-s user", "git config --remove-section user",
    "git config --rename-section user people", "git config --add user.x 2",
    "git config --replace-all user.x 3", "git config user.x 4", "git config set user.x 5",
    "git config unset user.x", "git config --file=other.cfg a.b c",
])
def test_git_config_calls_that_write_ask(project: Path, command: str) -> None:
    git("config", "user.x", "1", cwd=project)
    assert judge(command, project).verdict == Verdict.ASK
    before = snapshot(project)
    bash(command, project)
    if command.split()[2] not in ("set", "unset"):  # git 2.39 has no such subcommands yet
        assert snapshot(project) != before


@pytest.mark.parametrize("command", [
    "git config --get user.x", "git config -l", "git config --list --show-origin",
    "git config --get-regexp user", "git config user.x", "git config --get-all user.x",
    "git config --type=bool --get core.bare",
])
def test_git_config_reads_are_allowed_and_write_nothing(project: Path, command: str) -> None:
    git("config", "user.x", "1", cwd=project)
    assert judge(command, project).verdict == Verdict.ALLOW
    before = snapshot(project)
    bash(command, project)
    assert snapshot(project) == before


def test_git_config_reading_another_file_reads_it(project: Path) -> None:
    decision = judge("git config -f /etc/gitconfig --list", project)
    assert decision.verdict == Verdict.ASK and "outside the project" in decision.reason


# --------------------------------------------------------------------------- allowed


ALLOWED = [
    "git status", "git status -sb", "git status --porcelain=v1 -uno", "git log --oneline -5",
    "git log -p --stat -M50% --since='2 weeks ago'", "git log --graph --decorate --all",
    "git log --format=%H --no-merges", "git log -L1,1:a.txt", "git diff", "git diff --cached",
    "git diff --stat HEAD", "git diff --ext-diff", "git log --textconv -p", "git show HEAD",
    "git show HEAD:a.txt", "git blame a.txt", "git blame -L 1,1 -w a.txt", "git branch -a",
    "git tag -l", "git grep -n hello", "git grep -e hello -- '*.txt'", "git ls-files -z",
    "git rev-parse --show-toplevel", "git describe --always --dirty", "git stash list",
    "git reflog", "git worktree list", "git shortlog -sn HEAD", "git cat-file -p HEAD",
    "git for-each-ref --format='%(refname)'", "git count-objects -v", "git rev-list --count HEAD",
    "git diff --no-index a.txt a.txt", "git --no-pager log -1", "git -C . status",
]


def test_allowed_git_commands_change_nothing_in_the_project(project: Path) -> None:
    for command in ALLOWED:
        assert judge(command, project).verdict == Verdict.ALLOW, command
    copy = project.parent / "copy"
    shutil.copytree(project, copy, symlinks=True)
    (copy / "a.txt").write_text("changed\n")
    before = snapshot(copy)
    for command in ALLOWED:
        bash(command, copy)
    assert snapshot(copy) == before


@pytest.mark.parametrize(("command", "why"), [
    ("git push", "git push is not read-only"), ("git stash", "git stash is not read-only"),
    ("git reflog expire", "git reflog expire is not read-only"),
    ("git branch new", "git branch is not read-only"),
])
def test_commands_that_change_the_repository_ask(project: Path, command: str, why: str) -> None:
    decision = judge(command, project)
    assert decision.verdict == Verdict.ASK and why in decision.reason
