"""Sub-agents: a bounded helper run on the agent's own model with only some of its tools.

Tools ask for one through ``ToolContext.run_subagent`` (``research`` for a brief, the edit
tool's last tier for a repair) or ``ToolContext.run_task`` (the ``task`` tool: a fresh
agent, perhaps as a persona). The child shares its parent's session: one browser, one set
of approval rules, the hooks, the parent's checkpoints and its usage; its tool calls show
in the tool log (a task's under the task's call), its text does not.

A sub-agent starts no task of its own (the depth is 1): each level would multiply the
model calls running at once and their cost, and a person asked to approve a grandchild's
call could no longer tell what it is for.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ..tools.base import SubTask, TaskPersona, ToolContext
from ..tools.names import COMMAND_RULE_TOOL, ToolName
from ..tools.registry import ToolRegistry
from .approval import ApprovalRequest, Approver, Decision, Previewer, RememberedRules
from .calls import ApprovalGate
from .changes.checkpoints import Checkpoints
from .config import Settings
from .events import (
    ApprovalDecided,
    Event,
    EventSink,
    RunResult,
    StreamRestart,
    ToolCallStarted,
    ToolOutput,
    ToolResultEvent,
    Usage,
)
from .knowledge import Knowledge
from .personas import MODE_ORDER
from .providers.base import Provider

if TYPE_CHECKING:
    from .memory import ProjectMemory
    from .personas import Persona

SHOWN_EVENTS = (ToolCallStarted, ToolOutput, ApprovalDecided, ToolResultEvent, StreamRestart)
"""What of a sub-agent's run its parent passes on: its tool calls, not its text."""
LANE_EVENTS = (ToolCallStarted, ToolOutput, ApprovalDecided, ToolResultEvent)
"""A task's events that belong to one of its calls: passed on under the task's call."""
NO_SUBTASKS = frozenset({ToolName.TASK, ToolName.RESEARCH, ToolName.DELEGATE})
"""Tools a task's sub-agent is not given: each would start an agent of its own."""
READ_ONLY_MODE = "plan"
"""The approval mode of a read-only task: read-only tools and commands only."""
TASK_PREAMBLE = (
    "You are a sub-agent: another agent handed you the task below. You see nothing of its "
    "conversation, and nobody reads your text but your final answer, which goes back to "
    "it as the task's result. Work with the tools until the task is done, then answer "
    "with what it asked for, completely and concisely (findings with file:line, what you "
    "changed, what is left). You cannot start tasks of your own.\n\nThe task: {title}\n\n")
"""What a task's sub-agent reads before its prompt."""


class SubAgentHost(Protocol):
    """What a sub-agent takes from the agent it helps, and what the child is in turn."""

    provider: Provider
    registry: ToolRegistry
    settings: Settings
    workdir: Path
    approver: Approver
    session_id: str
    knowledge: Knowledge
    tool_ctx: ToolContext
    gate: ApprovalGate
    usage: Usage
    checkpoints: Checkpoints | None
    subagent: bool

    def emit(self, event: Event) -> None: ...

    async def run(self, prompt: str, *, allowed_rules: Sequence[str] = ()) -> RunResult: ...


@runtime_checkable
class PersonaOffering(Protocol):
    """The task tool, as far as the engine tells it the personas a task may take on."""

    def offer_personas(self, personas: Sequence[TaskPersona]) -> None: ...


class LaneApprover:
    """A task's approver: the parent's, each request named by the call as its lane shows
    it (``<task call>/<child call>``), so the person sees the call they are asked about."""

    def __init__(self, approver: Approver, task_call_id: str) -> None:
        self._approver = approver
        self._prefix = task_call_id

    async def ask(self, request: ApprovalRequest, preview: Previewer | None) -> Decision:
        """As the parent's approver, one request at a time as it queues them."""
        named = dataclasses.replace(request, call_id=lane_call_id(self._prefix,
                                                                   request.call_id))
        return await self._approver.ask(named, preview)

    def remembered(self, saved: RememberedRules) -> None:
        """As the parent's approver."""
        self._approver.remembered(saved)

    async def review_summary(self, summary: str) -> str:
        """As the parent's approver."""
        return await self._approver.review_summary(summary)


def lane_call_id(task_call_id: str, call_id: str) -> str:
    """The id a task's child call is shown and logged under: unique in the session (two
    children, and the parent, may each name a call ``call_1``)."""
    return f"{task_call_id}/{call_id}"


class SpawnAgent(Protocol):
    """Makes the child agent (the ``Agent`` class itself: this module cannot import it)."""

    def __call__(self, provider: Provider, registry: ToolRegistry, settings: Settings,
                 workdir: Path, approver: Approver, on_event: EventSink, *, session_id: str,
                 knowledge: Knowledge, memory: ProjectMemory | None) -> SubAgentHost: ...


class SubAgents:
    """Runs the sub-agents of one agent, numbered within its session."""

    def __init__(self, parent: SubAgentHost, spawn: SpawnAgent) -> None:
        self._parent = parent
        self._spawn = spawn
        self.started = 0
        """Sub-agents run so far (each one's session id ends ``-sub<N>``)."""
        self.spent = Usage()
        """What the sub-agents of the agent's current run used (its result counts it)."""

    async def run(self, prompt: str, tool_names: list[str]) -> str:
        """Run a sub-agent with only ``tool_names``; its tool calls show in the tool log.

        Returns its final answer; raises ``RuntimeError`` with the reason when it fails.
        """
        parent = self._parent
        self.started += 1
        registry = ToolRegistry([t for t in parent.registry if t.name in tool_names])

        def forward(event: Event) -> None:
            if isinstance(event, SHOWN_EVENTS):
                parent.emit(event)

        child = self._spawn(parent.provider, registry, parent.settings, parent.workdir,
                            parent.approver, forward,
                            session_id=f"{parent.session_id}-sub{self.started}",
                            knowledge=parent.knowledge, memory=parent.tool_ctx.memory)
        child.subagent = True
        child.checkpoints = None  # its changes fall in this turn's checkpoints
        child.tool_ctx.browser = parent.tool_ctx.shared_browser()  # one browser per session
        child.gate.share_rules(parent.gate)  # one session, one set of rules
        result = await child.run(prompt)
        parent.usage = parent.usage + result.usage
        self.spent = self.spent + result.usage
        if not result.ok:
            raise RuntimeError(result.error or "the sub-agent failed")
        return result.text

    def offer_personas(self) -> None:
        """Tell the parent's task tool, if it has one, the personas a task may take on (the
        parent's knowledge's): call it when the knowledge is read (anew)."""
        parent = self._parent
        tool = parent.registry.get(ToolName.TASK)
        if isinstance(tool, PersonaOffering):
            tool.offer_personas([TaskPersona(p.name, p.description, reads_only(p, parent.registry))
                                 for p in parent.knowledge.personas])

    async def run_task(self, task: SubTask) -> str:
        """Run ``task`` in a fresh agent: its persona's prompt, tools and model, its calls
        through the parent's approver, rules and hooks, shown under the task's call.

        Returns its final answer; raises ``RuntimeError`` with the reason when it fails.
        """
        parent = self._parent
        persona = None
        if task.persona:
            persona = parent.knowledge.personas.get(task.persona)
            if persona is None:
                raise RuntimeError(parent.knowledge.personas.unknown(task.persona))
        self.started += 1
        mode = task_mode(parent.settings.approval_mode, persona, task.read_only)
        registry = ToolRegistry([
            t for t in parent.registry if t.name not in NO_SUBTASKS
            and (not task.read_only or t.read_only or t.name == COMMAND_RULE_TOOL)])
        provider = parent.provider
        settings = parent.settings.model_copy(update={"approval_mode": mode})
        if persona is not None and persona.model and persona.may_grant \
                and persona.model != provider.model:
            provider = provider.with_model(persona.model, **model_api(settings, persona.model))
            settings = settings.model_copy(update={"model": persona.model})

        def forward(event: Event) -> None:
            if isinstance(event, LANE_EVENTS):
                parent.emit(dataclasses.replace(event, id=lane_call_id(task.call_id, event.id),
                                                parent_id=task.call_id))
            elif isinstance(event, StreamRestart):
                parent.emit(event)

        child = self._spawn(provider, registry, settings, parent.workdir,
                            LaneApprover(parent.approver, task.call_id), forward,
                            session_id=f"{parent.session_id}-sub{self.started}",
                            knowledge=dataclasses.replace(parent.knowledge, persona=persona),
                            memory=parent.tool_ctx.memory)
        child.subagent = True
        child.tool_ctx.run_task = None  # the depth is 1
        child.checkpoints = None  # its changes fall in this turn's checkpoints
        child.tool_ctx.browser = parent.tool_ctx.shared_browser()  # one browser per session
        child.gate.share_rules(parent.gate)  # one session, one set of rules
        result = await child.run(TASK_PREAMBLE.format(title=task.description) + task.prompt,
                                 allowed_rules=parent.gate.turn_rules)
        parent.usage = parent.usage + result.usage
        self.spent = self.spent + result.usage
        if not result.ok:
            raise RuntimeError(result.error or "the sub-agent failed")
        return result.text


def task_mode(parent_mode: str, persona: Persona | None, read_only: bool) -> str:
    """A task's approval mode: plan when it may only read, else the parent's, or the
    persona's where that is stricter (the model picks the persona, so a persona never makes
    a task more permissive than the session)."""
    if read_only:
        return READ_ONLY_MODE
    wanted = persona.approval_mode if persona is not None else None
    if wanted in MODE_ORDER and (parent_mode not in MODE_ORDER
                                 or MODE_ORDER.index(wanted) < MODE_ORDER.index(parent_mode)):
        return str(wanted)
    return parent_mode


def reads_only(persona: Persona, registry: ToolRegistry) -> bool:
    """Whether a task as ``persona`` only reads: its mode is plan, or every tool of
    ``registry`` it is offered only reads."""
    if persona.approval_mode == READ_ONLY_MODE:
        return True
    return all(t.read_only for t in registry
               if persona.offers(t.name) and t.name not in NO_SUBTASKS)


def model_api(settings: Settings, model: str) -> dict[str, str | None]:
    """Where a persona's model's requests go: the session's server and key when both
    models name the same litellm provider (two models of one server), else the provider's
    own endpoint and usual key, so a local model's address or key never goes elsewhere."""
    own = settings.model or ""
    same = "/" in model and own.split("/", 1)[0] == model.split("/", 1)[0]
    return {"api_base": settings.api_base if same else None,
            "api_key": settings.api_key if same else None,
            "api_key_env": settings.api_key_env if same else None}
