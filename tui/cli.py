"""The ``agent-tui`` command line.

Start-up stays cheap: this module imports only the standard library at import time, so
``agent-tui --version`` loads neither textual nor litellm.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core import __version__

if TYPE_CHECKING:
    from ..core.config import CheckedSettings, Settings

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2

# The model picked when none is configured, by the API key found in the environment.
DEFAULT_MODELS: tuple[tuple[str, str], ...] = (
    ("ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-20250514"),
    ("OPENAI_API_KEY", "openai/gpt-4.1"),
    ("GEMINI_API_KEY", "gemini/gemini-2.5-pro"),
    ("OPENROUTER_API_KEY", "openrouter/anthropic/claude-sonnet-4"),
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; its help is the command-line reference."""
    parser = argparse.ArgumentParser(
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
        "--max-turns",
        type=_positive_int,
        metavar="N",
        help="model calls allowed in one run (default: 100)",
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


def _say(line: str) -> None:
    """Write ``line`` to stderr with its control characters shown (``␛``), never acted on:
    messages carry paths, session ids and titles that came from outside."""
    from .outside_text import visible

    sys.stderr.write(visible(line) + "\n")


def _usage_error(parser: argparse.ArgumentParser, message: str) -> int:
    parser.print_usage(sys.stderr)
    _say(f"agent-tui: error: {message}")
    return EXIT_USAGE


def default_model() -> str | None:
    """The model to use when none is configured, judged by the API keys present."""
    for variable, model in DEFAULT_MODELS:
        if os.environ.get(variable):
            return model
    return None


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``agent-tui`` console script; returns the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["sessions"]:
        from .sessions_cli import main as sessions_main

        return sessions_main(argv[1:])
    if argv[:1] == ["replay"]:
        return replay_main(argv[1:])
    if argv[:1] == ["serve"]:
        from .serve import serve_main

        return serve_main(argv[1:], build_parser())
    parser = build_parser()
    args = parser.parse_args(argv)
    workdir = Path(args.path or os.getcwd()).expanduser().resolve()
    if not workdir.is_dir():
        return _usage_error(parser, f"{workdir} is not a folder; pass a project folder.")
    prompt = None
    if args.prompt is not None:
        prompt = sys.stdin.read() if args.prompt == "-" else args.prompt
        if not prompt.strip():
            return _usage_error(parser, "the prompt is empty; pass -p 'what to do'.")
    else:
        # The workbench's start-up makes ~100,000 objects (Textual, the panes) and a full
        # collection over them costs 20-40 ms before the first frame; the app freezes what
        # start-up made and turns collections back on right after that frame.
        gc.disable()

    from ..core.config import ConfigError, read_settings

    overrides: dict[str, Any] = {
        "model": args.model,
        "api_base": args.api_base,
        "api_key": args.api_key,
        "approval_mode": args.approval_mode,
        "max_turns": args.max_turns,
        "context_window": args.context_window,
        "tool_protocol": args.tool_protocol,
        "network": args.net,
        "sandbox": args.sandbox,
        "webdriver": True if args.webdriver or args.chrome_headless else None,
        "chrome_headless": True if args.chrome_headless else None,
        "computer_control": args.computer_control,
    }
    try:
        sources = read_settings(workdir, overrides)
        # The workbench draws its first frame from settings a cheap check vouches for, and
        # validates them with pydantic (~100 ms of imports) right after; headless runs and
        # values only pydantic can judge are validated now.
        checked = sources.checked() if prompt is None else None
        settings: Settings | CheckedSettings = (checked if checked is not None
                                                else sources.validate())
    except ConfigError as exc:
        return _usage_error(parser, str(exc))
    warnings = sources.warnings
    if settings.sandbox != "none":
        from ..core.safety.sandbox import sandbox_problem

        if problem := sandbox_problem(settings):
            warnings.append(f"{problem}. Until then every shell and background command fails.")
    for warning in warnings:
        _say(f"agent-tui: warning: {warning}")
    if not settings.model and (model := default_model()) is not None:
        settings = settings.model_copy(update={"model": model})
    browse = args.resume == "" and prompt is None  # the workbench lets you pick one
    if args.resume == "" and prompt is not None:
        return _list_for_resume(parser, workdir)
    if args.preview and prompt is None:
        return _usage_error(parser, "--preview goes with -p PROMPT; in the workbench press p "
                            "in the approval dialog instead.")
    if args.fork and not (args.resume or args.continue_latest):
        return _usage_error(parser, "--fork goes with --resume ID or --continue.")
    if not settings.model and prompt is not None:
        return _usage_error(
            parser,
            "no model configured. Pass --model (e.g. openai/gpt-4.1, "
            "anthropic/claude-sonnet-4-20250514, ollama_chat/qwen2.5-coder with "
            "--api-base http://localhost:11434), set model in config.toml, or set "
            "ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY.",
        )

    from ..core.sessions.log import SessionError
    from ..core.sessions.start import close_session, open_session

    try:
        # Without a model the workbench's setup screen asks for one.
        session = open_session(workdir, settings.model or "", resume=args.resume or None,
                               continue_latest=args.continue_latest, forked=args.fork)
    except SessionError as exc:
        _say(f"agent-tui: error: {exc}")
        return EXIT_FAILURE
    try:
        if prompt is None:
            from .app import make_app

            app = make_app(settings, workdir, session=session, browse_sessions=browse)
            app.run()
            if app.config_error is not None:  # found by pydantic after the first frame
                return _usage_error(parser, app.config_error)
            return EXIT_OK
        import asyncio

        from .headless import run_headless

        return asyncio.run(run_headless(settings, workdir, prompt, args.output_format,
                                        session=session, preview=args.preview,
                                        images=args.image))
    except KeyboardInterrupt:
        sys.stderr.write("agent-tui: interrupted\n")
        return 130
    finally:
        close_session(session)


def replay_main(argv: list[str]) -> int:
    """``agent-tui replay SESSION [--speed X]``: play a recorded session in the workbench."""
    parser = argparse.ArgumentParser(prog="agent-tui replay",
                                     description="Play a recorded session back in the workbench; "
                                     "nothing is re-run.")
    parser.add_argument("session", help="the session id (see agent-tui sessions list)")
    parser.add_argument("--speed", type=float, default=1.0,
                        help="playback speed: 2 is twice as fast (default: 1)")
    args = parser.parse_args(argv)
    if args.speed <= 0:
        return _usage_error(parser, "--speed must be above 0.")

    from ..core.config import ConfigError, load_settings
    from ..core.sessions.log import SessionError, read_events

    try:
        log = read_events(args.session)
        settings = load_settings(Path.cwd()).settings
    except (SessionError, ConfigError) as exc:
        _say(f"agent-tui: error: {exc}")
        return EXIT_FAILURE
    project = Path(log.header.get("project") or Path.cwd())
    settings = settings.model_copy(update={"model": log.header.get("model") or settings.model})
    from .app import make_app

    make_app(settings, project if project.is_dir() else Path.cwd(),
             replay=(log, args.speed)).run()
    return EXIT_OK


def _list_for_resume(parser: argparse.ArgumentParser, workdir: Path) -> int:
    from ..core.sessions.index import SessionIndex

    with SessionIndex() as index:
        found = index.list(workdir)
    if not found:
        return _usage_error(parser, f"there are no sessions in {workdir} to resume.")
    lines = "\n".join(f"  {s.id}  {s.turns:>3} turns  {s.title}" for s in found[:20])
    return _usage_error(parser, f"--resume needs a session id; this project's sessions, newest "
                        f"first:\n{lines}\nRun agent-tui --resume ID (or --continue for the "
                        "newest).")


if __name__ == "__main__":
    sys.exit(main())
