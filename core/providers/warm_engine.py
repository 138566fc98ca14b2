"""A stream worker from the warm engine: forked, with litellm already imported, in a few
milliseconds, instead of started and left to import litellm for seconds.

The engine (:mod:`~agent_tui.core.providers.engine_server`) is one background process per
user and per installed agent-tui, reached by a Unix socket in a folder only the user can
enter. The first workbench to want a worker starts it; it stays up while any worker runs
and for ``IDLE_S`` seconds after the last one ends (15 minutes). Whatever goes wrong with it
(no such folder, a refused connection, an engine that dies) costs only the wait: the
caller then starts a worker itself, as it would with ``warm_engine`` off.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import select
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

SERVER_MODULE = "agent_tui.core.providers.engine_server"
RUNTIME_VARIABLE = "AGENT_TUI_RUNTIME_DIR"
"""Where the engine's socket lives, when set (else ``$XDG_RUNTIME_DIR/agent-tui``, else
``/tmp/agent-tui-UID``)."""

CONNECT_WAIT_S = 5.0
"""Seconds a new engine has to open its socket."""

PID_WAIT_S = 60.0
"""Seconds to wait for the worker's pid: a new engine imports litellm first."""


def runtime_dir() -> Path | None:
    """The folder of the engine's socket, made if missing; None when it is not the person's
    own or others can enter it."""
    named = os.environ.get(RUNTIME_VARIABLE)
    if named:
        folder = Path(named)
    elif os.environ.get("XDG_RUNTIME_DIR"):
        folder = Path(os.environ["XDG_RUNTIME_DIR"]) / "agent-tui"
    else:
        folder = Path("/tmp") / f"agent-tui-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.lstat()
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return None
    return folder


def engine_key() -> str:
    """What makes one engine fit a workbench: ``INSTALL-CODE``, the same Python and
    agent-tui folder (INSTALL), and the same files of the modules a worker runs and the
    same litellm settings read at import (CODE)."""
    root = Path(__file__).resolve().parents[2]
    install = hashlib.sha256(f"{sys.executable}\0{root}\0{sys.version}".encode())
    code = hashlib.sha256()
    # The modules a worker runs: the providers and the engine's own (settings, events…).
    for path in sorted([*(root / "core").glob("*.py"), *(root / "core/providers").glob("*.py")]):
        with contextlib.suppress(OSError):
            info = path.stat()
            code.update(f"{path}\0{info.st_mtime_ns}\0{info.st_size}\0".encode())
    for name in sorted(os.environ):
        if name.startswith("LITELLM_"):
            code.update(f"{name}={os.environ[name]}\0".encode())
    return f"{install.hexdigest()[:8]}-{code.hexdigest()[:12]}"


def socket_path() -> Path | None:
    """This agent-tui's engine socket, or None when no safe folder exists for it."""
    folder = runtime_dir()
    return None if folder is None else folder / f"engine-{engine_key()}.sock"


class EngineWorker:
    """A worker the engine forked, used as the :class:`subprocess.Popen` of a worker the
    workbench started: ``pid``, ``stdin``, ``stdout``, ``stderr``, ``poll``, ``wait``,
    ``kill`` and ``returncode``. Its end is told by the engine's connection."""

    def __init__(self, conn: socket.socket, pid: int, stdin: IO[bytes], stdout: IO[bytes],
                 stderr: IO[bytes]) -> None:
        self._conn = conn
        self.pid = pid
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.returncode: int | None = None
        self._lock = threading.Lock()
        self._said = b""

    def poll(self) -> int | None:
        """The exit code once it has ended, else None."""
        return self._check(0.0)

    def wait(self, timeout: float | None = None) -> int:
        """Wait for its end; :class:`subprocess.TimeoutExpired` after ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            code = self._check(1.0 if left is None else min(left, 1.0))
            if code is not None:
                return code
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(f"warm engine worker {self.pid}", timeout or 0)

    def kill(self) -> None:
        """End it now."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(self.pid, signal.SIGKILL)

    def _check(self, timeout: float) -> int | None:
        with self._lock:
            if self.returncode is not None:
                return self.returncode
            ready, _, _ = select.select([self._conn], [], [], timeout)
            if not ready:
                return None
            try:
                part = self._conn.recv(4096)
            except OSError:
                part = b""
            self._said += part
            if b"\n" in self._said:
                with contextlib.suppress(ValueError):
                    self.returncode = int(json.loads(self._said.split(b"\n")[0])["exit"])
            if part and self.returncode is None:
                return None
            if self.returncode is None:
                # The engine died before telling: judge by the worker's process itself.
                if process_alive(self.pid):
                    time.sleep(min(timeout, 0.2))
                    return None
                self.returncode = -signal.SIGKILL
            self._conn.close()
            return self.returncode


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (a zombie counts: its parent has not reaped it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def connect(path: Path) -> socket.socket | None:
    """A connection to the engine at ``path``, or None when none answers there."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(str(path))
    except OSError:
        conn.close()
        return None
    return conn


def _start_engine(path: Path) -> None:
    """Start an engine on ``path``; it detaches at once (the short-lived process that
    started it is waited for in a thread, leaving no zombie)."""
    log = path.with_suffix(".log")
    with open(log, "ab") as handle:
        starter = subprocess.Popen(
            [sys.executable, "-m", SERVER_MODULE, str(path)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=handle,
            start_new_session=True, close_fds=True)
    threading.Thread(target=starter.wait, name="engine-start", daemon=True).start()


def _reach_engine(path: Path) -> socket.socket | None:
    if (conn := connect(path)) is not None:
        return conn
    _start_engine(path)
    deadline = time.monotonic() + CONNECT_WAIT_S
    while time.monotonic() < deadline:
        time.sleep(0.02)
        if (conn := connect(path)) is not None:
            return conn
    return None


def start_worker(env: dict[str, str], ready_wait: float = PID_WAIT_S) -> EngineWorker | None:
    """A stream worker forked by the engine (started first if none runs) with ``env`` and
    this process's folder; None when there is no engine to be had, or it has not forked
    one within ``ready_wait`` seconds (a new engine imports litellm first)."""
    path = socket_path()
    if path is None:
        return None
    conn = _reach_engine(path)
    if conn is None:
        return None
    child_in, stdin = os.pipe()
    stdout, child_out = os.pipe()
    stderr, child_err = os.pipe()
    try:
        conn.settimeout(ready_wait)
        socket.send_fds(conn, [b"F"], [child_in, child_out, child_err])
        conn.sendall(json.dumps({"cwd": os.getcwd(), "env": env}).encode() + b"\n")
        said = b""
        while b"\n" not in said:
            part = conn.recv(4096)
            if not part:
                raise ConnectionError("the engine hung up")
            said += part
        line, rest = said.split(b"\n", 1)
        pid = int(json.loads(line)["pid"])
    except (OSError, ValueError, KeyError):
        conn.close()
        for fd in (stdin, stdout, stderr):
            os.close(fd)
        return None
    finally:
        for fd in (child_in, child_out, child_err):
            os.close(fd)
    conn.settimeout(None)
    worker = EngineWorker(conn, pid, os.fdopen(stdin, "wb"), os.fdopen(stdout, "rb"),
                          os.fdopen(stderr, "rb"))
    worker._said = rest
    return worker


def stop_engine() -> bool:
    """End this agent-tui's engine, if one runs (its workers go on until their workbenches
    end); whether one did."""
    path = socket_path()
    if path is None or (conn := connect(path)) is None:
        return False
    conn.close()
    with contextlib.suppress(OSError):
        os.unlink(path)  # the engine sees its socket gone and ends once idle
    return True
