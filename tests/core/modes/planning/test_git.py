"""What the plan changed, and the commit command, in a real git repository."""

from __future__ import annotations

import subprocess

from agent_tui.core.modes.planning import (
    changed_since,
    commit_command,
    git_root,
    head_commit,
    worktree_state,
)


def git(folder, *args):
    return subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True,
                          check=True).stdout


def repository(folder):
    git(folder, "init", "-q", "-b", "main")
    git(folder, "config", "user.email", "t@example.com")
    git(folder, "config", "user.name", "Tester")
    for name in ("kept.txt", "edited.txt", "gone.txt", "renamed.txt"):
        (folder / name).write_text(f"{name}\n")
    git(folder, "add", ".")
    git(folder, "commit", "-q", "-m", "Start")
    return folder


def test_only_what_changed_after_the_baseline_is_the_plans(tmp_path):
    folder = repository(tmp_path)
    (folder / "wip.txt").write_text("the person's\n")
    (folder / "wip-touched.txt").write_text("the person's\n")
    (folder / "kept.txt").write_text("the person's, staged\n")
    git(folder, "add", "kept.txt")
    baseline = worktree_state(folder)
    assert set(baseline) == {"wip.txt", "wip-touched.txt", "kept.txt"}
    (folder / "wip-touched.txt").write_text("the person's, then the player's\n")
    (folder / "edited.txt").write_text("changed\n")
    (folder / "gone.txt").unlink()
    (folder / "new dir").mkdir()
    (folder / "new dir" / "it's new.txt").write_text("new\n")
    git(folder, "mv", "renamed.txt", "moved.txt")
    changed = changed_since(folder, baseline)
    assert changed == ["edited.txt", "gone.txt", "moved.txt", "new dir/it's new.txt",
                       "renamed.txt", "wip-touched.txt"]
    before = head_commit(folder)
    command = commit_command(folder, changed, "new dir/it's new.txt")
    assert command.startswith("git add -A -- edited.txt gone.txt moved.txt ")
    subprocess.run(command, shell=True, cwd=folder, check=True, capture_output=True)
    assert head_commit(folder) != before
    # The person's work stays theirs: untracked, or staged and not committed.
    assert git(folder, "status", "--porcelain") == "M  kept.txt\n?? wip.txt\n"
    assert git(folder, "log", "-1", "--format=%B") == "new\n\n"


def test_paths_are_relative_to_a_project_inside_the_repository(tmp_path):
    repository(tmp_path)
    project = tmp_path / "sub"
    project.mkdir()
    (project / "a.py").write_text("x\n")
    (tmp_path / "outside.txt").write_text("not the project's\n")
    assert git_root(project) == tmp_path
    assert changed_since(project, {}) == ["a.py"]


def test_outside_git_nothing_is_tracked(tmp_path):
    (tmp_path / "a.py").write_text("x\n")
    assert git_root(tmp_path) is None
    assert worktree_state(tmp_path) == {} and changed_since(tmp_path, {}) == []
    assert head_commit(tmp_path) is None


def test_without_git_installed_the_project_is_outside_git(tmp_path, monkeypatch):
    repository(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert git_root(tmp_path) is None and worktree_state(tmp_path) == {}
