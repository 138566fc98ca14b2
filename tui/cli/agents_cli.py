"""``agent-tui agents list [--project PATH] [--json]``: the personas on offer, and taking
one on at start-up (``--agent NAME``).

Persona files come from the person's and the project's folders: what is printed of them
(names, descriptions, paths) is outside text, shown with control characters as pictures
(``␛``) in plain output and escaped in JSON.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .cli_parser import CommandParser, say
from .sessions_cli import _json


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``agents`` command."""
    parser = CommandParser(
        prog="agent-tui agents",
        description="Personas (--agent NAME, /agent NAME): bundled ones, yours "
        "(<config folder>/agents/*.md) and the project's (.agent-tui/agents/*.md).")
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", help="every persona with its source, file, "
                                  "description, model, tools and approval mode")
    listing.add_argument("--project", metavar="PATH",
                         help="the project whose personas count (default: the current folder)")
    listing.add_argument("--json", action="store_true",
                         help="one JSON object: personas, shadowed, problems")
    return parser


def main(argv: list[str]) -> int:
    """Run ``agent-tui agents …``; returns the exit code (2: a usage error)."""
    from ...core.personas import load_personas
    from ...core.text.visible_text import visible as shown

    args = build_parser().parse_args(argv)
    workdir = Path(args.project or Path.cwd()).expanduser().resolve()
    if not workdir.is_dir():
        say(f"agent-tui agents: error: {workdir} is not a folder; pass a project folder.")
        return 2
    catalog = load_personas(workdir)
    if args.json:
        print(_json({
            "personas": [persona.to_dict() for persona in catalog],
            "shadowed": [{"name": hidden.name, "file": str(hidden.path),
                          "source": hidden.source, "by": str(by.path)}
                         for hidden, by in catalog.shadowed],
            "problems": list(catalog.problems)}))
        return 0
    lines: list[str] = []
    for persona in catalog:
        lines.append(f"{persona.name}  ({persona.source})  {persona.description}")
        lines.append(f"    file:  {persona.path}")
        lines.append(f"    model: {persona.model or 'the session’s'}   "
                     f"mode: {persona.approval_mode or 'the session’s'}")
        tools = ", ".join(persona.tools) if persona.tools else "all"
        if persona.disallowed_tools:
            tools += f" (not {', '.join(persona.disallowed_tools)})"
        lines.append(f"    tools: {tools}")
        if not persona.may_grant:
            lines.append("    untrusted project: its model and a more permissive mode are "
                         "not applied until you trust the folder")
    if not catalog.personas:
        lines.append("No personas.")
    for hidden, by in catalog.shadowed:
        lines.append(f"{hidden.name} ({hidden.source}, {hidden.path}) is shadowed by {by.path}")
    if catalog.problems:
        lines.append("Problems (these files were skipped or partly ignored):")
        lines += [f"  {problem}" for problem in catalog.problems]
    print("\n".join(shown(line) for line in lines))
    return 0


def take_on_persona(workdir: Path, settings: Any, flag_mode: str | None,
                    flag_model: str | None = None) -> dict[str, Any] | str:
    """The settings the persona ``settings.agent`` changes (``agent``, ``model``,
    ``approval_mode``), or what is wrong when there is no such persona. What the persona
    asked for but does not get, and the problems of the persona files, are said on stderr.

    Args:
        workdir: The project folder.
        settings: The settings read so far.
        flag_mode: The ``--approval-mode`` given on the command line, if any.
        flag_model: The ``--model`` given on the command line, if any (it wins).
    """
    from ...core.personas import load_personas, persona_changes

    catalog = load_personas(workdir)
    persona = catalog.get(settings.agent)
    if persona is None:
        for problem in catalog.problems:
            say(f"agent-tui: warning: {problem}")
        return catalog.unknown(settings.agent)
    changes = persona_changes(persona, settings, flag_mode, flag_model)
    for note in changes.notes:
        say(f"agent-tui: warning: {note}")
    return changes.settings


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
