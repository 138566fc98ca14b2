"""``agent-tui --autonomous``: the coach-player loop run headless.

The player records into the run's session (``--resume`` goes on with it); the coach has a
context of its own and no session. Every event is printed with its ``role``; the final
result says whether the coach approved. Nothing here imports textual.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from ...core.approval import HeadlessApprover
from ...core.config import Settings
from ...core.events import SessionStart
from ...core.modes.autonomous import Outcome, coach_persona, coach_player
from ...core.safety.redaction import RedactingSink, settings_secrets
from ...core.sessions.start import OpenedSession
from ..outside_text import visible
from .headless import HeadlessPrinter, headless_agent, lend_outside_tools


async def play(
    settings: Settings, workdir: Path, requirements: str, printer: HeadlessPrinter,
    err: TextIO, *, rounds: int, coach_model: str | None = None,
    session: OpenedSession | None = None, approver: Callable[[], Any] | None = None,
) -> tuple[Outcome, str]:
    """Alternate a player and a coach on ``requirements``, their events printed by
    ``printer`` with their roles; the outcome and the player's session id. ``approver``
    makes each agent's approver (default: a :class:`HeadlessApprover`, asking nobody)."""
    secrets = settings_secrets(settings)

    def approver_for_one() -> Any:
        return approver() if approver is not None else HeadlessApprover(settings.approval_mode)

    def sink(role: str) -> RedactingSink:
        return RedactingSink(lambda event: printer.handle(event, role), secrets)

    both = RedactingSink(printer.handle, secrets)
    player = await headless_agent(settings, workdir, sink("player"),
                                  approver_for_one(), err, session=session)
    coach_settings = settings.model_copy(update={"model": coach_model}) if coach_model \
        else settings
    coach = await headless_agent(coach_settings, workdir, sink("coach"),
                                 approver_for_one(), err, persona=coach_persona())
    for role, agent in (("player", player), ("coach", coach)):
        printer.handle(SessionStart(agent.session_id, agent.provider.model, str(workdir),
                                    settings.approval_mode, agent.tool_protocol), role)
    mcp = await lend_outside_tools(player, settings, workdir, err)
    try:
        outcome = await coach_player(requirements, player, coach, rounds, both)
    finally:
        await asyncio.to_thread(player.close)
        await asyncio.to_thread(coach.close)
        if mcp is not None:
            await mcp.close()
    return outcome, player.session_id


def total_usage(outcome: Outcome) -> dict[str, object] | None:
    """The tokens and cost of every run of ``outcome``, as the result line gives them."""
    if not outcome.results:
        return None
    usage = sum((result.usage for _, result in outcome.results[1:]),
                outcome.results[0][1].usage)
    return usage.to_dict()


async def run_autonomous(
    settings: Settings, workdir: Path, requirements: str, output_format: str,
    out: TextIO = sys.stdout, err: TextIO = sys.stderr, *, rounds: int,
    coach_model: str | None = None, session: OpenedSession | None = None,
) -> int:
    """Alternate a player and a coach on ``requirements``; 0 when the coach approved, 1
    when it did not within ``rounds`` or a model call failed."""
    printer = HeadlessPrinter(output_format, out, err)
    outcome, session_id = await play(settings, workdir, requirements, printer, err,
                                     rounds=rounds, coach_model=coach_model, session=session)
    summary = {
        "type": "result", "autonomous": True, "ok": outcome.approved,
        "approved": outcome.approved, "rounds": outcome.rounds, "text": outcome.feedback,
        "error": outcome.error, "session_id": session_id, "usage": total_usage(outcome),
    }
    if output_format in ("json", "stream-json"):
        out.write(json.dumps(summary, ensure_ascii=False) + "\n")
    else:
        verdict = (f"The coach approved after {outcome.rounds} round"
                   f"{'' if outcome.rounds == 1 else 's'}." if outcome.approved else
                   outcome.error or f"The coach did not approve after {outcome.rounds} rounds.")
        out.write(visible(f"{verdict}\n\n{outcome.feedback}".rstrip()) + "\n")
    out.flush()
    return 0 if outcome.approved else 1
