"""One live connection to an MCP server over any of its transports, and describing why one
failed in words a person can act on."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import IO, Any

import anyio
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from .server_config import McpServerConfig
from .stdio import StdioProcess, stdio_transport

CLIENT_INFO = types.Implementation(name="agent-tui", version="0.1.0")
# An idle SSE stream is normal; the SDK's 5-minute default would drop and restart servers.
SSE_READ_TIMEOUT_S = 24 * 3600.0
_MAX_TOOL_PAGES = 100
# The SDK logs transport faults with tracebacks; with no handler configured Python prints
# them on stderr, under the TUI. agent-tui reports those faults itself.
_SDK_LOGGERS = ("mcp", "client", "httpx2", "httpcore2")


class Connection:
    """A session with a server, plus what tells that it has gone away.

    Attributes:
        session: The SDK's session (initialize, list_tools, call_tool).
        process: The server's process, for stdio servers.
        lost: Set once the connection is gone (the process exited, the transport failed).
        problem: A transport fault the session reported, in words, if any.
    """

    def __init__(self, process: StdioProcess | None) -> None:
        self.process = process
        self.lost = process.ended if process is not None else anyio.Event()
        self.problem: str | None = None
        self.session: ClientSession
        self.lists_changed = asyncio.Event()
        """Set when the server says its tools or prompts changed (the supervisor lists
        them again and clears it)."""

    async def on_message(self, message: Any) -> None:
        """The session's message handler: a transport fault ends the connection; a changed
        list of tools or prompts is noted for the supervisor."""
        if isinstance(message, Exception):
            self.problem = self.problem or describe_exception(message)
            self.lost.set()
        elif isinstance(message, types.ToolListChangedNotification | types.PromptListChangedNotification):
            self.lists_changed.set()
        await anyio.lowlevel.checkpoint()


@asynccontextmanager
async def open_connection(config: McpServerConfig, env: dict[str, str], log: IO[str],
                          callbacks: dict[str, Any] | None = None) -> AsyncIterator[Connection]:
    """Connect to ``config``'s server (starting it, for stdio) and open a session, not yet
    initialized; ``callbacks`` answer the server's own requests (see
    :func:`~agent_tui.core.mcp.client_requests.client_callbacks`).

    Raises:
        OSError: a stdio server's command could not be started.
        Exception: whatever the transport raises when it cannot connect.
    """
    _quiet_sdk_logs()
    async with AsyncExitStack() as stack:
        process: StdioProcess | None = None
        if config.transport == "stdio":
            streams, process = await stack.enter_async_context(
                stdio_transport(config, env, log))
            read, write = streams
        elif config.transport == "http":
            assert config.url is not None
            client = await stack.enter_async_context(
                create_mcp_http_client(headers=config.headers or None))
            read, write = await stack.enter_async_context(
                streamable_http_client(config.url, http_client=client))
        else:
            assert config.url is not None
            read, write = await stack.enter_async_context(
                sse_client(config.url, headers=config.headers or None,
                           sse_read_timeout=SSE_READ_TIMEOUT_S))
        connection = Connection(process)
        connection.session = await stack.enter_async_context(
            ClientSession(read, write, message_handler=connection.on_message,
                          client_info=CLIENT_INFO, **(callbacks or {})))
        yield connection


async def list_all_tools(session: ClientSession) -> list[types.Tool]:
    """Every tool the server lists, following its pages."""
    capabilities = session.server_capabilities
    if capabilities is not None and capabilities.tools is None:
        return []
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(_MAX_TOOL_PAGES):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _quiet_sdk_logs() -> None:
    for name in _SDK_LOGGERS:
        logger = logging.getLogger(name)
        # A NullHandler only keeps Python's last-resort stderr handler away; records still
        # reach the handlers an application configures on the root logger.
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())


def describe_exception(exc: BaseException) -> str:
    """An exception as a short phrase (the first real error of an exception group)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return f"{exc.message} (MCP error {exc.code})"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
