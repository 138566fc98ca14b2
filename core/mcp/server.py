"""One MCP server's live state: starting it, restarting it when it stops, calling its tools.

Each server is supervised by one task that owns its connection (the SDK's context managers
must be entered and left in one task); calls come from other tasks and use the session.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any, Literal

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError

from ..safety.subprocess_env import SERVER_BASE_NAMES
from .client_requests import (
    announce_roots_changed,
    ask_for_logs,
    client_callbacks,
    log_line,
)
from .connection import Connection, describe_exception, list_all_tools, open_connection
from .errors import McpError
from .host import McpHost
from .prompts import McpPromptInfo, list_all_prompts, prompt_text, resource_text
from .results import McpCallResult, McpToolInfo, call_result, needs_task, tool_info
from .server_config import McpServerConfig, subprocess_env

ServerState = Literal["starting", "ready", "failed", "disabled"]

MAX_RESTARTS = 5
"""Restarts tried in a row (without a call succeeding between them) before giving up."""
MAX_BACKOFF_S = 60.0
STABLE_AFTER_S = 60.0
"""A server that ran this long before stopping starts its count of restarts afresh."""
# How long a stopped stdio server is given to report its exit code.
EXIT_REPORT_S = 1.0
# Extra time past a call's own timeout before the call is abandoned regardless.
CALL_GRACE_S = 5.0
LOG_MESSAGES_KEPT = 200
"""The server's latest log messages kept for /mcp (all of them go to its log file)."""

ProgressSink = Callable[[float, float | None, str | None], None]
"""Takes a call's progress: how far, out of how much (None: unknown), and a message."""


class McpServer:
    """One configured server and what is known of it now.

    Attributes:
        name: The configured name.
        config: How to reach it.
        state: ``starting`` (connecting, or waiting to restart), ``ready``, ``failed`` (see
            ``error``) or ``disabled`` (by the person or its config).
        error: Why it failed or is restarting, a sentence saying what to do; "" otherwise.
        tools: Its tools as last listed (all of them; ``enabled_tools`` is not applied).
        task_tools: The names of its tools that only run as tasks, which are not offered.
        log_path: The file its stderr and its log messages go to.
        log_messages: Its latest log messages (``notifications/message``), a line each.
    """

    def __init__(self, config: McpServerConfig, log_path: Path, *,
                 env: Mapping[str, str] | None = None, startup_timeout: float = 30.0,
                 on_change: Callable[[], None] | None = None,
                 host: McpHost | None = None) -> None:
        self.name = config.name
        self.config = config
        self.state: ServerState = "starting" if config.enabled else "disabled"
        self.error = ""
        self.tools: list[McpToolInfo] = []
        self.task_tools: list[str] = []
        self.log_messages: deque[str] = deque(maxlen=LOG_MESSAGES_KEPT)
        self.log_count = 0
        """How many log messages it has sent (a screen redraws when it grows)."""
        self.host = host or McpHost()
        self._log: IO[str] | None = None
        self.prompts: list[McpPromptInfo] = []
        """The prompts it offers (slash commands in the workbench)."""
        self.log_path = log_path
        self._env = env
        self._startup_timeout = startup_timeout
        self._on_change = on_change
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self._connection: Connection | None = None
        self._settled = asyncio.Event()
        self._ended: asyncio.Event | None = None
        self._log_start = 0
        self._log_used = False
        self._restarts = 0
        if self.state != "starting":
            self._settled.set()

    # ------------------------------------------------------------------ what people see

    def stderr_tail(self, lines: int = 20) -> str:
        """The last ``lines`` lines the server wrote to stderr since it last started."""
        try:
            with self.log_path.open("rb") as log:
                log.seek(self._log_start)
                text = log.read().decode("utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.rstrip().splitlines()[-lines:]) if lines > 0 else ""

    def _set(self, state: ServerState, error: str = "") -> None:
        self.state, self.error = state, error
        if state == "starting":
            self._settled.clear()
        else:
            self._settled.set()
        if self._on_change is not None:
            try:
                self._on_change()
            except Exception:
                pass  # a front end's callback must not stop the server's supervision

    # ------------------------------------------------------------------ lifecycle

    def launch(self) -> None:
        """Start supervising the server in a background task (no-op while one runs)."""
        if self._task is not None and not self._task.done():
            return
        if self.state != "starting":
            self._set("starting")
        self._stopping = False
        self._task = asyncio.get_running_loop().create_task(
            self._supervise(), name=f"mcp server {self.name}")

    def disable(self) -> None:
        """Stop the server now and keep it stopped; :meth:`stop` awaits the shutdown."""
        if self._task is not None:
            self._stopping = True
            self._task.cancel()
        self.tools = []
        self.task_tools = []
        self.prompts = []
        self._set("disabled")

    async def stop(self) -> None:
        """Stop the server and wait until its process (group) is gone."""
        task, self._task = self._task, None
        if task is None:
            return
        self._stopping = True
        task.cancel()
        await asyncio.wait({task})

    async def restart(self) -> None:
        """Stop the server if it runs and start it again, with a fresh count of restarts."""
        await self.stop()
        self._restarts = 0
        self._set("starting")
        self.launch()

    async def wait_settled(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds while the server is starting; True once it is not."""
        try:
            await asyncio.wait_for(self._settled.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def _supervise(self) -> None:
        restarting = False
        loop = asyncio.get_running_loop()
        while True:
            ended = self._ended = asyncio.Event()
            try:
                ready_at, reason = await self._run_once()
                if self._stopping:
                    # Some transports turn the cancellation into an error of their own.
                    return
                if ready_at is None and not restarting:
                    self._set("failed", reason)
                    return
                if ready_at is not None and loop.time() - ready_at > STABLE_AFTER_S:
                    self._restarts = 0
                self._restarts += 1
                if self._restarts > MAX_RESTARTS:
                    self._set("failed", f"{reason}; agent-tui stopped restarting it after "
                              f"{MAX_RESTARTS} tries in a row. See {self.log_path}, fix the "
                              "server and reconnect it from /mcp")
                    return
                delay = min(MAX_BACKOFF_S, 2.0 ** (self._restarts - 1))
                self._set("starting", f"{reason}; it is being restarted (try "
                          f"{self._restarts} of {MAX_RESTARTS}, in {delay:g} s)")
            finally:
                ended.set()
            await asyncio.sleep(delay)
            restarting = True

    async def _run_once(self) -> tuple[float | None, str]:
        """Connect, list the tools and serve until the connection is lost: when it was
        ready (None: never) and why it ended."""
        ready_at: float | None = None
        log = self._open_log()
        self._log = log
        try:
            env = subprocess_env(self.config, self._env)
            callbacks = client_callbacks(self.name, self.host, self._take_log_message)
            async with open_connection(self.config, env, log, callbacks) as connection:
                try:
                    with anyio.fail_after(self._startup_timeout):
                        await connection.session.initialize()
                        await self._list(connection)
                        await self._ask_for_logs(connection)
                except TimeoutError:
                    return None, self._hung_message()
                except Exception as exc:
                    return None, (await self._lost_message(connection, exc)
                                  + self._environment_hint(connection))
                self._connection = connection
                ready_at = asyncio.get_running_loop().time()
                self._set("ready")
                await self._serve(connection)
                return ready_at, await self._lost_message(connection, None)
        except FileNotFoundError:
            return ready_at, (f"the MCP server {self.name} could not start: the command "
                              f"{self.config.command!r} was not found; check `command` in "
                              f"{self.config.source} (is the program installed and on PATH?)")
        except PermissionError:
            return ready_at, (f"the MCP server {self.name} could not start: "
                              f"{self.config.command!r} is not executable; check `command` in "
                              f"{self.config.source}")
        except Exception as exc:
            return ready_at, self._transport_message(exc)
        finally:
            if self._connection is not None:
                self._connection.lost.set()  # wakes calls still waiting on this connection
            self._connection = None
            self._log = None
            log.close()

    async def _list(self, connection: Connection) -> None:
        connection.lists_changed.clear()
        listed = await list_all_tools(connection.session)
        self.prompts = await list_all_prompts(connection.session, self.name)
        self.tools = [tool_info(self.name, tool) for tool in listed if not needs_task(tool)]
        self.task_tools = [tool.name for tool in listed if needs_task(tool)]

    async def _ask_for_logs(self, connection: Connection) -> None:
        try:
            await ask_for_logs(connection.session)
        except Exception as exc:  # a server that cannot set its level still works
            self._take_log_message("warning", "agent-tui", "logging/setLevel failed: "
                                   f"{describe_exception(exc)}")

    async def _serve(self, connection: Connection) -> None:
        """Until the connection is lost: list the tools and prompts again each time the
        server says they changed (``notifications/tools/list_changed``)."""
        lost = asyncio.ensure_future(connection.lost.wait())
        try:
            while not connection.lost.is_set():
                changed = asyncio.ensure_future(connection.lists_changed.wait())
                await asyncio.wait({lost, changed}, return_when=asyncio.FIRST_COMPLETED)
                changed.cancel()
                if connection.lost.is_set():
                    return
                try:
                    with anyio.fail_after(self.config.timeout):
                        await self._list(connection)
                except Exception as exc:  # the old lists stay; the next change tries again
                    self._take_log_message("warning", "agent-tui", "listing the changed "
                                           f"tools failed: {describe_exception(exc)}")
                    continue
                self._set("ready")
        finally:
            lost.cancel()

    def _take_log_message(self, level: str, logger: str | None, data: Any) -> None:
        line = log_line(level, logger, data)
        self.log_messages.append(line)
        self.log_count += 1
        if self._log is not None and not self._log.closed:
            try:
                self._log.write(f"[log] {line}\n")
                self._log.flush()
            except (OSError, ValueError):
                pass

    async def announce_roots_changed(self) -> None:
        """Tell the server, if it is connected, that the host's roots changed."""
        if self._connection is not None and self.state == "ready":
            try:
                await announce_roots_changed(self._connection.session)
            except Exception:
                pass  # a server gone meanwhile is restarted and asks afresh

    def _open_log(self) -> IO[str]:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        # A manager's first start begins a fresh log; restarts append to it.
        log = self.log_path.open("a" if self._log_used else "w", encoding="utf-8")
        self._log_used = True
        target = self.config.url or " ".join([self.config.command or "", *self.config.args])
        log.write(f"[agent-tui] starting {self.name}: {target}\n")
        log.flush()
        self._log_start = log.tell()
        return log

    # ------------------------------------------------------------------ messages

    def _hung_message(self) -> str:
        tail = self.stderr_tail(10)
        return (f"the MCP server {self.name} did not finish starting within "
                f"{self._startup_timeout:g} s (no answer to initialize or tools/list)"
                + (f"; its stderr ends with:\n{tail}\n" if tail else "; ")
                + f"check its configuration in {self.config.source} and its log "
                f"{self.log_path}, then reconnect it from /mcp")

    async def _lost_message(self, connection: Connection, exc: BaseException | None) -> str:
        process = connection.process
        if process is None:
            why = connection.problem or (describe_exception(exc) if exc else "the connection "
                                         "closed")
            return (f"the MCP server {self.name} at {self.config.url} stopped answering: "
                    f"{why}")
        if process.bad_output is not None:
            return (f"the MCP server {self.name} does not speak MCP: its command wrote "
                    f"{process.bad_output!r} on stdout where JSON-RPC was expected; check "
                    f"`command` and `args` in {self.config.source} (a server must log to "
                    "stderr, never stdout)")
        code = await process.wait_exit(EXIT_REPORT_S)
        tail = self.stderr_tail(10)
        if code is None:
            why = describe_exception(exc) if exc else "it closed its stdout"
            return (f"the MCP server {self.name} stopped answering ({why})"
                    + (f": {tail}" if tail else ""))
        status = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
        return (f"the MCP server {self.name} stopped ({status})"
                + (f": {tail}" if tail else " without writing anything to stderr"))

    def _environment_hint(self, connection: Connection) -> str:
        """For a stdio server that exited while starting: maybe it missed a variable."""
        if connection.process is None or connection.process.returncode is None:
            return ""
        return (f". It starts with only {', '.join(SERVER_BASE_NAMES)} and the locale from "
                "agent-tui's environment: if it needs another variable (a key, a token), "
                f"name it in its `env` in {self.config.source}")

    def _transport_message(self, exc: BaseException) -> str:
        where = self.config.url or self.config.command
        return (f"the MCP server {self.name} ({where}) could not be reached: "
                f"{describe_exception(exc)}; check that it runs and its settings in "
                f"{self.config.source}")

    def _unusable_message(self) -> str:
        if self.state == "disabled":
            return f"the MCP server {self.name} is disabled; enable it from /mcp to use its tools"
        if self.state == "failed":
            return f"the MCP server {self.name} is not running: {self.error}"
        return (f"the MCP server {self.name} is still starting; try again in a moment "
                + (f"({self.error})" if self.error else "(see /mcp)"))

    # ------------------------------------------------------------------ calls

    async def call(self, tool: str, arguments: dict[str, Any], timeout: float | None = None,
                   on_progress: ProgressSink | None = None) -> McpCallResult:
        """Call ``tool``, waiting first while the server is (re)starting. With
        ``on_progress`` the call carries a progress token and ``on_progress`` hears each
        progress notification of the server.

        Raises:
            McpError: the server is not usable, stopped during the call, did not answer in
                time, or refused the call.
        """
        limit = self.config.timeout if timeout is None else timeout
        if self.state == "starting":
            await self.wait_settled(limit)
        connection = self._connection
        if self.state != "ready" or connection is None:
            raise McpError(self._unusable_message())
        ended = self._ended
        report = None
        if on_progress is not None:
            async def report(progress: float, total: float | None, message: str | None) -> None:
                on_progress(progress, total, message)
        call = asyncio.ensure_future(
            connection.session.call_tool(tool, arguments, read_timeout_seconds=limit,
                                         progress_callback=report))
        lost = asyncio.ensure_future(connection.lost.wait())
        try:
            done, _ = await asyncio.wait({call, lost}, timeout=limit + CALL_GRACE_S,
                                         return_when=asyncio.FIRST_COMPLETED)
        finally:
            for future in (call, lost):
                future.cancel()
        if call in done and not call.cancelled():
            exc = call.exception()
            if exc is None:
                self._restarts = 0
                return call_result(call.result())
            if not (isinstance(exc, MCPError) and exc.code == types.CONNECTION_CLOSED):
                raise McpError(self._call_failed_message(tool, limit, exc)) from None
        elif not done:
            raise McpError(self._timeout_message(tool, limit))
        connection.lost.set()
        if ended is not None:
            # The supervisor describes the loss (exit code, stderr) and schedules the restart.
            with anyio.move_on_after(EXIT_REPORT_S + 5.0):
                await ended.wait()
        raise McpError(self.error or f"the MCP server {self.name} stopped during the call to "
                       f"{tool}; see {self.log_path}")

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> str:
        """The text of the prompt ``name`` with ``arguments``.

        Raises:
            McpError: the server is not usable, or refused.
        """
        return prompt_text(await self._ask(f"the prompt {name}", lambda session:
                                           session.get_prompt(name, arguments)))

    async def read_resource(self, uri: str) -> str:
        """The text of the resource at ``uri``.

        Raises:
            McpError: the server is not usable, or refused.
        """
        return resource_text(await self._ask(f"the resource {uri}", lambda session:
                                             session.read_resource(uri)), uri)

    async def _ask(self, what: str, request: Any) -> Any:
        limit = self.config.timeout
        if self.state == "starting":
            await self.wait_settled(limit)
        connection = self._connection
        if self.state != "ready" or connection is None:
            raise McpError(self._unusable_message())
        try:
            with anyio.fail_after(limit):
                return await request(connection.session)
        except TimeoutError:
            raise McpError(f"the MCP server {self.name} did not give {what} within "
                           f"{limit:g} s; try again") from None
        except Exception as exc:
            raise McpError(f"the MCP server {self.name} could not give {what}: "
                           f"{describe_exception(exc)}") from None

    def _timeout_message(self, tool: str, limit: float) -> str:
        return (f"the MCP server {self.name} did not answer {tool} within {limit:g} s, so the "
                "call was abandoned (the server keeps running); try again, or raise `timeout` "
                f"for this server in {self.config.source}")

    def _call_failed_message(self, tool: str, limit: float, exc: BaseException) -> str:
        if isinstance(exc, MCPError) and exc.code == types.REQUEST_TIMEOUT:
            return self._timeout_message(tool, limit)
        if isinstance(exc, MCPError):
            return (f"the MCP server {self.name} refused the call to {tool}: "
                    f"{describe_exception(exc)}; check the tool's name and arguments")
        return (f"the MCP server {self.name} answered {tool} with something agent-tui could "
                f"not read ({describe_exception(exc)}); see {self.log_path}")
