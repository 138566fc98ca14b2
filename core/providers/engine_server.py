"""The warm engine: a background process of the person's own that has litellm imported and
forks a ready stream worker for each workbench that asks, so that a workbench's first model
request waits for no import.

Run by :mod:`~agent_tui.core.providers.warm_engine` as
``python -m agent_tui.core.providers.engine_server SOCKET [--idle SECONDS]``. It detaches
(its own session, its parent gone at once), listens on the Unix socket ``SOCKET`` (in a
folder only its user can enter; a peer of another user is refused), imports litellm and
freezes what the import made, then serves one connection per worker:

- in: one byte carrying three file descriptors (the worker's stdin, stdout and stderr), then
  one JSON line ``{"cwd": …, "env": {…}}``;
- out: ``{"pid": N}`` once the worker is forked, and ``{"exit": CODE}`` when it has ended
  (a negative code: the signal that killed it), then the connection closes.

The worker is a fork of this process: it takes the workbench's folder and environment and
runs :func:`~agent_tui.core.providers.stream_worker.serve` on the descriptors, as a worker the
workbench started itself would. The engine ends once no worker has run for ``--idle``
seconds, or when its socket is no longer its own (a newer engine took the name).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import selectors
import signal
import socket
import struct
import sys
import time
from typing import Any

IDLE_S = 900.0
"""Seconds the engine stays up with no worker running."""

HANDSHAKE_S = 5.0
"""Seconds a workbench has to say what its worker needs, once connected."""

MAX_REQUEST = 4 * 1024 * 1024
"""The longest handshake line (the environment) taken."""


def peer_credentials(conn: socket.socket) -> tuple[int, int, int]:
    """The process id, user id and group id of the process at the other end of ``conn``
    (a Unix socket)."""
    raw = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, gid = struct.unpack("3i", raw)
    return int(pid), int(uid), int(gid)


def _read_line(conn: socket.socket) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        part = conn.recv(65536)
        if not part:
            raise ConnectionError("the workbench hung up during the handshake")
        data += part
        if len(data) > MAX_REQUEST:
            raise ConnectionError("the handshake is too long")
    return data


def exit_code(status: int) -> int:
    """A wait status as :class:`subprocess.Popen` gives it: the exit code, or minus the
    signal that ended the process."""
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1


class Engine:
    """The listening socket, and the connection of each worker that runs."""

    def __init__(self, path: str, idle_s: float) -> None:
        self.path = path
        self.idle_s = idle_s
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.children: dict[int, socket.socket] = {}
        self.inode = 0
        self.wake_r, self.wake_w = os.pipe()

    def bind(self) -> bool:
        """Take the socket's name; False when a live engine has it already."""
        try:
            self.listener.bind(self.path)
        except OSError:
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.connect(self.path)
                return False  # a live engine answers there
            except OSError:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.path)  # a dead engine's name
                self.listener.bind(self.path)
            finally:
                probe.close()
        os.chmod(self.path, 0o600)
        self.inode = os.stat(self.path).st_ino
        self.listener.listen(16)
        self._retire_older()
        return True

    def _retire_older(self) -> None:
        """Take the names of this install's engines for older code (``engine-INSTALL-*``):
        they end once their workers have, and no workbench reaches them meanwhile."""
        folder, name = os.path.split(self.path)
        install = name.rsplit("-", 1)[0] + "-"
        for other in os.listdir(folder):
            if other.startswith(install) and other.endswith(".sock") and other != name:
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(folder, other))

    def owns_socket(self) -> bool:
        """Whether the socket's name still leads here."""
        try:
            return os.stat(self.path).st_ino == self.inode
        except OSError:
            return False

    def serve(self) -> None:
        """Fork workers until idle; then give up the socket's name."""
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        selector = selectors.DefaultSelector()
        selector.register(self.listener, selectors.EVENT_READ)
        selector.register(self.wake_r, selectors.EVENT_READ)
        quiet_since = time.monotonic()
        try:
            while True:
                if self.children:
                    timeout: float | None = None
                else:
                    timeout = self.idle_s - (time.monotonic() - quiet_since)
                    if timeout <= 0 or not self.owns_socket():
                        return
                    timeout = min(timeout, 5.0)
                for key, _ in selector.select(timeout):
                    if key.fileobj is self.listener:
                        self._accept()
                    else:
                        with contextlib.suppress(BlockingIOError):
                            os.read(self.wake_r, 4096)
                self._reap()
                if self.children:
                    quiet_since = time.monotonic()
        finally:
            if self.owns_socket():
                with contextlib.suppress(OSError):
                    os.unlink(self.path)

    def _accept(self) -> None:
        conn, _ = self.listener.accept()
        fds: list[int] = []
        try:
            if peer_credentials(conn)[1] != os.getuid():
                return
            conn.settimeout(HANDSHAKE_S)
            _, fds, _, _ = socket.recv_fds(conn, 1, 3)
            if len(fds) != 3:
                return
            request = json.loads(_read_line(conn))
            pid = os.fork()
            if pid == 0:
                self._become_worker(fds, request)
            conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
            self.children[pid] = conn
            conn = None  # type: ignore[assignment]  # kept until the worker ends
        except (OSError, ValueError):
            pass
        finally:
            for fd in fds:
                with contextlib.suppress(OSError):
                    os.close(fd)
            if conn is not None:
                conn.close()

    def _reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            if conn is not None:
                with contextlib.suppress(OSError):
                    conn.sendall(json.dumps({"exit": exit_code(status)}).encode() + b"\n")
                conn.close()

    def _become_worker(self, fds: list[int], request: dict[str, Any]) -> None:
        """In the forked child: the workbench's descriptors, folder and environment, then
        the stream worker's loop; never returns."""
        code = 0
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            self.listener.close()
            for other in self.children.values():
                other.close()
            os.close(self.wake_r)
            os.close(self.wake_w)
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
                os.close(fd)
            os.chdir(request.get("cwd") or "/")
            os.environ.clear()
            os.environ.update(request.get("env") or {})
            from .stream_process import FORKED_VARIABLE
            from .stream_worker import run_worker

            os.environ[FORKED_VARIABLE] = "1"

            run_worker(nice=False)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:  # noqa: BLE001 - said on the worker's stderr, which the workbench keeps
            import traceback

            traceback.print_exc()
            code = 1
        finally:
            with contextlib.suppress(Exception):
                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(code)


def _detach() -> None:
    """Leave the starting workbench: a new session, and a parent that ends at once (the
    engine then belongs to init, not to the workbench's process tree)."""
    if os.fork() != 0:
        os._exit(0)
    os.setsid()


def main(argv: list[str] | None = None) -> None:
    """``engine_server SOCKET [--idle SECONDS]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    idle_s = IDLE_S
    if "--idle" in args:
        at = args.index("--idle")
        idle_s = float(args[at + 1])
        del args[at:at + 2]
    path = args[0]
    _detach()
    engine = Engine(path, idle_s)
    if not engine.bind():
        return
    from .stream_worker import NICENESS, load_and_settle
    from .warm_up import warm_up

    os.nice(NICENESS)
    load_and_settle()
    warm_up()
    gc.collect()
    gc.freeze()
    engine.serve()


if __name__ == "__main__":
    main()
