"""The memory tools, activate_skill and AGENTS.md in headless runs: litellm over real HTTP to
the fake provider, a real memory database, real skills and their scripts."""

from __future__ import annotations

import os
import subprocess

from agent_tui.core import paths
from tests.core.loop_helpers import run
from tests.fakes.providers import Reply, ToolCall


def _repo(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


async def test_memories_set_in_one_run_are_found_in_the_next(fake_provider, tmp_path):
    root = _repo(tmp_path)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("memory_set", {"key": "deploy_steps",
                                                  "value": "run ./deploy.sh staging first"}),
                          ToolCall("memory_set", {"key": "editor", "value": "neovim",
                                                  "scope": "user"})]),
        Reply(text="Remembered."))
    first = await run(fake_provider, root, "remember how we deploy", approval_mode="yolo")
    assert first.code == 0
    assert [r["ok"] for r in first.of_type("tool_result")] == [True, True]

    fake_provider.script(
        Reply(tool_calls=[ToolCall("memory_search", {"query": "how do we deploy to staging"}),
                          ToolCall("memory_get", {"key": "editor"})]),
        Reply(text="Deploy with ./deploy.sh."))
    second = await run(fake_provider, root, "how do we deploy?")

    found, editor = fake_provider.requests[-1].tool_results()
    assert "deploy_steps" in found["content"] and "./deploy.sh staging" in found["content"]
    assert "editor (user):\nneovim" in editor["content"]
    assert second.code == 0


async def test_memory_writes_ask_in_default_mode_and_are_refused_headless(
        fake_provider, tmp_path):
    root = _repo(tmp_path)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("memory_set", {"key": "k", "value": "v"})]),
        Reply(text="ok"))

    outcome = await run(fake_provider, root)

    assert outcome.of_type("approval")[0]["decision"] == "deny"
    assert "stores a memory later sessions read" in outcome.of_type("approval")[0]["reason"]


async def test_remember_writes_the_memory_file_the_next_session_loads(fake_provider, tmp_path):
    root = _repo(tmp_path)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("remember", {
            "notes": "### Entry points\n- `src/cli.py` - `main()`"})]),
        Reply(text="Noted."))
    await run(fake_provider, root, approval_mode="yolo")

    assert "`src/cli.py` - `main()`" in paths.project_memory_file(root).read_text()
    fake_provider.script(Reply(text="hello"))
    await run(fake_provider, root, "hi")
    system = fake_provider.requests[-1].messages[0]["content"]
    assert "`src/cli.py` - `main()`" in system


async def test_activate_skill_loads_a_bundled_skill_and_its_script_runs(fake_provider, tmp_path):
    root = _repo(tmp_path)
    (root / "app.py").write_text("print('hello')\n")
    subprocess.run(["git", "-C", str(root), "add", "app.py"], check=True)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("activate_skill", {"name": "review-diff"})]),
        Reply(tool_calls=[ToolCall("shell", {"command": ".agent-tui/bin/diff-summary"})]),
        Reply(text="Looks fine."))

    outcome = await run(fake_provider, root, approval_mode="yolo")

    system = fake_provider.requests[0].messages[0]["content"]
    assert "<available_skills>" in system and "<name>review-diff</name>" in system
    assert "Review the diff before it is committed" not in system  # only names, descriptions
    skill, summary = (r["content"] for r in fake_provider.requests[2].tool_results())
    assert "Review the diff before it is committed" in skill
    assert os.access(root / ".agent-tui" / "bin" / "diff-summary", os.X_OK)
    # A script in .agent-tui/bin is run, not written: yolo mode runs it without asking.
    assert "+    1 -    0  app.py" in summary, outcome.of_type("approval")
