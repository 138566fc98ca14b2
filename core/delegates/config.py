"""Finding the delegates of a session: ``[delegates.NAME]`` tables in the user's
``config.toml`` and, once the person trusts the project, in its ``.agent-tui/config.toml``::

    [delegates.opencode]
    protocol = "acp"                  # the Agent Client Protocol, over the program's stdio
    command = "opencode"
    args = ["acp"]
    env = { OPENROUTER_API_KEY = "${OPENROUTER_API_KEY}" }

    [delegates.gemini]
    command = "gemini"
    args = ["--experimental-acp"]
    in_project = true                 # work in the project itself, not a folder of its own

A delegate runs a program on the person's machine, so an untrusted project's are skipped with
a warning saying how to trust it, as its MCP servers are. ``${VAR}`` expands from the
environment; a delegate inherits only the few safe variables an MCP server does, plus its
``env``. Malformed entries are warnings naming the file and the delegate; the rest loads.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .. import paths
from ..config import ConfigError, is_trusted, read_toml
from ..mcp.server_config import MalformedServer, _expand, _optional_str, _str_list, _str_table
from ..safety.subprocess_env import server_base_env

RouteName = Literal["acp", "opencode"]
PROTOCOLS: tuple[RouteName, ...] = ("acp", "opencode")
DEFAULT_START_TIMEOUT_S = 30.0
DELEGATED_VARIABLE = "AGENT_TUI_DELEGATED"
"""Set in a delegate's environment to its name: agent-tui run as a delegate reads the same
user config, and must not hand the work on to itself."""
WORKSPACE = Path("delegated")
"""Where ``/code`` makes a folder for new work, under the project (unless configured)."""

_KEYS = frozenset({"protocol", "command", "args", "env", "cwd", "workspace", "in_project",
                   "start_timeout", "enabled", "url", "model", "agent"})


@dataclass(frozen=True, kw_only=True)
class DelegateConfig:
    """How to reach one delegate.

    Attributes:
        name: The delegate's name, as configured (``/code @name``, the lane's title).
        protocol: How agent-tui speaks to it: ``acp``, or ``opencode`` (the HTTP API of
            ``opencode serve``).
        command: The program to run (``opencode``: started as ``opencode serve`` when no
            ``url`` is given; empty when it is not agent-tui's to start).
        args: Its arguments.
        env: Variables set for it on top of the few it inherits (HOME, PATH, the locale…).
        workspace: The folder new work gets a folder of its own under.
        in_project: Work in the project folder itself instead.
        start_timeout: Seconds the program has to start and answer ``initialize``.
        enabled: False keeps it from being offered.
        source: The file it was configured in.
        url: ``opencode``: the address of a running ``opencode serve``.
        model: ``opencode``: the model as ``PROVIDER/MODEL`` (its own default when None).
        agent: ``opencode``: which of its agents works (``build`` when None).
    """

    name: str
    protocol: RouteName
    source: Path
    command: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    workspace: Path
    in_project: bool = False
    start_timeout: float = DEFAULT_START_TIMEOUT_S
    enabled: bool = True
    url: str | None = None
    model: str | None = None
    agent: str | None = None

    def environment(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment the program runs with: the safe few variables of ``base`` (the
        agent's own when None) with the delegate's ``env`` on top, and
        :data:`DELEGATED_VARIABLE` naming it (an agent-tui delegate offers no delegates)."""
        return {**server_base_env(base), **self.env, DELEGATED_VARIABLE: self.name}


def load_delegates(workdir: Path) -> tuple[list[DelegateConfig], list[str]]:
    """Read the delegates configured for a session in ``workdir``.

    Returns:
        The delegates (in the order configured) and warnings for people, one sentence each.
        Nothing here raises.
    """
    warnings: list[str] = []
    root = paths.project_root(workdir)
    user_file = paths.user_config_file()
    project_file = paths.project_config_file(workdir)
    sources = [user_file]
    if project_file.resolve() != user_file.resolve():
        sources.append(project_file)
    found: dict[str, DelegateConfig] = {}
    for source in sources:
        table = _read_table(source, warnings)
        if not table:
            continue
        if source != user_file and not is_trusted(root):
            warnings.append(
                f"{source}: its delegates ({', '.join(table)}) are not offered because this "
                f'folder is not trusted; add "{root}" to trusted_projects in {user_file} to '
                "offer them.")
            continue
        for name, entry in table.items():
            try:
                found[name] = parse_delegate(name, entry, source, root, os.environ, warnings)
            except MalformedServer as exc:
                warnings.append(f"{source}: delegate {name!r} skipped: {exc}.")
    return list(found.values()), warnings


def parse_delegate(name: str, entry: object, source: Path, root: Path,
                   environ: Mapping[str, str], warnings: list[str]) -> DelegateConfig:
    """Read one ``[delegates.NAME]`` table; unknown keys are reported in ``warnings``.

    Raises:
        MalformedServer: the table cannot describe a delegate (the message says why).
    """
    if not isinstance(entry, dict):
        raise MalformedServer("it must be a table of keys such as command and args")
    unknown = sorted(set(entry) - _KEYS)
    if unknown:
        warnings.append(f"{source}: delegate {name!r}: unknown key(s) {', '.join(unknown)} "
                        f"ignored; the keys are {', '.join(sorted(_KEYS))}.")
    protocol = entry.get("protocol", "acp")
    if protocol not in PROTOCOLS:
        raise MalformedServer(f"`protocol` must be one of {', '.join(PROTOCOLS)}, not "
                              f"{protocol!r}")
    command = _optional_str(entry, "command")
    url = _optional_str(entry, "url")
    if protocol == "opencode" and command is None and url is None:
        raise MalformedServer("it needs `url`, the address of a running `opencode serve` "
                              '(e.g. `url = "http://127.0.0.1:4096"`), or `command = '
                              '"opencode"` for agent-tui to start one')
    if command is None and protocol == "acp":
        raise MalformedServer("it needs `command`, the program that speaks ACP (e.g. "
                              '`command = "opencode"` with `args = ["acp"]`)')
    workspace_text = _optional_str(entry, "workspace")
    workspace = root / WORKSPACE
    if workspace_text is not None:
        workspace = Path(_expand(workspace_text, "workspace", environ)).expanduser()
        if not workspace.is_absolute():
            workspace = root / workspace
    timeout = entry.get("start_timeout", DEFAULT_START_TIMEOUT_S)
    if (isinstance(timeout, bool) or not isinstance(timeout, int | float)
            or not math.isfinite(timeout) or timeout <= 0):
        raise MalformedServer(f"`start_timeout` must be a number of seconds above 0, not "
                              f"{timeout!r}")
    flags = {key: entry.get(key, default) for key, default in
             (("in_project", False), ("enabled", True))}
    for key, value in flags.items():
        if not isinstance(value, bool):
            raise MalformedServer(f"`{key}` must be true or false, not {value!r}")
    return DelegateConfig(
        name=name, protocol=protocol, source=source,
        command=_expand(command, "command", environ) if command is not None else "",
        args=tuple(_expand(a, "args", environ) for a in _str_list(entry, "args")),
        env={k: _expand(v, f"env.{k}", environ) for k, v in _str_table(entry, "env").items()},
        workspace=workspace, in_project=flags["in_project"], start_timeout=float(timeout),
        enabled=flags["enabled"],
        url=_expand(url, "url", environ).rstrip("/") if url is not None else None,
        model=_optional_str(entry, "model"), agent=_optional_str(entry, "agent"))


def _read_table(source: Path, warnings: list[str]) -> dict[str, Any]:
    try:
        data = read_toml(source)
    except ConfigError as exc:
        warnings.append(f"{exc} Its delegates were not loaded.")
        return {}
    table = data.get("delegates", {})
    if not isinstance(table, dict):
        warnings.append(f"{source}: `delegates` must be a table of delegates, as in "
                        "[delegates.NAME]; its delegates were not loaded.")
        return {}
    return table
