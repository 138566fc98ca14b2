"""``agent-tui acp`` as a real subprocess, driven by the ACP package's own client side over
stdio, answering with the fake provider through litellm and real HTTP."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process, text_block
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AllowedOutcome,
    AvailableCommandsUpdate,
    ClientCapabilities,
    CreateTerminalResponse,
    CurrentModeUpdate,
    DeniedOutcome,
    EmbeddedResourceContentBlock,
    FileEditToolCallContent,
    FileSystemCapabilities,
    ImageContentBlock,
    KillTerminalResponse,
    McpServerStdio,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    ResourceContentBlock,
    TerminalOutputResponse,
    TerminalToolCallContent,
    TextResourceContents,
    ToolCallProgress,
    ToolCallStart,
    UserMessageChunk,
    WaitForTerminalExitResponse,
)

from tests.core.mcp.servers import demo_script
from tests.fakes.providers import Fault, Reply, ToolCall

PNG_1PX = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGA"
           "hKmMIQAAAABJRU5ErkJggg==")


class RecordingClient:
    """An ACP client that records every update and answers permission requests with the
    option ids it is given, in order (``cancel`` answers ``cancelled``)."""

    def __init__(self, answers: list[str] | None = None) -> None:
        self.updates: list[tuple[str, Any]] = []
        self.asked: list[Any] = []
        self.answers = list(answers or [])
        self.asking = asyncio.Event()
        self.hold: asyncio.Event | None = None  # set: answer; unset: wait (to cancel)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any],
                                 **kwargs: Any) -> RequestPermissionResponse:
        self.asked.append((tool_call, options))
        self.asking.set()
        if self.hold is not None:
            await self.hold.wait()
        answer = self.answers.pop(0) if self.answers else "cancel"
        if answer == "cancel":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(option_id=answer,
                                                                outcome="selected"))

    def of(self, kind: type, session_id: str | None = None) -> list[Any]:
        return [u for s, u in self.updates
                if isinstance(u, kind) and (session_id is None or s == session_id)]

    def text(self, session_id: str | None = None) -> str:
        return "".join(u.content.text for u in self.of(AgentMessageChunk, session_id))

    def on_connect(self, conn: Any) -> None:
        pass


class EditorClient(RecordingClient):
    """A client that offers its file system (buffers by path, else the disk) and terminals
    that run each command in a real process, as Zed does."""

    def __init__(self, answers: list[str] | None = None) -> None:
        super().__init__(answers)
        self.buffers: dict[str, str] = {}
        self.reads: list[str] = []
        self.terminals: dict[str, dict[str, Any]] = {}
        self.released: list[str] = []

    async def read_text_file(self, session_id: str, path: str, line: int | None = None,
                             limit: int | None = None, **kwargs: Any) -> ReadTextFileResponse:
        self.reads.append(path)
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        try:
            return ReadTextFileResponse(content=Path(path).read_text())
        except OSError as exc:
            raise RequestError.resource_not_found(path) from exc

    async def create_terminal(self, session_id: str, command: str,
                              args: list[str] | None = None, env: list[Any] | None = None,
                              cwd: str | None = None, output_byte_limit: int | None = None,
                              **kwargs: Any) -> CreateTerminalResponse:
        proc = await asyncio.create_subprocess_exec(
            command, *(args or []), cwd=cwd, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env={**os.environ, **{v.name: v.value for v in env or []}})
        terminal = {"proc": proc, "output": "", "command": [command, *(args or [])]}

        async def pump() -> None:
            while chunk := await proc.stdout.read(1024):
                terminal["output"] += chunk.decode()

        terminal["pump"] = asyncio.create_task(pump())
        terminal_id = f"term-{len(self.terminals) + 1}"
        self.terminals[terminal_id] = terminal
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(self, session_id: str, terminal_id: str,
                              **kwargs: Any) -> TerminalOutputResponse:
        return TerminalOutputResponse(output=self.terminals[terminal_id]["output"],
                                      truncated=False)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str,
                                     **kwargs: Any) -> WaitForTerminalExitResponse:
        terminal = self.terminals[terminal_id]
        code = await terminal["proc"].wait()
        await terminal["pump"]
        return WaitForTerminalExitResponse(exit_code=code)

    async def kill_terminal(self, session_id: str, terminal_id: str,
                            **kwargs: Any) -> KillTerminalResponse:
        proc = self.terminals[terminal_id]["proc"]
        if proc.returncode is None:
            proc.kill()
        return KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str,
                               **kwargs: Any) -> ReleaseTerminalResponse:
        self.released.append(terminal_id)
        return ReleaseTerminalResponse()


EDITOR_CAPABILITIES = ClientCapabilities(
    fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=True)


def acp_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.endswith("_API_KEY") and not k.startswith("AGENT_TUI_")}
    env.update(AGENT_TUI_HOME=str(tmp_path / ".home"), AGENT_TUI_MAX_RETRIES="2",
               AGENT_TUI_RETRY_BASE_DELAY="0")
    return env


def flags(fake: Any, *more: str) -> list[str]:
    return ["-m", "agent_tui.tui.cli.main", "acp", "--model", "openai/fake-model", "--api-base",
            fake.openai_base, "--api-key", "sk-test", *more]


async def start(client: RecordingClient, fake: Any, tmp_path: Path, *more: str,
                capabilities: ClientCapabilities | None = None) -> Any:
    context = spawn_agent_process(client, sys.executable, *flags(fake, *more),
                                  env=acp_env(tmp_path), cwd=tmp_path)
    conn, process = await context.__aenter__()
    await conn.initialize(protocol_version=PROTOCOL_VERSION,
                          client_capabilities=capabilities or ClientCapabilities())
    return context, conn, process


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "notes.txt").write_text("first line\n")
    return folder


async def test_initialize_says_what_agent_tui_offers(fake_provider, tmp_path):
    client = RecordingClient()
    context = spawn_agent_process(client, sys.executable, *flags(fake_provider),
                                  env=acp_env(tmp_path), cwd=tmp_path)
    async with context as (conn, _process):
        reply = await conn.initialize(protocol_version=PROTOCOL_VERSION,
                                      client_capabilities=ClientCapabilities())
    assert reply.protocol_version == PROTOCOL_VERSION
    assert reply.agent_info.name == "agent-tui"
    caps = reply.agent_capabilities
    assert caps.load_session and caps.prompt_capabilities.image
    assert caps.prompt_capabilities.embedded_context
    assert caps.mcp_capabilities.http and caps.mcp_capabilities.sse
    assert caps.session_capabilities.list is not None


async def test_a_prompt_streams_the_answer_and_records_the_session(fake_provider, tmp_path,
                                                                   project):
    fake_provider.script(Reply(text="Hello from the model, in pieces."))
    client = RecordingClient()
    context, conn, _ = await start(client, fake_provider, tmp_path)
    try:
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        assert new.modes.current_mode_id == "default"
        assert [m.id for m in new.modes.available_modes] == ["default", "auto-edit", "plan",
                                                             "yolo"]
        reply = await conn.prompt(session_id=new.session_id, prompt=[text_block("say hi")])
        assert reply.stop_reason == "end_turn"
        assert client.text(new.session_id) == "Hello from the model, in pieces."
        assert fake_provider.requests[0].last_user_text() == "say hi"
        listed = await conn.list_sessions(cwd=str(project))
    finally:
        await context.__aexit__(None, None, None)
    assert [s.session_id for s in listed.sessions] == [new.session_id]
    assert listed.sessions[0].cwd == str(project)
    # Our own session store has it: the workbench can --resume it.
    assert any(new.session_id in str(p) for p in (tmp_path / ".home").rglob("*.jsonl"))


async def test_an_edit_asks_with_a_diff_and_runs_once_allowed(fake_provider, tmp_path,
                                                              project):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "notes.txt"})]),
        Reply(tool_calls=[ToolCall("edit_file", {"file_path": "notes.txt",
                                                 "old_string": "first line",
                                                 "new_string": "changed line"})]),
        Reply(text="Edited."))
    client = RecordingClient(answers=["allow_once"])
    context, conn, _ = await start(client, fake_provider, tmp_path)
    try:
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        reply = await conn.prompt(session_id=new.session_id, prompt=[text_block("edit it")])
    finally:
        await context.__aexit__(None, None, None)
    assert reply.stop_reason == "end_turn"
    assert (project / "notes.txt").read_text() == "changed line\n"
    [(call, options)] = client.asked  # the read did not ask
    assert call.kind == "edit" and call.status == "pending"
    diff = call.content[0]
    assert isinstance(diff, FileEditToolCallContent)
    assert diff.path == str(project / "notes.txt")
    assert (diff.old_text, diff.new_text) == ("first line\n", "changed line\n")
    assert [o.kind for o in options] == ["allow_once", "allow_always", "reject_once"]
    starts = client.of(ToolCallStart)
    assert [s.kind for s in starts] == ["read", "edit"]
    assert starts[0].locations[0].path == str(project / "notes.txt")
    ends = [u for u in client.of(ToolCallProgress) if u.status == "completed"]
    assert len(ends) == 2
    assert isinstance(ends[1].content[0], FileEditToolCallContent)
    # The start of a call reaches the client before the question about it.
    kinds = [type(u).__name__ for _, u in client.updates]
    assert kinds.index("ToolCallStart") < len(kinds)


async def test_reject_refuses_and_allow_always_lasts_the_session(fake_provider, tmp_path,
                                                                 project):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "touch refused.txt"})]),
        Reply(text="It was refused."),
        Reply(tool_calls=[ToolCall("shell", {"command": "touch a.txt"})]),
        Reply(text="Once more.", tool_calls=[ToolCall("shell", {"command": "touch a.txt"})]),
        Reply(text="Made twice."))
    client = RecordingClient(answers=["reject_once", "allow_session"])
    context, conn, _ = await start(client, fake_provider, tmp_path)
    try:
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        first = await conn.prompt(session_id=new.session_id, prompt=[text_block("one")])
        second = await conn.prompt(session_id=new.session_id, prompt=[text_block("two")])
    finally:
        await context.__aexit__(None, None, None)
    assert (first.stop_reason, second.stop_reason) == ("end_turn", "end_turn")
    assert not (project / "refused.txt").exists()
    assert (project / "a.txt").exists()
    assert len(client.asked) == 2  # the second touch ran on the session's rule: not asked
    assert len([u for u in client.of(ToolCallProgress) if u.status == "completed"]) == 2
    assert "denied by the user" in fake_provider.requests[1].tool_results()[0]["content"]
    call, options = client.asked[1]
    assert call.kind == "execute" and "touch a.txt" in call.content[0].content.text
    assert options[1].name == "Always allow in this session: shell(touch a.txt)"
    failed = [u for u in client.of(ToolCallProgress) if u.status == "failed"]
    assert len(failed) == 1 and "denied" in failed[0].content[0].content.text
    assert failed[0].raw_output == {"ok": False, "error_type": "denied"}


async def test_modes_switch_the_approval_mode(fake_provider, tmp_path, project):
    fake_provider.script(Reply(tool_calls=[ToolCall("shell", {"command": "touch yolo.txt"})]),
                         Reply(text="done"))
    client = RecordingClient()
    context, conn, _ = await start(client, fake_provider, tmp_path)
    try:
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.set_session_mode(session_id=new.session_id, mode_id="yolo")
        reply = await conn.prompt(session_id=new.session_id, prompt=[text_block("go")])
        with pytest.raises(RequestError):
            await conn.set_session_mode(session_id=new.session_id, mode_id="careless")
    finally:
        await context.__aexit__(None, None, None)
    assert reply.stop_reason == "end_turn"
    assert (project / "yolo.txt").exists() and client.asked == []
    assert [u.current_mode_id for u in client.of(CurrentModeUpdate)] == ["yolo"]


async def test_cancel_ends_the_prompt_and_refuses_the_open_question(fake_provider, tmp_path,
                                                                     project):
    fake_provider.script(Reply(tool_calls=[ToolCall("shell", {"command": "touch never.txt"})]),
                         Reply(text="after the cancel"))
    client = RecordingClient(answers=["allow_once"])
    client.hold = asyncio.Event()
    context, conn, _ = await start(client, fake_provider, tmp_path)
    try:
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        running = asyncio.create_task(conn.prompt(session_id=new.session_id,
                                                  prompt=[text_block("go")]))
        await asyncio.wait_for(client.asking.wait(), 30)
        await conn.cancel(session_id=new.session_id)
        reply = await asyncio.wait_for(running, 30)
        client.hold.set()
        after = await conn.prompt(session_id=new.session_id, prompt=[text_block("again")])
    finally:
        await context.__aexit__(None, None, None)
    assert reply.stop_reason == "cancelled"
    assert not (project / "never.txt").exists()
    assert after.stop_reason == "end_turn"
    assert "after the cancel" in client.text()


async def test_load_replays_the_conversation_then_goes_on(fake_provider, tmp_path, project):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "notes.txt"})]),
        Reply(text="The file says first line."),
        Reply(text="Still here."))
    client = RecordingClient()
    context, conn, _ = await start(client, fake_provider, tmp_path)
    try:
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("read notes")])
    finally:
        await context.__aexit__(None, None, None)
    later = RecordingClient()
    context, conn, _ = await start(later, fake_provider, tmp_path)
    try:
        await conn.load_session(cwd=str(project), session_id=new.session_id, mcp_servers=[])
        replayed = list(later.updates)
        reply = await conn.prompt(session_id=new.session_id, prompt=[text_block("and now?")])
    finally:
        await context.__aexit__(None, None, None)
    kinds = [type(u) for _, u in replayed]
    assert kinds[:1] == [AvailableCommandsUpdate] or AvailableCommandsUpdate in kinds
    assert [u.content.text for _, u in replayed if isinstance(u, UserMessageChunk)] == [
        "read notes"]
    assert "The file says first line." in "".join(
        u.content.text for _, u in replayed if isinstance(u, AgentMessageChunk))
    assert any(isinstance(u, ToolCallStart) and u.kind == "read" for _, u in replayed)
    assert reply.stop_reason == "end_turn"
    # The model gets the whole conversation back.
    texts = json.dumps(fake_provider.requests[-1].messages)
    assert "read notes" in texts and "The file says first line." in texts


async def test_load_of_an_unknown_session_is_a_clear_error(fake_provider, tmp_path, project):
    client = RecordingClient()
    context, conn, _ = await start(client, fake_provider, tmp_path)
    try:
        with pytest.raises(RequestError) as raised:
            await conn.load_session(cwd=str(project), session_id="no-such-session",
                                    mcp_servers=[])
    finally:
        await context.__aexit__(None, None, None)
    assert "no-such-session" in str(raised.value)


async def test_images_and_files_in_the_prompt(fake_provider, tmp_path, project):
    fake_provider.script(Reply(text="I see them."))
    client = RecordingClient()
    context, conn, _ = await start(client, fake_provider, tmp_path,
                                   "--model", "openai/gpt-4o")
    try:
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        reply = await conn.prompt(session_id=new.session_id, prompt=[
            text_block("look at"),
            ResourceContentBlock(type="resource_link", uri=f"file://{project}/notes.txt",
                                 name="notes.txt"),
            EmbeddedResourceContentBlock(type="resource", resource=TextResourceContents(
                uri=f"file://{project}/src.py", text="print('hi')\n")),
            ImageContentBlock(type="image", data=PNG_1PX, mime_type="image/png",
                              uri="file:///tmp/dot.png")])
    finally:
        await context.__aexit__(None, None, None)
    assert reply.stop_reason == "end_turn"
    content = fake_provider.requests[0].messages[-1]["content"]
    text = content[0]["text"]
    assert text.startswith(f"look at @{project}/notes.txt")
    assert f'<file path="{project}/src.py">\nprint(\'hi\')\n</file>' in text
    assert content[1]["image_url"]["url"] == f"data:image/png;base64,{PNG_1PX}"


async def test_the_todo_list_is_the_plan(fake_provider, tmp_path, project):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("todo_write", {"content": "- [x] read\n- [ ] edit\n"
                                                             "- [ ] test\n"})]),
        Reply(text="planned"))
    client = RecordingClient()
    context, conn, _ = await start(client, fake_provider, tmp_path)
    try:
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("plan it")])
    finally:
        await context.__aexit__(None, None, None)
    [plan] = client.of(AgentPlanUpdate)
    assert [(e.content, e.status) for e in plan.entries] == [
        ("read", "completed"), ("edit", "in_progress"), ("test", "pending")]


async def test_a_failing_provider_is_an_error_the_client_shows(fake_provider, tmp_path,
                                                               project):
    fake_provider.script(*[Fault.server_error(500, "the upstream is on fire")] * 3)
    client = RecordingClient()
    context, conn, _ = await start(client, fake_provider, tmp_path)
    try:
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        with pytest.raises(RequestError) as raised:
            await conn.prompt(session_id=new.session_id, prompt=[text_block("hi")])
    finally:
        await context.__aexit__(None, None, None)
    assert "the upstream is on fire" in str(raised.value)


async def test_no_model_is_a_clear_error(tmp_path, project):
    client = RecordingClient()
    context = spawn_agent_process(client, sys.executable, "-m", "agent_tui.tui.cli.main", "acp",
                                  env=acp_env(tmp_path), cwd=tmp_path)
    async with context as (conn, _process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        with pytest.raises(RequestError) as raised:
            await conn.new_session(cwd=str(project), mcp_servers=[])
    assert "no model configured" in str(raised.value)


async def test_the_clients_mcp_server_lends_its_tools(fake_provider, tmp_path, project):
    script = demo_script(tmp_path)
    fake_provider.script(Reply(tool_calls=[ToolCall("mcp__demo__echo", {"text": "ping"})]),
                         Reply(text="echoed"))
    client = RecordingClient(answers=["allow_once"])
    context, conn, _ = await start(client, fake_provider, tmp_path)
    try:
        new = await conn.new_session(cwd=str(project), mcp_servers=[McpServerStdio(
            name="demo", command=sys.executable, args=[str(script)], env=[])])
        reply = await conn.prompt(session_id=new.session_id, prompt=[text_block("echo")])
    finally:
        await context.__aexit__(None, None, None)
    assert reply.stop_reason == "end_turn"
    assert "mcp__demo__echo" in [t["function"]["name"] for t in fake_provider.requests[0].tools]
    assert "ping" in fake_provider.requests[1].tool_results()[0]["content"]
    [(call, _options)] = client.asked
    assert '"text": "ping"' in call.content[0].content.text


async def test_unsaved_changes_in_the_clients_editor_are_never_overwritten(
        fake_provider, tmp_path, project):
    notes = str(project / "notes.txt")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "notes.txt"})]),
        Reply(tool_calls=[ToolCall("edit_file", {"file_path": "notes.txt",
                                                 "old_string": "first line",
                                                 "new_string": "agent's line"})]),
        Reply(text="The person is editing it; I left it alone."))
    client = EditorClient()
    client.buffers[notes] = "first line\nthe person's unsaved line\n"
    context, conn, _ = await start(client, fake_provider, tmp_path, "--approval-mode", "yolo",
                                   capabilities=EDITOR_CAPABILITIES)
    try:
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        reply = await conn.prompt(session_id=new.session_id, prompt=[text_block("edit")])
    finally:
        await context.__aexit__(None, None, None)
    assert reply.stop_reason == "end_turn"
    assert (project / "notes.txt").read_text() == "first line\n"
    assert notes in client.reads
    read, edit = fake_provider.requests[1].tool_results()[0], \
        fake_provider.requests[2].tool_results()[-1]
    assert "the person's editor holds unsaved changes to notes.txt" in read["content"]
    assert "notes.txt has unsaved changes in the person's editor" in edit["content"]


async def test_commands_run_in_the_clients_terminal_when_asked(fake_provider, tmp_path,
                                                               project):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "echo in-the-terminal; touch t.txt"})]),
        Reply(text="Ran it."))
    client = EditorClient()
    context, conn, _ = await start(client, fake_provider, tmp_path, "--approval-mode", "yolo",
                                   "--client-terminals", capabilities=EDITOR_CAPABILITIES)
    try:
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        reply = await conn.prompt(session_id=new.session_id, prompt=[text_block("run")])
    finally:
        await context.__aexit__(None, None, None)
    assert reply.stop_reason == "end_turn"
    [terminal] = client.terminals.values()
    assert terminal["command"] == ["bash", "-c", "echo in-the-terminal; touch t.txt"]
    assert (project / "t.txt").exists()
    assert client.released == ["term-1"]
    result = fake_provider.requests[1].tool_results()[0]["content"]
    assert "in-the-terminal" in result and "Exit code: 0" in result
    shown = [u for u in client.of(ToolCallProgress) if u.content
             and isinstance(u.content[0], TerminalToolCallContent)]
    assert shown and shown[0].content[0].terminal_id == "term-1"
    last = [u for u in client.of(ToolCallProgress)][-1]
    assert last.status == "completed" and last.content is None  # the terminal stays shown


async def test_without_the_flag_commands_run_in_agent_tui(fake_provider, tmp_path, project):
    fake_provider.script(Reply(tool_calls=[ToolCall("shell", {"command": "echo here"})]),
                         Reply(text="ok"))
    client = EditorClient()
    context, conn, _ = await start(client, fake_provider, tmp_path, "--approval-mode", "yolo",
                                   capabilities=EDITOR_CAPABILITIES)
    try:
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("run")])
    finally:
        await context.__aexit__(None, None, None)
    assert client.terminals == {}
    assert "here" in fake_provider.requests[1].tool_results()[0]["content"]


def test_acp_refuses_headless_flags(tmp_path):
    import subprocess

    done = subprocess.run([sys.executable, "-m", "agent_tui.tui.cli.main", "acp", "-p", "hi"],
                          capture_output=True, text=True, env=acp_env(tmp_path), cwd=tmp_path,
                          timeout=60)
    assert done.returncode == 2
    assert "in ACP mode the client sends the prompts" in done.stderr
