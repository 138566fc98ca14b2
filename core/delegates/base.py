"""What a delegate is to agent-tui, and what agent-tui offers a delegate while it works.

A route (:mod:`.acp`) implements :class:`Delegate`: it starts or reaches the other agent,
hands it a prompt in a folder and reports what it does. Everything the delegate does to the
person's machine goes through the :class:`DelegateHost` it is given: files it reads and
writes, commands it runs, permissions it asks for. The host of an agent-tui session
(:mod:`.agent_host`) runs those through the session's own tool calls, so the approvals,
rules, hooks, checkpoints, review and ``/undo`` apply to a delegate as to the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

PermissionAnswer = Literal["once", "always", "reject"]
UpdateKind = Literal["message", "thought", "plan", "tool_call", "tool_update"]


class DelegateError(Exception):
    """The delegate could not do the work; the message says what happened and what to do."""


class DelegateRefused(Exception):
    """The host refused what the delegate asked (a write outside the folder, a denied
    approval); the message is what the delegate is told."""


@dataclass(frozen=True, slots=True)
class DelegateUpdate:
    """One thing a working delegate reported.

    Attributes:
        kind: ``message`` (its answer, a piece at a time), ``thought`` (its reasoning),
            ``plan`` (its plan's entries, one per line), ``tool_call`` (a call it started)
            or ``tool_update`` (a call's progress or end).
        text: The piece of text, the plan, or the call's title.
        call_id: The delegate's id of the call (tool calls only).
        status: A call's status: ``pending``, ``in_progress``, ``completed`` or ``failed``.
    """

    kind: UpdateKind
    text: str
    call_id: str | None = None
    status: str = ""


@dataclass(frozen=True, slots=True)
class DelegateResult:
    """How a delegated run ended.

    Attributes:
        text: The delegate's answer (its message chunks joined).
        session_id: The delegate's id of the session, to continue it later.
        stop_reason: Why it stopped (``end_turn``, ``cancelled``, ``max_tokens``, …).
        cost: What it says the run cost, in USD, if it says.
    """

    text: str
    session_id: str
    stop_reason: str
    cost: float | None = None


@dataclass(frozen=True, slots=True)
class CommandOutcome:
    """A command the delegate ran through the host: its output and exit code (None when it
    did not run: refused, or stopped)."""

    output: str
    exit_code: int | None


class DelegateHost(Protocol):
    """What agent-tui offers a delegate at work in ``folder``."""

    folder: Path

    async def read_text(self, path: Path) -> str:
        """The text of ``path``. Raises :class:`DelegateRefused` (outside the project,
        unreadable)."""
        ...

    async def write_text(self, path: Path, content: str) -> None:
        """Write ``content`` to ``path`` the way agent-tui's own edits are written.
        Raises :class:`DelegateRefused` with what to tell the delegate."""
        ...

    async def run_command(self, command: str, cwd: Path) -> CommandOutcome:
        """Run ``command`` in ``cwd`` as agent-tui's shell tool would."""
        ...

    async def ask_permission(self, title: str, details: str, always: bool) -> PermissionAnswer:
        """Ask the person about what the delegate wants to do (``always``: an answer for
        every such request of this delegate may be given)."""
        ...

    def report(self, update: DelegateUpdate) -> None:
        """Show and record one thing the delegate reported."""
        ...


class Delegate(Protocol):
    """Another agent that can be handed work."""

    name: str

    async def probe(self) -> str | None:
        """None when the delegate starts and answers; else why not, in a sentence that says
        what to do."""
        ...

    async def run(self, prompt: str, host: DelegateHost, resume: str | None = None
                  ) -> DelegateResult:
        """Hand ``prompt`` to the delegate in ``host.folder`` (continuing its session
        ``resume`` when it can) and wait for its answer.

        Raises:
            DelegateError: it could not start, or failed; the message says what to do.
        """
        ...

    async def cancel(self) -> None:
        """Ask the running work to stop; :meth:`run` then returns with ``cancelled``."""
        ...
