"""todo_read and todo_write (g3): the agent's session-scoped todo list in markdown checkboxes.

The list itself is ``core.todos.TodoStore``, which the engine hands tools in ``ToolContext``.
"""

from __future__ import annotations

import asyncio

from pydantic import Field

from ..core.todos import TodoStore, summarize
from .base import Invocation, OutputCallback, P, Tool, ToolContext, ToolKind, ToolParams, ToolResult
from .names import ToolName


class TodoReadParams(ToolParams):
    """todo_read takes no arguments."""


class TodoWriteParams(ToolParams):
    """Arguments of todo_write."""

    content: str = Field(description="The whole list in markdown checkboxes: `- [ ] task`, "
                         "`- [x] done`; indent to nest. Replaces the previous list.")


class _TodoInvocation(Invocation[P]):
    def _store(self) -> TodoStore | None:
        return self.ctx.todos


class TodoReadInvocation(_TodoInvocation[TodoReadParams]):
    """Read the list."""

    def describe(self) -> str:
        return "todo_read"

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        store = self._store()
        if store is None:
            return ToolResult.failure("this run keeps no todo list")
        content = await asyncio.to_thread(store.read)
        if not content.strip():
            return ToolResult("The todo list is empty. Use todo_write to start one.")
        return ToolResult(content)


class TodoWriteInvocation(_TodoInvocation[TodoWriteParams]):
    """Replace the list."""

    def describe(self) -> str:
        items, done = summarize(self.params.content)
        return f"todo_write {done}/{items} done"

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        store = self._store()
        if store is None:
            return ToolResult.failure("this run keeps no todo list")
        content = self.params.content
        items, done = summarize(content)
        if content.strip() and items == 0:
            return ToolResult.failure(
                "no checkbox items found; write each task as `- [ ] task` (or `- [x] task` "
                "when done)")
        await store.write(content)
        return ToolResult(f"Todo list saved: {items} items, {done} done.")


class TodoReadTool(Tool):
    """Reads the session's todo list."""

    name = ToolName.TODO_READ
    kind = ToolKind.THINK
    description = ("Read the current todo list of this session. Call it at the start of a "
                   "multi-step task to see existing plans.")
    Params = TodoReadParams

    def create_invocation(self, params: TodoReadParams, ctx: ToolContext) -> TodoReadInvocation:
        return TodoReadInvocation(self, params, ctx)


class TodoWriteTool(Tool):
    """Replaces the session's todo list."""

    name = ToolName.TODO_WRITE
    kind = ToolKind.THINK
    description = ("Create or update the todo list of this session, in markdown checkboxes "
                   "(`- [ ]` open, `- [x]` done, indent to nest). It replaces the whole list: "
                   "call todo_read first to keep existing items. The user sees the list live.")
    Params = TodoWriteParams

    def create_invocation(self, params: TodoWriteParams,
                          ctx: ToolContext) -> TodoWriteInvocation:
        return TodoWriteInvocation(self, params, ctx)
