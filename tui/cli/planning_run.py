"""``agent-tui --planning``: the planning flow run headless (g3's planner).

1. No ``agent-tui-plan/new_requirements.md``: write a template and stop.
2. The model refines the requirements into ``refined_requirements.md``; the person approves
   them (on a terminal: approve, edit in ``$EDITOR`` or quit; ``--yes`` approves; without a
   terminal the run stops and says how to go on). Approved, they become
   ``current_requirements.md`` and the original goes to the archive. A
   ``current_requirements.md`` left by an unfinished run is resumed instead.
3. The coach-player pair implements them (:func:`.autonomous_run.play`).
4. Approved by the coach: the requirements are archived with a timestamp, the model writes
   the commit message, and the commit runs as a ``shell`` call through the approval path.

Nothing here imports textual.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import TextIO

from ...core.agent import Agent
from ...core.approval import ApprovalRequest, HeadlessApprover
from ...core.config import Settings
from ...core.modes.planning import (
    PlanFiles,
    Stage,
    approve,
    archived_path,
    changed_since,
    commit_command,
    commit_message,
    commit_prompt,
    commit_writer_persona,
    diff_stat,
    finish,
    git_root,
    head_commit,
    read_baseline,
    refine_prompt,
    refined_requirements,
    refiner_persona,
    requirements_text,
    run_command,
    stage,
    worktree_state,
    write_atomic,
    write_template,
)
from ...core.personas import Persona
from ...core.safety.redaction import RedactingSink, settings_secrets
from ...core.sessions.start import OpenedSession
from ..outside_text import visible
from .autonomous_run import play, total_usage
from .headless import HeadlessPrinter, headless_agent
from .terminal_approver import TerminalApprover, on_terminal, read_answer

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


def start_plan(workdir: Path, err: TextIO = sys.stderr) -> int | None:
    """What needs no model: write the template when there are no requirements yet. Returns
    the exit code when there is nothing to run (0: template written; 2: still empty), else
    None."""
    plan = PlanFiles(workdir)
    current = stage(plan)
    if current is Stage.MISSING:
        write_template(plan)
        _say(err, f"agent-tui: wrote {plan.shown(plan.new)}. Write your requirements there, "
             "then run agent-tui --planning again.")
        return EXIT_OK
    if current is Stage.EMPTY:
        _say(err, f"agent-tui: error: {plan.shown(plan.new)} has no requirements yet (only "
             "comments). Write what you want built there, then run agent-tui --planning "
             "again.")
        return EXIT_USAGE
    return None


def _say(err: TextIO, text: str) -> None:
    err.write(visible(text) + "\n")
    err.flush()


async def _one_call(settings: Settings, workdir: Path, persona: Persona, prompt: str,
                    printer: HeadlessPrinter, err: TextIO, role: str,
                    approver: HeadlessApprover | TerminalApprover) -> tuple[str | None, Agent]:
    """Run ``prompt`` with ``persona`` (its events printed with ``role``); its answer (None
    when the model call failed, the reason on ``err``) and the agent, still open."""
    sink = RedactingSink(lambda event: printer.handle(event, role), settings_secrets(settings))
    agent = await headless_agent(settings, workdir, sink, approver,  # type: ignore[arg-type]
                                 err, persona=persona)
    result = await agent.run(prompt)
    if not result.ok:
        _say(err, f"agent-tui: error: the {role} stopped: {result.error}")
        return None, agent
    return result.text, agent


def _edit(path: Path) -> None:
    """Open ``path`` in the person's editor and wait for it."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    subprocess.run([*shlex.split(editor), str(path)], check=False)


async def _approval(plan: PlanFiles, yes: bool, interactive: bool, err: TextIO) -> str:
    """``approve``, ``quit`` or ``wait`` (nobody to ask) for the refined requirements."""
    if yes:
        return "approve"
    if not interactive:
        return "wait"
    while True:
        _say(err, f"\n{plan.refined.read_text(encoding='utf-8').rstrip()}\n")
        answer = await asyncio.to_thread(
            read_answer, err, f"{plan.shown(plan.refined)}: [a]pprove / [e]dit in $EDITOR "
            "/ [q]uit? ")
        if answer in ("a", "approve"):
            return "approve"
        if answer in ("e", "edit"):
            await asyncio.to_thread(_edit, plan.refined)
        elif answer in ("q", "quit", ""):
            return "quit"


async def run_planning(
    settings: Settings, workdir: Path, output_format: str, out: TextIO = sys.stdout,
    err: TextIO = sys.stderr, *, rounds: int, coach_model: str | None = None,
    session: OpenedSession | None = None, yes: bool = False, interactive: bool | None = None,
) -> int:
    """Refine, approve, implement, archive and commit the plan in ``workdir``.

    Returns 0 when the plan is done (committed or not: a refused commit is the person's
    call, and the command is printed) or waits for the person, 1 when the refinement or
    the implementation failed or the coach did not approve within ``rounds``.
    """
    interactive = on_terminal() if interactive is None else interactive
    plan = PlanFiles(workdir)
    printer = HeadlessPrinter(output_format, out, err)
    summary: dict[str, object] = {"type": "result", "planning": True, "ok": False}

    def done(code: int, text: str, **facts: object) -> int:
        summary.update(facts, text=text)
        if output_format in ("json", "stream-json"):
            out.write(json.dumps(summary, ensure_ascii=False) + "\n")
        else:
            out.write(visible(text.rstrip()) + "\n")
        out.flush()
        return code

    baseline = None
    if stage(plan) is Stage.CURRENT:
        _say(err, f"agent-tui: resuming the unfinished plan in {plan.shown(plan.current)} "
             "(no refinement).")
        baseline = read_baseline(plan)
    else:
        if stage(plan) is Stage.NEW:
            _say(err, f"agent-tui: refining {plan.shown(plan.new)}…")
            answer, agent = await _one_call(
                settings, workdir, refiner_persona(), refine_prompt(requirements_text(
                    plan.new)), printer, err, "planner", HeadlessApprover(
                    settings.approval_mode))
            await asyncio.to_thread(agent.close)
            if not answer or not answer.strip():
                why = "the model call failed" if answer is None else "the model answered nothing"
                return done(EXIT_FAILURE, f"The requirements were not refined: {why}; run "
                            "agent-tui --planning again.", stage="new")
            write_atomic(plan.refined, refined_requirements(answer))
        else:
            _say(err, f"agent-tui: {plan.shown(plan.refined)} waits for approval (newer than "
                 f"{plan.shown(plan.new)}).")
        if not interactive and output_format == "text":
            _say(err, plan.refined.read_text(encoding="utf-8").rstrip())
        decision = await _approval(plan, yes, interactive, err)
        if decision != "approve":
            how = ("Review it (edit it if you like), then run agent-tui --planning --yes to "
                   "approve and implement it" if decision == "wait" else
                   "Run agent-tui --planning again to approve or edit it")
            return done(EXIT_OK, f"The refined requirements are in {plan.shown(plan.refined)}"
                        f"; nothing was implemented. {how}.", stage="refined",
                        refined=plan.shown(plan.refined))
        baseline = await asyncio.to_thread(worktree_state, workdir)
        original = approve(plan, baseline)
        _say(err, f"agent-tui: approved: {plan.shown(plan.current)} (the original is "
             f"{plan.shown(original)}).")
    if baseline is None:
        baseline = await asyncio.to_thread(worktree_state, workdir)
    requirements = requirements_text(plan.current)
    outcome, session_id = await play(
        settings, workdir, requirements, printer, err, rounds=rounds, coach_model=coach_model,
        session=session, approver=(lambda: TerminalApprover(err)) if interactive else None)
    summary.update(approved=outcome.approved, rounds=outcome.rounds, session_id=session_id,
                   usage=total_usage(outcome))
    if not outcome.approved:
        why = outcome.error or f"The coach did not approve after {outcome.rounds} rounds."
        return done(EXIT_FAILURE, f"{why} {plan.shown(plan.current)} is kept: run "
                    f"agent-tui --planning to go on with it.\n\nThe coach's last feedback:\n"
                    f"{outcome.feedback}", stage="current", error=outcome.error)
    archived = finish(plan)
    summary.update(archived=[plan.shown(archived)])
    verdict = (f"The coach approved after {outcome.rounds} round"
               f"{'' if outcome.rounds == 1 else 's'}; the requirements are archived in "
               f"{plan.shown(archived)}.")
    if git_root(workdir) is None:
        return done(EXIT_OK, f"{verdict} {workdir} is not a git repository: nothing was "
                    "committed.", ok=True, stage="done", committed=False)
    committed, text = await _commit(settings, workdir, plan, requirements, baseline, printer,
                                    err, interactive, summary)
    return done(EXIT_OK, f"{verdict}\n{text}", ok=True, stage="done", committed=committed)


async def _commit(settings: Settings, workdir: Path, plan: PlanFiles, requirements: str,
                  baseline: dict[str, str | None], printer: HeadlessPrinter, err: TextIO,
                  interactive: bool, summary: dict[str, object]) -> tuple[bool, str]:
    """Write the commit message and run the commit through the approval path; whether it
    was committed, and what to tell the person."""
    changed = await asyncio.to_thread(changed_since, workdir, baseline)
    stat = await asyncio.to_thread(diff_stat, workdir, changed)
    refused: list[ApprovalRequest] = []  # what the approval path was asked and refused
    approver = TerminalApprover(err) if interactive else HeadlessApprover(
        settings.approval_mode, tell=lambda request, _text: refused.append(request))
    answer, agent = await _one_call(settings, workdir, commit_writer_persona(),
                                    commit_prompt(requirements, changed, stat), printer, err,
                                    "committer", approver)
    try:
        message_file = archived_path(plan, "commit_message.md")
        message = commit_message(answer or "", requirements)
        write_atomic(message_file, message)
        shown_file = plan.shown(message_file)
        if printer.output_format == "text":
            _say(err, f"The commit message ({shown_file}):\n{message.rstrip()}")
        command = commit_command(workdir, sorted({*changed, shown_file}), shown_file)
        summary.update(commit_command=command, message_file=shown_file)
        # The commit is agent-tui's own call, not the writer's: its tool limit is lifted.
        agent.use_knowledge(dataclasses.replace(agent.knowledge, persona=None))
        result = await run_command(agent, command)
    finally:
        await asyncio.to_thread(agent.close)
    if result.ok:
        commit = head_commit(workdir)
        summary.update(commit=commit)
        return True, f"Committed {commit[:12] if commit else ''}: " \
            f"{message_file.read_text(encoding='utf-8').splitlines()[0]}"
    reason = result.error or result.llm_content
    if reason.startswith("the call was denied"):  # the approval path said no, not git
        reason = ("you did not approve it." if interactive
                  else _commit_refusal(refused[-1] if refused else None,
                                       settings.approval_mode))
    return False, f"Not committed: {reason}\nTo commit it yourself, run:\n  {command}"


COMMIT_RULES = ("shell(git add *)", "shell(git commit *)")
"""The allow rules under which a run without a terminal commits its plan."""


def _commit_refusal(request: ApprovalRequest | None, mode: str) -> str:
    """Why a run without a terminal did not commit, and what lets the next one commit."""
    said = (f"the commit needs your approval, and this run had no terminal to ask you on "
            f"('{mode}' approval mode). Next time, run agent-tui --planning in a terminal and "
            "approve the commit there")
    if request is not None and request.any_mode:
        return f"{said} (no approval mode commits it unasked: {request.reason})."
    rules = ", ".join(json.dumps(rule) for rule in COMMIT_RULES)
    return (f"{said}, pass --approval-mode yolo, or add allow_rules = [{rules}] to your "
            "config.toml.")
