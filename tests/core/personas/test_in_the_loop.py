"""A persona in headless runs (litellm over real HTTP to the fake provider): its prompt in
the system prompt, only its tools offered, a hidden tool refused with the reason; and the
registry's limit on its own."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_tui.core.personas import load_personas
from agent_tui.tools.base import ToolArgumentError, ToolContext
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.registry import ToolRegistry
from tests.core.loop_helpers import run
from tests.fakes.providers import Reply, ToolCall

REVIEWER_TOOLS = {"read_file", "read_many_files", "ls", "glob_files", "grep", "code_search",
                  "shell", "todo_read", "rehydrate"}


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "app.py").write_text("print('hi')\n")
    return root


def tool_names(request) -> set[str]:
    return {tool["function"]["name"] for tool in request.tools}


async def test_the_reviewer_reads_only_and_its_prompt_leads(fake_provider, tmp_path):
    root = _repo(tmp_path)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("write_file", {"file_path": "app.py", "content": "x"}),
                          ToolCall("read_file", {"file_path": "app.py"})]),
        Reply(text="Looks fine."))

    outcome = await run(fake_provider, root, "review app.py", agent="reviewer",
                        approval_mode="yolo")

    assert outcome.code == 0
    first = fake_provider.requests[0]
    system = first.messages[0]["content"]
    assert '<persona name="reviewer" source="bundled"' in system
    assert "You are a senior code reviewer." in system
    assert tool_names(first) == REVIEWER_TOOLS
    refused, read = fake_provider.requests[1].tool_results()
    assert "'write_file' is not available: the reviewer persona offers only read_file" \
        in refused["content"]
    assert "print('hi')" in read["content"]
    assert (root / "app.py").read_text() == "print('hi')\n"  # yolo, yet nothing written


async def test_without_a_persona_every_tool_is_offered(fake_provider, tmp_path):
    root = _repo(tmp_path)
    fake_provider.script(Reply(text="ok"))
    await run(fake_provider, root, "hi")
    first = fake_provider.requests[0]
    assert "<persona" not in first.messages[0]["content"]
    assert {"write_file", "edit_file", "shell"} <= tool_names(first)


async def test_a_persona_of_the_project_steers_the_run(fake_provider, tmp_path):
    root = _repo(tmp_path)
    folder = root / ".agent-tui" / "agents"
    folder.mkdir(parents=True)
    (folder / "pirate.md").write_text(
        "---\ndescription: Talks like a pirate\ntools: Read, LS\n---\nAnswer as a pirate.\n")
    fake_provider.script(Reply(text="Arr."))

    outcome = await run(fake_provider, root, "hi", agent="pirate")

    assert outcome.code == 0
    first = fake_provider.requests[0]
    assert "Answer as a pirate." in first.messages[0]["content"]
    assert tool_names(first) == {"read_file", "read_many_files", "read_image", "ls",
                                 "rehydrate"}


async def test_an_unknown_persona_is_reported_and_the_run_goes_on(fake_provider, tmp_path):
    root = _repo(tmp_path)
    fake_provider.script(Reply(text="ok"))
    outcome = await run(fake_provider, root, "hi", agent="nobody")
    assert outcome.code == 0
    assert "no persona called 'nobody'" in outcome.stderr
    assert "<persona" not in fake_provider.requests[0].messages[0]["content"]


def test_the_limit_hides_tools_registered_later_and_lifts(tmp_path):
    reviewer = load_personas(tmp_path).get("reviewer")
    tools = builtin_tools()
    registry = ToolRegistry([t for t in tools if t.name != "write_file"])
    registry.offer_only(reviewer.tool_filter(), reviewer.limit_reason())
    registry.register(next(t for t in tools if t.name == "write_file"))

    assert "write_file" in registry  # registered…
    assert registry.get("write_file") is None  # …but not offered
    assert "write_file" not in registry.names
    assert set(registry.names) == REVIEWER_TOOLS
    assert {s["function"]["name"] for s in registry.schemas()} == REVIEWER_TOOLS
    ctx = ToolContext(workdir=tmp_path, output_dir=tmp_path / "out")
    with pytest.raises(ToolArgumentError, match="not available: the reviewer persona"):
        registry.build("write_file", {"file_path": "a", "content": "b"}, ctx)
    with pytest.raises(ToolArgumentError, match="there is no tool named 'nope'"):
        registry.build("nope", {}, ctx)

    registry.offer_only(None)
    assert "write_file" in registry.names
    assert registry.build("write_file", {"file_path": "a", "content": "b"}, ctx)
