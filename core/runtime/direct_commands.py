"""Prompts agent-tui answers itself instead of sending them to the model, the same in every
front end (workbench, ``-p``, ACP):

- ``/compact [FOCUS]`` summarizes the conversation so far (the summary steered by FOCUS),
  with the same review as automatic compaction, and logs it so a resumed session stays
  compacted;
- ``!COMMAND`` runs COMMAND as a ``shell`` tool call no model asked for (the same hooks,
  judge, sandbox and approval), shows its output, and hands the command and its output to
  the model with the next prompt; it starts no turn;
- ``/code [@PROJECT] PROMPT`` hands PROMPT to a configured delegate, another coding agent
  (:mod:`agent_tui.core.delegates.agent_host`).

Use::

    direct = direct_command(typed)          # None: a prompt for the model
    result = await run_direct(agent, direct)
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ...tools.base import ErrorType
from ...tools.names import ToolName
from ..context.compaction import NothingToCompact, Review, compact
from ..context.window import CompactionLoop
from ..events import ErrorEvent, RunResult, Usage
from ..providers.base import ProviderError, ToolCallRequest

if TYPE_CHECKING:
    from ..agent import Agent

CODE_COMMAND = "/code"
"""Hands work to another coding agent: ``/code [@PROJECT] PROMPT``."""
COMPACT_COMMAND = "/compact"
"""Compacts the conversation on demand: ``/compact [FOCUS]``."""
SHELL_PREFIX = "!"
"""A prompt starting with it is a shell command the person runs: ``!git status``."""
EMPTY_COMMAND = "Type a command after !, e.g. !git status: it runs as the shell tool would run it."
"""What a bare ``!`` says."""
PERSON_SHELL_CALL = "person_shell_"
"""How the call id of a ``!`` command starts (front ends show its output at once)."""
RAN_OUTPUT = {None, ErrorType.FAILED, ErrorType.TIMEOUT}
"""The outcomes of a ``!`` command that mean it ran: its output goes to the model."""


@dataclass(frozen=True, slots=True)
class DirectCommand:
    """A prompt agent-tui answers itself.

    Attributes:
        kind: ``compact`` (``/compact FOCUS``), ``shell`` (``!COMMAND``) or ``code``
            (``/code [@PROJECT] PROMPT``).
        argument: The focus, the command, or what follows ``/code``.
    """

    kind: Literal["compact", "shell", "code"]
    argument: str


def direct_command(prompt: str) -> DirectCommand | None:
    """The command ``prompt`` is, if agent-tui answers it itself; None: it goes to the model."""
    text = prompt.strip()
    if text.startswith(SHELL_PREFIX):
        return DirectCommand("shell", text[len(SHELL_PREFIX) :].strip())
    name, _, focus = text.partition(" ")
    if name == COMPACT_COMMAND:
        return DirectCommand("compact", focus.strip())
    if name == CODE_COMMAND:
        return DirectCommand("code", focus.strip())
    return None


async def run_direct(
    agent: Agent, command: DirectCommand, review: Review | None = None
) -> RunResult:
    """Run ``command`` with ``agent``; the result is emitted (and logged) as a run's is.

    Args:
        review: Shows a compaction summary to the person (None: the agent's approver's).
    """
    if command.kind == "compact":
        return await compact_conversation(agent, command.argument, review)
    if command.kind == "code":
        from ..delegates.agent_host import run_code  # the ACP schemas: only when delegating

        return await run_code(agent, command.argument)
    return await run_shell_command(agent, command.argument)


async def compact_conversation(
    agent: Agent, focus: str = "", review: Review | None = None
) -> RunResult:
    """Summarize ``agent``'s whole conversation (pinned items stay), focused on ``focus``;
    the result says the tokens before and after, then the summary. A failure (nothing to
    compact, the model call failing) is an error event and a failed result."""
    todos = agent.tool_ctx.todos.read() if agent.tool_ctx.todos else None
    try:
        done = await compact(
            agent.context,
            agent.messages,
            agent.provider,
            agent.approver,
            agent.session,
            todos,
            agent.emit,
            focus=focus,
            on_demand=True,
            review=review,
        )
    except (NothingToCompact, CompactionLoop, ProviderError) as exc:
        message = exc.message if isinstance(exc, ProviderError) else str(exc)
        if isinstance(exc, ProviderError):
            message = f"The conversation was not compacted: {message}"
        return _ended(
            agent, RunResult("", 1, Usage(), agent.session_id, ok=False, error=message), message
        )
    text = (
        f"Compacted the conversation: {done.tokens_before:,} -> {done.tokens_after:,} "
        f"tokens.\n\n{done.summary.strip()}"
    )
    return _ended(agent, RunResult(text, 1, Usage(), agent.session_id))


async def run_shell_command(agent: Agent, command: str) -> RunResult:
    """Run ``command`` as ``agent``'s ``shell`` tool call, asked for by no model, as every call
    runs (hooks, judge, sandbox, approval, checkpoint; its events shown and logged). When it
    ran, the command and its output (cut as the shell tool cuts it) reach the model with the
    next prompt. The result's text is that output; it is ok when the command succeeded."""
    if not command:
        return _ended(
            agent,
            RunResult("", 0, Usage(), agent.session_id, ok=False, error=EMPTY_COMMAND),
            EMPTY_COMMAND,
        )
    call = ToolCallRequest(
        f"{PERSON_SHELL_CALL}{secrets.token_hex(6)}",
        ToolName.SHELL,
        json.dumps({"command": command}),
    )
    result = await agent.calls.run_own(call)
    if result.failure_type in RAN_OUTPUT:
        agent.add_note(
            f"The person ran this shell command themselves (not a call of "
            f"yours):\n$ {command}\n{result.llm_content}"
        )
    return _ended(
        agent,
        RunResult(
            result.llm_content, 0, Usage(), agent.session_id, ok=result.ok, error=result.error
        ),
    )


def _ended(agent: Agent, result: RunResult, error: str | None = None) -> RunResult:
    """Emit ``error`` (if any) and ``result`` as a run's end is emitted; return ``result``."""
    if error is not None:
        agent.emit(ErrorEvent(error, fatal=True))
    agent.emit(result)
    return result
