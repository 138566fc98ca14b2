"""The task tool: the model hands a sub-task to a fresh agent (Claude Code's ``Task``).

The child starts with an empty conversation and the prompt it is given, optionally as one
of the session's personas (its prompt, tool limit and model). Its calls pass the same
approval gate, rules and hooks as the parent's and show under the task's call; its final
answer comes back as this call's one result. Read-only tasks of one response run at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import Field

from .base import (
    CURRENT_CALL_ID,
    ErrorType,
    Invocation,
    OutputCallback,
    SubTask,
    TaskPersona,
    Tool,
    ToolArgumentError,
    ToolContext,
    ToolKind,
    ToolParams,
    ToolResult,
)
from .names import ToolName

TASK_DESCRIPTION = (
    "Hand a self-contained sub-task to a sub-agent with a fresh context: it sees only your "
    "prompt (not this conversation), works with the tools, and its final answer comes back "
    "as this call's result. Use it for searches and investigations whose intermediate "
    "steps you do not need, or for independent pieces of work. Write a complete prompt: "
    "the goal, what is known, where to look, and what to answer with. Several read-only "
    "tasks in one response run in parallel. The sub-agent's calls are approved like yours; "
    "it cannot start tasks of its own."
)
"""What the model reads of the tool, before the list of personas."""


class TaskParams(ToolParams):
    """Arguments of task."""

    description: str = Field(description="A short title of the task, 3 to 7 words, e.g. "
                                         "`Find the retry logic`.")
    prompt: str = Field(description="The whole task for the sub-agent: it knows nothing of "
                                    "this conversation. Say what to do and what to answer "
                                    "with.")
    persona: str | None = Field(default=None, description="A persona for the sub-agent to "
                                                         "take on (listed in the tool's "
                                                         "description); none: a general one.")
    read_only: bool = Field(default=False, description="Let the sub-agent only read (plan "
                                                       "mode: read-only tools and commands); "
                                                       "read-only tasks run in parallel.")


class TaskTool(Tool):
    """Runs a sub-task in a fresh agent and returns its final answer."""

    name = ToolName.TASK
    kind = ToolKind.THINK  # the call itself changes nothing: each of the child's calls is judged
    description = TASK_DESCRIPTION
    Params = TaskParams
    repeatable = True  # the same task twice may be asked for on purpose (a second opinion)

    def __init__(self, personas: Sequence[TaskPersona] = ()) -> None:
        self.personas: dict[str, TaskPersona] = {p.name: p for p in personas}
        """The personas a task may take on (the session's), by name."""

    def offer_personas(self, personas: Sequence[TaskPersona]) -> None:
        """Offer ``personas`` (the session's, read anew) from now on."""
        self.personas = {p.name: p for p in personas}

    def schema(self) -> dict[str, Any]:
        """The function description, with the personas on offer listed in it."""
        schema = super().schema()
        if self.personas:
            listed = "\n".join(
                f"- {p.name}: {p.description}{' (read-only)' if p.read_only else ''}"
                for p in self.personas.values())
            schema["function"]["description"] = (
                f"{TASK_DESCRIPTION}\n\nPersonas (the persona argument):\n{listed}")
        return schema

    def validate(self, params: TaskParams, ctx: ToolContext) -> None:
        """Refuse an empty prompt and a persona the session does not have."""
        if not params.prompt.strip():
            raise ToolArgumentError("prompt is empty; write the whole task for the sub-agent")
        if params.persona and params.persona not in self.personas:
            names = ", ".join(self.personas) or "none"
            raise ToolArgumentError(f"there is no persona called {params.persona!r}; the "
                                    f"personas are: {names}. Leave persona out for a general "
                                    "sub-agent.")

    def create_invocation(self, params: TaskParams, ctx: ToolContext) -> TaskInvocation:
        """Make the invocation."""
        return TaskInvocation(self, params, ctx)


class TaskInvocation(Invocation[TaskParams]):
    """One task call."""

    tool: TaskTool

    @property
    def read_only(self) -> bool:
        """Whether the child may only read: asked for, its persona only reads, or the
        session is in plan mode."""
        persona = self.tool.personas.get(self.params.persona or "")
        settings = self.ctx.settings
        return (self.params.read_only or (persona is not None and persona.read_only)
                or (settings is not None and settings.approval_mode == "plan"))

    def describe(self) -> str:
        """E.g. ``task (reviewer): Review the retry change``."""
        title = " ".join(self.params.description.split()) or "sub-task"
        who = f" ({self.params.persona})" if self.params.persona else ""
        return f"task{who}: {title if len(title) <= 120 else title[:120] + '…'}"

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Run the sub-agent and return its final answer."""
        if self.ctx.run_task is None:
            return ToolResult.failure(
                "a sub-agent cannot start tasks of its own; do the work with your tools",
                error_type=ErrorType.UNAVAILABLE)
        params = self.params
        task = SubTask(CURRENT_CALL_ID.get() or "task", params.description.strip(),
                       params.prompt.strip(), params.persona or None, self.read_only)
        try:
            answer = await self.ctx.run_task(task)
        except RuntimeError as exc:
            return ToolResult.failure(
                f"the sub-agent failed: {exc}. Try again with a narrower task, or do it "
                "yourself")
        answer = answer.strip()
        if not answer:
            return ToolResult.failure(
                "the sub-agent ended without an answer; ask it again, saying what to "
                "answer with")
        return ToolResult(llm_content=answer,
                          display=f"{task.description}: answered ({len(answer):,} characters)")
