"""The research tool: a sub-agent browses the web and returns a structured brief (g3)."""

from __future__ import annotations

import re

from pydantic import Field

from .base import (
    Confirmation,
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
from .web import NETWORK_OFF_MESSAGE, check_network

RESEARCH_TOOLS = [ToolName.WEB_SEARCH, ToolName.WEB_FETCH, ToolName.READ_FILE, ToolName.GREP,
                  ToolName.GLOB_FILES, ToolName.LS]
"""The only tools the research sub-agent may call."""
BRIEF_SECTIONS = ("Question", "Findings", "Options", "Recommendation")
"""The headings a research brief must have, in order."""

RESEARCH_PROMPT = """\
You are a research assistant for a coding agent. Research this question on the web and in \
the project, then answer with a brief.

Question: {query}

How to work:
- Search with web_search, then read the most relevant pages with web_fetch. Prefer primary \
sources: official documentation, changelogs, the project's own repository and issues.
- Look at the project's files (read_file, grep, glob_files, ls) when the question concerns it.
- You cannot change anything; do not try.
- Stop when you can answer with confidence or when more searching stops helping.

Answer with only the brief, in Markdown, with exactly these headings:

## Question
The question, restated precisely (with versions and constraints you found relevant).

## Findings
Bullet points of facts, each followed by its sources as links, e.g. \
"- httpx does not retry by default ([docs](https://…))". Say where sources disagree.

## Options
Each viable option with its trade-offs (pros, cons, cost, risk).

## Recommendation
The option you recommend and why, and what to verify first.
"""
"""The sub-agent's task; ``{query}`` is the question."""


class ResearchParams(ToolParams):
    """Arguments of research."""

    query: str = Field(description="The research question or topic, e.g. `How should I "
                                   "retry HTTP calls with httpx? Compare libraries.`")


class ResearchTool(Tool):
    """Runs a web-browsing sub-agent and returns its research brief."""

    name = ToolName.RESEARCH
    kind = ToolKind.FETCH
    description = (
        "Research a question on the web with a sub-agent that searches, reads pages and "
        "the project's files, and returns a brief with Question, Findings (with sources), "
        "Options (with trade-offs) and Recommendation. Use it for APIs, libraries, bugs "
        "and documentation; it takes a while, so ask precise questions."
    )
    Params = ResearchParams

    def validate(self, params: ResearchParams, ctx: ToolContext) -> None:
        """Refuse when the network is off or the question is blank."""
        check_network(ctx)
        if not params.query.strip():
            raise ToolArgumentError("query is empty; pass the question to research")

    def create_invocation(self, params: ResearchParams, ctx: ToolContext) -> ResearchInvocation:
        """Make the invocation."""
        return ResearchInvocation(self, params, ctx)


class ResearchInvocation(Invocation[ResearchParams]):
    """One research call."""

    def describe(self) -> str:
        """E.g. ``research: best Python HTTP client``."""
        query = " ".join(self.params.query.split())
        return f"research: {query if len(query) <= 200 else query[:200] + '…'}"

    def confirmation(self) -> Confirmation:
        """The question the sub-agent will research on the web."""
        return Confirmation(kind="info", title="Research on the web with a sub-agent",
                            details=self.params.query.strip())

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Run the sub-agent and return its brief, noting missing sections."""
        if not self.ctx.network_enabled:
            return ToolResult.failure(NETWORK_OFF_MESSAGE, error_type=ErrorType.UNAVAILABLE)
        if self.ctx.run_subagent is None:
            return ToolResult.failure(
                "research needs a sub-agent, which this run cannot start; use web_search and "
                "web_fetch yourself instead")
        prompt = RESEARCH_PROMPT.format(query=self.params.query.strip())
        try:
            brief = await self.ctx.run_subagent(prompt, list(RESEARCH_TOOLS))
        except RuntimeError as exc:
            return ToolResult.failure(
                f"the research sub-agent failed: {exc}. Try again with a narrower question, "
                "or use web_search and web_fetch yourself")
        brief = brief.strip()
        if not brief:
            return ToolResult.failure(
                "the research sub-agent returned an empty brief; try again with a more "
                "precise question, or use web_search and web_fetch yourself")
        missing = missing_sections(brief)
        if missing:
            brief += (f"\n\n[note: this brief lacks the section(s) {', '.join(missing)}; "
                      "check its claims against the sources it cites]")
        return ToolResult(llm_content=brief, display=f"research brief ({len(brief):,} characters)")


def missing_sections(brief: str) -> list[str]:
    """The headings of ``BRIEF_SECTIONS`` that ``brief`` lacks (as Markdown headings)."""
    return [name for name in BRIEF_SECTIONS
            if not re.search(rf"^\s*#{{1,6}}\s*{name}\b", brief, flags=re.M | re.I)]
