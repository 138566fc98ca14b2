"""``agent-tui serve [PATH]``: the workbench in a browser, through textual-serve.

Each browser connection runs its own workbench process (``python -m agent_tui.tui.cli.main``
on PATH with the settings flags given to ``serve``), drawn by xterm.js in the page.

Nothing outlives its page or the server. When a page's connection closes (the tab closed,
even while its workbench starts; the browser killed), its workbench is asked to quit, then
sent SIGTERM, then SIGKILL, a few seconds apart; meanwhile its output is still read, since a
workbench blocked on a full pipe heeds no signal but SIGKILL. The server ending (Ctrl+C,
SIGTERM) ends every workbench the same way first; the server dying (SIGKILL) closes their
pipes, and a served workbench leaves when its pipes are gone (:mod:`~agent_tui.tui.workbench.web_driver`). A
workbench that leaves keeps its session, to resume as any other.

The server listens on 127.0.0.1 only and answers nobody without its token: the printed URL
carries it (``?token=…``), the first page sets it as an HttpOnly, SameSite=Strict cookie,
and the page's websocket and static files then pass with the cookie. Anything else gets
403. The token is what keeps other local users and web pages (DNS rebinding, cross-site
requests) from driving an agent that can run commands in PATH.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import logging
import secrets
import shlex
import signal
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from .cli_parser import build_parser, usage_error

HOST = "127.0.0.1"
DEFAULT_PORT = 8000
PORTS_TRIED = 100
"""Without ``--port``, ports from DEFAULT_PORT on are tried until one is free."""

FORWARDED_OPTIONS: tuple[tuple[str, str], ...] = (
    ("model", "--model"),
    ("api_base", "--api-base"),
    ("api_key", "--api-key"),
    ("approval_mode", "--approval-mode"),
    ("max_turns", "--max-turns"),
    ("context_window", "--context-window"),
    ("tool_protocol", "--tool-protocol"),
    ("tool_set", "--tool-set"),
    ("sandbox", "--sandbox"),
    ("agent", "--agent"),
)
"""Workbench flags with a value that every browser connection's workbench gets: (dest, flag)."""
FORWARDED_SWITCHES: tuple[tuple[str, str], ...] = (
    ("net", "--net"),
    ("webdriver", "--webdriver"),
    ("chrome_headless", "--chrome-headless"),
    ("computer_control", "--computer-control"),
)
"""Workbench on/off flags passed on when given: (dest, flag)."""

QUIT_GRACE_S = 3.0
"""How long a workbench whose page has gone gets to quit by itself before SIGTERM."""
TERM_GRACE_S = 2.0
"""How long it gets after SIGTERM before SIGKILL."""
OUTPUT_GRACE_S = 2.0
"""How long its output is read after it ended (a process it started may hold it open)."""
SHUTDOWN_TIMEOUT_S = 5.0
"""How long the stopping server waits for its pages' connections once the workbenches ended."""

REFUSED = "Open the URL agent-tui serve printed (it carries ?token=…).\n"
"""The body of every 403: what to do instead."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def token_middleware(token: str, cookie: str) -> Callable[[web.Request, Handler],
                                                          Awaitable[web.StreamResponse]]:
    """An aiohttp middleware that lets through only requests carrying ``token``.

    The token may come as the ``token`` query parameter (the printed URL) or as the cookie
    named ``cookie``; a request with the right query token gets the cookie set, so the
    page's own websocket and asset requests (which carry no query token) pass.

    Args:
        token: The secret of this server.
        cookie: The cookie's name (one per port: cookies do not tell ports apart).
    """

    def matches(given: str | None) -> bool:
        return given is not None and secrets.compare_digest(given.encode(), token.encode())

    @web.middleware
    async def check_token(request: web.Request, handler: Handler) -> web.StreamResponse:
        from_query = matches(request.query.get("token"))
        if not (from_query or matches(request.cookies.get(cookie))):
            return web.Response(status=403, text=REFUSED)
        response = await handler(request)
        if from_query and not response.prepared:  # a websocket's headers are already sent
            response.set_cookie(cookie, token, httponly=True, samesite="Strict", path="/")
        return response

    return check_token


class Workbench(AppService):
    """One page's workbench process, which textual-serve's AppService starts and talks to.

    Unlike AppService, it reads the workbench's output until the process ends, also after
    the page has gone (AppService stopped at the first frame it could not send, and the
    workbench then blocked on the full pipe for good), closes the page's connection when the
    workbench ends, and ends a workbench that does not quit when asked (:meth:`stop`).
    """

    _stopping: asyncio.Task[None] | None = None

    async def on_data(self, payload: bytes) -> None:
        with contextlib.suppress(ConnectionError):  # the page has gone: drop the frame
            await super().on_data(payload)

    async def on_meta(self, data: bytes) -> None:
        with contextlib.suppress(ConnectionError):
            await super().on_meta(data)

    async def run(self) -> None:
        """Relay the workbench's output to the page until it ends, then close the page's
        connection (a workbench that was killed says nothing at its end)."""
        await super().run()
        with contextlib.suppress(ConnectionError):
            await self.remote_close()

    async def stop(self) -> None:
        """End the workbench: ask it to quit (it saves its session), SIGTERM it after
        QUIT_GRACE_S, SIGKILL it TERM_GRACE_S later; return once it has ended. Safe to call
        more than once and from several tasks; cancelling the caller does not stop the end."""
        if self._task is None or self._process is None:
            return
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._end())
        await asyncio.shield(self._stopping)

    async def _end(self) -> None:
        process, output = self._process, self._task
        assert process is not None and output is not None
        await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
        with contextlib.suppress(TimeoutError):  # its input may be full: it is not reading
            await asyncio.wait_for(self.send_meta({"type": "quit"}), QUIT_GRACE_S)
        # After each grace without an end, the next signal.
        for grace, then in ((QUIT_GRACE_S, signal.SIGTERM), (TERM_GRACE_S, signal.SIGKILL)):
            try:
                await asyncio.wait_for(process.wait(), grace)
                break
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(then)
        await process.wait()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(output), OUTPUT_GRACE_S)
        output.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await output


class WorkbenchServer(Server):
    """textual-serve's Server on a socket already bound, behind :func:`token_middleware`,
    printing one line (the URL) instead of its banner and request log; each page's
    workbench is a :class:`Workbench`, ended with its page and with the server."""

    def __init__(self, command: str, listener: socket.socket, title: str) -> None:
        port = listener.getsockname()[1]
        super().__init__(command, host=HOST, port=port, title=title,
                         public_url=f"http://{HOST}:{port}")
        self.listener = listener
        self.token = secrets.token_urlsafe(24)
        self.url = f"{self.public_url}/?token={self.token}"
        self.workbenches: set[Workbench] = set()
        """The workbenches running now, one per open page."""

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(token_middleware(self.token, f"agent_tui_token_{self.port}"))
        return app

    async def on_shutdown(self, app: web.Application) -> None:
        """The server is stopping (Ctrl+C, SIGTERM): end every workbench first."""
        await asyncio.gather(*(workbench.stop() for workbench in list(self.workbenches)))

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """A page's connection: its own workbench, from the connection to the end of
        either (textual-serve's handler, with a :class:`Workbench`)."""
        websocket = web.WebSocketResponse(heartbeat=15)
        width = to_int(request.query.get("width", "80"), 80)
        height = to_int(request.query.get("height", "24"), 24)
        await websocket.prepare(request)
        workbench = Workbench(self.command, write_bytes=websocket.send_bytes,
                              write_str=websocket.send_str, close=websocket.close,
                              download_manager=self.download_manager)
        self.workbenches.add(workbench)
        try:
            await workbench.start(width, height)
            await self._process_messages(websocket, workbench)
        except Exception:  # a page's error is logged, never the server's end
            logging.getLogger("textual-serve").exception("a page's connection failed")
        finally:
            await workbench.stop()
            self.workbenches.discard(workbench)
            await websocket.close()
        return websocket

    async def on_startup(self, app: web.Application) -> None:
        # Only the URL: textual-serve's banner would print the command, API key and all.
        print(f"agent-tui serve: open {self.url}  (Ctrl+C stops)", flush=True)

    def serve(self, debug: bool = False) -> None:
        """Serve until Ctrl+C or SIGTERM."""
        web.run_app(self._make_app(), sock=self.listener, print=None, access_log=None,
                    shutdown_timeout=SHUTDOWN_TIMEOUT_S)


def bind(port: int | None) -> socket.socket:
    """A listening socket on 127.0.0.1: ``port`` (0: any free one), or without it
    DEFAULT_PORT or the next free port after it.

    Raises:
        OSError: the port given (or every port tried) is taken.
    """
    candidates = [port] if port is not None else range(DEFAULT_PORT, DEFAULT_PORT + PORTS_TRIED)
    error: OSError | None = None
    for candidate in candidates:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            listener.bind((HOST, candidate))
        except OSError as exc:
            listener.close()
            if exc.errno != errno.EADDRINUSE:
                raise
            error = exc
            continue
        listener.listen(128)
        return listener
    assert error is not None
    raise error


def workbench_command(args: argparse.Namespace, workdir: Path) -> str:
    """The shell command each browser connection runs: the workbench with the given flags."""
    words = [sys.executable, "-m", "agent_tui.tui.cli.main"]
    for dest, flag in FORWARDED_OPTIONS:
        if (value := getattr(args, dest)) is not None:
            words += [flag, str(value)]
    words += [flag for dest, flag in FORWARDED_SWITCHES if getattr(args, dest)]
    # exec: the shell textual-serve starts becomes the workbench, which gets the signals.
    return "exec " + shlex.join([*words, str(workdir)])


def serve_main(argv: list[str]) -> int:
    """``agent-tui serve [PATH] [--port N] [workbench flags]`` (the arguments after
    ``serve``: the workbench's own flags, plus ``--port``); returns the exit code."""
    parser = build_parser()
    parser.prog = "agent-tui serve"
    parser.description = ("Serve the workbench on PATH to a browser on this machine "
                          "(127.0.0.1, behind a token in the printed URL).")
    parser.add_argument("--port", type=int, metavar="N",
                        help=f"port to listen on (default: {DEFAULT_PORT}, or the next free "
                        "one; 0: any free port)")
    args = parser.parse_args(argv)
    if args.prompt is not None or args.preview or args.image:
        return usage_error(parser, "-p, --preview and --image are for headless runs; "
                            "agent-tui serve serves the workbench. Drop them.")
    if args.continue_latest or args.resume is not None or args.fork:
        return usage_error(parser, "each browser tab starts a new session; drop --continue, "
                            "--resume and --fork and open earlier sessions with /sessions "
                            "(Ctrl+R) in the page.")
    workdir = Path(args.path or ".").expanduser().resolve()
    if not workdir.is_dir():
        return usage_error(parser, f"{workdir} is not a folder; pass a project folder.")
    if args.agent:
        from ...core.personas import load_personas

        catalog = load_personas(workdir)
        if catalog.get(args.agent) is None:  # said once here, not in every browser tab
            return usage_error(parser, catalog.unknown(args.agent))
    try:
        listener = bind(args.port)
    except OSError as exc:
        where = (f"port {args.port}" if args.port is not None
                 else f"ports {DEFAULT_PORT}-{DEFAULT_PORT + PORTS_TRIED - 1}")
        return usage_error(parser, f"cannot listen on {HOST} {where}: {exc.strerror}; "
                            "pass a free one with --port N (0: any free port).")
    server = WorkbenchServer(workbench_command(args, workdir), listener,
                             title=f"agent-tui — {workdir.name or workdir}")
    server.serve()
    return 0

