"""The hooks around a prompt: ``SessionStart`` (once) and ``UserPromptSubmit`` before it
reaches the model, ``Stop`` when the model answers without a tool call. The hooks around
each tool call run in :mod:`agent_tui.core.calls`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..events import ErrorEvent, EventSink
from .runner import HookRunner


def report_failures(emit: EventSink, failures: Sequence[str]) -> None:
    """A hook that failed is shown, never silent; what it guarded goes on."""
    for failure in failures:
        emit(ErrorEvent(failure))


@dataclass(slots=True)
class BeforePrompt:
    """What the hooks said before a prompt."""

    blocked: str | None = None
    """Why the prompt must not be sent, for the person; None: it goes."""
    notes: list[str] = field(default_factory=list)
    """What the hooks add for the model, to send with the prompt (or the next one)."""


async def before_prompt(hooks: HookRunner, emit: EventSink, prompt: str,
                        started_by: str | None) -> BeforePrompt:
    """Run ``SessionStart`` (when ``started_by`` names what started the session: its first
    prompt) and ``UserPromptSubmit``."""
    said = BeforePrompt()
    if started_by is not None:
        started = await hooks.session_start(started_by)
        report_failures(emit, started.failures)
        if started.context:
            said.notes.append(f"SessionStart hook context:\n{started.context}")
    verdict = await hooks.user_prompt_submit(prompt)
    report_failures(emit, verdict.failures)
    if verdict.blocked or verdict.stop:
        why = verdict.reason or verdict.stop or "no reason given"
        said.blocked = (f"A UserPromptSubmit hook blocked this prompt: {why}. The prompt was "
                        "not sent; change it, or the hook (config.toml [hooks]).")
    elif verdict.context:
        said.notes.append(f"UserPromptSubmit hook context:\n{verdict.context}")
    return said


async def stop_go_on(hooks: HookRunner, emit: EventSink, answer: str,
                     active: bool) -> str | None:
    """``Stop`` hooks may send the model back to work with a reason (as Claude Code's do);
    returns it, or None to let the model stop.

    Args:
        active: A ``Stop`` hook already sent the model back during this prompt.
    """
    outcome = await hooks.stop(answer, active)
    report_failures(emit, outcome.failures)
    if outcome.stop or not outcome.go_on_reason:
        return None
    return outcome.go_on_reason
