"""``session/cancel`` over real stdio: every tool call ends in the client with a final status,
the cancelled session loads and goes on with a history the provider accepts, and the agent
runs with its stdout redirected to a file."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from acp import text_block
from acp.schema import McpServerStdio, ToolCallProgress, ToolCallStart

from tests.core.mcp.servers import demo_script
from tests.fakes.providers import Reply, ToolCall
from tests.tui.acp.test_acp import RecordingClient, acp_env, start

FINAL = {"completed", "failed"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "notes.txt").write_text("first line\n")
    return folder


def last_status(client: RecordingClient) -> dict[str, str | None]:
    """Each call the client was shown, with the last status it was told."""
    status: dict[str, str | None] = {}
    for _, update in client.updates:
        if isinstance(update, ToolCallStart):
            status[update.tool_call_id] = update.status
        elif isinstance(update, ToolCallProgress) and update.status is not None:
            status[update.tool_call_id] = update.status
    return status


async def until(condition: Any) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, "the call never got there"
        await asyncio.sleep(0.05)


@pytest.mark.parametrize("point", ["asking", "running shell", "running MCP tool"])
async def test_cancel_ends_every_call_and_the_session_loads_with_a_valid_history(
        fake_provider, tmp_path, project, point):
    fake_provider.validate_history = True
    first = {"asking": ToolCall("shell", {"command": "touch never.txt"}),
             "running shell": ToolCall("shell", {"command": "echo started; sleep 30"}),
             "running MCP tool": ToolCall("mcp__demo__slow", {"seconds": 30})}[point]
    fake_provider.script(
        Reply(tool_calls=[first, ToolCall("read_file", {"file_path": "notes.txt"})]))
    client = RecordingClient()
    client.hold = asyncio.Event()  # the person does not answer before the cancel
    servers = [McpServerStdio(name="demo", command=sys.executable,
                              args=[str(demo_script(tmp_path))], env=[])
               ] if point == "running MCP tool" else []
    mode = () if point == "asking" else ("--approval-mode", "yolo")
    context, conn, _ = await start(client, fake_provider, tmp_path, *mode)
    try:
        new = await conn.new_session(cwd=str(project), mcp_servers=servers)
        running = asyncio.create_task(conn.prompt(session_id=new.session_id,
                                                  prompt=[text_block("go")]))
        await until(lambda: client.asking.is_set() if point == "asking"
                    else "in_progress" in last_status(client).values())
        if point == "running shell":
            await until(lambda: "started" in json.dumps(
                [u.model_dump(mode="json") for u in client.of(ToolCallProgress)]))
        await conn.cancel(session_id=new.session_id)
        reply = await asyncio.wait_for(running, 60)
    finally:
        client.hold.set()
        await context.__aexit__(None, None, None)

    assert reply.stop_reason == "cancelled"
    shown = last_status(client)
    assert len(shown) == 2 and set(shown.values()) <= FINAL, shown
    ends = [u for u in client.of(ToolCallProgress) if u.status in FINAL]
    told = " ".join(b.content.text for u in ends for b in u.content or []
                    if hasattr(b, "content"))
    assert "cancelled" in told
    if point == "running shell":  # what it printed before the cancel stays shown
        assert "started" in told

    later = RecordingClient()
    fake_provider.script(Reply(text="Going on."))
    context, conn, _ = await start(later, fake_provider, tmp_path)
    try:
        await conn.load_session(cwd=str(project), session_id=new.session_id, mcp_servers=[])
        replayed = last_status(later)
        again = await conn.prompt(session_id=new.session_id, prompt=[text_block("and now?")])
    finally:
        await context.__aexit__(None, None, None)
    assert set(replayed.values()) <= FINAL and len(replayed) == 2
    assert again.stop_reason == "end_turn"
    assert len(fake_provider.requests[-1].tool_results()) == 2


async def test_a_loaded_old_session_shows_no_call_running_forever(
        fake_provider, tmp_path, project, monkeypatch):
    """A log written before cancelled calls were recorded: the call it never ended is shown
    failed when the session is loaded, not left running."""
    from agent_tui.core.sessions.log import SessionStore

    monkeypatch.setenv("AGENT_TUI_HOME", acp_env(tmp_path)["AGENT_TUI_HOME"])
    with SessionStore.create("old-one", project=project, model="openai/fake-model") as store:
        for record in [
            {"type": "user_message", "text": "run it"},
            {"type": "assistant_message", "text": "", "tool_calls": [
                {"id": "call_a", "name": "shell", "arguments": '{"command": "sleep 30"}'}]},
            {"type": "tool_call", "id": "call_a", "name": "shell",
             "args": {"command": "sleep 30"}, "summary": "sleep 30"},
        ]:
            store.append(record)
    client = RecordingClient()
    context, conn, _ = await start(client, fake_provider, tmp_path)
    try:
        await conn.load_session(cwd=str(project), session_id="old-one", mcp_servers=[])
    finally:
        await context.__aexit__(None, None, None)
    assert last_status(client) == {"call_a": "failed"}


def test_acp_with_stdout_in_a_file_answers_there(tmp_path):
    requests = tmp_path / "requests.jsonl"
    requests.write_text(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                    "params": {"protocolVersion": 1}}) + "\n")
    replies = tmp_path / "replies.jsonl"
    with requests.open("rb") as stdin, replies.open("wb") as stdout:
        done = subprocess.run(
            [sys.executable, "-m", "agent_tui.tui.cli.main", "acp", "--model", "openai/fake-model",
             "--api-key", "sk-test"], stdin=stdin, stdout=stdout, stderr=subprocess.PIPE,
            text=True, env=acp_env(tmp_path), cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    [reply] = [json.loads(line) for line in replies.read_text().splitlines()]
    assert reply["id"] == 1 and reply["result"]["agentInfo"]["name"] == "agent-tui"


def test_acp_with_stdout_closed_says_so_in_one_line(tmp_path):
    done = subprocess.run(
        ["bash", "-c", f"exec {sys.executable} -m agent_tui.tui.cli.main acp --model "
         "openai/fake-model --api-key sk-test >&-"],
        stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=acp_env(tmp_path),
        cwd=tmp_path, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "agent-tui acp: stdin and stdout must be open: an ACP client connects them to pipes; "
        "start it from one, or with both open (files or a terminal)."]
