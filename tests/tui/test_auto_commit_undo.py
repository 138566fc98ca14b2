"""auto_commit in the workbench: the commit shown as its own step, and /undo taking it back
with the turn's files (real git, the engine against the fake provider)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_tui.core.sessions.start import close_session, open_session
from agent_tui.tui.app import make_app
from agent_tui.tui.widgets.tool_block import ToolBlock
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import Reply, ToolCall
from tests.tui.test_app import SIZE, type_prompt, until
from tests.tui.test_rewind import notices


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout


@pytest.fixture
def workbench(fake_provider, tmp_path):
    """A workbench with auto_commit on, in a git repository with one commit (yolo)."""
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "user.name", "Test Person")
    git(project, "config", "user.email", "person@example.invalid")
    (project / "keep.txt").write_text("keep\n")
    git(project, "add", "keep.txt")
    git(project, "commit", "-q", "-m", "start")
    settings = settings_for(fake_provider, approval_mode="yolo", auto_commit=True)
    app = make_app(settings, project, load_litellm=False,
                   session=open_session(project, settings.model))
    yield app, project
    if app.opened is not None and not app.opened.store.closed:
        close_session(app.opened)


async def commit_a_turn(pilot, fake_provider, project: Path) -> str:
    """A turn that writes a.txt and is auto-committed; returns the commit's id."""
    fake_provider.script(
        Reply(tool_calls=[ToolCall("write_file", {"file_path": "a.txt", "content": "one\n"})]),
        Reply(text="Wrote a."),
        Reply(text="feat: add a.txt\n\nThe first letter."))
    await type_prompt(pilot, "write a")
    # Generous: the session's first turn also starts the model library (slow on a busy machine).
    await until(pilot, lambda: len(fake_provider.requests) == 3 and not pilot.app.busy,
                timeout=90)
    return git(project, "rev-parse", "HEAD").strip()


async def test_the_commit_is_a_step_and_undo_takes_it_back_with_the_files(
        fake_provider, workbench):
    app, project = workbench
    start = git(project, "rev-parse", "HEAD").strip()
    async with app.run_test(size=SIZE) as pilot:
        commit = await commit_a_turn(pilot, fake_provider, project)
        assert commit != start
        assert git(project, "log", "-1", "--format=%s").strip() == "feat: add a.txt"
        await until(pilot, lambda: any(b.summary.startswith("committed ")
                                       for b in app.query(ToolBlock)))
        block = next(b for b in app.query(ToolBlock) if b.summary.startswith("committed "))
        assert block.summary == f"committed {commit[:7]} feat: add a.txt"
        assert "a.txt" in block.output and block.status == "ok"

        await type_prompt(pilot, "/undo")
        await until(pilot, lambda: any("Undid turn 0" in n for n in notices(app)))
        said = next(n for n in notices(app) if "Undid turn 0" in n)
        assert f"Its commit {commit[:7]} is taken back too" in said
        assert not (project / "a.txt").exists()
        assert git(project, "rev-parse", "HEAD").strip() == start
        assert git(project, "status", "--porcelain") == ""  # nothing staged, nothing left

        fake_provider.script(Reply(text="Noted."))
        await type_prompt(pilot, "and now?")
        await until(pilot, lambda: len(fake_provider.requests) == 4 and not app.busy)
        assert any("is taken back too" in str(m.get("content"))
                   for m in fake_provider.requests[3].messages if m.get("role") == "user")


async def test_undo_leaves_the_commit_when_head_moved_on_and_says_why(fake_provider, workbench):
    app, project = workbench
    async with app.run_test(size=SIZE) as pilot:
        commit = await commit_a_turn(pilot, fake_provider, project)
        (project / "mine.txt").write_text("mine\n")
        git(project, "add", "mine.txt")
        git(project, "commit", "-q", "-m", "the person's own commit")

        await type_prompt(pilot, "/undo")
        await until(pilot, lambda: any("Undid turn 0" in n for n in notices(app)))
        said = next(n for n in notices(app) if "Undid turn 0" in n)
        assert f"Its commit {commit[:7]} stays: HEAD is no longer that commit" in said
        assert f"git revert {commit[:7]}" in said
        assert not (project / "a.txt").exists()
        assert git(project, "log", "-1", "--format=%s").strip() == "the person's own commit"
        assert (project / "mine.txt").exists()
