"""The plan's commit is a tool call like the model's: the hooks see it and the turn's
checkpoints cover it. A real agent (litellm over HTTP to the fake provider), a real git
repository, a real hook process configured in the user's config.toml."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from agent_tui.core.agent import Agent
from agent_tui.core.approval import HeadlessApprover
from agent_tui.core.events import Checkpoint, Event, ToolCallStarted, ToolResultEvent
from agent_tui.core.knowledge import load_knowledge
from agent_tui.core.modes.planning import commit_command, head_commit, run_command
from agent_tui.core.modes.planning.git import COMMIT_CALL_ID
from agent_tui.core.providers.litellm import LitellmProvider
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.registry import ToolRegistry
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import FakeProvider, Reply


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True,
                          check=True).stdout


async def test_the_plans_commit_runs_the_pre_tool_hook_and_makes_a_checkpoint(
        fake_provider: FakeProvider, tmp_path: Path, agent_tui_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "user.email", "t@example.com")
    git(project, "config", "user.name", "Tester")
    (project / "greeting.txt").write_text("hello\n")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "Start")
    (project / "greeting.txt").write_text("hello, world\n")  # the plan's change
    message = tmp_path / "message.txt"
    message.write_text("Greet the world\n")

    seen = tmp_path / "seen.jsonl"
    hook = tmp_path / "record.sh"
    hook.write_text(f"#!/usr/bin/env bash\ncat >> {seen}\necho >> {seen}\n")
    hook.chmod(0o755)
    (agent_tui_home / "config.toml").write_text(
        f'[[hooks.PreToolUse]]\nmatcher = "shell"\ncommand = "{hook}"\n')

    config = settings_for(fake_provider, approval_mode="yolo")
    events: list[Event] = []
    agent = Agent(LitellmProvider(config), ToolRegistry(builtin_tools()), config, project,
                  HeadlessApprover("yolo"), events.append,
                  knowledge=load_knowledge(project, config))
    fake_provider.script(Reply(text="Greet the world"))  # the commit message writer's turn
    assert (await agent.run("write the commit message")).ok

    command = commit_command(project, ["greeting.txt"], str(message))
    result = await run_command(agent, command)

    assert result.ok, result.llm_content
    assert git(project, "log", "-1", "--format=%s").strip() == "Greet the world"
    assert head_commit(project) is not None
    asked = [json.loads(line) for line in seen.read_text().splitlines() if line.strip()]
    assert [(a["tool_name"], a["tool_input"]["command"], a["tool_use_id"]) for a in asked] == [
        ("shell", command, COMMIT_CALL_ID)]
    # The commit writer's turn (turn 0) changed nothing; the commit is the turn's change.
    assert [(e.turn, e.phase) for e in events if isinstance(e, Checkpoint)] == [
        (0, "before"), (0, "after")]
    assert [e.id for e in events if isinstance(e, ToolCallStarted)] == [COMMIT_CALL_ID]
    ended = [e for e in events if isinstance(e, ToolResultEvent)]
    assert [(e.id, e.ok) for e in ended] == [(COMMIT_CALL_ID, True)]


async def test_a_pre_tool_hook_that_stops_the_work_leaves_the_plan_uncommitted(
        fake_provider: FakeProvider, tmp_path: Path, agent_tui_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    (project / "greeting.txt").write_text("hello\n")
    stop = '{"continue": false, "stopReason": "commits wait for the release"}'
    hook = tmp_path / "stop.sh"
    hook.write_text(f"#!/usr/bin/env bash\ncat >/dev/null\necho '{stop}'\n")
    hook.chmod(0o755)
    (agent_tui_home / "config.toml").write_text(
        f'[[hooks.PreToolUse]]\ncommand = "{hook}"\n')
    config = settings_for(fake_provider, approval_mode="yolo")
    events: list[Event] = []
    agent = Agent(LitellmProvider(config), ToolRegistry(builtin_tools()), config, project,
                  HeadlessApprover("yolo"), events.append,
                  knowledge=load_knowledge(project, config))

    result = await run_command(agent, "git add -A && git commit -m x")

    assert not result.ok
    assert "A PreToolUse hook stopped the work: commits wait for the release" in result.llm_content
    assert head_commit(project) is None
    ended = [e for e in events if isinstance(e, ToolResultEvent)]
    assert [(e.id, e.ok) for e in ended] == [(COMMIT_CALL_ID, False)]
