"""Reading MCP servers from config.toml and .mcp.json: shapes, ${VAR}, trust, bad entries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.core.mcp import McpServerConfig, load_mcp_config


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder (a git checkout's root) with its ``.agent-tui`` folder."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / ".agent-tui").mkdir()
    return root


@pytest.fixture
def user_config(agent_tui_home: Path) -> Path:
    return agent_tui_home / "config.toml"


def trust(user_config: Path, project: Path, extra: str = "") -> None:
    user_config.write_text(f"trusted_projects = [{json.dumps(str(project.resolve()))}]\n"
                           + extra)


def by_name(servers: list[McpServerConfig]) -> dict[str, McpServerConfig]:
    return {server.name: server for server in servers}


def test_toml_tables_in_the_user_config(user_config: Path, project: Path) -> None:
    user_config.write_text('''
[mcp_servers.files]
command = "npx"
args = ["-y", "server-files", "."]
env = { LEVEL = "debug" }

[mcp_servers.docs]
url = "https://docs.example/mcp"
headers = { Authorization = "Bearer abc" }
timeout = 120
enabled_tools = ["search"]

[mcp_servers.events]
url = "https://events.example/sse"
transport = "sse"
cwd = "ignored-for-http"
''')
    servers, warnings = load_mcp_config(project)
    assert warnings == []
    found = by_name(servers)
    assert list(found) == ["files", "docs", "events"]
    files = found["files"]
    assert (files.transport, files.command, files.args) == ("stdio", "npx",
                                                           ("-y", "server-files", "."))
    assert files.env == {"LEVEL": "debug"}
    assert files.cwd == project.resolve()  # stdio servers run in the project's root
    assert (files.timeout, files.enabled_tools, files.source) == (60.0, None, user_config)
    docs = found["docs"]
    assert (docs.transport, docs.url, docs.timeout) == ("http", "https://docs.example/mcp", 120)
    assert docs.headers == {"Authorization": "Bearer abc"}
    assert docs.enabled_tools == ("search",)
    assert found["events"].transport == "sse"


def test_claude_codes_mcp_json(user_config: Path, project: Path,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    trust(user_config, project)
    monkeypatch.setenv("DOCS_TOKEN", "t0k3n")
    monkeypatch.setenv("DATA_DIR", "/srv/data")
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "files": {"command": "server-files", "args": ["${DATA_DIR}/in"],
                  "env": {"LEVEL": "${LOG_LEVEL:-info}"}},
        "docs": {"type": "http", "url": "https://docs.example/mcp",
                 "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}},
        "events": {"type": "sse", "url": "https://events.example/sse"},
        "broken": {"command": "x", "env": {"KEY": "${NOT_SET_ANYWHERE}"}},
    }}))
    servers, warnings = load_mcp_config(project)
    found = by_name(servers)
    assert list(found) == ["files", "docs", "events"]
    assert found["files"].args == ("/srv/data/in",)
    assert found["files"].env == {"LEVEL": "info"}
    assert found["files"].source == project / ".mcp.json"
    assert found["docs"].headers == {"Authorization": "Bearer t0k3n"}
    assert found["events"].transport == "sse"
    [warning] = warnings
    assert str(project / ".mcp.json") in warning
    assert "'broken'" in warning
    assert "${NOT_SET_ANYWHERE}" in warning and "set it" in warning


def test_an_untrusted_projects_servers_are_skipped(user_config: Path, project: Path) -> None:
    user_config.write_text('[mcp_servers.mine]\ncommand = "mine"\n')
    (project / ".mcp.json").write_text('{"mcpServers": {"theirs": {"command": "evil"}}}')
    (project / ".agent-tui" / "config.toml").write_text(
        '[mcp_servers.local]\ncommand = "local"\n')
    servers, warnings = load_mcp_config(project)
    assert [server.name for server in servers] == ["mine"]
    assert len(warnings) == 2
    for warning, file in zip(warnings, (project / ".mcp.json",
                                        project / ".agent-tui" / "config.toml"), strict=True):
        assert warning.startswith(str(file))
        assert "not trusted" in warning
        assert f"trusted_projects in {user_config}" in warning


def test_a_trusted_projects_server_wins_over_the_users(user_config: Path,
                                                       project: Path) -> None:
    trust(user_config, project, '[mcp_servers.shared]\ncommand = "users-own"\n'
                                '[mcp_servers.mine]\ncommand = "mine"\n')
    (project / ".mcp.json").write_text('{"mcpServers": {"shared": {"command": "from-json"}}}')
    (project / ".agent-tui" / "config.toml").write_text(
        '[mcp_servers.shared]\ncommand = "projects-own"\ncwd = "tools"\n')
    servers, warnings = load_mcp_config(project)
    assert warnings == []
    found = by_name(servers)
    assert found["shared"].command == "projects-own"
    assert found["shared"].cwd == project.resolve() / "tools"
    assert found["mine"].command == "mine"


def test_bad_entries_are_warnings_and_the_rest_loads(user_config: Path, project: Path) -> None:
    user_config.write_text('''
[mcp_servers.good]
command = "good"

[mcp_servers.neither]
args = ["x"]

[mcp_servers.both]
command = "x"
url = "https://x.example"

[mcp_servers.wrong_transport]
url = "https://x.example"
transport = "carrier-pigeon"

[mcp_servers.bad_timeout]
command = "x"
timeout = -1

[mcp_servers.bad_env]
command = "x"
env = { PORT = 8080 }

[mcp_servers.typo]
command = "typo"
argz = ["x"]
''')
    servers, warnings = load_mcp_config(project)
    assert [server.name for server in servers] == ["good", "typo"]
    text = "\n".join(warnings)
    assert all(warning.startswith(str(user_config)) for warning in warnings)
    assert "'neither' skipped: it needs `command`" in text
    assert "'both' skipped: it sets both `command` and `url`" in text
    assert "'wrong_transport' skipped: `transport` must be one of stdio, http, sse" in text
    assert "'bad_timeout' skipped: `timeout` must be a number of seconds above 0" in text
    assert "'bad_env' skipped: `env`: the value of PORT must be a string (quote it)" in text
    assert "'typo': unknown key(s) argz ignored" in text


def test_unreadable_files_are_warnings(user_config: Path, project: Path) -> None:
    trust(user_config, project, '[mcp_servers.mine]\ncommand = "mine"\n')
    (project / ".mcp.json").write_text("{not json")
    (project / ".agent-tui" / "config.toml").write_text("mcp_servers = 3\n")
    servers, warnings = load_mcp_config(project)
    assert [server.name for server in servers] == ["mine"]
    assert "is not valid JSON" in warnings[0] and "MCP servers were not loaded" in warnings[0]
    assert "`mcp_servers` must be a table of servers" in warnings[1]


def test_a_server_can_be_off_in_its_config(user_config: Path, project: Path) -> None:
    user_config.write_text('[mcp_servers.quiet]\ncommand = "x"\nenabled = false\n')
    [server], warnings = load_mcp_config(project)
    assert (server.enabled, warnings) == (False, [])
