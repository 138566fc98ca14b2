"""Stdio MCP servers, started for real: tools listed and called, failures said clearly."""

from __future__ import annotations

import base64
import json
import os
import sys
from pathlib import Path

import pytest

from agent_tui.core.mcp import McpError, McpServerConfig
from agent_tui.core.mcp.server_config import parse_server
from tests.processes import gone

from .conftest import MakeManager
from .servers import DEMO_TOOLS, stdio_config


async def test_tools_are_listed_and_called(manager: MakeManager, tmp_path: Path) -> None:
    mcp = manager(stdio_config(tmp_path))
    await mcp.start()
    await mcp.wait_ready(20)
    server = mcp.servers["demo"]
    assert (server.state, server.error) == ("ready", "")
    tools = {tool.name: tool for tool in mcp.tools()}
    assert sorted(tools) == sorted(DEMO_TOOLS)
    assert tools["echo"].server == "demo"
    assert tools["echo"].description == "Echo the text back."
    assert tools["echo"].input_schema["required"] == ["text"]

    echoed = await mcp.call("demo", "echo", {"text": "hi", "times": 2})
    assert (echoed.text, echoed.is_error, echoed.images) == ("hi hi", False, [])

    picture = await mcp.call("demo", "picture", {})
    assert picture.text == "a red dot"
    [(mime, data)] = picture.images
    assert mime == "image/png"
    assert base64.b64decode(data).startswith(b"\x89PNG")

    refused = await mcp.call("demo", "refuse", {})
    assert refused.is_error
    assert "the demo refuses politely" in refused.text

    document = await mcp.call("demo", "document", {})
    assert document.text == "the notes' text"


async def test_enabled_tools_limits_what_is_offered(manager: MakeManager,
                                                    tmp_path: Path) -> None:
    mcp = manager(stdio_config(tmp_path, enabled_tools=("echo",)))
    await mcp.start()
    await mcp.wait_ready(20)
    assert [tool.name for tool in mcp.tools()] == ["echo"]
    with pytest.raises(McpError, match="not enabled.*enabled_tools"):
        await mcp.call("demo", "picture", {})


ENVIRONMENT_SERVER = """
import json, os
from mcp.server.mcpserver import MCPServer
server = MCPServer("environment")

@server.tool()
def environment() -> str:
    \"\"\"This process's whole environment, as the reference server's get-env tool gives it.\"\"\"
    return json.dumps(dict(os.environ))

server.run()
"""


async def test_a_server_gets_a_clean_environment_plus_its_own_env(
        manager: MakeManager, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"OPENAI_API_KEY": "sk-agents-own", "GITHUB_TOKEN": "gh-agents-own",
                        "AWS_SECRET_ACCESS_KEY": "aws-agents-own", "HOME": "/home/someone",
                        "LANG": "C.UTF-8", "LC_TIME": "C", "AGENT_TUI_MODEL": "openai/gpt",
                        "PYTHONPATH": str(tmp_path / "nowhere"), "LC_SECRET": "no",
                        "BASH_FUNC_f%%": "() {  echo;\n}"}.items():
        monkeypatch.setenv(name, value)
    script = tmp_path / "environment_server.py"
    script.write_text(ENVIRONMENT_SERVER)
    # A key reaches a server only when its configuration names it, here as ${GITHUB_TOKEN}.
    config = parse_server("environment", {"command": sys.executable, "args": [str(script)],
                                          "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}",
                                                  "SERVICE_MODE": "strict"}},
                          tmp_path / "config.toml", json_shape=False, environ=os.environ,
                          default_cwd=tmp_path, warnings=[])
    mcp = manager(config)
    await mcp.start()
    await mcp.wait_ready(20)
    seen = json.loads((await mcp.call("environment", "environment", {})).text)

    assert seen["GITHUB_TOKEN"] == "gh-agents-own"
    assert seen["SERVICE_MODE"] == "strict"
    assert seen["PATH"] == os.environ["PATH"]
    assert seen["HOME"] == "/home/someone"
    assert (seen["LANG"], seen["LC_TIME"]) == ("C.UTF-8", "C")
    for withheld in ("OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "AGENT_TUI_MODEL",
                     "PYTHONPATH", "LC_SECRET", "BASH_FUNC_f%%"):
        assert withheld not in seen
    inherited = {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LANGUAGE"}
    assert {name for name in seen if not name.startswith("LC_")} <= inherited | {
        "GITHUB_TOKEN", "SERVICE_MODE"}


async def test_the_environment_given_to_the_manager_is_filtered_the_same_way(
        manager: MakeManager, tmp_path: Path) -> None:
    mcp = manager(stdio_config(tmp_path, env={"DEMO_TOKEN": "secret"}),
                  env={"PATH": os.environ["PATH"], "USER": "someone", "FROM_AGENT": "yes",
                       "ANTHROPIC_API_KEY": "sk-ant"})
    await mcp.start()
    await mcp.wait_ready(20)
    assert (await mcp.call("demo", "env", {"name": "DEMO_TOKEN"})).text == "secret"
    assert (await mcp.call("demo", "env", {"name": "USER"})).text == "someone"
    assert (await mcp.call("demo", "env", {"name": "FROM_AGENT"})).text == "<unset>"
    assert (await mcp.call("demo", "env", {"name": "ANTHROPIC_API_KEY"})).text == "<unset>"


async def test_a_server_that_exits_at_start_is_told_how_to_pass_it_a_variable(
        manager: MakeManager, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERVICE_API_KEY", "in-agent-tuis-environment")
    script = tmp_path / "needs_key.py"
    script.write_text("import os, sys\n"
                      "if 'SERVICE_API_KEY' not in os.environ:\n"
                      "    sys.exit('SERVICE_API_KEY is not set')\n")
    mcp = manager(McpServerConfig(name="needy", transport="stdio", source=tmp_path / "c.toml",
                                  command=sys.executable, args=(str(script),)))
    await mcp.start()
    await mcp.wait_ready(20)
    server = mcp.servers["needy"]
    assert server.state == "failed"
    assert "SERVICE_API_KEY is not set" in server.error
    assert ("It starts with only HOME, LOGNAME, PATH, SHELL, TERM, USER and the locale"
            in server.error)
    assert f"name it in its `env` in {tmp_path / 'c.toml'}" in server.error


async def test_stderr_goes_to_the_log_not_ours(manager: MakeManager, tmp_path: Path,
                                               capfd: pytest.CaptureFixture[str]) -> None:
    mcp = manager(stdio_config(tmp_path))
    await mcp.start()
    await mcp.wait_ready(20)
    await mcp.call("demo", "echo", {"text": "hi"})
    server = mcp.servers["demo"]
    assert server.log_path == tmp_path / "logs" / "demo.log"
    assert "demo server: starting" in server.log_path.read_text()
    assert "demo server: starting" in server.stderr_tail()
    await mcp.close()
    out, err = capfd.readouterr()
    assert "demo server" not in out + err


async def test_start_returns_before_servers_are_ready(manager: MakeManager,
                                                      tmp_path: Path) -> None:
    changes: list[str] = []
    mcp = manager(stdio_config(tmp_path),
                  on_change=lambda: changes.append(mcp.servers["demo"].state))
    await mcp.start()
    assert mcp.servers["demo"].state == "starting"
    assert mcp.tools() == []
    await mcp.wait_ready(20)
    assert changes[-1] == "ready"


async def test_a_crash_during_a_call_restarts_the_server(manager: MakeManager,
                                                         tmp_path: Path) -> None:
    changes: list[str] = []
    mcp = manager(stdio_config(tmp_path),
                  on_change=lambda: changes.append(mcp.servers["demo"].state))
    await mcp.start()
    await mcp.wait_ready(20)
    with pytest.raises(McpError) as caught:
        await mcp.call("demo", "crash", {})
    message = str(caught.value)
    assert "the MCP server demo stopped (exit code 3)" in message
    assert "demo server: crashing now" in message
    assert "it is being restarted" in message
    # The next call waits for the restart and works.
    assert (await mcp.call("demo", "echo", {"text": "back"})).text == "back"
    assert changes[-3:] == ["ready", "starting", "ready"]


async def test_a_server_that_hangs_at_startup_fails_and_the_rest_are_ready(
        manager: MakeManager, tmp_path: Path) -> None:
    hung = stdio_config(tmp_path, name="hung", env={"DEMO_HANG": "1"})
    mcp = manager(hung, stdio_config(tmp_path), startup_timeout=2)
    await mcp.start()
    await mcp.wait_ready(20)
    assert mcp.servers["demo"].state == "ready"
    server = mcp.servers["hung"]
    assert server.state == "failed"
    assert "did not finish starting within 2 s" in server.error
    assert "demo server: starting" in server.error  # its stderr, to see why
    assert {tool.server for tool in mcp.tools()} == {"demo"}
    with pytest.raises(McpError, match="the MCP server hung is not running"):
        await mcp.call("hung", "echo", {"text": "x"})


async def test_a_call_that_times_out_leaves_the_session_working(
        manager: MakeManager, tmp_path: Path) -> None:
    mcp = manager(stdio_config(tmp_path))
    await mcp.start()
    await mcp.wait_ready(20)
    with pytest.raises(McpError, match=r"did not answer slow within 0.5 s.*raise `timeout`"):
        await mcp.call("demo", "slow", {"seconds": 30}, timeout=0.5)
    assert mcp.servers["demo"].state == "ready"
    assert (await mcp.call("demo", "echo", {"text": "still here"})).text == "still here"


async def test_a_program_that_is_not_an_mcp_server_fails_clearly(
        manager: MakeManager, tmp_path: Path) -> None:
    chatty = McpServerConfig(name="chatty", transport="stdio", source=tmp_path / "config.toml",
                             command=sys.executable, args=("-c", "print('hello')"))
    mcp = manager(chatty)
    await mcp.start()
    await mcp.wait_ready(20)
    server = mcp.servers["chatty"]
    assert server.state == "failed"
    assert "does not speak MCP" in server.error
    assert "'hello'" in server.error
    assert str(tmp_path / "config.toml") in server.error


async def test_a_missing_command_fails_clearly(manager: MakeManager, tmp_path: Path) -> None:
    missing = McpServerConfig(name="gone", transport="stdio", source=tmp_path / "config.toml",
                              command="no-such-mcp-server-here")
    mcp = manager(missing)
    await mcp.start()
    await mcp.wait_ready(20)
    assert mcp.servers["gone"].state == "failed"
    assert "'no-such-mcp-server-here' was not found" in mcp.servers["gone"].error


async def test_close_ends_the_process_group(manager: MakeManager, tmp_path: Path) -> None:
    mcp = manager(stdio_config(tmp_path))
    await mcp.start()
    await mcp.wait_ready(20)
    server_pid, child_pid = map(int, (await mcp.call("demo", "pids", {})).text.split())
    assert os.getpgid(child_pid) == server_pid  # the server leads its own group
    await mcp.close()
    assert await gone(server_pid, 5)
    assert await gone(child_pid, 5)
    assert _group_members(server_pid) == []


def _group_members(pgid: int) -> list[int]:
    """The live processes of a process group (zombies awaiting a reaper do not count)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, _ppid, group = stat.read_text().rsplit(")", 1)[1].split()[:3]
        except (OSError, IndexError):
            continue
        if int(group) == pgid and state != "Z":
            members.append(int(stat.parent.name))
    return members


async def test_disable_and_reconnect(manager: MakeManager, tmp_path: Path) -> None:
    mcp = manager(stdio_config(tmp_path))
    await mcp.start()
    await mcp.wait_ready(20)
    mcp.disable("demo")
    assert mcp.servers["demo"].state == "disabled"
    assert mcp.tools() == []
    with pytest.raises(McpError, match="is disabled; enable it"):
        await mcp.call("demo", "echo", {"text": "x"})
    await mcp.reconnect("demo")
    await mcp.wait_ready(20)
    assert (await mcp.call("demo", "echo", {"text": "again"})).text == "again"
    with pytest.raises(McpError, match="no MCP server named 'other'"):
        await mcp.reconnect("other")


async def test_a_server_disabled_in_its_config_does_not_start(manager: MakeManager,
                                                              tmp_path: Path) -> None:
    mcp = manager(stdio_config(tmp_path, enabled=False))
    await mcp.start()
    await mcp.wait_ready(5)
    assert mcp.servers["demo"].state == "disabled"
    assert not mcp.servers["demo"].log_path.exists()
