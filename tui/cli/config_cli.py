"""``agent-tui config list|get|set``: the settings from a shell, as ``/config`` shows and
writes them.

``list`` prints every setting with its value and where it comes from; ``get KEY`` prints
one value; ``set KEY VALUE`` checks the value as ``config.toml``'s are checked and writes it
to the user config (``--project``: the project's), keeping the file's other keys and tables;
``set KEY --unset`` removes it from that file.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .cli_parser import CommandParser, say


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``config`` command."""
    parser = CommandParser(
        prog="agent-tui config",
        description="Settings: where each value comes from (default, user, project, "
        "environment), and changing one in the user or project config.toml.",
    )
    parser.add_argument(
        "--project", metavar="PATH", help="the project folder (default: the current folder)"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="every setting: value, source, trust-gated or not")
    get = commands.add_parser("get", help="one setting's value")
    get.add_argument("key")
    put = commands.add_parser("set", help="write a setting to the user (or project) config")
    put.add_argument("key")
    put.add_argument("value", nargs="?", help="true/false, a number, text; a list: JSON")
    put.add_argument(
        "--in-project",
        action="store_true",
        help="write to the project's .agent-tui/config.toml instead of the user config",
    )
    put.add_argument("--unset", action="store_true", help="remove the key from that file")
    return parser


def main(argv: list[str]) -> int:
    """Run ``agent-tui config …``; the exit code (1: refused or unreadable, 2: usage)."""
    from ...core.config import ConfigError, read_settings
    from ...core.config_write import UNSET, parse_value, shown_value, spec_of, write_setting

    args = build_parser().parse_args(argv)
    workdir = Path(args.project or Path.cwd()).expanduser().resolve()
    if not workdir.is_dir():
        say(f"agent-tui config: error: {workdir} is not a folder; pass a project folder.")
        return 2
    try:
        if args.command == "set":
            if args.unset == (args.value is not None):
                say("agent-tui config set: give a VALUE or --unset, not both.")
                return 2
            value = UNSET if args.unset else parse_value(args.key, args.value)
            target = "project" if args.in_project else "user"
            written = write_setting(args.key, value, target, workdir)
            print(f"{written.name} = {shown_value(written.value)} in {written.path}")
            return 0
        sources = read_settings(workdir)
        settings = sources.validate()
        if args.command == "get":
            spec_of(args.key)
            print(shown_value(getattr(settings, args.key)))
            return 0
        from ...core.setting_fields import SETTINGS

        for name, spec in SETTINGS.items():
            value = getattr(settings, name)
            shown = "(set)" if spec.secret and value else shown_value(value)
            gated = "  trust-gated" if spec.trust_gated else ""
            print(f"{name} = {shown}  ({sources.source_of(name)}){gated}")
        return 0
    except ConfigError as exc:
        say(f"agent-tui config: {exc}")
        return 1
    except OSError as exc:
        say(f"agent-tui config: could not write the file ({exc}); check its folder.")
        return 1
