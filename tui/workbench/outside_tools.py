"""Tools from outside agent-tui: the MCP servers' and the project's discovered tools, found
in the background after the first frame and offered to the agent before each turn; the MCP
servers' state on the ``/mcp`` screen."""

from __future__ import annotations

import asyncio
from typing import Any

from ...core.runtime.outside_tools import lend_tools, mcp_servers


class OutsideTools:
    """The session's MCP servers (``core.mcp.McpManager``) and discovered tools.

    Args:
        app: The workbench (:class:`~agent_tui.tui.app.AgentApp`).
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self.manager: Any = None
        self.warnings: list[str] = []
        self.discovered: list[Any] = []
        self._told: set[tuple[str, str]] = set()

    async def start(self) -> None:
        """Find the project's discovered tools, then start the MCP servers; report what
        fails. Runs in the background: the first frame never waits."""
        from ...tools.discovered import discover_tools

        self.discovered, problems = await discover_tools(self.app.settings, self.app.workdir)
        for problem in problems:
            self.app.notice(problem, error=True)
        await self._start_mcp()

    async def _start_mcp(self) -> None:
        self.warnings = []
        self.manager = await mcp_servers(self.app.workdir, self._warn, on_change=self._changed)
        if self.manager is not None:
            from ...core.runtime.mcp_host import agent_sampler

            host = self.manager.host
            host.elicit = self._elicit
            host.sample = agent_sampler(self._front_agent)
            host.note = self.app.notice
            await self.manager.start()

    async def _elicit(self, request: Any) -> Any:
        """A server's form (``core.mcp.ElicitationRequest``) in a modal; the person's
        answer."""
        from ..screens.elicitation import ElicitationScreen

        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def answered(result: Any) -> None:
            if not answer.done():
                answer.set_result(result)

        self.app.push_screen(ElicitationScreen(request), callback=answered)
        self.app.bell()
        return await answer

    def _front_agent(self) -> Any:
        from ...core.mcp.host import SamplingRefused

        if self.app.agent is None:
            raise SamplingRefused("no agent-tui session is open to lend its model yet; try "
                                  "again once the person has sent a prompt")
        return self.app.agent

    def _warn(self, warning: str) -> None:
        self.warnings.append(warning)
        self.app.notice(warning, error=True)

    def _changed(self) -> None:
        """A server changed state: say when one failed; redraw /mcp if it is open."""
        from ..screens.mcp import McpScreen

        for server in self.manager.servers.values():
            key = (server.name, server.error)
            if server.state == "failed" and server.error and key not in self._told:
                self._told.add(key)
                self.app.notice(f"MCP server {server.name} failed: {server.error} (/mcp shows "
                                "its log)", error=True)
        if isinstance(self.app.screen, McpScreen):
            self.app.screen.refresh_servers()
        self.app.knowledge.offer_commands()
        if self.app.agent is not None:
            # A server's tools changed (tools/list_changed, a restart): the model sees them
            # as they are from its next call on, not only from the next turn.
            lend_tools(self.app.agent, self.discovered, self.manager)

    def offer_tools(self, agent: Any) -> None:
        """Give ``agent`` the discovered tools and those of the servers ready now (before
        each turn)."""
        lend_tools(agent, self.discovered, self.manager)

    def prompt_commands(self) -> dict[str, str]:
        """The MCP servers' prompts as slash commands: name to one-line help."""
        if self.manager is None:
            return {}
        return {prompt.command: f"{prompt.description or prompt.name} {prompt.hint}".strip()
                + f" (MCP {prompt.server})" for prompt in self.manager.prompts()}

    def prompt_named(self, command: str) -> Any:
        """The MCP prompt a slash command names (``/mcp__server__prompt``), or None."""
        if self.manager is None:
            return None
        return next((p for p in self.manager.prompts() if p.command == command), None)

    def show_mcp(self) -> None:
        """``/mcp``: the servers, their state and tools; reconnect or disable one."""
        from ..screens.mcp import McpScreen

        self.app.push_screen(McpScreen(self.manager, self.warnings))

    async def close(self) -> None:
        """End every server (on quit)."""
        if self.manager is not None:
            await self.manager.close()
