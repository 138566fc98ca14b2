"""Checkpoints of big folders stay bounded: what a project never tracks is left out, a
folder with too many files is said once, and a slow snapshot never holds a turn.

Real files, the real shadow git, and the real loop over litellm to the fake provider.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.agent import Agent
from agent_tui.core.approval import HeadlessApprover
from agent_tui.core.changes import shadow_git
from agent_tui.core.changes.checkpoints import Checkpoints, CheckpointsTooBig
from agent_tui.core.changes.snapshot_scope import SnapshotLimits
from agent_tui.core.events import Checkpoint, ErrorEvent, Event, RunResult
from agent_tui.core.providers.litellm import LitellmProvider
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.registry import ToolRegistry
from tests.core.loop_helpers import run, settings_for
from tests.fakes.providers import FakeProvider, Reply, ToolCall

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="git is not installed",
)


def write(root: Path, rel: str, text: str = "x\n") -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def nested_repository(root: Path) -> None:
    """A repository inside the project whose config git cannot parse."""
    write(root, "nested/code.py", "print('nested')\n")
    subprocess.run(["git", "init", "-q"], cwd=root / "nested", check=True)
    with (root / "nested" / ".git" / "config").open("a") as config:
        config.write("[core\nthis is not a config line\n")


def snapshot_files(cp: Checkpoints, commit: str) -> set[str]:
    """The paths the shadow repository's commit holds."""
    out = subprocess.run(
        ["git", "--git-dir", str(cp.repository), "ls-tree", "-r", "--name-only", "-z", commit],
        capture_output=True,
        check=True,
    ).stdout
    return {os.fsdecode(p) for p in out.split(b"\0") if p}


def test_a_snapshot_holds_what_the_project_tracks_and_nothing_else(tmp_path: Path) -> None:
    root = tmp_path / "project"
    kept = [
        "notes.txt",
        "src/app.py",
        "build/out.txt",
        "small.bin",
        ".gitignore",
        "src/.gitignore",
        "link",
    ]
    for rel in kept[:3]:
        write(root, rel)
    (root / "small.bin").write_bytes(b"\0" * 1000)
    write(root, ".gitignore", "*.log\n")
    write(root, "src/.gitignore", "generated/\n")
    (root / "link").symlink_to("notes.txt")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".git" / "info" / "exclude").write_text("private/\n")
    for rel in [
        "debug.log",
        "src/generated/out.py",
        "private/diary.txt",
        "myenv/pyvenv.cfg",
        "myenv/lib/python3.11/site.py",
        "myenv/bin/python",
        "web/node_modules/pkg/index.js",
        "src/__pycache__/app.cpython-311.pyc",
        ".cache/pip/x",
        ".mypy_cache/3.11/app.json",
        ".pytest_cache/v/x",
        ".tox/py311/x",
    ]:
        write(root, rel)
    nested_repository(root)
    with (root / "huge.iso").open("wb") as huge:
        huge.truncate(3 * 1024 * 1024)  # sparse: costs no disk

    cp = Checkpoints(root, "s1", SnapshotLimits(max_file_bytes=1024 * 1024))
    commit = cp.snapshot(0, "before")
    assert commit is not None
    assert snapshot_files(cp, commit) == set(kept)

    # A file that grows past the limit leaves the snapshots; undoing the turn brings back
    # the content the checkpoint held.
    (root / "small.bin").write_bytes(b"\1" * (2 * 1024 * 1024))
    after = cp.snapshot(0, "after")
    assert after is not None
    assert snapshot_files(cp, after) == set(kept) - {"small.bin"}
    assert cp.restore(0) == ["small.bin"]
    assert (root / "small.bin").read_bytes() == b"\0" * 1000


def test_a_file_too_large_before_a_turn_is_never_removed_by_undoing_it(tmp_path: Path) -> None:
    with (tmp_path / "data.bin").open("wb") as data:
        data.truncate(2 * 1024 * 1024)
    cp = Checkpoints(tmp_path, "s1", SnapshotLimits(max_file_bytes=1024 * 1024))
    cp.snapshot(0, "before")
    (tmp_path / "data.bin").write_bytes(b"made small by the turn\n")
    (tmp_path / "new.txt").write_text("new\n")
    cp.snapshot(0, "after")
    assert cp.changed_paths(0) == ["new.txt"]
    assert cp.restore(0) == ["new.txt"]
    assert (tmp_path / "data.bin").read_bytes() == b"made small by the turn\n"


def test_a_folder_with_too_many_files_is_refused_with_what_to_do(tmp_path: Path) -> None:
    for n in range(12):
        write(tmp_path, f"f{n}.txt")
    for n in range(30):  # left out before counting
        write(tmp_path, f"node_modules/p/{n}.js")
    cp = Checkpoints(tmp_path, "s1", SnapshotLimits(max_files=11))
    with pytest.raises(CheckpointsTooBig) as refused:
        cp.snapshot(0, "before")
    message = str(refused.value)
    assert "Checkpoints are off for this folder: 12 files" in message
    assert "checkpoint_max_files (11)" in message
    assert "Open the project's own folder" in message
    assert Checkpoints(tmp_path, "s1", SnapshotLimits(max_files=12)).snapshot(0, "before")


async def test_a_nested_repository_with_a_bad_config_prints_nothing(
    fake_provider: FakeProvider, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, "a.txt", "alpha\n")
    nested_repository(tmp_path)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "echo hi > b.txt"})]), Reply(text="Done.")
    )
    outcome = await run(fake_provider, tmp_path, approval_mode="yolo")

    assert outcome.code == 0
    assert outcome.of_type("error") == []
    assert outcome.stderr == ""
    marks = outcome.of_type("checkpoint")
    assert [(m["turn"], m["phase"]) for m in marks] == [(0, "before"), (0, "after")]
    cp = Checkpoints(tmp_path, outcome.result["session_id"])
    assert snapshot_files(cp, marks[1]["commit"]) == {"a.txt", "b.txt"}
    assert cp.changed_paths(0) == ["b.txt"]
    screen = capfd.readouterr()
    for said in (screen.out, screen.err):
        assert "embedded" not in said and "bad config" not in said and "hint:" not in said


def agent_in(fake: FakeProvider, workdir: Path, **settings: object) -> tuple[Agent, list[Event]]:
    config = settings_for(fake, approval_mode="yolo", **settings)
    events: list[Event] = []
    agent = Agent(
        LitellmProvider(config),
        ToolRegistry(builtin_tools()),
        config,
        workdir,
        HeadlessApprover("yolo"),
        events.append,
    )
    return agent, events


async def test_a_folder_too_big_is_said_once_and_the_turns_go_on(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    for n in range(20):
        write(tmp_path, f"data/{n}.csv")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "echo one > one.txt"})]),
        Reply(text="Next.", tool_calls=[ToolCall("shell", {"command": "echo two > two.txt"})]),
        Reply(text="Done."),
        Reply(tool_calls=[ToolCall("shell", {"command": "echo three > three.txt"})]),
        Reply(text="Done again."),
    )
    agent, events = agent_in(fake_provider, tmp_path, checkpoint_max_files=10)
    first = await agent.run("write one and two")
    second = await agent.run("write three")

    assert first.ok and second.ok
    assert all((tmp_path / f"{n}.txt").exists() for n in ("one", "two", "three"))
    errors = [e.message for e in events if isinstance(e, ErrorEvent)]
    assert len(errors) == 1, errors
    assert errors[0].startswith("Checkpoints are off for this folder: 20 files")
    assert "raise checkpoint_max_files" in errors[0]
    assert not [e for e in events if isinstance(e, Checkpoint)]
    assert sum(isinstance(e, RunResult) for e in events) == 2


@pytest.fixture
def slow_hashing_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The real git behind a wrapper that makes its first hashing of files take 4 s."""
    real = shadow_git.git_executable()
    assert real is not None
    folder = tmp_path / "slow-git"
    folder.mkdir()
    wrapper = folder / "git"
    wrapper.write_text(
        "#!/bin/sh\n"
        'case " $* " in *" update-index "*--add*)\n'
        f"  [ -e {folder}/slept ] || {{ touch {folder}/slept; sleep 4; }} ;;\n"
        "esac\n"
        f'exec {real} "$@"\n'
    )
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    shadow_git.git_executable.cache_clear()
    yield wrapper
    shadow_git.git_executable.cache_clear()


async def test_a_slow_snapshot_does_not_hold_the_turn(
    fake_provider: FakeProvider, tmp_path: Path, slow_hashing_git: Path
) -> None:
    workdir = tmp_path / "work"
    write(workdir, "a.txt", "alpha\n")
    assert shadow_git.git_executable() == str(slow_hashing_git)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "echo hi > b.txt"})]), Reply(text="Done.")
    )
    agent, events = agent_in(fake_provider, workdir, checkpoint_timeout=1.0)
    result = await agent.run("write b")

    assert result.ok
    assert (workdir / "b.txt").read_text() == "hi\n"
    assert not [e for e in events if isinstance(e, Checkpoint)]
    errors = [e.message for e in events if isinstance(e, ErrorEvent)]
    assert len(errors) == 1, errors
    assert errors[0].startswith("No before-checkpoint of turn 0: hashing the project's files")
    assert "goes on in the background" in errors[0]
    assert "Raise checkpoint_timeout" in errors[0]

    # The hashing went on; a checkpoint that may wait takes it up and works.
    assert agent.checkpoints is not None
    assert agent.checkpoints.turns() == []
    later = Checkpoints(workdir, agent.session_id, SnapshotLimits(timeout=None))
    commit = later.snapshot(1, "before")
    assert commit is not None
    assert snapshot_files(later, commit) == {"a.txt", "b.txt"}
