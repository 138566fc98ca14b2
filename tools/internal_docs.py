"""The get_internal_docs tool (gemini-cli): agent-tui's own documentation, bundled with it.

The docs are Markdown files in ``agent_tui/tools/docs``, read with ``importlib.resources`` so
they are found in a wheel as well as in a checkout.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable

from pydantic import Field

from .base import Invocation, OutputCallback, Tool, ToolContext, ToolKind, ToolParams, ToolResult
from .names import ToolName

DOCS_PACKAGE = "agent_tui.tools"
"""The package that holds the ``docs`` folder."""


def docs_folder() -> Traversable:
    """The bundled docs folder."""
    return resources.files(DOCS_PACKAGE) / "docs"


def doc_names() -> list[str]:
    """The names of the bundled docs (file names without ``.md``), sorted."""
    return sorted(entry.name.removesuffix(".md") for entry in docs_folder().iterdir()
                  if entry.is_file() and entry.name.endswith(".md"))


def read_doc(name: str) -> str | None:
    """The text of the doc ``name`` (``tools``, ``tools.md`` or ``docs/tools.md``), or None."""
    stem = name.strip().removeprefix("docs/").removesuffix(".md")
    if stem not in doc_names():
        return None
    return (docs_folder() / f"{stem}.md").read_text(encoding="utf-8")


def first_line(text: str) -> str:
    """A doc's first non-blank line without its heading marks."""
    for line in text.splitlines():
        if line.strip():
            return line.strip().lstrip("#").strip()
    return ""


class GetInternalDocsParams(ToolParams):
    """Arguments of get_internal_docs."""

    path: str | None = Field(
        default=None,
        description="The doc to read, e.g. `configuration` or `tools.md`; leave it out to "
                    "list the docs.")


class GetInternalDocsTool(Tool):
    """Lists or reads agent-tui's own documentation."""

    name = ToolName.GET_INTERNAL_DOCS
    kind = ToolKind.READ
    description = (
        "Read agent-tui's own documentation (how this agent is configured, its command line, "
        "approvals, tools, keys). Without path it lists the docs; with path it returns one. "
        "Use it when the user asks how agent-tui itself works."
    )
    Params = GetInternalDocsParams

    def create_invocation(self, params: GetInternalDocsParams,
                          ctx: ToolContext) -> GetInternalDocsInvocation:
        """Make the invocation."""
        return GetInternalDocsInvocation(self, params, ctx)


class GetInternalDocsInvocation(Invocation[GetInternalDocsParams]):
    """One get_internal_docs call."""

    def describe(self) -> str:
        """E.g. ``get_internal_docs: tools``."""
        return f"get_internal_docs: {self.params.path or '(list)'}"

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """List the docs, or return the one asked for."""
        names = doc_names()
        path = self.params.path
        if not path:
            lines = ["agent-tui's documentation (read one with get_internal_docs path=NAME):"]
            for name in names:
                text = (docs_folder() / f"{name}.md").read_text(encoding="utf-8")
                lines.append(f"- {name}: {first_line(text)}")
            return ToolResult(llm_content="\n".join(lines), display=f"{len(names)} docs")
        doc = read_doc(path)
        if doc is None:
            return ToolResult.failure(
                f"there is no doc named {path!r}; the docs are: {', '.join(names)}")
        return ToolResult(llm_content=doc, display=f"{path} ({len(doc):,} characters)")
