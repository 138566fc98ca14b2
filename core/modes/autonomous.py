"""Autonomous mode (g3's coach-player): a player agent implements the requirements; a coach
agent, with a context of its own and no editing tools, reviews the work against them (it
reads files and runs the tests) and answers with approval or specific feedback; they take
turns until the coach approves or the rounds run out.

The player goes on in one conversation (each round's prompt carries the coach's feedback);
the coach too, so it remembers what it asked for before.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..agent import Agent
from ..events import ErrorEvent, Event, LaneStarted, RoundEnded, RunResult
from ..personas import Persona

APPROVED = "IMPLEMENTATION_APPROVED"
"""What the coach writes, alone on a line, when the work meets the requirements."""
DEFAULT_ROUNDS = 5
"""Player-coach rounds when none are given (``--max-turns``)."""

# A line that begins with the marker, bold or not (a heading's or a list item's mark before
# it is fine), and goes on with nothing, punctuation, a dash or a summary; never a question.
_APPROVAL = re.compile(
    rf"^(?:#+\s+|[-*+]\s+)?[*_]*{APPROVED}[*_]*(?![\w?`])(?P<rest>.*)$")
_NEGATION = re.compile(r"^[\s*_:.,;!-]*(?:not|never|cannot|isn't|withheld|pending|"
                       r"once|when|until|unless|if)\b", re.IGNORECASE)
# Approval in the coach's own words: worth one question, not a verdict.
_OWN_WORDS = re.compile(
    r"^(?:#+\s+|[-*+]\s+)?[*_]*(?:approved\b|lgtm\b|looks good\b|i approve\b|"
    r"all (?:the )?requirements (?:are )?met\b)"
    r"|\b(?:is|are) (?:now )?approved\b|\bi approve (?:it|this|the)\b", re.IGNORECASE)
_NEGATED_WORDS = re.compile(r"\b(?:not|no|never|cannot|can't|isn't|aren't|don't|won't|"
                            r"until|unless|once|when|if)\b", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(```|~~~)")

COACH_TOOLS = ("read_file", "read_many_files", "ls", "glob_files", "grep", "code_search",
               "code_coverage", "shell", "todo_read", "get_internal_docs")
"""What the coach may use: reading and running things, never editing files."""

COACH_PROMPT = f"""You are the coach in a coach-player pair. A player agent implements a set
of requirements in this project; you review its work against them, then either approve it or
tell the player precisely what to change. You never change files yourself.

Each review:
1. Read the requirements again. Look at what the player changed (`git status`, `git diff`
   when the project is a git repository; otherwise read the files it says it changed).
2. Check every requirement against the code, one by one. Run the project's tests, and the
   program itself where that shows whether a requirement is met. Trust what you see, not the
   player's summary.
3. Answer in one of two ways:
   - When every requirement is met and the tests pass, write a line with exactly
     {APPROVED}, then a short summary of what was checked.
   - Otherwise, a numbered list of specific problems: which requirement, where (`file:line`),
     what is wrong, what to do. Only what blocks the requirements; no style preferences.
     Never write {APPROVED} in that case, not even to quote it.
"""


def coach_persona() -> Persona:
    """The coach's role: its instructions and its tools (no editing)."""
    return Persona(name="coach", description="Reviews the player's work against the "
                   "requirements", prompt=COACH_PROMPT, path=Path(__file__), source="bundled",
                   tools=COACH_TOOLS)


FOLLOW_UP = (f"Is that your approval? If every requirement is met, answer with a line that "
             f"begins with {APPROVED}; otherwise list what the player must change.")
"""What the coach is asked once when it seems to approve in its own words."""


def _said_lines(review: str) -> list[str]:
    """The lines of ``review`` the coach says itself: not quoted, not inside a code fence."""
    lines, fenced = [], False
    for line in review.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        stripped = line.strip()
        if not fenced and not stripped.startswith(">"):
            lines.append(stripped)
    return lines


def approves(review: str) -> bool:
    """Whether the coach's review approves the work: a line of its own (not quoted, not in
    code) begins with :data:`APPROVED`, bold or not, and does not go on to negate it
    (``IMPLEMENTATION_APPROVED - all good`` approves, ``IMPLEMENTATION_APPROVED? no`` and
    ``not IMPLEMENTATION_APPROVED yet`` do not)."""
    for line in _said_lines(review):
        found = _APPROVAL.match(line)
        if found is not None and not _NEGATION.match(found.group("rest")):
            return True
    return False


def approves_in_own_words(review: str) -> bool:
    """Whether the review, without :data:`APPROVED`, reads as an approval ("Approved.",
    "LGTM, the implementation is approved"): the coach is then asked once
    (:data:`FOLLOW_UP`) rather than sent on to another round."""
    return any(_OWN_WORDS.search(line) and not _NEGATED_WORDS.search(line)
               for line in _said_lines(review))


def player_prompt(requirements: str, feedback: str | None) -> str:
    """What the player is asked: the requirements, then the coach's feedback on its work."""
    if feedback is None:
        return (f"Implement these requirements in this project. When you are done, say what "
                f"you changed and how you checked it.\n\n<requirements>\n{requirements}\n"
                "</requirements>")
    return (f"The coach reviewed your work against the requirements and asks for changes:\n\n"
            f"<feedback>\n{feedback}\n</feedback>\n\nMake them, check your work, and say what "
            f"you changed.\n\n<requirements>\n{requirements}\n</requirements>")


def coach_prompt(requirements: str, report: str, number: int) -> str:
    """What the coach is asked after the player's turn ``number``."""
    return (f"Round {number}. Review the player's work against the requirements.\n\n"
            f"<requirements>\n{requirements}\n</requirements>\n\n<player_report>\n"
            f"{report or '(the player said nothing)'}\n</player_report>")


@dataclass(slots=True)
class Outcome:
    """How an autonomous run ended.

    Attributes:
        approved: The coach approved the work.
        rounds: Rounds played.
        feedback: The coach's last review (its feedback when it did not approve).
        error: Why the run stopped early (a model call that failed), if it did.
        results: Each run's result, in order, with its role.
    """

    approved: bool
    rounds: int
    feedback: str = ""
    error: str | None = None
    results: list[tuple[str, RunResult]] = field(default_factory=list)


async def coach_player(requirements: str, player: Agent, coach: Agent, max_rounds: int,
                       emit: Callable[[Event], None]) -> Outcome:
    """Alternate the player and the coach on ``requirements`` for at most ``max_rounds``.

    ``emit`` hears a :class:`~agent_tui.core.events.LaneStarted` before each agent's part of
    a round, a :class:`~agent_tui.core.events.RoundEnded` after each round, and an
    :class:`~agent_tui.core.events.ErrorEvent` when the rounds run out without approval.
    """
    feedback: str | None = None
    outcome = Outcome(False, 0)
    for number in range(1, max_rounds + 1):
        outcome.rounds = number
        emit(LaneStarted(number, "player"))
        played = await player.run(player_prompt(requirements, feedback))
        outcome.results.append(("player", played))
        if not played.ok:
            outcome.error = f"the player stopped: {played.error}"
            return outcome
        emit(LaneStarted(number, "coach"))
        review = await coach.run(coach_prompt(requirements, played.text, number))
        outcome.results.append(("coach", review))
        if not review.ok:
            outcome.error = f"the coach stopped: {review.error}"
            return outcome
        approved = approves(review.text)
        if not approved and approves_in_own_words(review.text):
            review = await coach.run(FOLLOW_UP)
            outcome.results.append(("coach", review))
            if not review.ok:
                outcome.error = f"the coach stopped: {review.error}"
                return outcome
            # Approving twice in its own words is an approval: asking again would only loop.
            approved = approves(review.text) or approves_in_own_words(review.text)
        outcome.feedback = review.text
        outcome.approved = approved
        emit(RoundEnded(number, outcome.approved, review.text))
        if outcome.approved:
            return outcome
        feedback = review.text
    emit(ErrorEvent(f"the coach did not approve after {max_rounds} rounds; its last "
                    f"feedback:\n{outcome.feedback}"))
    return outcome
