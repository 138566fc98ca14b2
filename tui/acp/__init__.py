"""``agent-tui acp``: agent-tui as an agent of the Agent Client Protocol, on stdio.

An ACP client (Zed, Toad, any other) starts ``agent-tui acp [flags]`` and drives it with
JSON-RPC on stdin and stdout: sessions (new, loaded from agent-tui's session store, listed),
prompts with images and the person's files, streamed answers, tool calls (edits as diffs),
the todo list as a plan, approvals as permission requests, approval modes as session modes,
cancel. The flags are the workbench's (``--model``, ``--approval-mode``…); each session
reads the configuration of its own folder. Nothing here imports textual.

stdout carries the protocol alone: whatever else would be printed there goes to stderr,
which clients keep as the agent's log.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
import threading
from pathlib import Path
from typing import Any

from ..cli.cli_parser import build_parser, default_model, settings_overrides, usage_error


def acp_main(argv: list[str]) -> int:
    """``agent-tui acp [flags]`` (the arguments after ``acp``); returns the exit code."""
    parser = build_parser()
    parser.prog = "agent-tui acp"
    parser.description = ("Speak the Agent Client Protocol on stdin/stdout, for editors such "
                          "as Zed and Toad. Each session works in the folder the client gives.")
    parser.add_argument(
        "--client-terminals", action="store_true",
        help="run shell commands in the client's terminals where it offers them (they then "
        "run with the client's environment, secrets included, and never under --sandbox)")
    args = parser.parse_args(argv)
    if sys.stdin is None or sys.stdout is None:  # Python found the descriptor closed
        print("agent-tui acp: stdin and stdout must be open: an ACP client connects them to "
              "pipes; start it from one, or with both open (files or a terminal).",
              file=sys.stderr)
        return 2
    if args.prompt is not None or args.preview or args.image:
        return usage_error(parser, "-p, --preview and --image are for headless runs; in ACP "
                           "mode the client sends the prompts. Drop them.")
    if args.continue_latest or args.resume is not None or args.fork:
        return usage_error(parser, "the client picks the session (session/new, "
                           "session/load); drop --continue, --resume and --fork.")
    if args.path is not None:
        return usage_error(parser, "the client gives each session's folder; drop PATH.")
    overrides = settings_overrides(args)

    from ...core.config import ConfigError, read_settings

    def settings_for(workdir: Path) -> Any:
        settings = read_settings(workdir, overrides).validate()
        if not settings.model and (model := default_model()) is not None:
            settings = settings.model_copy(update={"model": model})
        return settings

    try:
        settings_for(Path.cwd())  # a broken user config.toml is told now, not per session
    except ConfigError as exc:
        return usage_error(parser, str(exc))
    return asyncio.run(serve_stdio(settings_for, client_terminals=args.client_terminals))


async def serve_stdio(settings_for: Any, *, client_terminals: bool = False) -> int:
    """Answer the client on stdin/stdout until it hangs up; returns the exit code."""
    from acp import run_agent

    from .server import AgentTuiAcp

    try:
        reader, writer = await _protocol_streams()
    except (OSError, ValueError) as exc:  # a closed stdin or stdout, a folder…
        print(f"agent-tui acp: cannot speak the protocol on stdin and stdout ({exc}); start "
              "it with both open, as pipes (an ACP client does), files or a terminal.",
              file=sys.stderr)
        return 2
    agent = AgentTuiAcp(settings_for, client_terminals=client_terminals)
    try:
        await run_agent(agent, writer, reader)
    finally:
        await agent.close_all()
    return 0


async def _protocol_streams() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Streams on stdin and on a copy of stdout; stdout itself then points at stderr, so a
    stray print (a library's notice) cannot break the protocol. Either may be a regular file
    (``agent-tui acp < requests.jsonl > replies.jsonl``), which asyncio's pipes refuse."""
    protocol_fd = os.dup(sys.stdout.fileno())
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=PROTOCOL_LINE_LIMIT)
    if _is_stream(sys.stdin.fileno()):
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    else:
        _feed_from_file(loop, reader, sys.stdin.fileno())
    protocol: Any
    if _is_stream(protocol_fd):
        transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, os.fdopen(protocol_fd, "wb", buffering=0))
    else:
        transport, protocol = FileTransport(protocol_fd), asyncio.streams.FlowControlMixin()
    return reader, asyncio.StreamWriter(transport, protocol, reader, loop)


def _is_stream(fd: int) -> bool:
    """A pipe, socket or terminal: what asyncio's pipe transports take."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


def _feed_from_file(loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader,
                    fd: int) -> None:
    """Feed ``reader`` from a regular file, read in a thread, then end it."""
    def read_all() -> None:
        try:
            while chunk := os.read(fd, 64 * 1024):
                loop.call_soon_threadsafe(reader.feed_data, chunk)
        except OSError as exc:  # a folder given as stdin…
            print(f"agent-tui acp: cannot read stdin: {exc}", file=sys.stderr)
        finally:
            loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=read_all, name="acp-stdin", daemon=True).start()


class FileTransport(asyncio.WriteTransport):
    """Writes the protocol to a regular file: each message whole, at once (a file never
    makes a writer wait)."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd: int | None = fd

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Append ``data`` to the file."""
        view = memoryview(data)
        while self._fd is not None and view:
            view = view[os.write(self._fd, view):]

    def is_closing(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._fd is None

    def close(self) -> None:
        """Close the file (a second call does nothing)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def get_write_buffer_size(self) -> int:
        """Nothing is ever buffered."""
        return 0


PROTOCOL_LINE_LIMIT = 50 * 1024 * 1024
"""Longest message a client may send (a prompt with images is one line of JSON)."""
