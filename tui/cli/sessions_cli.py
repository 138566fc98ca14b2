"""``agent-tui sessions list|show ID|delete ID [--json]``: recorded sessions from the shell.

What it prints came from session logs (titles are first prompts; projects, models and the
transcript came from the model, tools and other machines): nothing a terminal acts on is
printed raw. Plain output shows control characters as pictures (``␛``); JSON escapes them
(``\\u001b``), the C1 controls, DEL and the invisible characters included.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from typing import Any

from .cli_parser import CommandParser

_JSON_UNSAFE = re.compile("[\u007f-\u009f\u00ad\u061c\u200b-\u200f\u202a-\u202e"
                          "\u2060-\u2069\ufeff]")
"""What ``json.dumps(ensure_ascii=False)`` leaves raw but a terminal acts on or hides."""


def _json(value: Any) -> str:
    """``value`` as JSON that is safe to print: the same data, unsafe characters escaped."""
    text = json.dumps(value, ensure_ascii=False)
    # These characters occur only inside JSON strings, where \uXXXX means the same.
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``sessions`` command."""
    parser = CommandParser(prog="agent-tui sessions",
                           description="List, show and delete recorded sessions.")
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", help="sessions, most recently updated first")
    listing.add_argument("--project", metavar="PATH", help="only sessions of this folder")
    listing.add_argument("--search", metavar="TEXT", help="only sessions whose messages match")
    listing.add_argument("--touching", metavar="FILE", help="only sessions that changed FILE")
    listing.add_argument("--json", action="store_true", help="one JSON array")
    show = commands.add_parser("show", help="a session's transcript as Markdown")
    show.add_argument("id")
    show.add_argument("--json", action="store_true", help="the summary and every event")
    delete = commands.add_parser("delete", help="delete a session and its files")
    delete.add_argument("id")
    delete.add_argument("--json", action="store_true", help="report as JSON")
    return parser


def main(argv: list[str]) -> int:
    """Run ``agent-tui sessions …``; returns the exit code."""
    from pathlib import Path

    from ...core.sessions.export import fork_origin, to_markdown
    from ...core.sessions.index import SessionIndex
    from ...core.sessions.log import SessionError, read_events
    from ...core.text.counts import counted
    from ...core.text.visible_text import visible as shown

    args = build_parser().parse_args(argv)
    try:
        with SessionIndex() as index:
            if args.command == "list":
                if args.search:
                    found = index.search(args.search)
                elif args.touching:
                    found = index.sessions_touching(args.touching)
                else:
                    project = Path(args.project).resolve() if args.project else None
                    found = index.list(project)
                if args.json:
                    print(_json([s.to_dict() for s in found]))
                elif not found:
                    print("No sessions.")
                else:
                    for s in found:
                        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(s.updated))
                        cost = "" if s.cost is None else f"  ${s.cost:.4f}"
                        if s.cache_read_tokens or s.cache_write_tokens:
                            cost += (f" (cache: {s.cache_read_tokens:,} read, "
                                     f"{s.cache_write_tokens:,} written)")
                        print(shown(f"{s.id}  {when}  {counted(s.prompts, 'prompt')} · "
                                    f"{counted(s.model_calls, 'model call')}  "
                                    f"{s.total_tokens:>8,} tok{cost}  {s.model}  {s.project}\n"
                                    f"    {s.title}"))
                        if s.parent:
                            try:
                                origin = fork_origin(read_events(s.id))
                            except SessionError:  # its log went after the index listed it
                                origin = s.parent[0]
                            print(shown(f"    forked from {origin}"))
            elif args.command == "show":
                log = read_events(args.id)
                if args.json:
                    summary = index.get(args.id)
                    print(_json({"summary": summary.to_dict() if summary else None,
                                 "header": log.header, "events": log.events,
                                 "warnings": log.warnings}))
                else:
                    for warning in log.warnings:
                        sys.stderr.write(shown(f"agent-tui: warning: {warning}") + "\n")
                    print(to_markdown(log))
            else:
                index.delete(args.id)
                print(_json({"deleted": args.id}) if args.json
                      else shown(f"Deleted session {args.id}."))
    except SessionError as exc:
        sys.stderr.write(shown(f"agent-tui: error: {exc}") + "\n")
        return 1
    return 0
