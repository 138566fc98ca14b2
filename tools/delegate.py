"""The delegate tool: the model hands a coding task to another coding agent (``/code``).

Offered only when a delegate is configured (``[delegates.NAME]`` in config.toml). The
delegate works in a folder of its own under the delegates' workspace, or goes on in an
earlier one (``project``, as ``/code @project``); its file writes, commands and permission
requests pass agent-tui's approvals, rules and checkpoints, and its plan and calls show as
lines under this call. Handing work away asks first in default mode; plan mode refuses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import Field

from .base import (
    ErrorType,
    Invocation,
    OutputCallback,
    Tool,
    ToolArgumentError,
    ToolContext,
    ToolKind,
    ToolParams,
    ToolResult,
)
from .names import ToolName

DELEGATE_DESCRIPTION = (
    "Hand a coding task to another coding agent (a delegate) that works with its own tools "
    "in a project folder of its own, then answers; its answer comes back as this call's "
    "result. Use it when the person asks to have something built by the delegate, or for a "
    "self-contained piece of work in a separate folder. Write a complete prompt: the "
    "delegate sees nothing of this conversation. `project` continues an earlier delegated "
    "folder (its name as the earlier result gave it) instead of starting a new one.")
"""What the model reads of the tool, before the delegates' names."""


class DelegateParams(ToolParams):
    """Arguments of delegate."""

    prompt: str = Field(description="The whole task for the delegate: what to build or "
                                    "change and what to answer with.")
    project: str | None = Field(default=None, description="The folder of an earlier "
                                                          "delegated task to go on in "
                                                          "(none: a new folder).")


class DelegateTool(Tool):
    """Hands a task to the session's first configured delegate and returns its answer."""

    name = ToolName.DELEGATE
    kind = ToolKind.OTHER  # every change it brings is judged again as the delegate makes it
    description = DELEGATE_DESCRIPTION
    Params = DelegateParams
    ask_reason = "hands work to another coding agent"

    def __init__(self, delegates: Sequence[str] = ()) -> None:
        self.delegates = list(delegates)
        """The names of the configured delegates; the first one does the work."""

    def schema(self) -> dict[str, Any]:
        """The function description, naming the delegate that does the work."""
        schema = super().schema()
        if self.delegates:
            schema["function"]["description"] = (
                f"{DELEGATE_DESCRIPTION}\n\nThe delegate: {self.delegates[0]}.")
        return schema

    def validate(self, params: DelegateParams, ctx: ToolContext) -> None:
        """Refuse an empty prompt and a project that is not a folder name."""
        if not params.prompt.strip():
            raise ToolArgumentError("prompt is empty; write the whole task for the delegate")
        project = (params.project or "").strip().lstrip("@")
        if project and ("/" in project or project in (".", "..")):
            raise ToolArgumentError(f"project {params.project!r} is not a folder name; give "
                                    "the name of an earlier delegated folder, or leave it out")

    def create_invocation(self, params: DelegateParams, ctx: ToolContext) -> DelegateInvocation:
        """Make the invocation."""
        return DelegateInvocation(self, params, ctx)


class DelegateInvocation(Invocation[DelegateParams]):
    """One delegate call."""

    tool: DelegateTool

    @property
    def who(self) -> str:
        """The delegate that does the work (``a delegate`` before any is known)."""
        return self.tool.delegates[0] if self.tool.delegates else "a delegate"

    @property
    def project(self) -> str | None:
        """The earlier folder to go on in, without a leading ``@``; None: a new one."""
        return (self.params.project or "").strip().lstrip("@") or None

    def describe(self) -> str:
        """What the person approves (the whole prompt is in the arguments shown), e.g. ``delegate (opencode): a CLI that converts CSV to JSON``."""
        prompt = " ".join(self.params.prompt.split())
        where = f" in @{self.project}" if self.project else ""
        return (f"delegate ({self.who}{where}): "
                f"{prompt if len(prompt) <= 120 else prompt[:120] + '…'}")

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Run the delegate and return its answer."""
        if self.ctx.run_delegate is None:
            return ToolResult.failure(
                "no delegate can be reached from here (none is configured, or this is a "
                "sub-agent); do the work with your tools", error_type=ErrorType.UNAVAILABLE)
        try:
            answer = await self.ctx.run_delegate(self.params.prompt.strip(), self.project)
        except RuntimeError as exc:
            return ToolResult.failure(f"the delegate could not do the work: {exc}")
        first = answer.strip().splitlines()[0] if answer.strip() else ""
        return ToolResult(llm_content=answer, display=first or f"{self.who} answered")
