"""``/code`` through the real OpenCode (npm ``opencode-ai``), both routes: its server
(``opencode serve``, started by agent-tui) and ACP (``opencode acp``). OpenCode is configured
with a custom OpenAI-compatible provider pointed at the fake provider on loopback, in a home
of its own under the test's folder; the scripted model makes it write a file, and the write
ends in agent-tui's review (the run's checkpoint) and the answer comes back.

``.ci/run`` installs OpenCode into the cache folder below; without it the tests skip."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core import paths
from tests.core.loop_helpers import run
from tests.fakes.providers import RecordedRequest, Reply, ToolCall

VERSION = "1.18.33"
FOLDER = Path(os.environ.get("AGENT_TUI_TEST_OPENCODE",
                             Path.home() / ".cache" / "agent-tui-tests" / "opencode"))
"""Where ``.ci/run`` installs ``opencode-ai`` (``npm install --prefix``)."""
WRITTEN = "hello from opencode\n"
ANSWER = "Done: I wrote hello.txt."


def opencode_binary() -> str:
    installed = FOLDER / "node_modules" / ".bin" / "opencode"
    if installed.exists():
        return str(installed)
    found = shutil.which("opencode")
    if found is None:
        pytest.skip(f"OpenCode is not installed: run `npm install --prefix {FOLDER} "
                    f"opencode-ai@{VERSION}` (.ci/run does) to test /code against it")
    return found


def model(project: Path):  # type: ignore[no-untyped-def]
    """The scripted model: asked with tools, it writes hello.txt, then answers; asked without
    (a session's title), it gives one."""

    def answer(request: RecordedRequest) -> Reply:
        if not request.tools:
            return Reply("Writing hello")
        if any(message.get("role") == "tool" for message in request.messages):
            return Reply(ANSWER)
        return Reply(tool_calls=[ToolCall("write", {"filePath": str(project / "hello.txt"),
                                                    "content": WRITTEN})])

    return answer


def configure(fake: Any, project: Path, home: Path, **keys: Any) -> None:
    """OpenCode's own config (the fake provider) in ``home``, and the delegate in agent-tui's
    config.toml. Over ACP OpenCode's config makes it ask before edits; through the server,
    the session agent-tui makes does (OpenCode's default is to edit without asking)."""
    asks = {"permission": {"edit": "ask", "bash": "ask"}} if keys["protocol"] == "acp" else {}
    settings = {
        "$schema": "https://opencode.ai/config.json", "autoupdate": False, "share": "disabled",
        "model": "fake/m1", "small_model": "fake/m1", **asks,
        "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
                              "options": {"baseURL": fake.openai_base, "apiKey": "none"},
                              "models": {"m1": {"name": "m1"}}}}}
    (home / ".config" / "opencode").mkdir(parents=True)
    (home / ".config" / "opencode" / "opencode.json").write_text(json.dumps(settings))
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_DATA_HOME": str(home / ".local" / "share"),
           "XDG_CACHE_HOME": str(home / ".cache"), "XDG_STATE_HOME": str(home / ".local" / "state")}
    lines = ["[delegates.opencode]", "in_project = true", "start_timeout = 120",
             "env = { " + ", ".join(f"{k} = {v!r}" for k, v in env.items()) + " }"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in keys.items()]
    config = paths.user_config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("route", [
    {"protocol": "opencode"},
    {"protocol": "acp", "args": ["acp"]},
], ids=["serve", "acp"])
async def test_the_real_opencode_writes_under_review_and_answers(fake_provider, tmp_path, route):
    binary = opencode_binary()
    project = tmp_path / "project"
    project.mkdir()
    fake_provider.responder = model(project)
    configure(fake_provider, project, tmp_path / "opencode-home", command=binary, **route)

    outcome = await run(fake_provider, project, "/code write hello.txt", approval_mode="yolo")

    assert outcome.code == 0, (outcome.stderr, outcome.result)
    assert (project / "hello.txt").read_text() == WRITTEN
    assert ANSWER in outcome.result["text"]
    # The project was snapshotted around the work: the review and /undo see the write.
    phases = [e["phase"] for e in outcome.of_type("checkpoint")]
    assert phases[0] == "before" and phases[-1] == "after"
    started = {e["id"]: e for e in outcome.of_type("tool_call")}
    lane = next(e for e in started.values() if e["name"] == "delegate")
    assert any(e.get("parent_id") == lane["id"] for e in started.values()), \
        "OpenCode's write is a line of the delegate's lane"
    if route["protocol"] == "acp":
        # Over ACP it writes through the client: agent-tui's own write_file call.
        writes = [e for e in started.values() if e["name"] == "write_file"]
        assert [Path(e["args"]["file_path"]).name for e in writes] == ["hello.txt"]


@pytest.mark.parametrize("route", [
    {"protocol": "opencode"},
    {"protocol": "acp", "args": ["acp"]},
], ids=["serve", "acp"])
async def test_an_edit_the_person_refuses_is_not_written(fake_provider, tmp_path, route):
    binary = opencode_binary()
    project = tmp_path / "project"
    project.mkdir()
    fake_provider.responder = model(project)
    configure(fake_provider, project, tmp_path / "opencode-home", command=binary, **route)

    outcome = await run(fake_provider, project, "/code write hello.txt", approval_mode="plan")

    assert not (project / "hello.txt").exists()
    assert outcome.result["ok"], outcome.result
    if route["protocol"] == "opencode":
        # The server route answers the refusal with a reason, which OpenCode's model hears;
        # over ACP, OpenCode ends its turn at a refusal.
        told = [m for r in fake_provider.requests for m in r.messages if m.get("role") == "tool"]
        assert told, "OpenCode's model heard that the write was refused"
