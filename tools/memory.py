"""The memory tools: g3's ``remember`` and egirl's ``memory_set``, ``memory_get`` and
``memory_search``, over the project's memory (``ctx.memory``, ``core.memory.ProjectMemory``).

Writes (``remember``, ``memory_set``) change what later sessions read, so they ask in
``default`` mode; reads never ask.
"""

from __future__ import annotations

import asyncio
from abc import abstractmethod
from typing import Literal

from pydantic import Field

from ..core.memory import MemoryStoreError, ProjectMemory
from ..core.memory.notes import SIZE_WARNING
from .base import (
    Invocation,
    OutputCallback,
    P,
    Tool,
    ToolContext,
    ToolKind,
    ToolParams,
    ToolResult,
)
from .names import ToolName

PREVIEW_CHARS = 300
NO_MEMORY = "this run keeps no memory"


class RememberParams(ToolParams):
    """Arguments of remember."""

    notes: str = Field(description="Markdown notes to add to the project's memory, under "
                       "### headings, e.g. '### Entry points\\n- `src/cli.py` - `main()`'. "
                       "Record discovered code locations, patterns, commands and conventions.")


class MemorySetParams(ToolParams):
    """Arguments of memory_set."""

    key: str = Field(description="Unique identifier, descriptive and hierarchical, e.g. "
                     "'preference_editor' or 'deploy_staging_steps'.")
    value: str = Field(description="The content to remember.")
    scope: Literal["project", "user"] = Field(
        "project", description="'project' (this project only) or 'user' (every project).")


class MemoryGetParams(ToolParams):
    """Arguments of memory_get."""

    key: str = Field(description="The exact key of the memory.")


class MemorySearchParams(ToolParams):
    """Arguments of memory_search."""

    query: str = Field(description="Keywords, a question, or natural language.")
    limit: int = Field(10, ge=1, le=50, description="Maximum results (default 10).")


class _MemoryInvocation(Invocation[P]):
    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        memory: ProjectMemory | None = self.ctx.memory
        if memory is None:
            return ToolResult.failure(NO_MEMORY)
        return await self.run(memory)

    @abstractmethod
    async def run(self, memory: ProjectMemory) -> ToolResult:
        """The call, on the project's memory."""


class RememberInvocation(_MemoryInvocation[RememberParams]):
    """Merge notes into the project's memory file."""

    def describe(self) -> str:
        first = self.params.notes.strip().splitlines()[0] if self.params.notes.strip() else ""
        return f"remember {first[:60]}"

    async def run(self, memory: ProjectMemory) -> ToolResult:
        try:
            done = await asyncio.to_thread(memory.remember, self.params.notes)
        except (ValueError, OSError) as exc:
            return ToolResult.failure(f"the notes were not saved: {exc}")
        if not done.added:
            return ToolResult(f"Nothing new: {done.path} already holds these notes.")
        text = f"Saved {done.added} line(s) to {done.path}; later sessions load them."
        if done.size > SIZE_WARNING:
            text += (f" The file is now {done.size:,} characters and goes into every prompt: "
                     "consolidate it (read it, then rewrite it shorter with write_file).")
        return ToolResult(text)


class MemorySetInvocation(_MemoryInvocation[MemorySetParams]):
    """Store one memory."""

    def describe(self) -> str:
        return f"memory_set {self.params.key}" + (
            " (user)" if self.params.scope == "user" else "")

    async def run(self, memory: ProjectMemory) -> ToolResult:
        try:
            await asyncio.to_thread(memory.set, self.params.key, self.params.value,
                                    self.params.scope)
        except (ValueError, MemoryStoreError) as exc:
            return ToolResult.failure(str(exc))
        where = "for every project" if self.params.scope == "user" else "for this project"
        return ToolResult(f"Remembered {self.params.key!r} {where}.")


class MemoryGetInvocation(_MemoryInvocation[MemoryGetParams]):
    """Read one memory by key."""

    def describe(self) -> str:
        return f"memory_get {self.params.key}"

    async def run(self, memory: ProjectMemory) -> ToolResult:
        try:
            found = await asyncio.to_thread(memory.get, self.params.key)
        except MemoryStoreError as exc:
            return ToolResult.failure(str(exc))
        if found is None:
            return ToolResult.failure(f"no memory has the key {self.params.key!r}; "
                                      "memory_search finds memories by content")
        return ToolResult(f"{found.key} ({memory.label(found)}):\n{found.value}")


class MemorySearchInvocation(_MemoryInvocation[MemorySearchParams]):
    """Find memories by keywords and meaning."""

    def describe(self) -> str:
        return f"memory_search {self.params.query[:60]}"

    async def run(self, memory: ProjectMemory) -> ToolResult:
        try:
            results = await asyncio.to_thread(memory.search, self.params.query,
                                              self.params.limit)
        except (ValueError, MemoryStoreError) as exc:
            return ToolResult.failure(str(exc))
        note = f"\n({results.note})" if results.note else ""
        if not results.found:
            return ToolResult(f"No memories found.{note}")
        lines = [f"{len(results.found)} memories ({results.mode} search):"]
        for hit in results.found:
            value = hit.memory.value
            preview = value if len(value) <= PREVIEW_CHARS else value[:PREVIEW_CHARS] + "…"
            lines.append(f"- {hit.memory.key} (relevance {hit.score:.2f}, "
                         f"{memory.label(hit.memory)}): {preview}")
        return ToolResult("\n".join(lines) + note)


class RememberTool(Tool):
    """g3's remember."""

    name = ToolName.REMEMBER
    kind = ToolKind.MEMORY
    ask_reason = "writes the project's memory file, which later sessions load"
    description = ("Save discoveries to the project's memory (.agent-tui/memory.md): Markdown "
                   "notes merged with what is there and loaded at the start of every later "
                   "session. Use it for code locations, patterns, entry points and commands "
                   "worth knowing next time.")
    Params = RememberParams

    def create_invocation(self, params: RememberParams, ctx: ToolContext) -> RememberInvocation:
        return RememberInvocation(self, params, ctx)


class MemorySetTool(Tool):
    """egirl's memory_set."""

    name = ToolName.MEMORY_SET
    kind = ToolKind.MEMORY
    ask_reason = "stores a memory later sessions read"
    description = ("Store a new memory or replace the one with the same key. Project scope by "
                   "default; scope 'user' for what holds across projects (the person's "
                   "preferences).")
    Params = MemorySetParams

    def create_invocation(self, params: MemorySetParams, ctx: ToolContext) -> MemorySetInvocation:
        return MemorySetInvocation(self, params, ctx)


class MemoryGetTool(Tool):
    """egirl's memory_get."""

    name = ToolName.MEMORY_GET
    kind = ToolKind.READ
    description = "Retrieve a memory by its exact key (this project's first, then the user's)."
    Params = MemoryGetParams

    def create_invocation(self, params: MemoryGetParams, ctx: ToolContext) -> MemoryGetInvocation:
        return MemoryGetInvocation(self, params, ctx)


class MemorySearchTool(Tool):
    """egirl's memory_search."""

    name = ToolName.MEMORY_SEARCH
    kind = ToolKind.READ
    description = ("Search stored memories (this project's and the user's) by keywords and "
                   "meaning: hybrid search, 30% keyword and 70% semantic similarity. Returns "
                   "key, relevance and a preview of each.")
    Params = MemorySearchParams

    def create_invocation(self, params: MemorySearchParams,
                          ctx: ToolContext) -> MemorySearchInvocation:
        return MemorySearchInvocation(self, params, ctx)


def memory_tools() -> list[Tool]:
    """The four memory tools."""
    return [RememberTool(), MemorySetTool(), MemoryGetTool(), MemorySearchTool()]
