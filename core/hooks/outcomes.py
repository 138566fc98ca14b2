"""What all the hooks of one event said together, one type per kind of answer."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .answers import Answer

_DECISION_RANK = {"allow": 1, "ask": 2, "deny": 3}


@dataclass(slots=True)
class HookOutcome:
    """What the hooks of an event said, for events that cannot refuse anything outright.

    Attributes:
        failures: One message per hook that failed, for the person; failures change
            nothing else.
        stop: Set when a hook answered ``"continue": false``: the message for the person;
            the agent should end the turn. It wins over everything else here.
        feedback: PostToolUse: what the hooks want the model to read after the tool's
            result (exit 2's stderr, a ``"block"`` reason, ``additionalContext``).
        context: SessionStart: text to add for the model.
        go_on_reason: Stop: set when a hook refused to let the agent stop; the model is
            told this and the turn goes on.
    """

    failures: list[str] = field(default_factory=list)
    stop: str | None = None
    feedback: str | None = None
    context: str = ""
    go_on_reason: str | None = None


@dataclass(slots=True)
class ToolHookVerdict:
    """What the PreToolUse hooks decided about one tool call.

    Attributes:
        decision: ``"deny"`` beats ``"ask"`` beats ``"allow"``; None when no hook decided
            (the usual permission check applies).
        reason: The reasons given for that decision, one per line. For ``"deny"`` the model
            is told it.
        failures: As in :class:`HookOutcome`.
        stop: As in :class:`HookOutcome`.
    """

    decision: str | None = None
    reason: str = ""
    failures: list[str] = field(default_factory=list)
    stop: str | None = None


@dataclass(slots=True)
class PromptVerdict:
    """What the UserPromptSubmit hooks said about a prompt.

    Attributes:
        blocked: Whether the prompt must not be sent.
        reason: Why, for the person, when blocked.
        context: Text to add for the model alongside the prompt.
        failures: As in :class:`HookOutcome`.
        stop: As in :class:`HookOutcome`.
    """

    blocked: bool = False
    reason: str = ""
    context: str = ""
    failures: list[str] = field(default_factory=list)
    stop: str | None = None


def tool_verdict(answers: Sequence[Answer]) -> ToolHookVerdict:
    """Combine PreToolUse answers."""
    decided = [a for a in answers if a.decision in _DECISION_RANK]
    if not decided:
        return ToolHookVerdict(failures=_failures(answers), stop=_stop(answers))
    decision = max((a.decision for a in decided), key=lambda d: _DECISION_RANK[d or ""])
    reason = _joined(a.reason for a in decided if a.decision == decision)
    return ToolHookVerdict(decision, reason, _failures(answers), _stop(answers))


def post_tool_outcome(answers: Sequence[Answer]) -> HookOutcome:
    """Combine PostToolUse answers."""
    said = [a.reason for a in answers if a.decision == "block"]
    said += [a.context for a in answers]
    return HookOutcome(_failures(answers), _stop(answers), feedback=_joined(said) or None)


def prompt_verdict(answers: Sequence[Answer]) -> PromptVerdict:
    """Combine UserPromptSubmit answers."""
    blocking = [a.reason for a in answers if a.decision == "block"]
    return PromptVerdict(bool(blocking), _joined(blocking), _joined(a.context for a in answers),
                         _failures(answers), _stop(answers))


def stop_outcome(answers: Sequence[Answer]) -> HookOutcome:
    """Combine Stop answers."""
    blocking = [a.reason for a in answers if a.decision == "block"]
    return HookOutcome(_failures(answers), _stop(answers),
                       go_on_reason=_joined(blocking) if blocking else None)


def session_start_outcome(answers: Sequence[Answer]) -> HookOutcome:
    """Combine SessionStart answers."""
    return HookOutcome(_failures(answers), _stop(answers),
                       context=_joined(a.context for a in answers))


def _failures(answers: Sequence[Answer]) -> list[str]:
    return [a.failure for a in answers if a.failure]


def _stop(answers: Sequence[Answer]) -> str | None:
    return _joined(a.stop for a in answers if a.stop) or None


def _joined(texts: Iterable[str | None]) -> str:
    return "\n".join(t.strip() for t in texts if t and t.strip())
