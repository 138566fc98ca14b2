"""``/code`` through the OpenCode route against a fake ``opencode serve`` that follows its
documented HTTP API: the session asks before edits, the permission it asks becomes agent-tui's
approval, the file it writes itself is in the run's checkpoint, and abort reaches it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core import paths
from agent_tui.core.delegates.base import DelegateUpdate
from agent_tui.core.delegates.config import parse_delegate
from agent_tui.core.delegates.opencode import ASK_RULES, OpenCodeDelegate
from agent_tui.core.mcp.server_config import MalformedServer
from tests.core.loop_helpers import run
from tests.fakes.opencode import ANSWER, WRITTEN, FakeOpenCode


@pytest.fixture
def opencode() -> Iterator[FakeOpenCode]:
    with FakeOpenCode() as server:
        yield server


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def configure(url: str, **extra: str) -> None:
    lines = ["[delegates.oc]", 'protocol = "opencode"', f"url = {url!r}"]
    lines += [f"{key} = {value}" for key, value in extra.items()]
    config = paths.user_config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("\n".join(lines) + "\n")


async def test_opencode_writes_after_our_approval_and_the_write_is_checkpointed(
    fake_provider, project, opencode
):
    configure(opencode.url, model='"fake/m1"', agent='"build"')

    outcome = await run(fake_provider, project, "/code write hello", approval_mode="yolo")

    assert outcome.code == 0, outcome.stderr
    folder = project / "delegated" / "write-hello"
    assert (folder / "hello.txt").read_text() == WRITTEN
    assert ANSWER in outcome.result["text"] and "$0.0123" in outcome.result["text"]
    # The session was made to ask before edits and commands; the edit was asked and allowed.
    session = next(iter(opencode.sessions.values()))
    assert session["permission"] == ASK_RULES and session["directory"] == str(folder)
    assert list(opencode.replies.values()) == ["once"]
    sent = next(body for method, path, body in opencode.requests if path.endswith("/message"))
    assert sent["model"] == {"providerID": "fake", "modelID": "m1"} and sent["agent"] == "build"
    # Its write tool is a line of the delegate's lane; the answer streamed into the lane.
    started = {e["id"]: e for e in outcome.of_type("tool_call")}
    lane = next(e for e in started.values() if e["name"] == "delegate")
    assert any(
        e.get("parent_id") == lane["id"] and "hello.txt" in e["summary"] for e in started.values()
    )
    assert [e["phase"] for e in outcome.of_type("checkpoint")] == ["before", "after"]

    again = await run(
        fake_provider, project, "/code @write-hello write hello again", approval_mode="yolo"
    )
    assert again.result["ok"]
    assert len(opencode.sessions) == 1, "@PROJECT goes on in OpenCode's session"


async def test_a_refused_edit_is_rejected_and_nothing_is_written(fake_provider, project, opencode):
    configure(opencode.url, in_project="true")

    outcome = await run(fake_provider, project, "/code write hello", approval_mode="plan")

    assert not (project / "hello.txt").exists()
    assert list(opencode.replies.values()) == ["reject"]
    assert "You said no; nothing written." in outcome.result["text"]


async def test_a_failed_turn_or_an_unreachable_server_says_what_to_do(
    fake_provider, project, opencode
):
    configure(opencode.url, in_project="true")
    failed = await run(fake_provider, project, "/code fail please", approval_mode="yolo")
    assert not failed.result["ok"]
    assert "oc failed: model not found: x/y" in failed.result["error"]

    configure("http://127.0.0.1:9", in_project="true")
    down = await run(fake_provider, project, "/code anything", approval_mode="yolo")
    assert "http://127.0.0.1:9 cannot be reached" in down.result["error"]
    assert "opencode serve" in down.result["error"]


class _Host:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.updates: list[DelegateUpdate] = []

    async def ask_permission(self, title: str, details: str, always: bool) -> Any:
        return "once"

    def report(self, update: DelegateUpdate) -> None:
        self.updates.append(update)


async def test_cancel_aborts_the_session(opencode, tmp_path):
    config = parse_delegate(
        "oc",
        {"protocol": "opencode", "url": opencode.url},
        tmp_path / "config.toml",
        tmp_path,
        {},
        [],
    )
    delegate = OpenCodeDelegate(config)
    assert await delegate.probe() is None
    running = asyncio.create_task(delegate.run("slow work", _Host(tmp_path)))  # type: ignore[arg-type]
    while not opencode.sessions:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)
    await delegate.cancel()

    result = await running

    assert result.stop_reason == "cancelled"
    assert opencode.aborted == set(opencode.sessions)


def test_an_opencode_delegate_needs_a_url_or_a_command(tmp_path):
    with pytest.raises(MalformedServer, match="it needs `url`"):
        parse_delegate("oc", {"protocol": "opencode"}, tmp_path / "c.toml", tmp_path, {}, [])
    started = parse_delegate(
        "oc", {"protocol": "opencode", "command": "opencode"}, tmp_path / "c.toml", tmp_path, {}, []
    )
    assert started.url is None and started.command == "opencode"


async def test_the_lane_shows_the_answer_and_the_tool_but_not_the_prompt(opencode, tmp_path):
    config = parse_delegate(
        "oc",
        {"protocol": "opencode", "url": opencode.url},
        tmp_path / "config.toml",
        tmp_path,
        {},
        [],
    )
    host = _Host(tmp_path)

    result = await OpenCodeDelegate(config).run("write hello", host)  # type: ignore[arg-type]

    assert result.text == ANSWER and result.cost == pytest.approx(0.0123)
    said = "".join(u.text for u in host.updates if u.kind == "message")
    assert said == ANSWER, "the prompt's echo is not the delegate's answer"
    tools = [(u.kind, u.status) for u in host.updates if u.call_id == "call_1"]
    assert tools == [("tool_call", "in_progress"), ("tool_update", "completed")]


async def test_stopping_the_run_aborts_opencodes_turn(opencode, tmp_path):
    config = parse_delegate(
        "oc",
        {"protocol": "opencode", "url": opencode.url},
        tmp_path / "config.toml",
        tmp_path,
        {},
        [],
    )
    running = asyncio.create_task(OpenCodeDelegate(config).run("slow work", _Host(tmp_path)))  # type: ignore[arg-type]
    while not opencode.sessions:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)

    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running

    assert opencode.aborted == set(opencode.sessions)


@pytest.mark.parametrize(("command", "said"), [
    ("no-such-opencode", "the program 'no-such-opencode' was not found"),
    ("false", "`false serve --port 0 --hostname 127.0.0.1` stopped before it listened"),
])
async def test_a_server_that_will_not_start_says_what_to_do(tmp_path, command, said):
    config = parse_delegate("oc", {"protocol": "opencode", "command": command},
                            tmp_path / "config.toml", tmp_path, {}, [])

    problem = await OpenCodeDelegate(config).probe()

    assert problem is not None and said in problem
