"""The background_process tool (g3) and the registry of the processes it started.

A background process runs ``bash -c`` in its own process group with its output going to a
log file; the call returns at once with the pid and the log's path. The registry remembers
every such process so the front end can list and stop them, and stops them all when
agent-tui exits unless ``keep_background_processes`` was set when they started.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pydantic import AliasChoices, Field

from ..core.safety.sandbox import SandboxError
from .base import (
    Confirmation,
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
from .shell import TERM_GRACE_S, signal_group

STARTUP_CHECK_S = 0.5
"""How long a new process is watched, so a command that fails at once says so."""
LOG_TAIL_CHARS = 2_000
"""Characters of the log shown when a process exited at once."""
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(slots=True)
class BackgroundProcess:
    """One process started by background_process.

    Attributes:
        name: The model's name for it, unique among running ones.
        command: The bash command.
        working_dir: Where it runs.
        log: The file its stdout and stderr go to.
        started: When it started.
        keep: Whether it is left running when agent-tui exits.
        popen: The process (the leader of its own process group).
    """

    name: str
    command: str
    working_dir: Path
    log: Path
    started: datetime
    keep: bool
    popen: subprocess.Popen[bytes]

    @property
    def pid(self) -> int:
        """The process id, which is also its process group id."""
        return self.popen.pid

    @property
    def alive(self) -> bool:
        """True while the command (the group leader) runs."""
        return self.popen.poll() is None

    @property
    def returncode(self) -> int | None:
        """The exit code once it ended (negative: killed by that signal), else None."""
        return self.popen.poll()


class DuplicateProcessName(ValueError):
    """A running background process already has that name."""


class BackgroundProcesses:
    """The processes background_process started, by name; thread-safe.

    ``stop`` and ``stop_all`` block for up to the grace period; from an event loop call
    them with ``asyncio.to_thread``.
    """

    def __init__(self) -> None:
        self._procs: dict[str, BackgroundProcess] = {}
        self._lock = threading.Lock()
        self._exit_hook = False

    def processes(self) -> list[BackgroundProcess]:
        """Every process started, running or not, oldest first."""
        with self._lock:
            return sorted(self._procs.values(), key=lambda p: p.started)

    def running(self) -> list[BackgroundProcess]:
        """The processes still running, oldest first."""
        return [p for p in self.processes() if p.alive]

    def get(self, name: str) -> BackgroundProcess | None:
        """The process called ``name``, or None."""
        with self._lock:
            return self._procs.get(name)

    def start(self, name: str, command: str, working_dir: Path, log: Path, *,
              env: Mapping[str, str] | None = None, keep: bool = False,
              argv: Sequence[str] | None = None) -> BackgroundProcess:
        """Start ``command`` with ``bash -c`` in its own process group, output to ``log``.

        A finished process of the same name is replaced. ``argv``, when given, is what
        actually runs (``command`` wrapped in a sandbox, say); ``command`` is then only its
        name for people.

        Raises:
            DuplicateProcessName: a running process has that name.
            OSError: the log cannot be written or bash cannot start.
        """
        with self._lock:
            old = self._procs.get(name)
            if old is not None and old.alive:
                raise DuplicateProcessName(name)
            with open(log, "wb") as sink:
                popen = subprocess.Popen(
                    list(argv) if argv else ["bash", "-c", command], cwd=working_dir, env=env,
                    stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                    start_new_session=True)
            proc = BackgroundProcess(name, command, working_dir, log, datetime.now(), keep,
                                     popen)
            self._procs[name] = proc
            if not self._exit_hook:
                atexit.register(self.stop_at_exit)
                self._exit_hook = True
            return proc

    def stop(self, name: str, grace: float = TERM_GRACE_S) -> bool:
        """Stop the process called ``name`` and its whole group: SIGTERM, SIGKILL after ``grace``.

        Returns:
            False when there is no such process.
        """
        proc = self.get(name)
        if proc is None:
            return False
        _terminate([proc], grace)
        return True

    def stop_all(self, grace: float = TERM_GRACE_S) -> None:
        """Stop every process this registry started, with their groups."""
        _terminate(self.processes(), grace)

    def stop_at_exit(self) -> None:
        """Stop the processes not started with ``keep_background_processes`` (atexit)."""
        _terminate([p for p in self.processes() if not p.keep], TERM_GRACE_S)


background_processes = BackgroundProcesses()
"""The registry of this agent-tui process."""


def _group_alive(proc: BackgroundProcess) -> bool:
    proc.popen.poll()  # reap the leader, so a zombie does not count
    try:
        os.killpg(proc.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _terminate(procs: list[BackgroundProcess], grace: float) -> None:
    """SIGTERM every group, wait up to ``grace`` for them all, then SIGKILL what is left."""
    live = [p for p in procs if _group_alive(p)]
    for proc in live:
        signal_group(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while any(_group_alive(p) for p in live) and time.monotonic() < deadline:
        time.sleep(0.02)
    for proc in live:
        if _group_alive(proc):
            signal_group(proc.pid, signal.SIGKILL)
    for proc in live:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.popen.wait(grace)


class BackgroundProcessParams(ToolParams):
    """Arguments of background_process."""

    name: str = Field(description="A short unique name for the process, e.g. `dev_server` "
                                  "(letters, digits, _ . -).")
    command: str = Field(description="The bash command to run, e.g. `npm run dev`.")
    working_dir: str | None = Field(
        default=None,
        validation_alias=AliasChoices("working_dir", "cwd"),
        description="Folder to run in, absolute or relative to the project folder "
                    "(default: the project folder).")


class BackgroundProcessTool(Tool):
    """Starts a long-running command in the background and returns its pid and log."""

    repeatable = True  # polling: the same call may see something new
    name = ToolName.BACKGROUND_PROCESS
    kind = ToolKind.EXECUTE
    description = (
        "Start a long-running command (a dev server, a watcher) in the background with "
        "`bash -c` and return at once with its pid and the log file that receives its "
        "stdout and stderr. It keeps running after this call; use the shell tool to read "
        "the log (`tail -n 50 LOG`), check on it (`ps -p PID`) or stop it "
        "(`kill -- -PID` stops it with its children). For commands that finish, use shell."
    )
    Params = BackgroundProcessParams

    def validate(self, params: BackgroundProcessParams, ctx: ToolContext) -> None:
        """Reject a blank command or a name unfit for a file name."""
        if not params.command.strip():
            raise ToolArgumentError("command is empty; pass the bash command to run")
        if not _NAME.match(params.name):
            raise ToolArgumentError(
                f"name {params.name!r} is not usable: use 1 to 64 letters, digits, _ . or - "
                "starting with a letter or digit, e.g. dev_server")

    def create_invocation(self, params: BackgroundProcessParams,
                          ctx: ToolContext) -> BackgroundProcessInvocation:
        """Make the invocation."""
        return BackgroundProcessInvocation(self, params, ctx)


class BackgroundProcessInvocation(Invocation[BackgroundProcessParams]):
    """One background_process call."""

    registry: BackgroundProcesses = background_processes

    @property
    def working_dir(self) -> Path:
        """Where the command runs."""
        wd = self.params.working_dir
        return self.ctx.resolve(wd) if wd else self.ctx.workdir

    def describe(self) -> str:
        """E.g. ``background_process dev: npm run dev``."""
        first = (self.params.command.strip().splitlines() or [""])[0][:200]
        return f"background_process {self.params.name}: {first}"

    def confirmation(self) -> Confirmation:
        """The command and where it runs."""
        return Confirmation(kind="execute",
                            title=f"Start the background process {self.params.name!r}",
                            command=self.params.command, working_dir=self.working_dir)

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Start the process, watch it briefly, and say where its output goes."""
        cwd = self.working_dir
        if not cwd.is_dir():
            what = "is not a directory" if cwd.exists() else "does not exist"
            return ToolResult.failure(
                f"working_dir {cwd} {what}; pass an existing folder or leave working_dir out "
                f"to run in {self.ctx.workdir}")
        name = self.params.name
        keep = bool(getattr(self.ctx.settings, "keep_background_processes", False))
        log = self.ctx.output_dir / f"bg-{name}.log"
        try:
            self.ctx.output_dir.mkdir(parents=True, exist_ok=True)
            argv = await self._sandboxed(cwd, keep)
            proc = self.registry.start(name, self.params.command, cwd, log,
                                       env=self.ctx.env, keep=keep, argv=argv)
        except SandboxError as exc:
            return ToolResult.failure(f"the background process did not start: {exc}")
        except DuplicateProcessName:
            running = ", ".join(f"{p.name} (pid {p.pid})" for p in self.registry.running())
            return ToolResult.failure(
                f"a background process named {name!r} is already running. Running: "
                f"{running}. Pick another name, or stop it first with the shell tool "
                f"(`kill -- -PID`)")
        except OSError as exc:
            return ToolResult.failure(f"cannot start the background process: {exc}; check "
                                      f"that bash is installed and {self.ctx.output_dir} is "
                                      "writable")
        deadline = time.monotonic() + STARTUP_CHECK_S
        while proc.alive and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        if not proc.alive:
            return _exited_at_once(proc)
        fate = ("It keeps running after agent-tui exits (keep_background_processes)." if keep
                else "agent-tui stops it when it exits.")
        text = (
            f"Started background process {name!r} (pid {proc.pid}) in {cwd}: "
            f"{self.params.command}\n"
            f"Log (stdout and stderr): {log}\n"
            f"It runs on after this call; {fate} Use the shell tool to check on it: "
            f"`tail -n 50 {log}` reads its output, `ps -p {proc.pid}` shows whether it runs, "
            f"`kill -- -{proc.pid}` stops it and its children."
        )
        return ToolResult(llm_content=text, display=f"{name}: pid {proc.pid}, log {log}")

    async def _sandboxed(self, cwd: Path, keep: bool) -> list[str] | None:
        """The command wrapped in the sandbox, or None when there is none.

        A process kept after agent-tui exits must not die with it, so it goes without
        ``--die-with-parent``.
        """
        if self.ctx.sandbox is None:
            return None
        return await asyncio.to_thread(
            self.ctx.sandbox.wrap, ["bash", "-c", self.params.command],
            workdir=self.ctx.workdir, cwd=cwd, network=self.ctx.network_enabled,
            readable=(self.ctx.output_dir,), die_with_parent=not keep)


def _exited_at_once(proc: BackgroundProcess) -> ToolResult:
    """The result for a process that ended while it was watched."""
    code = proc.returncode
    try:
        output = proc.log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        output = ""
    if len(output) > LOG_TAIL_CHARS:
        output = "[…]" + output[-LOG_TAIL_CHARS:]
    text = (f"The background process {proc.name!r} (pid {proc.pid}) exited at once with code "
            f"{code}; it is not running. Its output (log {proc.log}):\n"
            f"{output.rstrip() or '(no output)'}")
    if code == 0:
        return ToolResult(llm_content=text + "\nFor commands that finish, use the shell tool.")
    return ToolResult(llm_content=text, error=f"the background process exited with code {code}")
