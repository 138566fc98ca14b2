"""Sub-agents: a bounded helper run on the agent's own model with only some of its tools.

Tools ask for one through ``ToolContext.run_subagent`` (``research`` for a brief, the edit
tool's last tier for a repair). The child shares its parent's session: one browser, one set
of approval rules, the parent's checkpoints and its usage; its tool calls show in the tool
log, its text does not.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..tools.base import ToolContext
from ..tools.registry import ToolRegistry
from .approval import Approver
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
from .providers.base import Provider

if TYPE_CHECKING:
    from .memory import ProjectMemory

SHOWN_EVENTS = (ToolCallStarted, ToolOutput, ApprovalDecided, ToolResultEvent, StreamRestart)
"""What of a sub-agent's run its parent passes on: its tool calls, not its text."""


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

    async def run(self, prompt: str) -> RunResult: ...


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
        if not result.ok:
            raise RuntimeError(result.error or "the sub-agent failed")
        return result.text
