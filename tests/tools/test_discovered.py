"""The project's own tools (gemini-cli's discovered tools): declared by one command, run by
another, with real scripts."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from agent_tui.core.config import Settings
from agent_tui.core.safety.permissions import Verdict, decide
from agent_tui.tools.base import ToolArgumentError, ToolContext
from agent_tui.tools.discovered import declarations, discover_tools
from tests.core.loop_helpers import run
from tests.fakes.providers import Reply, ToolCall

DECLARATIONS = [{"functionDeclarations": [
    {"name": "deploy_preview", "description": "Deploy a preview of a branch.",
     "parameters": {"type": "object", "properties": {"branch": {"type": "string"},
                                                     "command": {"type": "string"}},
                    "required": ["branch"]}},
    {"name": "bad name!", "description": "skipped"},
]}]


def _project(tmp_path: Path) -> tuple[Path, Settings]:
    (tmp_path / "discover.sh").write_text(
        f"#!/usr/bin/env bash\ncat <<'EOF'\n{json.dumps(DECLARATIONS)}\nEOF\n")
    (tmp_path / "call.py").write_text(textwrap.dedent("""\
        import json, sys
        name, args = sys.argv[1], json.load(sys.stdin)
        if args.get("branch") == "broken":
            sys.exit("no such branch: broken")
        print(f"{name}: deployed {args['branch']} to https://preview.example/{args['branch']}")
    """))
    settings = Settings(tool_discovery_command="bash discover.sh",
                        tool_call_command="python3 call.py")
    return tmp_path, settings


async def test_declared_tools_run_through_the_call_command(tmp_path: Path) -> None:
    root, settings = _project(tmp_path)
    ctx = ToolContext(workdir=root, output_dir=root / "out", settings=settings)

    tools, problems = await discover_tools(settings, root)

    assert [t.name for t in tools] == ["deploy_preview"]
    assert "'bad name!'" in problems[0]
    tool = tools[0]
    assert tool.schema()["function"]["parameters"]["required"] == ["branch"]
    done = await tool.build({"branch": "feat-x"}, ctx).execute()
    assert done.ok and "deployed feat-x" in done.llm_content
    failed = await tool.build({"branch": "broken"}, ctx).execute()
    assert not failed.ok and "exited with 1: no such branch: broken" in failed.llm_content
    with pytest.raises(ToolArgumentError, match="missing branch"):
        tool.build({}, ctx)


async def test_a_discovered_call_asks_and_is_never_judged_as_a_shell_command(
        tmp_path: Path) -> None:
    root, settings = _project(tmp_path)
    ctx = ToolContext(workdir=root, output_dir=root / "out", settings=settings)
    tool = (await discover_tools(settings, root))[0][0]

    # An argument named "command" that looks harmless must not make the call harmless.
    decision = decide(tool.build({"branch": "x", "command": "ls"}, ctx), "default", root)

    assert decision.verdict == Verdict.ASK
    assert decision.reason == "runs the project's tool command"


async def test_discovery_failures_are_reported(tmp_path: Path) -> None:
    broken = Settings(tool_discovery_command="echo not json", tool_call_command="true")
    failing = Settings(tool_discovery_command="echo oops >&2; exit 3", tool_call_command="true")
    half = Settings(tool_discovery_command="true")

    assert "not JSON" in (await discover_tools(broken, tmp_path))[1][0]
    assert "exited with 3: oops" in (await discover_tools(failing, tmp_path))[1][0]
    assert "tool_call_command is not" in (await discover_tools(half, tmp_path))[1][0]
    assert declarations('[{"name": "a"}, {"name": "b"}]') == [{"name": "a"}, {"name": "b"}]


async def test_a_headless_run_offers_and_runs_a_discovered_tool(fake_provider,
                                                                tmp_path: Path) -> None:
    root, _ = _project(tmp_path)
    fake_provider.script(Reply(tool_calls=[ToolCall("deploy_preview", {"branch": "main"})]),
                         Reply(text="Deployed."))

    outcome = await run(fake_provider, root, approval_mode="yolo",
                        tool_discovery_command="bash discover.sh",
                        tool_call_command="python3 call.py")

    offered = {t["function"]["name"] for t in fake_provider.requests[0].tools}
    assert "deploy_preview" in offered
    assert "deployed main" in fake_provider.requests[1].tool_results()[0]["content"]
    assert "'bad name!'" in outcome.stderr
