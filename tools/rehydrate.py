"""rehydrate (g3): bring back a tool result that context thinning moved out of the context.

When the context fills up, ``core.context.ContextManager`` replaces large old tool results
by a ``[DEHYDRATED CONTEXT: fragment <id>, …]`` stub and keeps the original in a fragment
file: ``<session dir>/fragments/<id>.json``. The session dir is the parent of
``ToolContext.output_dir`` (``<session dir>/outputs``), so the tool finds the fragments of
its own session without being told where they are.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from pydantic import Field

from .base import Invocation, OutputCallback, Tool, ToolContext, ToolKind, ToolParams, ToolResult
from .fileio import atomic_write_text

FRAGMENTS_DIR_NAME = "fragments"
"""The folder, inside a session's folder, that holds its fragment files."""

_FRAGMENT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass(frozen=True, slots=True)
class Fragment:
    """A tool result taken out of the context.

    Attributes:
        id: The id the stub names; the file is ``<id>.json``.
        content: The tool result exactly as the model saw it.
        tool_call_id: The call it answered (several, comma-separated, for a text-protocol
            results message).
        tool_name: The tool that produced it (several, comma-separated, likewise).
        tokens: What it cost in the context.
    """

    id: str
    content: str
    tool_call_id: str
    tool_name: str
    tokens: int


class FragmentStore:
    """The fragment files of one session, one JSON file per fragment."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path(self, fragment_id: str) -> Path:
        """The file of ``fragment_id``."""
        return self.directory / f"{fragment_id}.json"

    def save(self, fragment: Fragment) -> Path:
        """Write a fragment atomically (blocking); the folder is made on first use."""
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.path(fragment.id)
        atomic_write_text(path, json.dumps(asdict(fragment), ensure_ascii=False))
        return path

    def load(self, fragment_id: str) -> Fragment | None:
        """The fragment called ``fragment_id``, or None when there is no such (valid) file."""
        if not _FRAGMENT_ID.match(fragment_id):
            return None
        try:
            data = json.loads(self.path(fragment_id).read_text(encoding="utf-8"))
            return Fragment(**data)
        except (OSError, ValueError, TypeError):
            return None

    def ids(self) -> list[str]:
        """Ids of the stored fragments, oldest file first."""
        try:
            files = [p for p in self.directory.iterdir() if p.suffix == ".json"]
        except OSError:
            return []
        return [p.stem for p in sorted(files, key=lambda p: (p.stat().st_mtime_ns, p.name))]


def fragments_dir(ctx: ToolContext) -> Path:
    """``<session dir>/fragments`` of the session ``ctx`` belongs to."""
    return ctx.output_dir.parent / FRAGMENTS_DIR_NAME


class RehydrateParams(ToolParams):
    """Arguments of rehydrate."""

    fragment_id: str = Field(description="The id named in a [DEHYDRATED CONTEXT: fragment "
                             "<id>, …] stub.")


class RehydrateInvocation(Invocation[RehydrateParams]):
    """Read one fragment back."""

    def describe(self) -> str:
        return f"rehydrate {self.params.fragment_id}"

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        store = FragmentStore(fragments_dir(self.ctx))
        wanted = self.params.fragment_id.strip()
        fragment = await asyncio.to_thread(store.load, wanted)
        if fragment is not None:
            return ToolResult(fragment.content,
                              display=f"{fragment.tokens} tokens of {fragment.tool_name} output")
        known = await asyncio.to_thread(store.ids)
        listing = ", ".join(known[-50:]) if known else "none: nothing has been dehydrated yet"
        return ToolResult.failure(
            f"no fragment {wanted!r} in this session. Available fragment ids: {listing}. "
            "Copy the id exactly from a DEHYDRATED CONTEXT stub.")


class RehydrateTool(Tool):
    """Brings a dehydrated tool result back into the context."""

    name = "rehydrate"
    kind = ToolKind.READ
    description = ("Bring back a tool result that was moved out of the context to save room. "
                   "Such results show as [DEHYDRATED CONTEXT: fragment <id>, …]; call this with "
                   "that id when you need the full output again.")
    Params = RehydrateParams

    def create_invocation(self, params: RehydrateParams, ctx: ToolContext) -> RehydrateInvocation:
        return RehydrateInvocation(self, params, ctx)
