"""A cancelled call leaves a history the providers accept, in memory and in the session log:
a session cancelled while a call asks, runs or streams output resumes against a fake that
rejects invalid histories as OpenAI and Anthropic do (litellm over real HTTP)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.agent import Agent
from agent_tui.core.approval import Approver, HeadlessApprover
from agent_tui.core.events import Event, ToolOutput
from agent_tui.core.providers.litellm import LitellmProvider
from agent_tui.core.sessions.log import SessionStore, read_events
from agent_tui.core.sessions.resume import UNANSWERED_CALL
from agent_tui.tools.builtin import builtin_tools
from agent_tui.tools.registry import ToolRegistry
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import Reply, ToolCall, history_problem

APIS = ["openai", "anthropic"]


class HoldingApprover:
    """A person who never answers: the call waits for approval until it is cancelled."""

    def __init__(self) -> None:
        self.asking = asyncio.Event()

    async def ask(self, request: Any, preview: Any = None) -> Any:
        self.asking.set()
        await asyncio.Event().wait()

    def remembered(self, saved: Any) -> None:
        pass

    async def review_summary(self, summary: str) -> str:
        return summary


def _agent(fake: Any, workdir: Path, api: str, store: SessionStore, approver: Approver,
           events: list[Event] | None = None, mode: str = "yolo") -> Agent:
    settings = settings_for(fake, anthropic=api == "anthropic", approval_mode=mode)
    sink = events.append if events is not None else (lambda event: None)
    return Agent(LitellmProvider(settings), ToolRegistry(builtin_tools()), settings, workdir,
                 approver, sink, session=store)


async def _until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, "the call never got there"
        await asyncio.sleep(0.05)


async def _resume_and_ask(fake: Any, workdir: Path, api: str, session_id: str) -> Any:
    store = SessionStore.open(session_id)
    try:
        resumed = _agent(fake, workdir, api, store, HeadlessApprover("yolo"))
        resumed.restore(read_events(session_id))
        fake.script(Reply(text="Resumed."))
        return await resumed.run("and now?")
    finally:
        store.close()


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("point", ["asking", "running", "streaming output"])
async def test_a_session_cancelled_mid_call_resumes_with_a_valid_history(
        fake_provider, tmp_path, api, point):
    fake_provider.validate_history = True
    command = {"asking": "touch never.txt", "running": "touch started.txt; sleep 30",
               "streaming output": "echo first-line; sleep 30"}[point]
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": command}),
                          ToolCall("read_file", {"file_path": "notes.txt"})]),
        Reply(text="Understood, it was cancelled."))
    (tmp_path / "notes.txt").write_text("a note\n")
    events: list[Event] = []
    approver = HoldingApprover() if point == "asking" else HeadlessApprover("yolo")
    store = SessionStore.create("cancelled", project=tmp_path, model="fake")
    agent = _agent(fake_provider, tmp_path, api, store, approver, events,
                   mode="default" if point == "asking" else "yolo")
    running = asyncio.create_task(agent.run("run it"))
    await _until({
        "asking": lambda: isinstance(approver, HoldingApprover) and approver.asking.is_set(),
        "running": lambda: (tmp_path / "started.txt").exists(),
        "streaming output": lambda: any(isinstance(e, ToolOutput) and "first-line" in e.text
                                        for e in events),
    }[point])
    running.cancel()  # Esc in the workbench, session/cancel in ACP
    with pytest.raises(asyncio.CancelledError):
        await running
    # The person goes on in the same session, then leaves.
    after = await agent.run("never mind")
    store.close()
    assert after.ok, after.error

    logged = [r for r in read_events("cancelled").events if r["type"] == "tool_result"]
    assert [(r["name"], r["ok"]) for r in logged] == [("shell", False), ("read_file", False)]
    assert all("cancelled" in r["output"] for r in logged)

    resumed = await _resume_and_ask(fake_provider, tmp_path, api, "cancelled")

    assert resumed.ok, resumed.error
    sent = fake_provider.requests[-1]
    assert history_problem(sent.api, sent.body) is None
    assert [r["content"] for r in sent.tool_results()] == [r["output"] for r in logged]


@pytest.mark.parametrize("api", APIS)
async def test_a_log_written_before_cancels_were_recorded_resumes_validly(
        fake_provider, tmp_path, api):
    """An old log: a call without a result, another call's result recorded after the next
    prompt, and a result whose call is not in the history."""
    fake_provider.validate_history = True
    store = SessionStore.create("old", project=tmp_path, model="fake")
    for record in [
        {"type": "user_message", "text": "look around"},
        {"type": "assistant_message", "text": "", "tool_calls": [
            {"id": "call_a", "name": "shell", "arguments": '{"command": "sleep 30"}'},
            {"id": "call_b", "name": "ls", "arguments": "{}"}]},
        {"type": "user_message", "text": "stop that"},
        {"type": "tool_result", "id": "call_b", "name": "ls", "ok": True, "output": "notes.txt"},
        {"type": "tool_result", "id": "call_ghost", "name": "ls", "ok": True, "output": "x"},
        {"type": "assistant_message", "text": "Stopped."},
    ]:
        store.append(record)
    store.close()

    resumed = await _resume_and_ask(fake_provider, tmp_path, api, "old")

    assert resumed.ok, resumed.error
    sent = fake_provider.requests[-1]
    assert sent.tool_results() == [{"id": "call_a", "content": UNANSWERED_CALL},
                                   {"id": "call_b", "content": "notes.txt"}]
    assert sent.last_user_text() == "and now?"


@pytest.mark.parametrize("api", APIS)
async def test_the_fake_rejects_what_the_real_apis_reject(fake_provider, tmp_path, api):
    """The check the tests above rely on: an unanswered call is a 400 with the API's text."""
    fake_provider.validate_history = True
    store = SessionStore.create("broken", project=tmp_path, model="fake")
    for record in [
        {"type": "user_message", "text": "look around"},
        {"type": "assistant_message", "text": "", "tool_calls": [
            {"id": "call_a", "name": "ls", "arguments": "{}"}]},
    ]:
        store.append(record)
    agent = _agent(fake_provider, tmp_path, api, store, HeadlessApprover("yolo"))
    agent.messages[1:] = [{"role": "user", "content": "look around"},
                          {"role": "assistant", "content": None, "tool_calls": [
                              {"id": "call_a", "type": "function",
                               "function": {"name": "ls", "arguments": "{}"}}]}]
    fake_provider.script(Reply(text="never sent"))
    result = await agent.run("and now?")
    store.close()

    assert not result.ok
    told = ("did not have response messages: call_a" if api == "openai"
            else "`tool_use` ids were found without `tool_result` blocks immediately after: "
                 "call_a")
    assert told in (result.error or "")
    assert fake_provider.pending == 1  # the rejected request took no scripted reply


async def test_calls_a_hook_stopped_end_in_the_log_and_on_screen(fake_provider, tmp_path,
                                                                  agent_tui_home):
    """A PreToolUse hook that stops the work: the call it stopped and the calls after it
    are answered in the history, recorded, and shown ended."""
    import io
    import json

    from agent_tui.core.sessions.start import close_session, open_session
    from agent_tui.tui.cli.headless import run_headless

    fake_provider.validate_history = True
    hook = tmp_path / "stop.sh"
    hook.write_text('#!/usr/bin/env bash\ncat >/dev/null\n'
                    'echo \'{"continue": false, "stopReason": "budget spent"}\'\n')
    hook.chmod(0o755)
    (agent_tui_home / "config.toml").write_text(
        f'[[hooks.PreToolUse]]\nmatcher = "shell"\ncommand = "{hook}"\n')
    fake_provider.script(Reply(tool_calls=[ToolCall("shell", {"command": "echo hi"}),
                                           ToolCall("ls", {})]))
    opened = open_session(tmp_path, "openai/fake-model")
    out = io.StringIO()
    code = await run_headless(settings_for(fake_provider, approval_mode="yolo"), tmp_path,
                              "go", "stream-json", out, io.StringIO(), session=opened)
    close_session(opened)
    session_id = opened.store.session_id

    assert code == 1
    printed = [json.loads(line) for line in out.getvalue().splitlines()]
    ended = [(e["name"], e["ok"]) for e in printed if e["type"] == "tool_result"]
    assert ended == [("shell", False), ("ls", False)]
    logged = [r for r in read_events(session_id).events if r["type"] == "tool_result"]
    assert all("a hook stopped the work" in r["output"] for r in logged) and len(logged) == 2

    (agent_tui_home / "config.toml").write_text("")
    resumed = await _resume_and_ask(fake_provider, tmp_path, "openai", session_id)

    assert resumed.ok, resumed.error


def test_a_text_protocol_call_without_a_result_is_answered_before_the_next_prompt():
    from agent_tui.core.sessions.log import SessionLog
    from agent_tui.core.sessions.resume import restore

    log = SessionLog("old", {"type": "session"}, [
        {"type": "user_message", "text": "look around"},
        {"type": "assistant_message", "text": "Looking.", "tool_calls": [
            {"id": "t0-1", "name": "ls", "arguments": "{}"}]},
        {"type": "user_message", "text": "stop that"},
        {"type": "tool_result", "id": "t0-1", "name": "ls", "ok": True, "output": "late"},
    ])

    messages = restore(log, native_tools=False).messages

    assert [m["role"] for m in messages] == ["user", "assistant", "user", "user"]
    assert messages[2]["content"].startswith("Tool results:")
    assert UNANSWERED_CALL in messages[2]["content"] and "late" not in messages[2]["content"]
    assert messages[3]["content"] == "stop that"
