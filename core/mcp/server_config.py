"""One MCP server's configuration, and reading it from a TOML table or a ``.mcp.json`` entry.

Both shapes name the same things; ``${VAR}`` and ``${VAR:-default}`` in ``command``, ``args``,
``env``, ``cwd``, ``url`` and ``headers`` expand from the environment, as Claude Code does.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..safety.subprocess_env import server_base_env

Transport = Literal["stdio", "http", "sse"]
TRANSPORTS: tuple[Transport, ...] = ("stdio", "http", "sse")
DEFAULT_CALL_TIMEOUT_S = 60.0

_TOML_KEYS = frozenset({"command", "args", "env", "cwd", "url", "headers", "timeout",
                        "enabled_tools", "transport", "enabled"})
# Claude Code's own keys: `type` names the transport.
_JSON_KEYS = frozenset({"command", "args", "env", "cwd", "url", "headers", "type", "timeout"})
_TRANSPORT_ALIASES: dict[str, Transport] = {
    "stdio": "stdio", "http": "http", "streamable-http": "http", "streamable_http": "http",
    "sse": "sse",
}
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass(frozen=True, kw_only=True)
class McpServerConfig:
    """How to reach one MCP server.

    Attributes:
        name: The server's name, as configured (tools are named after it).
        transport: ``stdio`` (a command agent-tui runs), ``http`` (streamable HTTP) or ``sse``.
        command: The program of a stdio server.
        args: Its arguments.
        env: Variables set for it on top of the few it inherits (HOME, PATH, the locale…).
        cwd: Where it runs (the project's root unless configured).
        url: The endpoint of an http or sse server.
        headers: HTTP headers sent with every request (e.g. authorization).
        timeout: Seconds a tool call may take before it is abandoned.
        enabled_tools: The only tools offered to the model (None: all of them).
        enabled: False keeps the server from starting until the person enables it.
        source: The file it was configured in.
    """

    name: str
    transport: Transport
    source: Path
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float = DEFAULT_CALL_TIMEOUT_S
    enabled_tools: tuple[str, ...] | None = None
    enabled: bool = True


class MalformedServer(Exception):
    """An entry cannot load; the message says what is wrong and how to fix it."""


def parse_server(name: str, entry: object, source: Path, *, json_shape: bool,
                 environ: Mapping[str, str], default_cwd: Path | None,
                 warnings: list[str]) -> McpServerConfig:
    """Read one entry (a TOML table, or a ``.mcp.json`` object when ``json_shape``).

    Unknown keys are reported in ``warnings`` and otherwise ignored.

    Raises:
        MalformedServer: the entry cannot describe a server.
    """
    if not isinstance(entry, dict):
        raise MalformedServer("it must be a table of keys such as command, args and url")
    known = _JSON_KEYS if json_shape else _TOML_KEYS
    unknown = sorted(set(entry) - known)
    if unknown:
        warnings.append(f"{source}: MCP server {name!r}: unknown key(s) {', '.join(unknown)} "
                        f"ignored; the keys are {', '.join(sorted(known))}.")

    def expand(text: str, key: str) -> str:
        return _expand(text, key, environ)

    command = _optional_str(entry, "command")
    url = _optional_str(entry, "url")
    transport = _transport(entry.get("type" if json_shape else "transport"), command, url,
                           "type" if json_shape else "transport")
    if transport == "stdio" and command is None:
        raise MalformedServer("a stdio server needs `command`, the program to run")
    if transport != "stdio" and url is None:
        raise MalformedServer(f"an {transport} server needs `url`, its endpoint")
    args = tuple(expand(a, "args") for a in _str_list(entry, "args"))
    cwd_text = _optional_str(entry, "cwd")
    cwd = default_cwd if transport == "stdio" else None
    if cwd_text is not None:
        cwd = Path(expand(cwd_text, "cwd")).expanduser()
        if not cwd.is_absolute() and default_cwd is not None:
            cwd = default_cwd / cwd
    timeout = entry.get("timeout", DEFAULT_CALL_TIMEOUT_S)
    if (isinstance(timeout, bool) or not isinstance(timeout, int | float)
            or not math.isfinite(timeout) or timeout <= 0):
        raise MalformedServer(f"`timeout` must be a number of seconds above 0, not {timeout!r}")
    enabled_tools = tuple(_str_list(entry, "enabled_tools")) if "enabled_tools" in entry else None
    enabled = entry.get("enabled", True)
    if not isinstance(enabled, bool):
        raise MalformedServer(f"`enabled` must be true or false, not {enabled!r}")
    return McpServerConfig(
        name=name, transport=transport, source=source,
        command=expand(command, "command") if command is not None else None,
        args=args,
        env={k: expand(v, f"env.{k}") for k, v in _str_table(entry, "env").items()},
        cwd=cwd,
        url=expand(url, "url") if url is not None else None,
        headers={k: expand(v, f"headers.{k}") for k, v in _str_table(entry, "headers").items()},
        timeout=float(timeout), enabled_tools=enabled_tools, enabled=enabled,
    )


def _transport(value: object, command: str | None, url: str | None, key: str) -> Transport:
    if value is None:
        if command is not None and url is not None:
            raise MalformedServer(f"it sets both `command` and `url`; keep one, or set `{key}`")
        if command is None and url is None:
            raise MalformedServer("it needs `command` (a program to run) or `url` (a server "
                                  "to reach)")
        return "stdio" if command is not None else "http"
    if not isinstance(value, str) or value.lower() not in _TRANSPORT_ALIASES:
        raise MalformedServer(f"`{key}` must be one of {', '.join(TRANSPORTS)}, not {value!r}")
    return _TRANSPORT_ALIASES[value.lower()]


def _expand(text: str, key: str, environ: Mapping[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        value = environ.get(name)
        if value is not None:
            return value
        if default is not None:
            return default
        raise MalformedServer(f"`{key}` uses ${{{name}}}, which is not set in the environment; "
                              f"set it, or give a default as ${{{name}:-value}}")

    return _VAR.sub(replace, text)


def _optional_str(entry: dict[str, Any], key: str) -> str | None:
    value = entry.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise MalformedServer(f"`{key}` must be a non-empty string, not {value!r}")
    return value


def _str_list(entry: dict[str, Any], key: str) -> list[str]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise MalformedServer(f"`{key}` must be a list of strings, not {value!r}")
    return value


def _str_table(entry: dict[str, Any], key: str) -> dict[str, str]:
    value = entry.get(key, {})
    if not isinstance(value, dict):
        raise MalformedServer(f"`{key}` must be a table of names to strings, not {value!r}")
    bad = sorted(k for k, v in value.items() if not isinstance(v, str))
    if bad:
        raise MalformedServer(f"`{key}`: the value of {', '.join(bad)} must be a string "
                              "(quote it)")
    return value


def subprocess_env(config: McpServerConfig, base: Mapping[str, str] | None) -> dict[str, str]:
    """The environment a stdio server runs with: the safe few variables of ``base`` (the
    agent's own environment when None; see :func:`server_base_env`) with the server's ``env``
    on top. A key reaches a server only when its ``env`` names it."""
    return {**server_base_env(base), **config.env}
