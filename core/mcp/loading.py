"""Finding the MCP servers of a session: the user's ``config.toml``, then, once the person
trusts the project, its ``.mcp.json`` (Claude Code's file) and ``.agent-tui/config.toml``::

    [mcp_servers.github]
    command = "npx"
    args = ["-y", "@modelcontextprotocol/server-github"]
    env = { GITHUB_TOKEN = "${GITHUB_TOKEN}" }

    [mcp_servers.docs]
    url = "https://example.com/mcp"          # transport "http"; "sse" when set so
    headers = { Authorization = "Bearer ${DOCS_TOKEN}" }
    timeout = 120                            # seconds per call
    enabled_tools = ["search"]

A project's servers run programs on the person's machine, so an untrusted project's are
skipped with a warning saying how to trust it. Malformed entries are warnings naming the
file and the server; the rest loads. A later file's server replaces an earlier one of the
same name.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .. import paths
from ..config import ConfigError, is_trusted, read_toml
from .server_config import MalformedServer, McpServerConfig, parse_server

MCP_JSON = ".mcp.json"


def load_mcp_config(workdir: Path) -> tuple[list[McpServerConfig], list[str]]:
    """Read the MCP servers configured for a session in ``workdir``.

    Returns:
        The servers (in the order configured) and warnings for people, one sentence each.
        Nothing here raises.
    """
    warnings: list[str] = []
    root = paths.project_root(workdir)
    user_file = paths.user_config_file()
    project_file = paths.project_config_file(workdir)
    found: dict[str, McpServerConfig] = {}
    trusted: bool | None = None
    sources: list[tuple[Path, bool]] = [(user_file, False), (root / MCP_JSON, True)]
    if project_file.resolve() != user_file.resolve():
        sources.append((project_file, False))
    for source, json_shape in sources:
        table = _read_servers(source, json_shape, warnings)
        if not table:
            continue
        if source != user_file:
            if trusted is None:
                trusted = is_trusted(root)
            if not trusted:
                warnings.append(
                    f"{source}: its MCP servers ({', '.join(table)}) were not started because "
                    f'this folder is not trusted; add "{root}" to trusted_projects in '
                    f"{user_file} to start them.")
                continue
        for name, entry in table.items():
            try:
                found[name] = parse_server(name, entry, source, json_shape=json_shape,
                                           environ=os.environ, default_cwd=root,
                                           warnings=warnings)
            except MalformedServer as exc:
                warnings.append(f"{source}: MCP server {name!r} skipped: {exc}.")
    return list(found.values()), warnings


def _read_servers(source: Path, json_shape: bool, warnings: list[str]) -> dict[str, Any]:
    key = "mcpServers" if json_shape else "mcp_servers"
    try:
        data = _read_json(source) if json_shape else read_toml(source)
    except ConfigError as exc:
        warnings.append(f"{exc} Its MCP servers were not loaded.")
        return {}
    table = data.get(key, {})
    if not isinstance(table, dict):
        shape = '{"mcpServers": {"name": {...}}}' if json_shape else "[mcp_servers.NAME]"
        warnings.append(f"{source}: `{key}` must be a table of servers, as in {shape}; its "
                        "MCP servers were not loaded.")
        return {}
    return table


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path} is not valid JSON ({exc}); fix or remove the file.") from None
    if not isinstance(data, dict):
        raise ConfigError(f'{path} must hold a JSON object such as {{"mcpServers": {{}}}}; fix '
                          "or remove the file.")
    return data
