"""One tool call end to end: validate it, tell the front ends, ask the ``PreToolUse`` hooks,
pass the approval gate, snapshot the project before its first change, execute it, ask the
``PostToolUse`` hooks, and report its result."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass
from typing import Protocol

from ...tools.base import (
    CURRENT_CALL_ID,
    ErrorType,
    Invocation,
    ToolArgumentError,
    ToolContext,
    ToolParams,
    ToolResult,
)
from ...tools.registry import ToolRegistry
from ..config import Settings
from ..events import Event, ToolCallStarted, ToolOutput, ToolResultEvent
from ..hooks import HookRunner
from ..hooks.turn import report_failures
from ..providers.base import ToolCallRequest
from .checkpoint import TurnCheckpoints
from .gate import ApprovalGate, HookAnswer

REPEATED_CALL = (
    "this call is the same as the call just before it (same tool, same arguments, nothing "
    "said between) and was not run again: its result is above. Use that result, or change "
    "the arguments if you need something else.")
"""What the model is told of a call that repeats the one before it (g3's duplicate check)."""

CANCELLED_CALL = "Error: the person cancelled this call before it finished."
"""The result of a call that a cancel stopped (or that never started), as a failure reads."""


class HookStopped(Exception):
    """A hook answered ``"continue": false``: the turn ends, with its message."""


class CallOwner(Protocol):
    """What the calls read of the agent they run for, as it is at each call: the person may
    switch the mode between turns, and knowledge read anew brings new hooks."""

    @property
    def settings(self) -> Settings: ...

    @property
    def hooks(self) -> HookRunner: ...

    def emit(self, event: Event) -> None: ...


@dataclass(slots=True)
class PreparedCall:
    """A call validated (or not) and announced, on its way to its result."""

    call: ToolCallRequest
    invocation: Invocation[ToolParams] | None
    error: str | None
    signature: tuple[str, str] | None = None
    started: float | None = None
    """When it began waiting for approval or running (``time.monotonic()``)."""
    ended: bool = False
    """Its ``ToolResultEvent`` was emitted."""
    error_type: ErrorType = ErrorType.INVALID_ARGUMENTS
    """Why it fails without running, when ``invocation`` is None."""


class ToolCalls:
    """Runs an agent's tool calls, each through hooks, the gate and a checkpoint.

    Args:
        owner: The agent the calls run for (its settings, hooks and events).
        registry: Builds each call's invocation from its name and arguments.
        tool_ctx: What the tools run with.
        gate: Decides whether each call runs.
        checkpoints: Snapshots the project before a turn's first change.
    """

    def __init__(self, owner: CallOwner, registry: ToolRegistry, tool_ctx: ToolContext,
                 gate: ApprovalGate, checkpoints: TurnCheckpoints) -> None:
        self.owner = owner
        self.registry = registry
        self.tool_ctx = tool_ctx
        self.gate = gate
        self.checkpoints = checkpoints
        self.escalations: list[str] = []
        """Why calls suggested a stronger model, since the run began."""
        self.last_call: tuple[str, str] | None = None
        """The last call run (its tool and its arguments in one spelling): the same call
        right after it is not run again. None: the next call is no repeat."""

    def start_run(self) -> None:
        """A run starts: no call before it, no suggestion of a stronger model yet."""
        self.escalations = []
        self.last_call = None

    async def run(self, calls: list[ToolCallRequest]) -> list[ToolResult]:
        """Run one response's tool calls (concurrently when all are read-only); their
        results in the calls' order.

        Raises:
            HookStopped: A hook stopped the work (the calls after it did not run).
            asyncio.CancelledError: Each call without a result was first reported ended.
        """
        self._take_settings()
        prepared = [self._prepare(call) for call in calls]
        all_read_only = all(
            p.invocation is not None and p.invocation.read_only for p in prepared
        )
        try:
            if all_read_only and len(prepared) > 1:
                return list(await asyncio.gather(*(self._run_one(p) for p in prepared)))
            return [await self._run_one(p) for p in prepared]
        except asyncio.CancelledError:
            self._end_cancelled(prepared)
            raise

    async def run_own(self, call: ToolCallRequest) -> ToolResult:
        """Run ``call`` as agent-tui's own, asked for by no model (the planning commit):
        through the same hooks, gate and checkpoint as the model's calls, with the same
        events. It counts as the last turn's: it snapshots the project before it changes
        something if the turn did not, and moves the turn's after-snapshot on. A hook
        that stops the work makes it a failed result; nothing is raised but a cancel."""
        self._take_settings()
        prepared = self._prepare(call, own=True)
        try:
            return await self._run_one(prepared)
        except HookStopped as exc:
            result = ToolResult.failure(str(exc), error_type=ErrorType.DENIED)
            self._report(prepared, result)
            return result
        except asyncio.CancelledError:
            self._end_cancelled([prepared])
            raise
        finally:
            await self.checkpoints.end_turn()

    def _take_settings(self) -> None:
        # The person may have changed the mode or switched the network on since last time.
        settings = self.owner.settings
        self.tool_ctx.settings = settings
        self.tool_ctx.network_enabled = settings.network

    def _prepare(self, call: ToolCallRequest, own: bool = False) -> PreparedCall:
        emit = self.owner.emit
        try:
            invocation = self.registry.build(call.name, call.arguments, self.tool_ctx)
        except ToolArgumentError as exc:
            emit(ToolCallStarted(call.id, call.name, _loads(call.arguments), "invalid"))
            return PreparedCall(call, None, str(exc), error_type=exc.error_type)
        name = invocation.tool.name
        emit(ToolCallStarted(call.id, name, _loads(call.arguments), invocation.describe(),
                             called_as=call.name if call.name != name else None))
        if own:
            return PreparedCall(call, invocation, None)
        signature = (name, _canonical(call.arguments))
        repeated = signature == self.last_call and not invocation.tool.repeatable
        self.last_call = signature
        if repeated:
            return PreparedCall(call, None, REPEATED_CALL, error_type=ErrorType.REPEATED)
        return PreparedCall(call, invocation, None, signature)

    def _end_cancelled(self, prepared: list[PreparedCall]) -> None:
        """Tell the front ends that each call of a cancelled response without a result
        ended cancelled (none is left shown as waiting or running)."""
        now = time.monotonic()
        for p in prepared:
            if p.ended:
                continue
            p.ended = True
            name = p.invocation.tool.name if p.invocation is not None else p.call.name
            took = round(now - p.started, 3) if p.started is not None else 0.0
            self.owner.emit(ToolResultEvent(p.call.id, name, False, CANCELLED_CALL,
                                            duration=took, cancelled=True,
                                            error_type=ErrorType.CANCELLED))

    async def _run_one(self, prepared: PreparedCall) -> ToolResult:
        call, invocation = prepared.call, prepared.invocation
        prepared.started = time.monotonic()
        if invocation is None:
            result = ToolResult.failure(prepared.error or "invalid tool call",
                                        error_type=prepared.error_type)
        else:
            result = await self._approve_and_execute(call, invocation)
            if not result.ok and prepared.signature is not None \
                    and self.last_call == prepared.signature:
                self.last_call = None  # a failure may be passing (a timeout): a retry runs
        if result.suggest_escalation:
            self.escalations.append(
                result.escalation_reason or f"{call.name} suggested a stronger model")
        self._report(prepared, result)
        return result

    def _report(self, prepared: PreparedCall, result: ToolResult) -> None:
        """Tell the front ends (and the session log) that the call ended with ``result``."""
        call, invocation = prepared.call, prepared.invocation
        name = invocation.tool.name if invocation is not None else call.name
        started = prepared.started if prepared.started is not None else time.monotonic()
        self.owner.emit(
            ToolResultEvent(
                call.id,
                name,
                result.ok,
                result.llm_content,
                result.display,
                round(time.monotonic() - started, 3),
                edit_tier=result.edit_tier,
                suggest_escalation=result.suggest_escalation,
                escalation_reason=result.escalation_reason,
                warnings=list(result.warnings),
                image_files=list(result.image_files),
                error_type=result.failure_type,
            )
        )
        prepared.ended = True

    async def _approve_and_execute(
        self, call: ToolCallRequest, invocation: Invocation[ToolParams]
    ) -> ToolResult:
        owner = self.owner
        with contextlib.suppress(Exception):  # best effort: execute reports what fails
            await invocation.prepare()
        arguments = _loads(call.arguments)
        verdict = await owner.hooks.pre_tool_use(invocation.tool.name, arguments, call.id)
        report_failures(owner.emit, verdict.failures)
        if verdict.stop:
            raise HookStopped(f"A PreToolUse hook stopped the work: {verdict.stop}")
        hook = HookAnswer(verdict.decision, verdict.reason) if verdict.decision else None
        cleared = await self.gate.clear(call.id, invocation, owner.settings, hook)
        if isinstance(cleared, ToolResult):
            return cleared
        await self.checkpoints.before_change(cleared.invocation)
        running = CURRENT_CALL_ID.set(call.id)
        try:
            result = await cleared.invocation.execute(
                on_output=lambda text: owner.emit(ToolOutput(call.id, text))
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a tool bug must not end the run
            return ToolResult.failure(
                f"{call.name} failed unexpectedly: {type(exc).__name__}: {exc}"
            )
        finally:
            CURRENT_CALL_ID.reset(running)
        if cleared.note:
            result.llm_content = cleared.note + result.llm_content
        after = await owner.hooks.post_tool_use(invocation.tool.name, arguments, call.id,
                                                result.ok, result.llm_content,
                                                error_type=result.failure_type)
        report_failures(owner.emit, after.failures)
        if after.stop:
            raise HookStopped(f"A PostToolUse hook stopped the work: {after.stop}")
        if after.feedback:
            result.llm_content += f"\n\nPostToolUse hook: {after.feedback}"
        return result


def _canonical(arguments: str) -> str:
    """The arguments in one spelling, so that key order and spacing make no new call."""
    try:
        return json.dumps(json.loads(arguments or "{}"), sort_keys=True)
    except json.JSONDecodeError:
        return arguments


def _loads(arguments: str) -> object:
    """The arguments parsed, or their text when they are no JSON (shown as the model sent
    them)."""
    try:
        return json.loads(arguments) if arguments else {}
    except json.JSONDecodeError:
        return arguments
