"""Running a stdio MCP server: a child process in its own process group, JSON-RPC lines on
its stdin and stdout, its stderr into a log file (never ours: it would garble the TUI).

The SDK's own ``stdio_client`` hides the process; this one keeps its pid and exit code for
error messages and kills the whole group, and it notices a program that does not speak MCP.
"""

from __future__ import annotations

import os
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import IO

import anyio
import anyio.abc
import mcp_types as types
from anyio.streams.text import TextReceiveStream
from mcp.client._transport import TransportStreams
from mcp.shared.message import SessionMessage

from .server_config import McpServerConfig

# How long a server may take to exit once its stdin closes, then once it is sent SIGTERM.
EXIT_GRACE_S = 1.0
TERM_GRACE_S = 1.0
_POLL_S = 0.02


class StdioProcess:
    """A running stdio server as its connection sees it.

    Attributes:
        pid: The process id (also its process group's id).
        bad_output: The first line it wrote on stdout that was not JSON-RPC, if any.
        ended: Set when its stdout closed (it exited, or closed it).
    """

    def __init__(self, process: anyio.abc.Process) -> None:
        self._process = process
        self.pid = process.pid
        self.bad_output: str | None = None
        self.ended = anyio.Event()

    @property
    def returncode(self) -> int | None:
        """The exit code (negative: the signal that killed it), None while it runs."""
        return self._process.returncode

    async def wait_exit(self, within: float) -> int | None:
        """Wait up to ``within`` seconds for it to exit; its exit code, or None."""
        # Not process.wait(): it also waits for the pipes' EOF, which a grandchild may hold.
        with anyio.move_on_after(within):
            while self._process.returncode is None:
                await anyio.sleep(_POLL_S)
        return self._process.returncode


@asynccontextmanager
async def stdio_transport(config: McpServerConfig, env: dict[str, str],
                          stderr: IO[str]) -> AsyncIterator[tuple[TransportStreams, StdioProcess]]:
    """Start ``config``'s command and yield the session's streams and the process.

    On exit the process's stdin is closed; if it has not exited after a grace period its
    process group is sent SIGTERM, then SIGKILL. Whatever is left of the group is killed.

    Raises:
        OSError: the command could not be started (not found, not executable).
    """
    assert config.command is not None
    process = await anyio.open_process(
        [config.command, *config.args], env=env, cwd=config.cwd, stderr=stderr,
        start_new_session=True)
    server = StdioProcess(process)
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def read_stdout() -> None:
        assert process.stdout is not None
        spoke_mcp = False
        buffer = ""
        try:
            async with read_writer:
                async for chunk in TextReceiveStream(process.stdout, errors="replace"):
                    *lines, buffer = (buffer + chunk).split("\n")
                    for line in lines:
                        if not line.strip():
                            continue
                        try:
                            message = types.jsonrpc_message_adapter.validate_json(
                                line, by_name=False)
                        except ValueError:
                            server.bad_output = server.bad_output or line.strip()[:200]
                            _note(stderr, f"not MCP, ignored: {line.rstrip()[:500]}")
                            if not spoke_mcp:
                                return  # a program that is not an MCP server: end it here
                            continue
                        spoke_mcp = True
                        await read_writer.send(SessionMessage(message))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        finally:
            server.ended.set()

    async def write_stdin() -> None:
        assert process.stdin is not None
        try:
            async with write_reader:
                async for message in write_reader:
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((text + "\n").encode())
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_writer.aclose()

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read_stdout)
            tasks.start_soon(write_stdin)
            try:
                yield (read_stream, write_stream), server
            finally:
                with anyio.CancelScope(shield=True):
                    await write_stream.aclose()
                    await read_stream.aclose()
                    await _stop(process, server)
                tasks.cancel_scope.cancel()
    finally:
        # Reaps the process and closes its pipes; bounded, as a survivor of SIGKILL (in
        # uninterruptible sleep) would keep it waiting.
        with anyio.CancelScope(shield=True), anyio.move_on_after(TERM_GRACE_S):
            await process.aclose()


async def _stop(process: anyio.abc.Process, server: StdioProcess) -> None:
    if process.stdin is not None:
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    if await server.wait_exit(EXIT_GRACE_S) is None:
        _signal_group(server.pid, signal.SIGTERM)
        if await server.wait_exit(TERM_GRACE_S) is None:
            _signal_group(server.pid, signal.SIGKILL)
            await server.wait_exit(TERM_GRACE_S)
    # The server may have left children of its own behind in its group.
    _signal_group(server.pid, signal.SIGKILL)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _note(log: IO[str], text: str) -> None:
    with suppress(OSError, ValueError):
        log.write(f"[agent-tui] {text}\n")
        log.flush()
