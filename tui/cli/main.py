"""The ``agent-tui`` command line.

Start-up stays cheap: this module imports only the standard library at import time, so
``agent-tui --version`` loads neither textual nor litellm.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .cli_parser import (
    ACD_NOTE,
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_USAGE,  # noqa: F401 - part of this module's interface
    SUBCOMMANDS,
    CommandParser,
    default_model,
    main_parser,
    say,
    settings_overrides,
    usage_error,
)

if TYPE_CHECKING:
    from ...core.config import CheckedSettings, Settings


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``agent-tui`` console script; returns the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] and argv[0] in SUBCOMMANDS:
        module, function, _help = SUBCOMMANDS[argv[0]]
        return getattr(importlib.import_module(module, __package__), function)(argv[1:])
    parser = main_parser()
    args = parser.parse_args(argv)
    if args.acd:
        say(ACD_NOTE)
    workdir = Path(args.path or os.getcwd()).expanduser().resolve()
    if not workdir.is_dir():
        return usage_error(parser, f"{workdir} is not a folder; pass a project folder.")
    rounds = 0
    if args.planning:
        if problem := _planning_problem(args):
            return usage_error(parser, problem)
        from .planning_run import start_plan

        if (stopped := start_plan(workdir)) is not None:
            return stopped
    elif args.autonomous and (problem := _take_requirements(args)):
        return usage_error(parser, problem)
    if args.autonomous or args.planning:
        from ...core.modes.autonomous import DEFAULT_ROUNDS

        # --max-turns counts rounds here; each run keeps its configured model-call limit.
        rounds, args.max_turns = args.max_turns or DEFAULT_ROUNDS, None
    elif args.requirements or args.coach_model:
        return usage_error(parser, "--requirements and --coach-model go with --autonomous "
                           "(--coach-model also with --planning); add it, or drop them.")
    if args.yes and not args.planning:
        return usage_error(parser, "--yes goes with --planning.")
    prompt = None
    if args.prompt is not None:
        prompt = sys.stdin.read() if args.prompt == "-" else args.prompt
        if not prompt.strip():
            return usage_error(parser, "the prompt is empty; pass -p 'what to do'.")
    elif args.planning:
        prompt = ""  # headless: the plan's files are the prompt
    else:
        # The workbench's start-up makes many objects (Textual, the panes), and a full
        # collection over them would delay the first frame; the app freezes what start-up
        # made and turns collections back on right after that frame.
        gc.disable()

    from ...core.config import ConfigError, read_settings

    overrides = settings_overrides(args)
    try:
        sources = read_settings(workdir, overrides)
        # The workbench draws its first frame from settings a cheap check vouches for, and
        # validates them with pydantic (slow to import) right after; headless runs and
        # values only pydantic can judge are validated now.
        checked = sources.checked() if prompt is None else None
        settings: Settings | CheckedSettings = (checked if checked is not None
                                                else sources.validate())
    except ConfigError as exc:
        return usage_error(parser, str(exc))
    warnings = sources.warnings
    if settings.sandbox != "none":
        from ...core.safety.sandbox import sandbox_problem

        if problem := sandbox_problem(settings):
            warnings.append(f"{problem}. Until then every shell and background command fails.")
    for warning in warnings:
        say(f"agent-tui: warning: {warning}")
    if not settings.model and (model := default_model()) is not None:
        settings = settings.model_copy(update={"model": model})
    persona_settings: dict[str, object] = {}
    if settings.agent:
        from .agents_cli import take_on_persona

        taken = take_on_persona(workdir, settings, args.approval_mode, args.model)
        if isinstance(taken, str):
            return usage_error(parser, taken)
        persona_settings = taken
        settings = settings.model_copy(update=taken)
    browse = args.resume == "" and prompt is None  # the workbench lets you pick one
    if args.resume == "" and prompt is not None:
        return _list_for_resume(parser, workdir)
    if args.preview and prompt is None:
        return usage_error(parser, "--preview goes with -p PROMPT; in the workbench press p "
                            "in the approval dialog instead.")
    if args.fork and not (args.resume or args.continue_latest):
        return usage_error(parser, "--fork goes with --resume ID or --continue.")
    if not settings.model and prompt is not None:
        return usage_error(
            parser,
            "no model configured. Pass --model (e.g. openai/gpt-4.1, "
            "anthropic/claude-sonnet-4-20250514, ollama_chat/qwen2.5-coder with "
            "--api-base http://localhost:11434), set model in config.toml, or set "
            "ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY or OPENROUTER_API_KEY.",
        )

    from ...core.sessions.log import SessionError, SessionNotFound
    from ...core.sessions.start import NoSessionToContinue, close_session, open_session

    try:
        # Without a model the workbench's setup screen asks for one.
        session = open_session(workdir, settings.model or "", resume=args.resume or None,
                               continue_latest=args.continue_latest, forked=args.fork)
    except (SessionNotFound, NoSessionToContinue) as exc:  # no such session: a usage error
        return usage_error(parser, str(exc))
    except SessionError as exc:
        say(f"agent-tui: error: {exc}")
        return EXIT_FAILURE
    try:
        if prompt is None:
            from ..app import make_app

            app = make_app(settings, workdir, session=session, browse_sessions=browse,
                           persona_settings=persona_settings)
            app.run()
            if app.config_error is not None:  # found by pydantic after the first frame
                return usage_error(parser, app.config_error)
            if hint := _how_to_resume(app.session_id, workdir):
                say(hint)
            return EXIT_OK
        import asyncio

        if args.planning:
            from .planning_run import run_planning

            return asyncio.run(run_planning(settings, workdir, args.output_format,
                                            rounds=rounds, coach_model=args.coach_model,
                                            session=session, yes=args.yes))
        if args.autonomous:
            from .autonomous_run import run_autonomous

            return asyncio.run(run_autonomous(settings, workdir, prompt, args.output_format,
                                              rounds=rounds, coach_model=args.coach_model,
                                              session=session))
        from .headless import run_headless

        return asyncio.run(run_headless(settings, workdir, prompt, args.output_format,
                                        session=session, preview=args.preview,
                                        images=args.image))
    except KeyboardInterrupt:
        sys.stderr.write("agent-tui: interrupted\n")
        return 130
    finally:
        close_session(session)


def _how_to_resume(session_id: str, workdir: Path) -> str | None:
    """How to go on with the session the workbench left in front, once it has a prompt
    (printed on the terminal after the workbench has gone)."""
    from ...core.sessions.log import SessionError, read_events

    try:
        events = read_events(session_id).events
    except SessionError:
        return None
    if not any(event.get("type") == "user_message" for event in events):
        return None
    where = "" if workdir == Path.cwd().resolve() else f" {shlex.quote(str(workdir))}"
    return (f"To go on with this session: agent-tui{where} --resume {session_id} "
            f"(or agent-tui{where} --continue for this folder's latest).")


def _planning_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with ``--planning``'s flags, if anything."""
    if args.autonomous or args.prompt is not None or args.requirements is not None:
        return ("--planning reads its requirements from agent-tui-plan/new_requirements.md; "
                "leave out -p, --requirements and --autonomous.")
    if args.image or args.preview:
        return "--image and --preview do not go with --planning."
    return None


def _take_requirements(args: argparse.Namespace) -> str | None:
    """Put ``--autonomous``'s requirements in ``args.prompt``; what is wrong, if anything."""
    if args.image or args.preview:
        return ("--image and --preview do not go with --autonomous: the player and the coach "
                "take text requirements and ask nobody; drop them.")
    if args.requirements is not None:
        if args.prompt is not None:
            return "give the requirements once: -p TEXT or --requirements FILE, not both."
        try:
            args.prompt = args.requirements.expanduser().read_text(encoding="utf-8")
        except OSError as exc:
            return (f"cannot read the requirements file {args.requirements}: "
                    f"{exc.strerror or exc}; pass a file that exists with --requirements "
                    "FILE, or the requirements themselves with -p TEXT.")
        except UnicodeDecodeError:
            return (f"cannot read the requirements file {args.requirements}: it is not "
                    "UTF-8 text; save it as UTF-8, or pass the requirements with -p TEXT.")
        if not args.prompt.strip():
            return (f"the requirements file {args.requirements} is empty; write the "
                    "requirements in it, or pass them with -p TEXT.")
    elif args.prompt is None:
        return ("--autonomous needs the requirements: -p TEXT or --requirements FILE (in the "
                "workbench, /auto REQUIREMENTS).")
    return None


def replay_main(argv: list[str]) -> int:
    """``agent-tui replay SESSION [--speed X]``: play a recorded session in the workbench."""
    parser = CommandParser(prog="agent-tui replay",
                           description="Play a recorded session back in the workbench; "
                           "nothing is re-run.")
    parser.add_argument("session", help="the session id (see agent-tui sessions list)")
    parser.add_argument("--speed", type=float, default=1.0,
                        help="playback speed: 2 is twice as fast (default: 1)")
    args = parser.parse_args(argv)
    if args.speed <= 0:
        return usage_error(parser, "--speed must be above 0.")

    from ...core.config import ConfigError, load_settings
    from ...core.sessions.log import SessionError, read_events

    try:
        log = read_events(args.session)
        settings = load_settings(Path.cwd()).settings
    except (SessionError, ConfigError) as exc:
        say(f"agent-tui: error: {exc}")
        return EXIT_FAILURE
    project = Path(log.header.get("project") or Path.cwd())
    settings = settings.model_copy(update={"model": log.header.get("model") or settings.model})
    from ..app import make_app

    make_app(settings, project if project.is_dir() else Path.cwd(),
             replay=(log, args.speed)).run()
    return EXIT_OK


def _list_for_resume(parser: argparse.ArgumentParser, workdir: Path) -> int:
    from ...core.sessions.index import SessionIndex
    from ...core.text.counts import counted

    with SessionIndex() as index:
        found = index.list(workdir)
    if not found:
        return usage_error(parser, f"there are no sessions in {workdir} to resume.")
    lines = "\n".join(f"  {s.id}  {counted(s.prompts, 'prompt'):>11}  {s.title}"
                      for s in found[:20])
    return usage_error(parser, f"--resume needs a session id; this project's sessions, newest "
                        f"first:\n{lines}\nRun agent-tui --resume ID (or --continue for the "
                        "newest).")


if __name__ == "__main__":
    sys.exit(main())
