"""``/code`` through a real ACP delegate: a scripted agent program over stdio (reads, asks,
writes, runs a command through agent-tui), driven by ``agent-tui -p`` in-process against the
fake provider; what it does goes through agent-tui's tool calls, approvals and checkpoints."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core import paths
from tests.core.loop_helpers import run

SCRIPT = Path(__file__).resolve().parents[2] / "fakes" / "acp_delegate.py"


def configure(**extra: Any) -> None:
    """The scripted delegate in the user's config.toml."""
    lines = ["[delegates.scripted]", f"command = {sys.executable!r}",
             f"args = [{str(SCRIPT)!r}]",
             f'env = {{ PYTHONPATH = {os.pathsep.join(sys.path)!r} }}']
    lines += [f"{key} = {value}" for key, value in extra.items()]
    config = paths.user_config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("\n".join(lines) + "\n")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "input.txt").write_text("make me loud\n")
    return folder


def calls(outcome: Any) -> dict[str, dict[str, Any]]:
    return {e["id"]: e for e in outcome.of_type("tool_call")}


async def test_the_delegates_work_goes_through_agent_tuis_calls(fake_provider, project):
    configure(in_project="true")

    outcome = await run(fake_provider, project, "/code shout the input", approval_mode="yolo")

    assert outcome.code == 0, outcome.stderr
    assert (project / "out.txt").read_text() == "MAKE ME LOUD\n"
    started = calls(outcome)
    lane = next(e for e in started.values() if e["name"] == "delegate")
    assert lane["args"]["prompt"] == "shout the input"
    # The write and the check ran as agent-tui's own write_file and shell calls.
    names = [e["name"] for e in started.values() if "parent_id" not in e]
    assert "write_file" in names and "shell" in names
    # The delegate's own reported call is a line of the lane.
    assert any(e.get("parent_id") == lane["id"] and e["summary"] == "Write out.txt"
               for e in started.values())
    result = outcome.result
    assert result["ok"] and "the check said 'checked' (exit 0)" in result["text"]
    assert fake_provider.requests == []  # no model was asked
    assert outcome.of_type("checkpoint"), "the project is snapshotted around the work"


async def test_a_file_the_delegate_read_it_may_rewrite(fake_provider, project):
    configure(in_project="true")

    outcome = await run(fake_provider, project, "/code shout the input in place",
                        approval_mode="yolo")

    assert outcome.result["ok"], outcome.result
    assert (project / "input.txt").read_text() == "MAKE ME LOUD\n"


async def test_a_refused_permission_reaches_the_delegate(fake_provider, project):
    configure(in_project="true")

    outcome = await run(fake_provider, project, "/code shout the input",
                        approval_mode="plan")

    assert not (project / "out.txt").exists()
    assert "You said no; nothing written." in outcome.result["text"]


async def test_a_write_outside_the_project_is_refused(fake_provider, project):
    configure(in_project="true")

    outcome = await run(fake_provider, project, "/code outside", approval_mode="yolo")

    assert not (project.parent.parent / "outside.txt").exists()
    assert "The write was refused" in outcome.result["text"]
    assert "outside the project" in outcome.result["text"]


async def test_new_work_gets_a_folder_and_direct_writes_are_checkpointed(fake_provider,
                                                                          project):
    configure()

    outcome = await run(fake_provider, project, "/code direct write please",
                        approval_mode="yolo")

    folder = project / "delegated" / "direct-write-please"
    assert (folder / "direct.txt").read_text() == "written by the delegate itself\n"
    assert outcome.result["ok"] and "delegated/direct-write-please" in outcome.result["text"]
    phases = [e["phase"] for e in outcome.of_type("checkpoint")]
    assert phases == ["before", "after"]

    again = await run(fake_provider, project, "/code @direct-write-please direct again",
                      approval_mode="yolo")
    assert again.result["ok"] and "delegated/direct-write-please " in again.result["text"]
    missing = await run(fake_provider, project, "/code @nope direct", approval_mode="yolo")
    assert not missing.result["ok"]
    assert "No project 'nope'" in missing.result["error"]
    assert "direct-write-please" in missing.result["error"]


@pytest.mark.parametrize(("prompt", "extra", "env", "said"), [
    ("/code die now", {}, {}, "scripted stopped"),
    ("/code anything", {"start_timeout": "1"}, {"FAKE_DELEGATE_HANG": "1"},
     "did not answer ACP's initialize within 1 s"),
])
async def test_a_delegate_that_dies_or_hangs_is_a_clear_error(fake_provider, project, prompt,
                                                             extra, env, said):
    configure(in_project="true", **extra)
    if env:
        config = paths.user_config_file()
        config.write_text(config.read_text().replace(
            "env = { ", "env = { " + ", ".join(f"{k} = {v!r}" for k, v in env.items()) + ", "))

    outcome = await run(fake_provider, project, prompt, approval_mode="yolo")

    assert not outcome.result["ok"]
    assert said in outcome.result["error"]


async def test_a_missing_program_or_no_delegate_says_what_to_do(fake_provider, project):
    nothing = await run(fake_provider, project, "/code build it")
    assert "No delegate is configured" in nothing.result["error"]

    paths.user_config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.user_config_file().write_text('[delegates.gone]\ncommand = "no-such-agent-program"\n')
    missing = await run(fake_provider, project, "/code build it")
    assert "'no-such-agent-program' was not found" in missing.result["error"]

    empty = await run(fake_provider, project, "/code")
    assert "Type what to build after /code" in empty.result["error"]


BANNER = "print('Welcome to SuperAgent v2! Type a task:', flush=True)\n"
OTHER_JSON = "print('{\"event\": \"ready\", \"version\": 2}', flush=True)\n"
GARBAGE_AFTER_INITIALIZE = """import json, sys
request = json.loads(sys.stdin.readline())
print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {"protocolVersion": 1}}),
      flush=True)
sys.stdin.readline()
print("Thinking... (press Ctrl+C to stop)", flush=True)
"""


@pytest.mark.parametrize(("script", "printed"), [
    (BANNER, "Welcome to SuperAgent v2! Type a task:"),
    (OTHER_JSON, '{"event": "ready", "version": 2}'),
    (GARBAGE_AFTER_INITIALIZE, "Thinking... (press Ctrl+C to stop)"),
])
async def test_a_delegate_that_answers_garbage_is_named_at_once(fake_provider, project,
                                                               tmp_path, script, printed):
    # Each program then waits on its stdin: only recognising the garbage ends the work
    # before the (long) start_timeout.
    program = tmp_path / "not_acp.py"
    program.write_text(script + "sys = __import__('sys'); sys.stdin.read()\n")
    paths.user_config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.user_config_file().write_text(
        f"[delegates.chatty]\ncommand = {sys.executable!r}\nargs = [{str(program)!r}]\n"
        "in_project = true\nstart_timeout = 600\n")

    outcome = await run(fake_provider, project, "/code build it", approval_mode="yolo")

    error = outcome.result["error"]
    assert not outcome.result["ok"]
    assert "chatty does not speak ACP on its stdio: it printed" in error
    assert repr(printed) in error
    assert "Check `command` and `args` in [delegates.chatty]" in error
    assert list(project.iterdir()) == [project / "input.txt"]
