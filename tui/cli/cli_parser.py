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

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2

# The model picked when none is configured, by the API key found in the environment.
DEFAULT_MODELS: tuple[tuple[str, str], ...] = (
    ("ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-20250514"),
    ("OPENAI_API_KEY", "openai/gpt-4.1"),
    ("GEMINI_API_KEY", "gemini/gemini-2.5-pro"),
    ("OPENROUTER_API_KEY", "openrouter/anthropic/claude-sonnet-4"),
)


SUBCOMMANDS: dict[str, tuple[str, str, str]] = {
    "sessions": (".sessions_cli", "main", "list, search, show and delete recorded sessions"),
    "agents": (".agents_cli", "main", "list the personas --agent NAME takes on"),
    "replay": (".main", "replay_main", "play a recorded session back in the workbench"),
    "batch": (".batch_cli", "batch_main", "run headless tasks from a JSON-lines file on a "
              "pool of workers"),
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
    parser.add_argument(
        "--model",
        "-m",
        help="litellm model, e.g. openai/gpt-4.1, "
        "anthropic/claude-sonnet-4-20250514, ollama_chat/qwen2.5-coder",
    )
    parser.add_argument(
        "--escalation-model",
        metavar="MODEL",
        help="a stronger litellm model that takes over the rest of a run when a tool suggests "
        "it (an edit whose text is not in the file) or the model says it cannot proceed",
    )
    parser.add_argument(
        "--api-base",
        metavar="URL",
        help="provider base URL (OpenAI-compatible servers, Ollama, vLLM)",
    )
    parser.add_argument(
        "--api-key",
        metavar="KEY",
        help="API key (default: the provider's usual environment variable)",
    )
    parser.add_argument(
        "--approval-mode",
        choices=("default", "auto-edit", "plan", "yolo"),
        help="what may run without asking (default: default)",
    )
    parser.add_argument(
        "--agent",
        metavar="NAME",
        help="take on the persona NAME: its prompt, model, tools and approval mode "
        "(bundled: reviewer, architect, test-writer; agent-tui agents list shows them all)",
    )
    parser.add_argument(
        "--max-turns",
        type=_positive_int,
        metavar="N",
        help="model calls allowed for one prompt, a call after each round of tool calls "
        "(default: 100; the run stops there and says so); with --autonomous or --planning, "
        "the player-coach rounds instead (default: 5)",
    )
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
    parser.add_argument(
        "--context-window",
        type=_positive_int,
        metavar="N",
        help="the model's context window in tokens (for models litellm "
        "does not know, e.g. local ones)",
    )
    parser.add_argument(
        "--tool-protocol",
        choices=("auto", "native", "text"),
        help="native function calling or the text protocol (default: auto)",
    )
    parser.add_argument("--net", action="store_true", default=None,
                        help="let tools reach the network (web_fetch, web_search, research); "
                        "off by default")
    parser.add_argument("--webdriver", action="store_true", default=None,
                        help="offer the webdriver_* browser tools (Chromium through Selenium; "
                        "headless unless chrome_headless = false in config.toml)")
    parser.add_argument("--chrome-headless", action="store_true", default=None,
                        help="offer the browser tools with a headless Chromium")
    parser.add_argument("--computer-control", action="store_true", default=None,
                        help="offer the desktop tools that act on the screen (list_windows, "
                        "mouse_click, type_text, find_element); each asks first")
    parser.add_argument("--sandbox", choices=("none", "bwrap"),
                        help="run shell and background commands under bubblewrap: read-only "
                        "system, the project and a private /tmp writable, no network unless "
                        "it is on (default: none, or sandbox in config.toml)")
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


def settings_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the command line's flags give (None: the flag was not given)."""
    return {
        "model": args.model,
        "escalation_model": getattr(args, "escalation_model", None),
        "api_base": args.api_base,
        "api_key": args.api_key,
        "approval_mode": args.approval_mode,
        "agent": getattr(args, "agent", None),
        "max_turns": args.max_turns,
        "context_window": args.context_window,
        "tool_protocol": args.tool_protocol,
        "network": args.net,
        "sandbox": args.sandbox,
        "webdriver": True if args.webdriver or args.chrome_headless else None,
        "chrome_headless": True if args.chrome_headless else None,
        "computer_control": args.computer_control,
    }
