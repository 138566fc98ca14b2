"""``agent-tui engine status|start|stop``: the warm engine, the background process that keeps
litellm loaded and forks each workbench's stream worker ready (``warm_engine``)."""

from __future__ import annotations

import argparse
import time

from .cli_parser import CommandParser, say

START_WAIT_S = 120.0
"""Seconds ``start`` waits for a new engine to have litellm loaded."""


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``engine`` command."""
    parser = CommandParser(
        prog="agent-tui engine",
        description="The warm engine: one background process of yours that keeps litellm "
        "loaded, so that a workbench's first model request waits for no import. The first "
        "workbench starts it; it ends 15 minutes after its last worker.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("status", help="whether it runs, its process id and socket")
    commands.add_parser("start", help="start it now (e.g. at login) and wait until it is ready")
    commands.add_parser("stop", help="stop it: no workbench reaches it any more, and it ends "
                        "once the workers it runs have")
    return parser


def main(argv: list[str]) -> int:
    """Run ``agent-tui engine …``; the exit code (1: not running, for ``status``)."""
    from ...core.providers import warm_engine
    from ...core.providers.engine_server import peer_credentials

    args = build_parser().parse_args(argv)
    path = warm_engine.socket_path()
    if path is None:
        say("agent-tui engine: error: no private folder for the engine's socket (it must be "
            "yours and closed to others: chmod 700 it); set AGENT_TUI_RUNTIME_DIR to one.")
        return 2
    if args.command == "stop":
        if warm_engine.stop_engine():
            print(f"stopped the warm engine at {path}; it ends once its workers have")
        else:
            print("no warm engine runs for this agent-tui")
        return 0
    if args.command == "start":
        started = time.monotonic()
        worker = warm_engine.start_worker({}, ready_wait=START_WAIT_S)
        if worker is None:
            say(f"agent-tui engine: error: the engine did not start; see {path.with_suffix('.log')}")
            return 1
        worker.stdin.close()
        worker.wait(10)
        print(f"the warm engine is ready at {path} ({time.monotonic() - started:.1f} s)")
        return 0
    conn = warm_engine.connect(path)
    if conn is None:
        print(f"no warm engine runs for this agent-tui (its socket would be {path})")
        return 1
    with conn:
        print(f"the warm engine runs: process {peer_credentials(conn)[0]}, socket {path}")
    return 0
