"""``agent-tui delegates list``: the delegates configured for a project ([delegates.NAME] in
config.toml) and whether each starts and answers ACP's ``initialize``, as ``/delegates``
shows them."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from .cli_parser import CommandParser, say


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``delegates`` command."""
    parser = CommandParser(
        prog="agent-tui delegates",
        description="Other coding agents /code hands work to: the configured ones, and "
        "whether each answers.")
    parser.add_argument(
        "--project", metavar="PATH", help="the project folder (default: the current folder)")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="each delegate: protocol, command, folder, whether it "
                        "answers")
    return parser


def main(argv: list[str]) -> int:
    """Run ``agent-tui delegates list``; the exit code (1: one does not answer, 2: usage)."""
    from ...core.delegates.agent_host import NO_DELEGATES
    from ...core.delegates.config import load_delegates
    from ..workbench.delegate_actions import delegate_lines

    args = build_parser().parse_args(argv)
    workdir = Path(args.project or Path.cwd()).expanduser().resolve()
    if not workdir.is_dir():
        say(f"agent-tui delegates: error: {workdir} is not a folder; pass a project folder.")
        return 2
    configs, warnings = load_delegates(workdir)
    for warning in warnings:
        say(f"agent-tui delegates: {warning}")
    if not configs:
        print(NO_DELEGATES)
        return 0
    lines = asyncio.run(delegate_lines(configs))
    for line in lines:
        print(line)
    return 1 if any("does not answer" in line for line in lines) else 0
