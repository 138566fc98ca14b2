"""``agent-tui studio``: agent sessions in their own git worktrees, run side by side, then
accepted or discarded. Nothing here imports textual (``run`` starts the workbench as a
process of its own)."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ...core.modes.studio import (
    StudioError,
    StudioSession,
    accept,
    changes,
    create,
    load,
    project_root,
    remove,
    save,
    sessions,
    worktree_folder,
)
from ...core.modes.studio.registry import forget
from ...core.text.counts import counted
from .cli_parser import EXIT_FAILURE, EXIT_OK, CommandParser, say, usage_error

AGENT_TUI = [sys.executable, "-m", "agent_tui.tui.cli.main"]
"""How studio starts agent-tui in a worktree (this Python, this agent-tui)."""


def build_parser() -> argparse.ArgumentParser:
    """``agent-tui studio``'s parser; its help is the reference."""
    parser = CommandParser(
        prog="agent-tui studio",
        description="Agent sessions in their own git worktrees and branches: run several at "
        "once without touching your checkout, then accept (merge) or discard each.",
        epilog="Flags after the subcommand's own (--model, --approval-mode, …) go to the "
        "agent. Exit codes: 0 done, 1 the agent or git failed, 2 usage error.")
    parser.add_argument("-C", dest="folder", metavar="PATH", default=None,
                        help="the repository (default: the current folder)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run_exec = sub.add_parser("exec", help="run a prompt headless in a new worktree")
    run_exec.add_argument("prompt", help="what to do")
    run_exec.add_argument("--name", help="the session's name (default: made up)")
    run = sub.add_parser("run", help="open the workbench in a new worktree")
    run.add_argument("--name", help="the session's name (default: made up)")
    listing = sub.add_parser("list", help="the project's studio sessions")
    listing.add_argument("--json", action="store_true", help="one JSON object per session")
    status = sub.add_parser("status", help="one session: state, model calls, cost, changed "
                            "files")
    status.add_argument("name")
    status.add_argument("--json", action="store_true")
    keep = sub.add_parser("accept", help="merge a session's work into your branch")
    keep.add_argument("name")
    keep.add_argument("--rebase", action="store_true",
                      help="rebase its branch onto yours and fast-forward (no merge commit)")
    drop = sub.add_parser("discard", help="remove a session's worktree and branch")
    drop.add_argument("name")
    drop.add_argument("--force", action="store_true", help="even while it runs")
    return parser


def studio_main(argv: list[str]) -> int:
    """``agent-tui studio COMMAND …`` (the arguments after ``studio``); the exit code."""
    parser = build_parser()
    args, agent_flags = parser.parse_known_args(argv)
    if agent_flags and args.command not in ("exec", "run"):
        return usage_error(parser, f"unrecognized arguments: {' '.join(agent_flags)}")
    try:
        root = project_root(Path(args.folder or os.getcwd()).expanduser().resolve())
        if args.command in ("exec", "run"):
            return _start(root, args, agent_flags)
        if args.command == "list":
            return _list(root, args.json)
        session = load(root, args.name)
        if session is None:
            names = ", ".join(s.name for s in sessions(root)) or "none"
            return usage_error(parser, f"there is no studio session {args.name!r} in {root} "
                               f"(sessions: {names}).")
        if args.command == "status":
            return _status(session, args.json)
        if args.command == "accept":
            return _accept(root, session, args.rebase)
        return _discard(root, session, args.force)
    except StudioError as exc:
        say(f"agent-tui studio: error: {exc}")
        return EXIT_FAILURE


def _start(root: Path, args: argparse.Namespace, agent_flags: list[str]) -> int:
    name = args.name or f"s-{time.strftime('%m%d')}-{secrets.token_hex(2)}"
    folder = worktree_folder(root, name)
    base = create(root, name, folder)
    if subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True,
                      text=True).stdout.strip():
        say(f"agent-tui studio: note: {name} starts from HEAD ({base[:9]}); your uncommitted "
            "changes are not in its worktree.")
    prompt = getattr(args, "prompt", "")
    session = StudioSession(name, str(root), str(folder), base, prompt)
    say(f"agent-tui studio: {name} on branch agent-tui/{name} in {folder}")
    if args.command == "run":
        return _run_workbench(session, agent_flags)
    command = [*AGENT_TUI, "-p", prompt, "--output-format", "json", *agent_flags]
    process = subprocess.Popen(command, cwd=folder, stdout=subprocess.PIPE, text=True)
    session.pid = process.pid
    save(session)
    try:
        out, _ = process.communicate()
    except KeyboardInterrupt:
        process.wait()
        session.state, session.error = "failed", "interrupted"
        save(session)
        raise
    _finished(session, process.returncode, out)
    save(session)
    if session.answer:
        sys.stdout.write(session.answer.rstrip("\n") + "\n")
    changed = changes(folder, base)
    say(f"agent-tui studio: {name} {session.state}: {counted(len(changed), 'file')} changed. "
        f"Review: agent-tui studio status {name}; keep: agent-tui studio accept {name}; "
        f"drop: agent-tui studio discard {name}")
    return EXIT_OK if session.state == "done" else EXIT_FAILURE


def _finished(session: StudioSession, code: int, out: str) -> None:
    """Fill in what the headless run's JSON result says (or that it said nothing)."""
    session.pid = None
    try:
        result: Any = json.loads(out.strip().splitlines()[-1]) if out.strip() else None
    except ValueError:
        result = None
    if not isinstance(result, dict):
        session.state = "failed"
        session.error = f"agent-tui exited with code {code} and no result (see its stderr)"
        return
    session.state = "done" if code == 0 and result.get("ok", True) else "failed"
    session.session_id = result.get("session_id")
    session.model_calls = int(result.get("model_calls") or 0)
    session.cost = (result.get("usage") or {}).get("cost")
    session.answer = str(result.get("text") or "")
    session.error = result.get("error")


def _run_workbench(session: StudioSession, agent_flags: list[str]) -> int:
    process = subprocess.Popen([*AGENT_TUI, *agent_flags], cwd=session.worktree)
    session.pid = process.pid
    save(session)
    try:
        code = process.wait()
    except KeyboardInterrupt:
        code = process.wait()
    session.state, session.pid = "open", None
    from ...core.sessions.index import SessionIndex

    with SessionIndex() as index:
        latest = index.latest(Path(session.worktree))
    if latest is not None:
        session.session_id, session.model_calls = latest.id, latest.model_calls
        session.cost = latest.cost
    save(session)
    say(f"agent-tui studio: {session.name}: keep: agent-tui studio accept {session.name}; "
        f"drop: agent-tui studio discard {session.name}")
    return code


def _list(root: Path, as_json: bool) -> int:
    found = sessions(root)
    if as_json:
        for session in found:
            print(json.dumps(_summary(session), ensure_ascii=False))
        return EXIT_OK
    if not found:
        print(f"no studio sessions in {root}; start one with agent-tui studio exec PROMPT")
        return EXIT_OK
    print(f"{'NAME':<18} {'STATE':<8} {'FILES':>5} {'MODEL CALLS':>11} {'COST':>8}  "
          "STARTED           PROMPT")
    for session in found:
        changed = len(changes(Path(session.worktree), session.base)) \
            if Path(session.worktree).is_dir() else 0
        cost = f"${session.cost:.4f}" if session.cost is not None else "-"
        started = datetime.datetime.fromtimestamp(session.created).strftime("%Y-%m-%d %H:%M")
        prompt = (session.prompt.splitlines() or ["(workbench)"])[0][:50]
        print(f"{session.name:<18} {session.shown_state:<8} {changed:>5} "
              f"{session.model_calls:>11} {cost:>8}  {started:<17} {_visible(prompt)}")
    return EXIT_OK


def _summary(session: StudioSession) -> dict[str, Any]:
    folder = Path(session.worktree)
    changed = changes(folder, session.base) if folder.is_dir() else []
    return {"name": session.name, "state": session.shown_state,
            "branch": f"agent-tui/{session.name}", "worktree": session.worktree,
            "base": session.base, "prompt": session.prompt, "created": session.created,
            "session_id": session.session_id, "model_calls": session.model_calls,
            "cost": session.cost,
            "error": session.error,
            "changes": [{"status": c.status, "path": c.path} for c in changed]}


def _status(session: StudioSession, as_json: bool) -> int:
    summary = _summary(session)
    if as_json:
        print(json.dumps(summary, ensure_ascii=False))
        return EXIT_OK
    cost = f"${session.cost:.4f}" if session.cost is not None else "unknown"
    lines = [f"{session.name}: {summary['state']}",
             f"  branch    {summary['branch']} (from {session.base[:9]})",
             f"  worktree  {session.worktree}",
             f"  session   {session.session_id or '-'}  "
             f"({counted(session.model_calls, 'model call')}, cost {cost})"]
    if session.prompt:
        lines.append(f"  prompt    {(session.prompt.splitlines() or [''])[0][:100]}")
    if session.error:
        lines.append(f"  error     {session.error}")
    lines.append(f"  changed   {counted(len(summary['changes']), 'file')}")
    lines += [f"    {c['status']} {c['path']}" for c in summary["changes"]]
    print(_visible("\n".join(lines)))
    return EXIT_OK


def _accept(root: Path, session: StudioSession, rebase: bool) -> int:
    if session.alive:
        raise StudioError(f"{session.name} is still running (process {session.pid}); wait for "
                          "it to end, or stop it first.")
    folder = Path(session.worktree)
    what = (session.prompt.splitlines() or ["work from the workbench"])[0][:72]
    merged = accept(root, folder, session.name, f"agent-tui studio {session.name}: {what}",
                    rebase=rebase)
    if not merged.ok:
        files = "\n".join(f"  {path}" for path in merged.conflicts)
        if rebase:
            say(f"agent-tui studio: {session.name} does not rebase cleanly; conflicts in:\n"
                f"{files}\nThe rebase was undone. Accept without --rebase to resolve them in a "
                "merge, or fix them in the worktree first.")
        else:
            say(f"agent-tui studio: merging {session.name} left conflicts in:\n{files}\n"
                "Resolve them in your checkout and commit (or git merge --abort). The "
                "session's worktree and branch are kept until you discard it.")
        return EXIT_FAILURE
    remove(root, folder, session.name)
    forget(root, session.name)
    how = "rebased and fast-forwarded" if rebase else "merged"
    say(f"agent-tui studio: {session.name} {how} into your branch; its worktree and branch are "
        "removed.")
    return EXIT_OK


def _discard(root: Path, session: StudioSession, force: bool) -> int:
    if session.alive and not force:
        raise StudioError(f"{session.name} is still running (process {session.pid}); stop it "
                          "first, or pass --force.")
    remove(root, Path(session.worktree), session.name)
    forget(root, session.name)
    say(f"agent-tui studio: {session.name} discarded (worktree and branch removed).")
    return EXIT_OK


def _visible(text: str) -> str:
    from ..outside_text import visible

    return visible(text)
