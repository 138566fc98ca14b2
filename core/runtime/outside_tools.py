"""Tools from outside agent-tui lent to an agent: the project's discovered tools
(``tool_discovery_command``) and its MCP servers' tools, the same way for every front end."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...tools.base import Tool
    from ..agent import Agent
    from ..config import Settings
    from ..mcp import McpManager, McpServerConfig

MCP_GROUP = "mcp"
"""What the agent calls the MCP servers' tools (see ``Agent.use_external_tools``)."""
DISCOVERED_GROUP = "discovered"
"""What the agent calls the tools ``tool_discovery_command`` declares."""

MCP_START_S = 30.0
"""How long a run without a workbench waits for its MCP servers before it starts without
the slow ones (an ACP session waits less: its client is waiting for the session)."""


def lend_tools(agent: Agent, discovered: Sequence[Tool], mcp: McpManager | None) -> None:
    """Give ``agent`` the ``discovered`` tools and those of ``mcp``'s servers ready now."""
    agent.use_external_tools(DISCOVERED_GROUP, list(discovered))
    if mcp is None:
        return
    from ...tools.mcp import mcp_tools

    agent.use_external_tools(MCP_GROUP, mcp_tools(mcp))


async def lend_outside_tools(agent: Agent, settings: Settings, workdir: Path,
                             warn: Callable[[str], None], *,
                             extra: Sequence[McpServerConfig] = (),
                             wait_s: float = MCP_START_S) -> McpManager | None:
    """Find the project's discovered tools, start its MCP servers and ``extra`` ones (see
    :func:`start_mcp_servers`), and give ``agent`` their tools; returns the servers (to
    close after the run) or None. ``warn`` hears what fails, one sentence each."""
    from ...tools.discovered import discover_tools
    from .mcp_host import agent_sampler

    discovered, problems = await discover_tools(settings, workdir)
    for problem in problems:
        warn(problem)
    agent.use_external_tools(DISCOVERED_GROUP, discovered)
    started: list[McpManager] = []

    def tools_changed() -> None:
        """A server's tools changed (or it stopped, or came back): the model is offered
        them as they are from its next call on."""
        if started:
            from ...tools.mcp import mcp_tools

            agent.use_external_tools(MCP_GROUP, mcp_tools(started[0]))

    mcp = await mcp_servers(workdir, warn, extra=extra, on_change=tools_changed)
    if mcp is None:
        return None
    # Nobody fills in a form here (elicitation is refused, with a note); sampling asks the
    # agent's approver, which refuses unless the run is in yolo mode.
    mcp.host.sample = agent_sampler(lambda: agent)
    mcp.host.note = warn
    await _start(mcp, warn, wait_s)
    started.append(mcp)
    tools_changed()
    return mcp


async def mcp_servers(workdir: Path, warn: Callable[[str], None], *,
                      extra: Sequence[McpServerConfig] = (),
                      on_change: Callable[[], None] | None = None) -> McpManager | None:
    """The project's MCP servers and ``extra`` ones (e.g. an ACP client's; they replace
    configured ones of the same name), not started yet; None when there are none. ``warn``
    hears what is wrong with the configuration; ``on_change`` each change of a server's
    state."""
    from .. import paths
    from ..mcp import load_mcp_config

    configs, warnings = await asyncio.to_thread(load_mcp_config, workdir)
    for warning in warnings:
        warn(warning)
    names = {config.name for config in extra}
    configs = [config for config in configs if config.name not in names] + list(extra)
    if not configs:
        return None
    # The SDK's import in a thread, not on a loop that may be drawing the screen.
    manager_module = await asyncio.to_thread(import_module, "agent_tui.core.mcp.manager")
    host_module = import_module("agent_tui.core.mcp.host")
    manager: McpManager = manager_module.McpManager(
        configs, paths.data_dir() / "mcp-logs", on_change=on_change,
        host=host_module.McpHost(roots=[workdir]))
    return manager


async def start_mcp_servers(workdir: Path, warn: Callable[[str], None], *,
                            extra: Sequence[McpServerConfig] = (),
                            wait_s: float = MCP_START_S) -> McpManager | None:
    """The servers of :func:`mcp_servers`, started and (within ``wait_s``) ready; None
    when there are none. ``warn`` hears what fails, in a sentence each; the run goes on
    without it."""
    manager = await mcp_servers(workdir, warn, extra=extra)
    if manager is not None:
        await _start(manager, warn, wait_s)
    return manager


async def _start(manager: McpManager, warn: Callable[[str], None], wait_s: float) -> None:
    await manager.start()
    await manager.wait_ready(wait_s)
    for server in manager.servers.values():
        if server.state != "ready":
            why = server.error or f"not ready after {wait_s:.0f} s"
            warn(f"MCP server {server.name}: {why}; its log: {server.log_path}")
