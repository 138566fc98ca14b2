"""agent-tui as its own delegate: ``/code`` hands the prompt to ``agent-tui acp`` (a real
subprocess on the fake provider); its permission request is the outer session's approval,
and the file it writes is in the outer session's checkpoint."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from agent_tui.core import paths
from tests.core.loop_helpers import run
from tests.fakes.providers import Reply, ToolCall


def configure(fake, delegate_home: Path) -> None:
    env = {"PYTHONPATH": os.pathsep.join(sys.path), "AGENT_TUI_HOME": str(delegate_home),
           "AGENT_TUI_MAX_RETRIES": "1"}
    args = ["-m", "agent_tui.tui.cli.main", "acp", "--model", "openai/fake-model",
            "--api-base", fake.openai_base, "--api-key", "sk-test"]
    lines = ["[delegates.inner]", f"command = {sys.executable!r}",
             "args = [" + ", ".join(repr(a) for a in args) + "]",
             "env = { " + ", ".join(f"{k} = {v!r}" for k, v in env.items()) + " }",
             "in_project = true", "start_timeout = 120"]
    config = paths.user_config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("\n".join(lines) + "\n")


async def test_agent_tui_acp_works_as_a_delegate(fake_provider, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    configure(fake_provider, tmp_path / "inner-home")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("write_file", {"file_path": "hello.py",
                                                  "content": "print('hello')\n"})]),
        Reply("I wrote hello.py."))

    outcome = await run(fake_provider, project, "/code write a hello script",
                        approval_mode="yolo")

    assert outcome.code == 0, outcome.stderr
    assert (project / "hello.py").read_text() == "print('hello')\n"
    result = outcome.result
    assert result["ok"] and "I wrote hello.py." in result["text"]
    assert "inner worked in the project and stopped (end_turn)" in result["text"]
    lane = next(e for e in outcome.of_type("tool_call") if e["name"] == "delegate")
    inner_calls = [e for e in outcome.of_type("tool_call") if e.get("parent_id") == lane["id"]]
    assert inner_calls and "hello.py" in inner_calls[0]["summary"]
    phases = [e["phase"] for e in outcome.of_type("checkpoint")]
    assert phases == ["before", "after"], "the delegate's own write is in the checkpoint"


async def test_a_refused_approval_stops_agent_tuis_write(fake_provider, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    configure(fake_provider, tmp_path / "inner-home")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("write_file", {"file_path": "hello.py",
                                                  "content": "print('hello')\n"})]),
        Reply("The write was denied, so nothing changed."))

    outcome = await run(fake_provider, project, "/code write a hello script",
                        approval_mode="plan")

    assert not (project / "hello.py").exists()
    assert "nothing changed" in outcome.result["text"]
