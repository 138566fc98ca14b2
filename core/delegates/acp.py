"""The ACP route: agent-tui as an Agent Client Protocol *client* of another agent.

The delegate's program is started in the work's folder and spoken to over its stdio
(``initialize``, ``session/new`` or ``session/load``, ``session/prompt``,
``session/cancel``). agent-tui offers it the client's file system and terminals, so that the
files it reads and writes and the commands it runs go through the :class:`DelegateHost`, and
turns its ``session/request_permission`` into the host's approval. Its ``session/update``
notifications become :class:`DelegateUpdate` reports.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import shlex
import tempfile
from pathlib import Path
from typing import Any

from acp import (
    PROTOCOL_VERSION,
    RequestError,
    connect_to_agent,
    spawn_stdio_transport,
    text_block,
)
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeniedOutcome,
    FileSystemCapabilities,
    Implementation,
    KillTerminalResponse,
    PermissionOption,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    ToolCallUpdate,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from .base import (
    CommandOutcome,
    DelegateError,
    DelegateHost,
    DelegateRefused,
    DelegateResult,
    DelegateUpdate,
)
from .config import DelegateConfig

STREAM_LIMIT = 16 * 1024 * 1024
"""Bytes one JSON-RPC line may take (a whole file's text travels in one)."""
STDERR_TAIL = 2000
"""Characters of the program's stderr quoted when it fails."""
GARBAGE_QUOTE = 200
"""Characters quoted of a line that is not a JSON-RPC message."""


class AcpDelegate:
    """A delegate that speaks ACP over its program's stdio (see the module)."""

    def __init__(self, config: DelegateConfig) -> None:
        self.config = config
        self.name = config.name
        self._connection: Any = None
        self._session_id: str | None = None
        self._stderr: Any = None
        self._lines: _JsonRpcLines | None = None

    async def probe(self) -> str | None:
        """Start the program, ``initialize`` it, and stop it; None when that worked."""
        try:
            async with self._started(Path.cwd(), _ProbeClient()) as (_, info):
                del info
        except DelegateError as exc:
            return str(exc)
        return None

    async def run(self, prompt: str, host: DelegateHost, resume: str | None = None
                  ) -> DelegateResult:
        """Hand ``prompt`` to the delegate in ``host.folder``; see ``Delegate.run``."""
        client = _HostClient(self.name, host)
        async with self._started(host.folder, client) as (connection, info):
            can_load = bool(info.agent_capabilities and info.agent_capabilities.load_session)
            try:
                if resume and can_load:
                    await connection.load_session(cwd=str(host.folder), session_id=resume,
                                                  mcp_servers=[])
                    session_id = resume
                else:
                    session = await connection.new_session(cwd=str(host.folder), mcp_servers=[])
                    session_id = session.session_id
                client.session_id = session_id
                client.loading = False
                self._connection, self._session_id = connection, session_id
                answer = await connection.prompt(session_id=session_id,
                                                 prompt=[text_block(prompt)])
            except RequestError as exc:
                raise DelegateError(
                    f"{self.name} refused the work: {exc}. Check that it is set up (logged "
                    "in, a model configured) by running it on its own.") from None
            except (ConnectionError, EOFError, asyncio.IncompleteReadError) as exc:
                raise DelegateError(self._died(exc)) from None
            finally:
                self._connection = None
                client.close()
        return DelegateResult(text="".join(client.answer), session_id=session_id,
                              stop_reason=str(answer.stop_reason), cost=client.cost)

    async def cancel(self) -> None:
        """Send ``session/cancel`` for the running prompt, if any."""
        if self._connection is not None and self._session_id is not None:
            with contextlib.suppress(Exception):
                await self._connection.cancel(session_id=self._session_id)

    @contextlib.asynccontextmanager
    async def _started(self, folder: Path, client: Any) -> Any:
        config = self.config
        # Its stderr goes to a file: a pipe nobody reads would stop a chatty program.
        self._stderr = tempfile.TemporaryFile()
        try:
            spawned = spawn_stdio_transport(
                config.command, *config.args, env=config.environment(), cwd=folder,
                limit=STREAM_LIMIT, stderr=self._stderr.fileno())
            async with spawned as (stdout, stdin, process):
                self._lines = _JsonRpcLines(stdout)
                connection = connect_to_agent(client, stdin, self._lines.reader)
                try:
                    info = await self._initialize(connection, process)
                    yield connection, info
                finally:
                    await connection.close()
                    self._lines.stop()
        except FileNotFoundError:
            raise DelegateError(
                f"{self.name}: the program {config.command!r} was not found; install it or "
                f"fix `command` in [delegates.{self.name}] of {config.source}.") from None
        except PermissionError:
            raise DelegateError(
                f"{self.name}: {config.command!r} cannot be run (permission denied); fix "
                f"`command` in [delegates.{self.name}] of {config.source}.") from None
        finally:
            self._stderr.close()

    async def _initialize(self, connection: Any, process: Any) -> Any:
        config = self.config
        try:
            return await asyncio.wait_for(
                connection.initialize(
                    protocol_version=PROTOCOL_VERSION,
                    client_capabilities=ClientCapabilities(
                        fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
                        terminal=True),
                    client_info=Implementation(name="agent-tui", version="1")),
                config.start_timeout)
        except TimeoutError:
            raise DelegateError(
                f"{self.name} did not answer ACP's initialize within "
                f"{config.start_timeout:g} s; check that `{self._command_line()}` "
                "speaks ACP on its stdio, or raise start_timeout.") from None
        except RequestError as exc:
            raise DelegateError(f"{self.name} refused ACP's initialize: {exc}.") from None
        except (ConnectionError, EOFError, asyncio.IncompleteReadError) as exc:
            raise DelegateError(self._died(exc, process.returncode)) from None

    def _command_line(self) -> str:
        return shlex.join([self.config.command, *self.config.args])

    def _died(self, exc: BaseException, code: int | None = None) -> str:
        garbage = self._lines.garbage if self._lines is not None else None
        if garbage is not None:
            return (f"{self.name} does not speak ACP on its stdio: it printed {garbage!r} "
                    "where a JSON-RPC message was expected. Check `command` and `args` in "
                    f"[delegates.{self.name}] of {self.config.source} (`{self._command_line()}` "
                    "must start the program's ACP mode).")
        status = f" (exit code {code})" if code is not None else ""
        said = ""
        with contextlib.suppress(OSError, ValueError):
            self._stderr.seek(0)
            tail = self._stderr.read().decode(errors="replace").strip()[-STDERR_TAIL:]
            said = f" It said: {tail}" if tail else ""
        return (f"{self.name} stopped{status}: {exc or 'its output ended'}.{said} Run "
                f"`{self._command_line()}` on its own to see why.")


class _JsonRpcLines:
    """The program's stdout, passed on line by line while each line is a JSON-RPC message.

    The first line that is not (a banner, a log line, JSON of another protocol) is kept in
    ``garbage`` and ends the stream, so the connection fails at once with that line to quote
    instead of skipping it and waiting for an answer that never comes.
    """

    def __init__(self, stdout: asyncio.StreamReader) -> None:
        self.reader = asyncio.StreamReader(limit=STREAM_LIMIT)
        self.garbage: str | None = None
        self._task = asyncio.ensure_future(self._pass_on(stdout))

    async def _pass_on(self, stdout: asyncio.StreamReader) -> None:
        try:
            while line := await stdout.readline():
                if line.strip() and not _is_json_rpc(line):
                    text = line.decode(errors="replace").strip()
                    self.garbage = text[:GARBAGE_QUOTE] + ("…" if len(text) > GARBAGE_QUOTE
                                                           else "")
                    return
                self.reader.feed_data(line)
        except ValueError:
            self.garbage = f"a line over {STREAM_LIMIT // (1024 * 1024)} MiB"
        finally:
            self.reader.feed_eof()

    def stop(self) -> None:
        self._task.cancel()


def _is_json_rpc(line: bytes) -> bool:
    try:
        message = json.loads(line)
    except ValueError:
        return False
    return isinstance(message, dict) and ("method" in message or "id" in message)


class _ProbeClient:
    """A client that answers nothing: the probe only initializes."""

    def on_connect(self, conn: Any) -> None:
        pass

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        pass


class _HostClient:
    """The client side agent-tui shows the delegate: every request answered through the host."""

    def __init__(self, name: str, host: DelegateHost) -> None:
        self.name = name
        self.host = host
        self.session_id: str | None = None
        self.loading = True
        self.answer: list[str] = []
        self.cost: float | None = None
        self._always: set[str] = set()
        self._terminals: dict[str, _Terminal] = {}
        self._ids = itertools.count(1)

    def on_connect(self, conn: Any) -> None:
        pass

    def close(self) -> None:
        for terminal in self._terminals.values():
            terminal.kill()
        self._terminals.clear()

    # ----------------------------------------------------------------- session/update

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if self.loading:
            return  # a loaded session's history, replayed
        kind = getattr(update, "session_update", "")
        if kind in ("agent_message_chunk", "agent_thought_chunk"):
            text = getattr(update.content, "text", None)
            if text:
                if kind == "agent_message_chunk":
                    self.answer.append(text)
                self.host.report(DelegateUpdate(
                    "message" if kind == "agent_message_chunk" else "thought", text))
        elif kind == "tool_call":
            self.host.report(DelegateUpdate("tool_call", update.title,
                                            update.tool_call_id, update.status or "pending"))
        elif kind == "tool_call_update":
            self.host.report(DelegateUpdate("tool_update", update.title or "",
                                            update.tool_call_id, update.status or ""))
        elif kind == "plan":
            self.host.report(DelegateUpdate(
                "plan", "\n".join(f"[{e.status}] {e.content}" for e in update.entries)))
        elif kind == "usage_update" and update.cost is not None:
            self.cost = float(update.cost.amount)

    # ----------------------------------------------------------------- permission

    async def request_permission(self, session_id: str, tool_call: ToolCallUpdate,
                                 options: list[PermissionOption], **kwargs: Any
                                 ) -> RequestPermissionResponse:
        by_kind = {option.kind: option.option_id for option in options}
        key = str(tool_call.kind or tool_call.title or "")
        title = tool_call.title or f"a {tool_call.kind or 'tool'} call"
        if key in self._always and "allow_always" in by_kind:
            return _selected(by_kind["allow_always"])
        details = str(tool_call.raw_input) if tool_call.raw_input is not None else title
        answer = await self.host.ask_permission(f"{self.name}: {title}", details,
                                                always="allow_always" in by_kind)
        if answer == "always" and "allow_always" in by_kind:
            self._always.add(key)
            return _selected(by_kind["allow_always"])
        if answer in ("once", "always") and "allow_once" in by_kind:
            return _selected(by_kind["allow_once"])
        reject = by_kind.get("reject_once") or by_kind.get("reject_always")
        if reject is not None:
            return _selected(reject)
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))

    # ----------------------------------------------------------------- fs/*

    async def read_text_file(self, session_id: str, path: str, line: int | None = None,
                             limit: int | None = None, **kwargs: Any) -> ReadTextFileResponse:
        try:
            text = await self.host.read_text(Path(path))
        except DelegateRefused as exc:
            raise _refused(path, exc) from None
        if line is not None or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max((line or 1) - 1, 0)
            text = "".join(lines[start: start + limit if limit is not None else None])
        return ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str,
                              **kwargs: Any) -> WriteTextFileResponse:
        try:
            await self.host.write_text(Path(path), content)
        except DelegateRefused as exc:
            raise _refused(path, exc) from None
        return WriteTextFileResponse()

    # ----------------------------------------------------------------- terminal/*

    async def create_terminal(self, session_id: str, command: str,
                              args: list[str] | None = None, env: Any = None,
                              cwd: str | None = None, output_byte_limit: int | None = None,
                              **kwargs: Any) -> CreateTerminalResponse:
        line = shlex.join([command, *(args or [])]) if args else command
        if env:
            line = " ".join(f"{v.name}={shlex.quote(v.value)}" for v in env) + " " + line
        terminal_id = f"term-{next(self._ids)}"
        folder = Path(cwd) if cwd else self.host.folder
        self._terminals[terminal_id] = _Terminal(
            asyncio.ensure_future(self.host.run_command(line, folder)), output_byte_limit)
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(self, session_id: str, terminal_id: str,
                              **kwargs: Any) -> TerminalOutputResponse:
        terminal = self._terminal(terminal_id)
        output, truncated = terminal.output()
        return TerminalOutputResponse(output=output, truncated=truncated,
                                      exit_status=terminal.exit_status())

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str,
                                     **kwargs: Any) -> WaitForTerminalExitResponse:
        terminal = self._terminal(terminal_id)
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(terminal.task)
        status = terminal.exit_status()
        return WaitForTerminalExitResponse(
            exit_code=status.exit_code if status else None,
            signal=status.signal if status else "SIGKILL")

    async def kill_terminal(self, session_id: str, terminal_id: str,
                            **kwargs: Any) -> KillTerminalResponse:
        self._terminal(terminal_id).kill()
        return KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str,
                               **kwargs: Any) -> ReleaseTerminalResponse:
        terminal = self._terminals.pop(terminal_id, None)
        if terminal is not None:
            terminal.kill()
        return ReleaseTerminalResponse()

    def _terminal(self, terminal_id: str) -> _Terminal:
        terminal = self._terminals.get(terminal_id)
        if terminal is None:
            raise RequestError.invalid_params({"terminalId": terminal_id,
                                               "reason": "no such terminal (released?)"})
        return terminal


class _Terminal:
    """A command the delegate started, running through the host."""

    def __init__(self, task: asyncio.Future[CommandOutcome], byte_limit: int | None) -> None:
        self.task = task
        self.byte_limit = byte_limit

    def output(self) -> tuple[str, bool]:
        if not self.task.done() or self.task.cancelled() or self.task.exception():
            return "", False
        text = self.task.result().output
        data = text.encode()
        if self.byte_limit is not None and len(data) > self.byte_limit:
            return data[-self.byte_limit:].decode(errors="ignore"), True
        return text, False

    def exit_status(self) -> TerminalExitStatus | None:
        if not self.task.done():
            return None
        if self.task.cancelled() or self.task.exception() is not None:
            return TerminalExitStatus(exit_code=None, signal="SIGKILL")
        code = self.task.result().exit_code
        return TerminalExitStatus(exit_code=code, signal=None if code is not None else "SIGKILL")

    def kill(self) -> None:
        if not self.task.done():
            self.task.cancel()


def _refused(path: str, exc: DelegateRefused) -> RequestError:
    """The error the delegate gets for a refused read or write: what happened, in words."""
    return RequestError(-32602, str(exc), {"path": path})


def _selected(option_id: str) -> RequestPermissionResponse:
    return RequestPermissionResponse(outcome=AllowedOutcome(option_id=option_id,
                                                            outcome="selected"))
