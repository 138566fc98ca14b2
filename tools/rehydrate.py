"""rehydrate (g3): bring back a tool result that context thinning moved out of the context.

When the context fills up, ``core.context.ContextManager`` replaces large old tool results
by a ``[DEHYDRATED CONTEXT: fragment <id>, …]`` stub and keeps the original in a fragment
file (``core.context.fragments``): ``<session dir>/fragments/<id>.json``. The session dir
is the parent of ``ToolContext.output_dir`` (``<session dir>/outputs``), so the tool finds
the fragments of its own session without being told where they are.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import Field

from ..core.context.fragments import FragmentStore
from .base import Invocation, OutputCallback, Tool, ToolContext, ToolKind, ToolParams, ToolResult
from .names import ToolName

FRAGMENTS_DIR_NAME = "fragments"
"""The folder, inside a session's folder, that holds its fragment files."""


def fragments_dir(ctx: ToolContext) -> Path:
    """``<session dir>/fragments`` of the session ``ctx`` belongs to."""
    return ctx.output_dir.parent / FRAGMENTS_DIR_NAME


class RehydrateParams(ToolParams):
    """Arguments of rehydrate."""

    fragment_id: str = Field(description="The id named in a [DEHYDRATED CONTEXT: fragment "
                             "<id>, …] stub or in the marker of a result cut to fit.")
    start_line: int | None = Field(
        default=None, ge=1,
        description="First line to return (1-indexed), to read a large fragment a "
                    "part at a time.")
    end_line: int | None = Field(
        default=None, ge=1, description="Last line to return (inclusive).")


class RehydrateInvocation(Invocation[RehydrateParams]):
    """Read one fragment back."""

    def describe(self) -> str:
        return f"rehydrate {self.params.fragment_id}"

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        store = FragmentStore(fragments_dir(self.ctx))
        wanted = self.params.fragment_id.strip()
        fragment = await asyncio.to_thread(store.load, wanted)
        if fragment is not None:
            if self.params.start_line is None and self.params.end_line is None:
                return ToolResult(fragment.content, display=(
                    f"{fragment.tokens} tokens of {fragment.tool_name} output"))
            return self._lines(fragment.content, fragment.tool_name)
        known = await asyncio.to_thread(store.ids)
        listing = ", ".join(known[-50:]) if known else "none: nothing has been dehydrated yet"
        return ToolResult.failure(
            f"no fragment {wanted!r} in this session. Available fragment ids: {listing}. "
            "Copy the id exactly from a DEHYDRATED CONTEXT stub.")


    def _lines(self, content: str, tool_name: str) -> ToolResult:
        """Lines start_line..end_line of a fragment, numbered, with where the rest is."""
        lines = content.splitlines()
        first = self.params.start_line or 1
        last = min(self.params.end_line or len(lines), len(lines))
        if first > len(lines) or last < first:
            return ToolResult.failure(
                f"the fragment has {len(lines):,} lines; ask for a range within 1-{len(lines)} "
                "with start_line <= end_line")
        body = "\n".join(f"{n:>6}: {lines[n - 1]}" for n in range(first, last + 1))
        more = (f"\n[lines {last + 1:,}-{len(lines):,} follow; ask for them with "
                f"start_line={last + 1}]" if last < len(lines) else "")
        return ToolResult(f"[lines {first:,}-{last:,} of {len(lines):,}]\n{body}{more}",
                          display=f"lines {first}-{last} of {tool_name} output")


class RehydrateTool(Tool):
    """Brings a dehydrated tool result back into the context."""

    name = ToolName.REHYDRATE
    kind = ToolKind.READ
    description = ("Bring back a tool result that was moved out of the context to save room. "
                   "Such results show as [DEHYDRATED CONTEXT: fragment <id>, …]; call this with "
                   "that id when you need the full output again. A result cut to fit the "
                   "window names its fragment too: read it a range of lines at a time with "
                   "start_line and end_line.")
    Params = RehydrateParams

    def create_invocation(self, params: RehydrateParams, ctx: ToolContext) -> RehydrateInvocation:
        return RehydrateInvocation(self, params, ctx)
