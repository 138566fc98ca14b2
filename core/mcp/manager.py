"""The MCP servers of a session: starting them without delaying anything, offering their
tools, routing calls, and ending them all."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .errors import McpError
from .host import McpHost
from .prompts import McpPromptInfo
from .results import McpCallResult, McpToolInfo
from .server import McpServer, ProgressSink
from .server_config import McpServerConfig

DEFAULT_STARTUP_TIMEOUT_S = 30.0
_UNSAFE_FILE_CHARS = re.compile(r"[^A-Za-z0-9._-]")


class McpManager:
    """Every configured MCP server of a session.

    Attributes:
        servers: Each server by its configured name.

    Use::

        manager = McpManager(configs, log_dir, on_change=refresh)
        await manager.start()                 # returns at once; servers start in tasks
        await manager.wait_ready(10)          # headless runs wait; the TUI does not
        result = await manager.call("github", "search_issues", {"q": "bug"})
        await manager.close()
    """

    def __init__(self, configs: list[McpServerConfig], log_dir: Path, *,
                 on_change: Callable[[], None] | None = None,
                 env: Mapping[str, str] | None = None,
                 startup_timeout: float = DEFAULT_STARTUP_TIMEOUT_S,
                 host: McpHost | None = None) -> None:
        """Args:
            configs: The servers, as :func:`load_mcp_config` read them.
            log_dir: Where each server's stderr goes, as ``<name>.log``.
            on_change: Called (in the event loop) whenever a server's state changes.
            env: The environment stdio servers take their few safe variables from (HOME,
                PATH, the locale…; None: this process's own); each server's configured
                ``env`` goes on top.
            startup_timeout: Seconds a server has to connect, initialize and list its tools.
            host: What the servers may ask of agent-tui (roots, forms, the model); a front
                end fills it in, before or after the servers start.
        """
        self.host = host or McpHost()
        self.servers: dict[str, McpServer] = {
            config.name: McpServer(config, log_dir / f"{_UNSAFE_FILE_CHARS.sub('_', config.name)}.log",
                                   env=env, startup_timeout=startup_timeout,
                                   on_change=on_change, host=self.host)
            for config in configs
        }

    async def start(self) -> None:
        """Launch every enabled server in a background task; returns at once."""
        for server in self.servers.values():
            if server.state != "disabled":
                server.launch()

    async def wait_ready(self, timeout: float) -> None:
        """Wait until no server is starting (each is ready, failed or disabled), or until
        ``timeout`` seconds have passed."""
        waits = [server.wait_settled(timeout) for server in self.servers.values()]
        if waits:
            await asyncio.gather(*waits)

    def tools(self) -> list[McpToolInfo]:
        """The tools of the ready servers, without those their ``enabled_tools`` leaves out."""
        found: list[McpToolInfo] = []
        for server in self.servers.values():
            if server.state == "ready":
                found.extend(tool for tool in server.tools if _enabled(server, tool.name))
        return found

    async def call(self, server: str, tool: str, arguments: dict[str, Any],
                   timeout: float | None = None,
                   on_progress: ProgressSink | None = None) -> McpCallResult:
        """Call ``tool`` on ``server``; ``timeout`` in seconds (None: the server's own);
        ``on_progress`` hears the server's progress notifications for the call.

        A server that is (re)starting is waited for, up to the timeout.

        Raises:
            McpError: no such server or tool, the server is not running, stopped during the
                call (it is restarted in the background), did not answer in time or refused.
        """
        live = self.servers.get(server)
        if live is None:
            known = ", ".join(self.servers) or "none"
            raise McpError(f"there is no MCP server named {server!r} (configured: {known}); "
                           "call one of the tools listed for you")
        if not _enabled(live, tool):
            raise McpError(f"the tool {tool} of the MCP server {server} is not enabled; add it "
                           f"to enabled_tools in {live.config.source} to use it")
        return await live.call(tool, arguments, timeout, on_progress)

    def prompts(self) -> list[McpPromptInfo]:
        """The prompts of the servers ready now."""
        return [prompt for server in self.servers.values() if server.state == "ready"
                for prompt in server.prompts]

    async def get_prompt(self, server: str, name: str, arguments: dict[str, str]) -> str:
        """The text of one server's prompt. Raises ``McpError``."""
        return await self._server(server).get_prompt(name, arguments)

    async def read_resource(self, server: str, uri: str) -> str:
        """The text of one server's resource. Raises ``McpError``."""
        return await self._server(server).read_resource(uri)

    async def reconnect(self, name: str) -> None:
        """Stop the server ``name`` if it runs and start it again (also when disabled or
        failed); returns once it is starting.

        Raises:
            McpError: no server has that name.
        """
        await self._server(name).restart()

    def disable(self, name: str) -> None:
        """Stop the server ``name`` and keep it stopped until :meth:`reconnect`.

        Raises:
            McpError: no server has that name.
        """
        self._server(name).disable()

    async def set_roots(self, roots: list[Path]) -> None:
        """Offer ``roots`` (the project folder) from now on and tell the running servers
        (``notifications/roots/list_changed``) when they differ from before."""
        if roots == self.host.roots:
            return
        self.host.roots = list(roots)
        await asyncio.gather(*(server.announce_roots_changed()
                               for server in self.servers.values()))

    async def close(self) -> None:
        """End every server and wait until their processes are gone."""
        await asyncio.gather(*(server.stop() for server in self.servers.values()))

    def _server(self, name: str) -> McpServer:
        server = self.servers.get(name)
        if server is None:
            raise McpError(f"there is no MCP server named {name!r}; the configured ones are "
                           f"{', '.join(self.servers) or 'none'}")
        return server


def _enabled(server: McpServer, tool: str) -> bool:
    allowed = server.config.enabled_tools
    return allowed is None or tool in allowed
