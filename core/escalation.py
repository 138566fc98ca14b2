"""Model escalation (egirl's ``suggest_escalation``): when a stronger model takes over a run.

With ``escalation_model`` set, the rest of a run (one prompt) goes to that model when a tool
result suggests a stronger model (an edit whose text is not in the file) or when the model's
final answer says it cannot proceed. This module holds what decides that, what the model
is told, and the switch (:class:`Escalation`, which :class:`~agent_tui.core.agent.Agent`'s
loop asks).

The answer detector is deliberately conservative: a needless escalation costs money and a
second answer, a missed one only leaves the person to switch models. It matches a sentence
in which the model says, in the first person and as a statement, that it cannot go on
("I cannot proceed", "I'm unable to complete this task", "I am stuck"), and nothing in code,
quotes, questions, conditions ("if …", "unless …"), sentences that wait on the person
("without your approval", "until you tell me"), nor an answer that speaks of something
denied, refused or unsafe (a stronger model would be held back just the same).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

from .events import Escalated, Event
from .providers.base import Message, Provider

if TYPE_CHECKING:
    from .settings import Settings

_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)
_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|(?<!\w)'[^'\n]*'(?!\w)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")

_CANNOT_GO_ON = re.compile(
    r"\bI(?:\s+am|'m|’m)?\s+(?:cannot|can\s*not|can't|can’t|unable\s+to|not\s+able\s+to)"
    r"\s+(?:further\s+)?(?:proceed|continue|go\s+on"
    r"|make\s+(?:any\s+)?(?:further\s+)?progress"
    r"|(?:complete|finish)\s+(?:this|the)\s+(?:task|request|change|edit|work))\b",
    re.IGNORECASE)
_STUCK = re.compile(
    r"\bI(?:'m|’m|\s+am)\s+(?:really\s+|completely\s+|truly\s+)?stuck\b"
    r"|\bI(?:'ve|’ve|\s+have)\s+run\s+out\s+of\s+(?:ideas|approaches|options)\b",
    re.IGNORECASE)
_WAITS_ON_PERSON = re.compile(
    r"\b(?:if|unless|until|whether|once|when)\b|\bwithout\s+(?:your|you|more|further|the\s+user)"
    r"|\byour\s+(?:approval|permission|confirmation|input|answer|decision|go-ahead)\b"
    r"|\b(?:you|the\s+user)\s+(?:need|have|must|should)\b",
    re.IGNORECASE)
_DECLINED = re.compile(
    r"\b(?:denied|refused|rejected|declined|not\s+allowed|not\s+permitted|permission"
    r"|destructive|unsafe|dangerous|harmful)\b",
    re.IGNORECASE)

__all__ = ["Escalation", "EscalationOwner", "cannot_proceed", "escalation_api", "takeover_note"]


def cannot_proceed(answer: str) -> str | None:
    """The sentence of ``answer`` in which the model says it cannot go on, or None.

    Only a plain first-person statement counts; code, quoted text, questions, conditional
    sentences and sentences that wait on the person do not (see the module's docstring).
    """
    # Code and quotes are masked, not cut, so that a sentence's place in the prose is its
    # place in the answer, which gives the reason with its code spans intact.
    prose = _QUOTED.sub(_mask, _CODE.sub(_mask, answer))
    if _DECLINED.search(prose):
        return None  # held back by the person or by caution: a stronger model changes neither
    gaps = [(gap.start(), gap.end()) for gap in _SENTENCE_END.finditer(prose)]
    starts = [0, *(gap_end for _start, gap_end in gaps)]
    ends = [*(gap_start for gap_start, _end in gaps), len(prose)]
    for begin, end in zip(starts, ends, strict=True):
        sentence = prose[begin:end]
        if not sentence.strip() or sentence.rstrip().endswith("?"):
            continue
        if not (_CANNOT_GO_ON.search(sentence) or _STUCK.search(sentence)):
            continue
        if _WAITS_ON_PERSON.search(sentence):
            continue
        return answer[begin:end].strip()[:300]
    return None


def _mask(match: re.Match[str]) -> str:
    return "\u2026" * len(match.group(0))


def takeover_note(model: str, reason: str) -> str:
    """What the escalation model is told, as a user message, when it takes over a run after
    the model before it gave up (``reason``: the sentence it gave up with)."""
    return (f"[Note from agent-tui] A stronger model ({model}) takes over: the model before "
            f"you stopped, saying: {reason!r}. Look at the task and the work so far afresh "
            "and go on with it; if it really cannot be done, say why.")


def escalation_api(settings: Settings) -> dict[str, str | None]:
    """Where the escalation model's requests go: the settings ``api_base``, ``api_key`` and
    ``api_key_env`` for it.

    ``escalation_api_base`` / ``escalation_api_key_env`` when given; otherwise the main model's
    when both models name the same litellm provider (the part before the first ``/``: two
    models of one server), else none, so that litellm uses the provider's own endpoint and
    usual key variable: a local model's ``api_base`` or key never goes to a remote provider.
    """
    model, stronger = settings.model or "", settings.escalation_model or ""
    same = model.split("/", 1)[0] == stronger.split("/", 1)[0] and "/" in stronger
    api: dict[str, str | None] = {
        "api_base": settings.api_base if same else None,
        "api_key": settings.api_key if same else None,
        "api_key_env": settings.api_key_env if same else None,
    }
    if settings.escalation_api_base:
        api = {"api_base": settings.escalation_api_base, "api_key": None, "api_key_env": None}
    if settings.escalation_api_key_env:
        api.update(api_key=None, api_key_env=settings.escalation_api_key_env)
    return api


class EscalationOwner(Protocol):
    """What an escalation reads of the agent whose runs it may take over, as it is at each
    run (the person may switch models or settings between turns)."""

    @property
    def provider(self) -> Provider: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def subagent(self) -> bool: ...

    @property
    def messages(self) -> list[Message]: ...

    def emit(self, event: Event) -> None: ...


class Escalation:
    """Which model has an agent's run: the person's own, or the escalation model once it took
    over. The stronger model's provider is built on first use and kept for later runs."""

    def __init__(self, owner: EscalationOwner) -> None:
        self._owner = owner
        self._stronger: Provider | None = None
        self.active: Provider | None = None
        """The escalation model's provider while it has the run; None: the agent's own."""

    def start_run(self) -> None:
        """A new prompt: it starts with the person's own model again."""
        self.active = None

    def take_over(self, reason: str, trigger: str) -> bool:
        """Send the rest of this run's model calls to ``escalation_model`` (once a run; never
        in a sub-agent, a bounded helper whose notices nobody sees) and report it. The run
        keeps its tool protocol: its history and system prompt are written in it.

        Returns whether it took over: not without an escalation model, when it already
        did, or when it is the agent's own model.
        """
        owner = self._owner
        if owner.subagent:
            return False
        escalated = self._switch(owner.provider, owner.settings, reason, trigger)
        if escalated is not None:
            owner.emit(escalated)
        return escalated is not None

    def take_over_answer(self, answer: str) -> bool:
        """The model's final answer says it cannot proceed: the escalation model gets one go
        at the task, told so in a note (a user message). Returns whether it took over."""
        settings = self._owner.settings
        reason = cannot_proceed(answer) if settings.escalation_model else None
        if reason is None or not self.take_over(reason, "answer"):
            return False
        model = settings.escalation_model or ""
        self._owner.messages.append({"role": "user", "content": takeover_note(model, reason)})
        return True

    def _switch(self, primary: Provider, settings: Settings, reason: str,
                trigger: str) -> Escalated | None:
        """Give the rest of the run to ``settings.escalation_model``; once a run.

        Returns the event to report, or None when nothing changes: no escalation model, it
        already took over, or it is ``primary``'s own model.
        """
        model = settings.escalation_model
        if not model or self.active is not None or model == primary.model:
            return None
        if self._stronger is None or self._stronger.model != model:
            self._stronger = primary.with_model(model, **escalation_api(settings))
        self.active = self._stronger
        return Escalated(model, reason, trigger)
