"""The shell tool: run a bash command, stream its output, and never leave it running."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import secrets
import signal
import time
from collections import deque
from pathlib import Path
from typing import IO

from pydantic import AliasChoices, Field

from ..core.safety.sandbox import SandboxError
from .base import (
    CommandRunner,
    Confirmation,
    ErrorType,
    Invocation,
    OutputCallback,
    Tool,
    ToolArgumentError,
    ToolContext,
    ToolKind,
    ToolParams,
    ToolResult,
)
from .names import ToolName

MAX_TIMEOUT_MS = 3_600_000
"""The longest timeout a command may ask for (one hour)."""
READ_CHUNK = 65_536
"""Bytes read from the command's output at a time."""
EXIT_GRACE_S = 0.5
"""How long output is still read after the command exits, for background children
that keep the pipe open."""
TERM_GRACE_S = 2.0
"""How long a process group has to exit after SIGTERM before it gets SIGKILL."""


class ShellParams(ToolParams):
    """Arguments of shell."""

    command: str = Field(description="The bash command to run, e.g. `pytest -q tests/`.")
    working_dir: str | None = Field(
        default=None,
        validation_alias=AliasChoices("working_dir", "cwd"),
        description="Folder to run in, absolute or relative to the project folder "
                    "(default: the project folder).")
    timeout: int | None = Field(
        default=None, ge=1, le=MAX_TIMEOUT_MS,
        description="Timeout in milliseconds, 1 to 3600000 (default: 120000 unless the "
                    "user configured another).")


class ShellTool(Tool):
    """Runs a command with bash and returns its combined output and exit code."""

    name = ToolName.SHELL
    kind = ToolKind.EXECUTE
    description = (
        "Run a command with `bash -c` in the project folder (or working_dir) and return its "
        "combined stdout and stderr followed by the exit code. It is not interactive: stdin "
        "is empty, so pass flags such as -y and avoid pagers and editors. Long output is cut "
        "in the middle; the full output is then saved to a log file you can read. The "
        "command is killed, with its children, when it exceeds the timeout."
    )
    Params = ShellParams

    def validate(self, params: ShellParams, ctx: ToolContext) -> None:
        """Reject a blank command."""
        if not params.command.strip():
            raise ToolArgumentError("command is empty; pass the bash command to run")

    def create_invocation(self, params: ShellParams, ctx: ToolContext) -> ShellInvocation:
        """Make the invocation."""
        return ShellInvocation(self, params, ctx)


class ShellInvocation(Invocation[ShellParams]):
    """One shell call."""

    @property
    def working_dir(self) -> Path:
        """Where the command runs."""
        wd = self.params.working_dir
        return self.ctx.resolve(wd) if wd else self.ctx.workdir

    @property
    def timeout_s(self) -> float:
        """The effective timeout in seconds."""
        return (self.params.timeout or self.ctx.shell_timeout_ms) / 1000

    def describe(self) -> str:
        """E.g. ``shell: ls -la``."""
        lines = self.params.command.strip().splitlines() or [""]
        first = lines[0] if len(lines[0]) <= 200 else lines[0][:200] + "…"
        return f"shell: {first}" + (" …" if len(lines) > 1 else "")

    def confirmation(self) -> Confirmation:
        """The command and where it runs."""
        return Confirmation(kind="execute", title="Run a shell command",
                            command=self.params.command, working_dir=self.working_dir)

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Run the command, streaming output to ``on_output``.

        On timeout or cancellation the whole process group is terminated; cancellation is
        then re-raised.
        """
        cwd = self.working_dir
        if not cwd.is_dir():
            what = "is not a directory" if cwd.exists() else "does not exist"
            return ToolResult.failure(
                f"working_dir {cwd} {what}; pass an existing folder or leave working_dir out "
                f"to run in {self.ctx.workdir}")
        try:
            self.ctx.output_dir.mkdir(parents=True, exist_ok=True)
            sink = OutputSink(self.ctx.output_limit, _new_log_path(self.ctx.output_dir),
                              on_output)
        except OSError as exc:
            return ToolResult.failure(
                f"cannot create the output log in {self.ctx.output_dir}: {exc}; check that "
                "the folder is writable")
        try:
            return await self._run(cwd, sink)
        finally:
            sink.close()

    async def _run(self, cwd: Path, sink: OutputSink) -> ToolResult:
        if self.ctx.command_runner is not None and self.ctx.sandbox is None:
            return await self._run_elsewhere(self.ctx.command_runner, cwd, sink)
        argv = ["bash", "-c", self.params.command]
        if (sandbox := self.ctx.sandbox) is not None:
            try:
                argv = await asyncio.to_thread(
                    sandbox.wrap, argv, workdir=self.ctx.workdir, cwd=cwd,
                    network=self.ctx.network_enabled, readable=(self.ctx.output_dir,))
            except SandboxError as exc:
                return ToolResult.failure(f"the command did not run: {exc}")
        read_fd, write_fd = os.pipe()
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv, cwd=cwd, env=self.ctx.env,
                stdin=asyncio.subprocess.DEVNULL, stdout=write_fd,
                stderr=asyncio.subprocess.STDOUT, start_new_session=True)
        except OSError as exc:
            os.close(read_fd)
            return ToolResult.failure(f"cannot start {argv[0]}: {exc}; check that it is "
                                      "installed")
        finally:
            os.close(write_fd)
        # Owning the pipe (rather than proc.stdout) lets us stop reading while a background
        # child still holds its write end.
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=2 * READ_CHUNK)
        pipe = os.fdopen(read_fd, "rb", 0)
        transport: asyncio.ReadTransport | None = None
        try:
            transport, _ = await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader), pipe)
            async with asyncio.timeout(self.timeout_s):
                await pump_output(reader, proc, sink)
                returncode = await proc.wait()
        except TimeoutError:
            await kill_group(proc)
            return self._timed_out(sink)
        except BaseException:
            await kill_group(proc)
            raise
        finally:
            if transport is not None:
                transport.close()
            else:
                pipe.close()
        sink.finish()
        return self._ended(sink, returncode,
                           _signal_name(-returncode) if returncode < 0 else None)

    async def _run_elsewhere(self, runner: CommandRunner, cwd: Path,
                             sink: OutputSink) -> ToolResult:
        """Run the command where the front end runs commands (an ACP client's terminal)."""
        try:
            run = await runner.run(self.params.command, cwd, self.ctx.env, self.timeout_s,
                                   sink.feed)
        except OSError as exc:
            return ToolResult.failure(f"the command did not run: {exc}")
        if run.timed_out:
            return self._timed_out(sink)
        sink.finish()
        return self._ended(sink, run.exit_code if run.exit_code is not None else -1, run.signal)

    def _timed_out(self, sink: OutputSink) -> ToolResult:
        sink.finish()
        seconds = f"{self.timeout_s:g}"
        note = (f"[timed out after {seconds} s; the command and its children were killed. "
                f"If it needs longer, call shell again with a larger timeout in "
                f"milliseconds (at most {MAX_TIMEOUT_MS}); start a server or watcher in the "
                "background instead (`cmd > log 2>&1 &`)]")
        return ToolResult(llm_content=_append_line(sink.render(), note),
                          error=f"command timed out after {seconds} s",
                          error_type=ErrorType.TIMEOUT)

    @staticmethod
    def _ended(sink: OutputSink, returncode: int, killed_by: str | None) -> ToolResult:
        status = f"Exit code: {returncode}"
        if killed_by:
            status += f" (killed by {killed_by})"
        result = ToolResult(llm_content=_append_line(sink.render(), status))
        if returncode != 0:
            result.error = f"command exited with code {returncode}"
        return result


class OutputSink:
    """Collects a command's output with bounded memory.

    Everything goes to a log file; in memory only the first half of ``limit`` characters
    (the head) and the last half (the tail, a rolling buffer) are kept.
    """

    def __init__(self, limit: int, log_path: Path, on_output: OutputCallback | None) -> None:
        self.log_path = log_path
        self.total = 0
        self._on_output = on_output
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._head_cap = max(limit, 0) // 2
        self._tail_cap = max(limit, 0) - self._head_cap
        self._head: list[str] = []
        self._head_len = 0
        self._tail: deque[str] = deque()
        self._tail_len = 0
        self._log: IO[str] | None = open(log_path, "w", encoding="utf-8", newline="")

    @property
    def truncated(self) -> bool:
        """True when the output did not fit in ``limit`` characters."""
        return self.total > self._head_cap + self._tail_cap

    def feed(self, data: bytes) -> None:
        """Take raw output bytes."""
        self._take(self._decoder.decode(data))

    def finish(self) -> None:
        """Flush a trailing incomplete UTF-8 sequence."""
        self._take(self._decoder.decode(b"", final=True))

    def _take(self, text: str) -> None:
        if not text:
            return
        self.total += len(text)
        if self._log:
            self._log.write(text)
        if self._on_output:
            self._on_output(text)
        room = self._head_cap - self._head_len
        if room > 0:
            self._head.append(text[:room])
            self._head_len += len(text[:room])
            text = text[room:]
        if not text:
            return
        self._tail.append(text)
        self._tail_len += len(text)
        while self._tail_len - len(self._tail[0]) >= self._tail_cap:
            self._tail_len -= len(self._tail.popleft())

    def render(self) -> str:
        """The output, or head, marker and tail when it was too long; "(no output)" if none."""
        head = "".join(self._head)
        tail = "".join(self._tail)
        if not self.truncated:
            return head + tail if self.total else "(no output)"
        tail = tail[len(tail) - self._tail_cap:] if self._tail_cap else ""
        omitted = self.total - len(head) - len(tail)
        marker = (f"[... {omitted:,} characters omitted; full output ({self.total:,} "
                  f"characters) saved to {self.log_path}; read it with read_file or search "
                  "it with grep ...]")
        if head and not head.endswith("\n"):
            head += "\n"
        return f"{head}{marker}\n{tail}"

    def close(self) -> None:
        """Close the log; delete it unless the output was truncated (then it is referenced)."""
        if self._log:
            self._log.close()
            self._log = None
        if not self.truncated:
            with contextlib.suppress(OSError):
                self.log_path.unlink()


async def pump_output(reader: asyncio.StreamReader, proc: asyncio.subprocess.Process,
                sink: OutputSink) -> None:
    """Read output until EOF, or until a short grace after the command exited."""
    loop = asyncio.get_running_loop()
    exited = asyncio.ensure_future(proc.wait())
    read: asyncio.Future[bytes] | None = None
    deadline: float | None = None
    try:
        while deadline is None or loop.time() < deadline:
            if read is None:
                read = asyncio.ensure_future(reader.read(READ_CHUNK))
            waiting: set[asyncio.Future[bytes] | asyncio.Future[int]] = (
                {read} if exited.done() else {read, exited})
            timeout = None if deadline is None else max(deadline - loop.time(), 0)
            done, _ = await asyncio.wait(waiting, timeout=timeout,
                                         return_when=asyncio.FIRST_COMPLETED)
            if exited.done() and deadline is None:
                deadline = loop.time() + EXIT_GRACE_S
            if read in done:
                data = read.result()
                read = None
                if not data:
                    return
                sink.feed(data)
    finally:
        for task in (read, exited):
            if task is not None and not task.done():
                task.cancel()


async def kill_group(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM the command's process group, then SIGKILL whatever is left after a grace."""
    pgid = proc.pid  # start_new_session made the command a group leader
    if not signal_group(pgid, signal.SIGTERM):
        return
    try:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), TERM_GRACE_S)
    finally:
        # Also runs if we are cancelled again while waiting: nothing may outlive us.
        signal_group(pgid, signal.SIGKILL)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(proc.wait(), TERM_GRACE_S)


def signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to a process group; False when the group no longer exists."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _append_line(text: str, line: str) -> str:
    """``line`` on its own line after ``text``."""
    separator = "" if text.endswith("\n") else "\n"
    return f"{text}{separator}{line}"


def _signal_name(number: int) -> str:
    """``SIGKILL`` for 9, and so on."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _new_log_path(output_dir: Path) -> Path:
    """A fresh log file name such as ``shell-20250101-120000-1a2b3c4d.log``."""
    return output_dir / f"shell-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(4)}.log"
