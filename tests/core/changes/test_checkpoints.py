"""Checkpoints in the shadow git repository: real git, real files, real shell commands."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core import paths
from agent_tui.core.changes.checkpoints import Checkpoints, FileChange
from agent_tui.core.sessions.log import read_events
from agent_tui.core.sessions.start import close_session, open_session
from agent_tui.tui.cli.headless import run_headless
from tests.core.loop_helpers import HeadlessRun, run, settings_for
from tests.fakes.providers import Reply, ToolCall

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="git is not installed")


def files_of(root: Path) -> dict[str, bytes | str]:
    """Every file under ``root`` except .git: content, or ``-> target`` for a link."""
    found: dict[str, bytes | str] = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            path = Path(folder, name)
            rel = path.relative_to(root).as_posix()
            found[rel] = f"-> {os.readlink(path)}" if path.is_symlink() else path.read_bytes()
    return found


def git(project: Path, *args: str) -> str:
    # No optional locks: the test's own `git status` must not refresh the index it checks.
    return subprocess.run(["git", *args], cwd=project, capture_output=True, text=True,
                          check=True, env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"}).stdout


def git_state(project: Path) -> tuple[str, ...]:
    """What the person's own repository says: status, HEAD, refs, index and its bytes."""
    return (git(project, "status", "--porcelain=v2", "--branch", "--untracked-files=all"),
            git(project, "rev-parse", "HEAD"), git(project, "for-each-ref"),
            git(project, "ls-files", "--stage", "--debug"),
            (project / ".git" / "index").read_bytes().hex(),
            "\n".join(sorted(str(p.relative_to(project)) for p in (project / ".git").rglob("*"))))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hello')\n")
    (root / "src" / "old.py").write_text("gone soon\n")
    (root / "run.sh").write_text("#!/bin/sh\necho run\n")
    (root / "run.sh").chmod(0o755)
    (root / "notes.txt").write_bytes(b"line one\r\nline two\r\n")
    return root


def multi_file_turn(root: Path) -> None:
    """One turn's worth of changes: an edit, a new file, a deletion, a shell command."""
    (root / "src" / "app.py").write_text("print('changed')\n")
    (root / "src" / "new").mkdir()
    (root / "src" / "new" / "made.py").write_text("new file\n")
    (root / "src" / "old.py").unlink()
    subprocess.run("printf 'from the shell\\n' >> notes.txt && chmod -x run.sh", shell=True,
                   cwd=root, check=True)


def test_a_multi_file_turn_is_restored_exactly(project: Path) -> None:
    before = files_of(project)
    modes = {p: stat.S_IMODE(os.stat(project / p).st_mode) for p in before}
    cp = Checkpoints(project, "s1")
    assert cp.available()
    assert cp.snapshot(0, "before")
    multi_file_turn(project)
    cp.snapshot(0, "after")

    assert cp.turns() == [0]
    assert cp.last_undoable() == 0
    restored = cp.restore(0)

    assert restored == ["notes.txt", "run.sh", "src/app.py", "src/new/made.py", "src/old.py"]
    assert files_of(project) == before
    assert {p: stat.S_IMODE(os.stat(project / p).st_mode) for p in before} == modes
    assert not (project / "src" / "new").exists()
    assert cp.undone() == {0}
    assert cp.last_undoable() is None


def test_changes_of_a_turn_and_of_the_session(project: Path) -> None:
    cp = Checkpoints(project, "s1")
    cp.snapshot(0, "before")
    multi_file_turn(project)
    cp.snapshot(0, "after")
    cp.snapshot(1, "before")
    (project / "second.txt").write_text("turn one\n")  # turn 1 still running: no after

    turn0 = {c.path: c for c in cp.changes(0)}
    assert set(turn0) == {"notes.txt", "run.sh", "src/app.py", "src/new/made.py", "src/old.py"}
    assert turn0["src/app.py"] == FileChange("src/app.py", b"print('hello')\n",
                                             b"print('changed')\n", 0o100644, 0o100644)
    assert turn0["src/new/made.py"].before is None
    assert turn0["src/old.py"].after is None
    assert turn0["notes.txt"].after == b"line one\r\nline two\r\nfrom the shell\n"
    assert (turn0["run.sh"].before_mode, turn0["run.sh"].after_mode) == (0o100755, 0o100644)

    assert [c.path for c in cp.changes(1)] == ["second.txt"]
    assert cp.changed_paths(1) == ["second.txt"]
    assert set(cp.changed_paths()) == set(turn0) | {"second.txt"}
    assert cp.changes(7) == []
    assert cp.turns() == [0, 1]


def test_the_session_s_changes_are_what_its_turns_changed(project: Path) -> None:
    """Files changed only outside the turns are left out; those also changed outside them
    after a turn are marked; an undone turn's changes are gone from the list."""
    cp = Checkpoints(project, "s1")
    cp.snapshot(0, "before")
    (project / "src" / "app.py").write_text("print('turn 0')\n")
    (project / "made.txt").write_text("by turn 0\n")
    cp.snapshot(0, "after")
    (project / "by_hand.txt").write_text("the person's\n")  # between the turns
    (project / "src" / "app.py").write_text("print('by hand')\n")
    (project / "run.sh").chmod(0o644)
    cp.snapshot(1, "before")
    (project / "src" / "app.py").write_text("print('turn 1')\n")
    (project / "notes.txt").unlink()
    cp.snapshot(1, "after")
    cp.snapshot(2, "before")
    (project / "undone.txt").write_text("turn 2\n")
    cp.snapshot(2, "after")
    cp.restore(2)
    (project / "made.txt").write_text("by turn 0\nand by hand\n")  # after the turns
    (project / "other.pyc").write_bytes(b"\0another session's")

    found = {c.path: c for c in cp.changes()}
    assert sorted(found) == ["made.txt", "notes.txt", "src/app.py"]
    assert cp.changed_paths() == ["made.txt", "notes.txt", "src/app.py"]
    assert found["src/app.py"] == FileChange("src/app.py", b"print('hello')\n",
                                             b"print('turn 1')\n", 0o100644, 0o100644, True)
    assert (found["made.txt"].before, found["made.txt"].after) == (None, b"by turn 0\n")
    assert found["made.txt"].outside
    assert found["notes.txt"].after is None and not found["notes.txt"].outside


def test_a_rewind_leaves_a_file_only_an_undone_turn_changed_and_does_not_name_it(
        project: Path) -> None:
    """After /undo, the person edits a file only the undone turn had changed; rewinding the
    files further back keeps that edit and does not report the file as restored."""
    cp = Checkpoints(project, "s1")
    cp.snapshot(0, "before")
    (project / "src" / "app.py").write_text("print('turn 0')\n")
    cp.snapshot(0, "after")
    cp.snapshot(1, "before")
    (project / "notes.txt").write_text("turn 1\n")
    cp.snapshot(1, "after")
    assert cp.restore(1) == ["notes.txt"]
    (project / "notes.txt").write_text("the person's own\n")
    assert cp.restore(0) == ["src/app.py"]
    assert (project / "notes.txt").read_text() == "the person's own\n"
    assert (project / "src" / "app.py").read_text() == "print('hello')\n"


def test_a_turn_that_changed_nothing_is_not_listed(project: Path) -> None:
    cp = Checkpoints(project, "s1")
    cp.snapshot(0, "before")
    cp.snapshot(0, "after")
    cp.snapshot(1, "before")
    (project / "x.txt").write_text("x\n")
    cp.snapshot(1, "after")
    assert cp.turns() == [1]
    assert cp.changes(0) == []


def test_undo_twice_goes_back_turn_by_turn(project: Path) -> None:
    cp = Checkpoints(project, "s1")
    start = files_of(project)
    cp.snapshot(0, "before")
    (project / "src" / "app.py").write_text("turn zero\n")
    cp.snapshot(0, "after")
    after_zero = files_of(project)
    cp.snapshot(2, "before")
    (project / "src" / "app.py").write_text("turn two\n")
    (project / "two.txt").write_text("2\n")
    cp.snapshot(2, "after")

    assert cp.restore(cp.last_undoable() or 0) == ["src/app.py", "two.txt"]
    assert files_of(project) == after_zero
    assert cp.last_undoable() == 0
    assert cp.restore(0) == ["src/app.py"]
    assert files_of(project) == start
    assert cp.last_undoable() is None


def test_restore_keeps_files_no_turn_touched(project: Path) -> None:
    cp = Checkpoints(project, "s1")
    cp.snapshot(0, "before")
    (project / "src" / "app.py").write_text("the agent's change\n")
    cp.snapshot(0, "after")
    (project / "notes.txt").write_text("the person's own edit between turns\n")
    assert cp.restore(0) == ["src/app.py"]
    assert (project / "notes.txt").read_text() == "the person's own edit between turns\n"
    assert (project / "src" / "app.py").read_text() == "print('hello')\n"


def test_the_projects_own_git_is_untouched(project: Path) -> None:
    git(project, "init", "-q")
    git(project, "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    git(project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    (project / "src" / "app.py").write_text("uncommitted work\n")
    git(project, "add", "src/app.py")
    (project / "unstaged.txt").write_text("untracked\n")
    state = git_state(project)
    cp = Checkpoints(project, "s1")
    cp.snapshot(0, "before")
    multi_file_turn(project)
    cp.snapshot(0, "after")
    cp.restore(0)
    cp.changes()
    assert git_state(project) == state
    assert paths.data_dir() in cp.repository.parents
    assert not any(".git/" in c.path or c.path == ".git" for c in cp.changes(0))


def test_gitignored_files_are_left_alone(project: Path) -> None:
    (project / ".gitignore").write_text("build/\n*.log\n")
    (project / "build").mkdir()
    (project / "build" / "out.bin").write_bytes(b"\x00old build")
    cp = Checkpoints(project, "s1")
    cp.snapshot(0, "before")
    (project / "build" / "out.bin").write_bytes(b"\x00new build")
    (project / "debug.log").write_text("log line\n")
    (project / "src" / "app.py").write_text("edited\n")
    cp.snapshot(0, "after")

    assert cp.changed_paths(0) == ["src/app.py"]
    assert cp.restore(0) == ["src/app.py"]
    assert (project / "build" / "out.bin").read_bytes() == b"\x00new build"
    assert (project / "debug.log").read_text() == "log line\n"


def test_a_project_that_is_not_a_git_repository(project: Path) -> None:
    assert not (project / ".git").exists()
    cp = Checkpoints(project, "s1")
    cp.snapshot(0, "before")
    multi_file_turn(project)
    cp.snapshot(0, "after")
    cp.restore(0)
    assert not (project / ".git").exists()
    assert (project / "src" / "old.py").read_text() == "gone soon\n"


def test_the_refs_survive_a_new_checkpoints_object(project: Path) -> None:
    before = files_of(project)
    first = Checkpoints(project, "s1")
    first.snapshot(3, "before")
    multi_file_turn(project)
    first.snapshot(3, "after")
    resumed = Checkpoints(project / "src" / "..", "s1")
    assert resumed.repository == first.repository
    assert resumed.turns() == [3]
    assert Checkpoints(project, "another-session").turns() == []
    resumed.restore(3)
    assert files_of(project) == before


def test_symlinks_and_binary_files_come_back(project: Path) -> None:
    (project / "link").symlink_to("src/app.py")
    (project / "blob.bin").write_bytes(bytes(range(256)))
    before = files_of(project)
    cp = Checkpoints(project, "s1")
    cp.snapshot(0, "before")
    (project / "link").unlink()
    (project / "link").symlink_to("/etc/passwd")
    (project / "blob.bin").write_bytes(b"\xff" * 10)
    cp.snapshot(0, "after")
    cp.restore(0)
    assert files_of(project) == before


def test_a_restore_never_writes_through_a_symlinked_folder(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    cp = Checkpoints(project, "s1")
    cp.snapshot(0, "before")
    # The turn swaps the folder src for a link out of the project.
    for name in ("app.py", "old.py"):
        (project / "src" / name).unlink()
    (project / "src").rmdir()
    (project / "src").symlink_to(outside)
    cp.snapshot(0, "after")
    cp.restore(0)
    assert list(outside.iterdir()) == []
    assert (project / "src").is_dir() and not (project / "src").is_symlink()
    assert (project / "src" / "app.py").read_text() == "print('hello')\n"


def test_a_later_session_starts_from_an_earlier_index_and_sees_every_change(
        project: Path) -> None:
    first = Checkpoints(project, "s1")
    first.snapshot(0, "before")
    (project / "src" / "app.py").write_text("changed between the sessions\n")
    (project / "notes.txt").unlink()
    second = Checkpoints(project, "s2")
    second.snapshot(0, "before")
    (project / "src" / "app.py").write_text("changed in the second session\n")
    second.snapshot(0, "after")
    change = second.changes(0)
    assert [(c.path, c.before, c.after) for c in change] == [
        ("src/app.py", b"changed between the sessions\n", b"changed in the second session\n")]
    second.restore(0)
    assert (project / "src" / "app.py").read_text() == "changed between the sessions\n"
    assert not (project / "notes.txt").exists()


def test_inherit_copies_the_turns_before_a_fork(project: Path) -> None:
    source = Checkpoints(project, "s1")
    for turn in (0, 1):
        source.snapshot(turn, "before")
        (project / f"t{turn}.txt").write_text(f"{turn}\n")
        source.snapshot(turn, "after")
    fork = Checkpoints(project, "s2")
    assert fork.inherit("s1", below_turn=1) == 2
    assert fork.turns() == [0]
    assert source.turns() == [0, 1]


def test_a_bad_phase_is_refused(project: Path) -> None:
    with pytest.raises(ValueError, match="phase must be one of"):
        Checkpoints(project, "s1").snapshot(0, "middle")


def test_checkpoints_are_off_in_a_home_folder_or_the_root(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_tui.core.changes.checkpoints import checkpoints_off

    assert checkpoints_off(project) is None
    monkeypatch.setenv("HOME", str(project))
    assert "home folder" in (checkpoints_off(project / "src" / "..") or "")
    assert "Start agent-tui in a project folder" in (checkpoints_off(Path("/")) or "")


def test_without_git_checkpoints_are_off(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_tui.core.changes import checkpoints, shadow_git

    monkeypatch.setenv("PATH", str(project / "no-such-bin"))
    shadow_git.git_executable.cache_clear()
    try:
        cp = Checkpoints(project, "s1")
        assert not cp.available()
        assert cp.snapshot(0, "before") is None
        message = checkpoints.checkpoints_off(project)
        assert message and "git was not found" in message and "Install git" in message
    finally:
        monkeypatch.undo()
        shadow_git.git_executable.cache_clear()


# -- through the agent loop: litellm over HTTP to the fake provider ----------------------


async def run_in_session(fake: Any, workdir: Path, prompt: str = "do the task",
                         resume: str | None = None) -> HeadlessRun:
    """A yolo headless run recorded in a session (a new one, or ``resume``)."""
    out, err = io.StringIO(), io.StringIO()
    opened = open_session(workdir, "openai/fake-model", resume=resume)
    try:
        code = await run_headless(settings_for(fake, approval_mode="yolo"), workdir, prompt,
                                  "stream-json", out, err, session=opened)
    finally:
        close_session(opened)
    return HeadlessRun(code, [json.loads(line) for line in out.getvalue().splitlines()],
                       err.getvalue())


def turn_script() -> list[Reply]:
    """The model reads and edits a.txt, creates b.txt, and a shell command writes c.txt."""
    return [
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "a.txt"})]),
        Reply(tool_calls=[
            ToolCall("edit_file", {"file_path": "a.txt", "old_text": "alpha",
                                   "new_text": "ALPHA"}),
            ToolCall("write_file", {"file_path": "b.txt", "content": "bee\n"}),
            ToolCall("shell", {"command": "echo sea > c.txt"}),
        ]),
        Reply(text="Done."),
    ]


async def test_a_turn_of_the_loop_is_checkpointed_and_undone(fake_provider, tmp_path):
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "a.txt").write_text("alpha\n")
    before = files_of(workdir)
    fake_provider.script(*turn_script())
    outcome = await run_in_session(fake_provider, workdir)

    assert outcome.code == 0
    assert files_of(workdir) == {"a.txt": b"ALPHA\n", "b.txt": b"bee\n", "c.txt": b"sea\n"}
    kinds = [e["type"] for e in outcome.events]
    marks = outcome.of_type("checkpoint")
    assert [(m["turn"], m["phase"]) for m in marks] == [(0, "before"), (0, "after")]
    # The before-snapshot comes after the read (read-only) and ahead of the first change.
    first_edit = next(i for i, e in enumerate(outcome.events)
                      if e["type"] == "tool_result" and e["name"] == "edit_file")
    assert kinds.index("tool_result") < kinds.index("checkpoint") < first_edit
    assert kinds.index("checkpoint", first_edit) < kinds.index("result")

    session_id = outcome.result["session_id"]
    logged = [e for e in read_events(session_id).events if e["type"] == "checkpoint"]
    assert [e["commit"] for e in logged] == [m["commit"] for m in marks]

    cp = Checkpoints(workdir, session_id)
    assert cp.turns() == [0]
    assert cp.changed_paths(0) == ["a.txt", "b.txt", "c.txt"]
    assert cp.restore(0) == ["a.txt", "b.txt", "c.txt"]
    assert files_of(workdir) == before


async def test_a_resumed_session_goes_on_counting_turns(fake_provider, tmp_path):
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "a.txt").write_text("alpha\n")
    fake_provider.script(*turn_script())
    first = await run_in_session(fake_provider, workdir)
    session_id = first.result["session_id"]

    fake_provider.script(Reply(tool_calls=[ToolCall("shell", {"command": "rm b.txt"})]),
                         Reply(text="Removed."))
    second = await run_in_session(fake_provider, workdir, "remove b", resume=session_id)

    assert [(m["turn"], m["phase"]) for m in second.of_type("checkpoint")] == [
        (1, "before"), (1, "after")]
    cp = Checkpoints(workdir, session_id)
    assert cp.turns() == [0, 1]
    assert [c.path for c in cp.changes(1)] == ["b.txt"]
    assert cp.restore(1) == ["b.txt"]
    assert (workdir / "b.txt").read_text() == "bee\n"
    assert cp.last_undoable() == 0


async def test_a_turn_of_reads_only_takes_no_checkpoint(fake_provider, tmp_path):
    (tmp_path / "a.txt").write_text("alpha\n")
    fake_provider.script(Reply(tool_calls=[ToolCall("read_file", {"file_path": "a.txt"})]),
                         Reply(text="It says alpha."))
    outcome = await run(fake_provider, tmp_path, approval_mode="yolo")
    assert outcome.code == 0
    assert outcome.of_type("checkpoint") == []


def test_deleting_a_session_drops_its_checkpoints_and_leaves_a_fork_s(project: Path) -> None:
    from agent_tui.core.sessions.index import SessionIndex
    from agent_tui.core.sessions.log import SessionStore

    SessionStore.create("doomed", project=project, model="openai/m").close()
    SessionStore.create("kept", project=project, model="openai/m").close()
    doomed = Checkpoints(project, "doomed")
    doomed.snapshot(0, "before")
    (project / "new.txt").write_text("new\n")
    doomed.snapshot(0, "after")
    assert Checkpoints(project, "kept").inherit("doomed", 1) == 2

    with SessionIndex() as index:
        index.delete("doomed")

    assert Checkpoints(project, "doomed").turns() == []
    assert not doomed._git.index.exists()
    kept = Checkpoints(project, "kept")
    assert kept.turns() == [0]
    assert [c.path for c in kept.changes(0)] == ["new.txt"]
