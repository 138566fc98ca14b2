"""The ``agent-tui`` command line's flags, and what every subcommand shares: its usage
errors, the settings the flags give, the model picked when none is configured.

Only the standard library at import time, as :mod:`.main`.
"""

from __future__ import annotations

import argparse
import os
import sys
import typing
from pathlib import Path
from typing import Any

from ...core import __version__
from ...core.setting_fields import SETTINGS

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2

# The model picked when none is configured, by the API key found in the environment.
DEFAULT_MODELS: tuple[tuple[str, str], ...] = (
    ("ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-20250514"),
    ("OPENAI_API_KEY", "openai/gpt-4.1"),
    ("GEMINI_API_KEY", "gemini/gemini-2.5-pro"),
    ("OPENROUTER_API_KEY", "openrouter/anthropic/claude-sonnet-4"),
)


ACD_NOTE = ("agent-tui: note: --acd changes nothing here: context dehydration is always on "
            "(large old tool results are set aside as fragments at 50-80 % of the context "
            "window, and the rehydrate tool brings them back); drop the flag.")
"""What ``--acd`` (g3's "aggressive context dehydration") is told, once, on stderr."""

SUBCOMMANDS: dict[str, tuple[str, str, str]] = {
    "sessions": (".sessions_cli", "main", "list, search, show and delete recorded sessions"),
    "agents": (".agents_cli", "main", "list the personas --agent NAME takes on"),
    "config": (".config_cli", "main", "list, get and set settings (as /config)"),
    "delegates": (".delegates_cli", "main", "list the other coding agents /code hands work "
                  "to, and whether each answers"),
    "engine": (".engine_cli", "main", "status, start or stop the warm engine that keeps "
               "litellm loaded for the next workbench"),
    "replay": (".main", "replay_main", "play a recorded session back in the workbench"),
    "batch": (".batch_cli", "batch_main", "run headless tasks from a JSON-lines file on a "
              "pool of workers; batch report reads their results"),
    "studio": (".studio_cli", "studio_main", "run sessions in their own git worktrees; "
               "accept or discard each"),
    "acp": ("..acp", "acp_main", "speak the Agent Client Protocol on stdio, for "
            "editors such as Zed"),
    "serve": (".serve", "serve_main", "serve the workbench to a browser on this machine"),
}
"""Each subcommand: the module (relative to this package) and function that run it, and
its line in ``--help``. The command line dispatches from this table."""


class CommandParser(argparse.ArgumentParser):
    """An argument parser that says a usage error in one line, without the usage banner,
    and points at ``--help`` (exit code 2). ``agent-tui`` and every subcommand use it; the
    parsers of sub-subcommands (``sessions show``) are made of it too."""

    def error(self, message: str) -> typing.NoReturn:
        say(f"{self.prog}: error: {message}")
        say(f"Run {self.prog} --help for the options.")
        self.exit(EXIT_USAGE)


def main_parser() -> argparse.ArgumentParser:
    """The parser of ``agent-tui`` itself: the flags, and in its help the subcommands."""
    parser = build_parser()
    width = max(map(len, SUBCOMMANDS))
    commands = "\n".join(f"  agent-tui {name:<{width}}  {help_line}"
                         for name, (_module, _function, help_line) in SUBCOMMANDS.items())
    parser.epilog = (f"subcommands (agent-tui COMMAND --help for each):\n{commands}\n\n"
                     "Exit codes: 0 done, 1 agent or provider failure, 2 usage error.")
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the workbench's flags (``serve`` and ``acp`` take them too)."""
    parser = CommandParser(
        prog="agent-tui",
        description="A terminal workbench for an AI coding agent, on any model litellm speaks.",
        epilog="Exit codes: 0 done, 1 agent or provider failure, 2 usage error.",
    )
    parser.add_argument(
        "path",
        nargs="?",
        default=None,
        help="project folder to work in (default: the current folder)",
    )
    parser.add_argument(
        "-p",
        "--prompt",
        metavar="PROMPT",
        help="run headless on PROMPT and exit ('-' reads it from stdin)",
    )
    parser.add_argument(
        "--output-format",
        choices=("text", "json", "stream-json"),
        default="text",
        help="headless output (default: text)",
    )
    add_setting_flags(parser, "model", "reasoning_effort", "escalation_model", "api_base",
                      "api_key", "approval_mode", "agent", "max_turns", "max_cost")
    parser.add_argument(
        "--autonomous",
        action="store_true",
        help="headless coach-player mode: a player implements the requirements (-p or "
        "--requirements), a coach reviews the work, until the coach approves",
    )
    parser.add_argument(
        "--requirements",
        metavar="FILE",
        type=Path,
        help="with --autonomous: read the requirements from FILE",
    )
    parser.add_argument(
        "--coach-model",
        metavar="MODEL",
        help="with --autonomous or --planning: the coach's model (default: the player's)",
    )
    parser.add_argument(
        "--planning",
        action="store_true",
        help="planning mode: the model refines agent-tui-plan/new_requirements.md for your "
        "approval, a coach-player pair implements them, the files are archived and the "
        "change committed (the commit asks for approval like any write to .git)",
    )
    parser.add_argument(
        "--yes",
        action="store_true",
        help="with --planning: approve the refined requirements without asking",
    )
    add_setting_flags(parser, "context_window", "tool_protocol", "tool_set", "repo_map_tokens",
                      "network", "webdriver", "chrome_headless", "computer_control", "sandbox")
    parser.add_argument("--acd", action="store_true",
                        help="g3's aggressive context dehydration: always on in agent-tui "
                        "(old tool results become fragments that rehydrate brings back), "
                        "so the flag is accepted and changes nothing")
    parser.add_argument("--preview", action="store_true",
                        help="with -p: before refusing a shell or background command that "
                        "needs approval, run it in a sandbox over a scratch copy of the "
                        "project and print what it would change (a preview event)")
    parser.add_argument("--image", action="append", default=[], metavar="FILE",
                        help="with -p: attach an image (PNG, JPEG, GIF or WebP) to the prompt; "
                        "repeat for more (the model must take images)")
    parser.add_argument("-c", "--continue", dest="continue_latest", action="store_true",
                        help="go on with the latest session of this project")
    parser.add_argument("--resume", nargs="?", const="", metavar="ID",
                        help="go on with session ID (without ID: list this project's sessions)")
    parser.add_argument("--fork", action="store_true",
                        help="with --resume/--continue: go on in a copy of the session")
    parser.add_argument("--version", action="version", version=f"agent-tui {__version__}")
    return parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def say(line: str) -> None:
    """Write ``line`` to stderr with its control characters shown (``␛``), never acted on:
    messages carry paths, session ids and titles that came from outside."""
    from ..outside_text import visible

    sys.stderr.write(visible(line) + "\n")


def usage_error(parser: argparse.ArgumentParser, message: str) -> int:
    """Say in one line what is wrong with the command line, after the name of the command
    that says it (``agent-tui batch: error: …``; the usage banner would bury it); returns
    exit code 2."""
    say(f"{parser.prog}: error: {message}")
    return EXIT_USAGE


def default_model() -> str | None:
    """The model to use when none is configured, judged by the API keys present."""
    for variable, model in DEFAULT_MODELS:
        if os.environ.get(variable):
            return model
    return None


def add_setting_flags(parser: argparse.ArgumentParser, *names: str) -> None:
    """Add the flags of the settings ``names`` to ``parser``, as their declaration
    (:class:`~agent_tui.core.setting_fields.SettingFields`) gives them; ``--help`` lists them
    in this order."""
    for name in names:
        spec = SETTINGS[name]
        flag = spec.flag
        if flag is None:
            raise ValueError(f"the setting {name} declares no command-line flag")
        options: dict[str, Any] = {"help": flag.help}
        if flag.metavar is not None:
            options["metavar"] = flag.metavar
        if spec.kind.type == "bool":
            options.update(action="store_true", default=None)
        elif spec.kind.type == "choice":
            options["choices"] = spec.kind.choices
        elif spec.kind.type == "int":
            options["type"] = _positive_int
        parser.add_argument(*flag.names, **options)


def settings_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the command line's flags give (None: the flag was not given)."""
    overrides: dict[str, Any] = {}
    for name, spec in SETTINGS.items():
        if spec.flag is None:
            continue
        overrides.setdefault(name, None)
        value = getattr(args, spec.flag.dest, None)
        if value is None or value is False:
            continue
        overrides[name] = value
        for implied in spec.flag.implies:
            overrides[implied] = True
    return overrides
