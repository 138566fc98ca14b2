"""activate_skill (gemini-cli, g3): load a skill's instructions when a task calls for it.

The session's skills are ``ctx.skills`` (``core.skills.SkillCatalog``); only their names and
descriptions are in the system prompt until one is activated.
"""

from __future__ import annotations

import asyncio
from xml.sax.saxutils import quoteattr

from pydantic import Field

from ..core import paths
from ..core.skills import Skill, SkillCatalog, extract_scripts
from .base import (
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

MAX_FILES_LISTED = 100
"""Files of a skill the result lists at most."""


class ActivateSkillParams(ToolParams):
    """Arguments of activate_skill."""

    name: str = Field(description="The skill's name, exactly as <available_skills> in the "
                      "system prompt lists it.")


def unknown_skill(name: str, catalog: SkillCatalog | None) -> str:
    """Why ``name`` cannot be activated, and what can."""
    if catalog is None:
        return "no skills are loaded in this run; do the task without one"
    offered = ", ".join(catalog.names)
    if not offered:
        return f"there is no skill called {name!r}: this session has no skills"
    return f"there is no skill called {name!r}; call activate_skill with one of: {offered}"


class ActivateSkillInvocation(Invocation[ActivateSkillParams]):
    """Load one skill: its instructions, its files, its scripts ready to run."""

    def describe(self) -> str:
        return f"activate_skill {self.params.name}"

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        catalog = self.ctx.skills
        skill = catalog.get(self.params.name.strip()) if catalog is not None else None
        if skill is None:
            return ToolResult.failure(unknown_skill(self.params.name, catalog))
        try:
            files, scripts = await asyncio.to_thread(self._prepare, skill)
        except OSError as exc:
            return ToolResult.failure(
                f"the skill {skill.name}'s scripts could not be copied to the project's "
                f".agent-tui/bin ({exc.strerror or exc}); run them from {skill.folder}/scripts "
                "instead, or make that folder writable and activate the skill again")
        if self.ctx.on_skill_activated is not None:
            self.ctx.on_skill_activated(skill)
        return ToolResult(_text(skill, files, scripts),
                          display=f"activated {skill.name} ({skill.source})")

    def _prepare(self, skill: Skill) -> tuple[list[str], list[str]]:
        return (skill.files(MAX_FILES_LISTED),
                [str(p) for p in extract_scripts(skill, self.ctx.workdir)])


def _text(skill: Skill, files: list[str], scripts: list[str]) -> str:
    """What the model reads: the instructions, then the files, scripts and grants."""
    parts = [f"<skill name={quoteattr(skill.name)} source={quoteattr(skill.source)} "
             f"folder={quoteattr(str(skill.folder))}>\n{skill.body.strip()}\n</skill>"]
    more = " (the first 100)" if len(files) >= MAX_FILES_LISTED else ""
    listing = "\n".join(f"- {f}" for f in files) or "(none besides SKILL.md)"
    parts.append(f"Files of the skill{more}, relative to {skill.folder} (read them with "
                 f"read_file when the instructions refer to them):\n{listing}")
    if scripts:
        parts.append("Its scripts, extracted and executable; run them with shell:\n"
                     + "\n".join(f"- {s}" for s in scripts))
    if skill.allowed_tools:
        rules = ", ".join(skill.allowed_tools)
        if skill.may_grant:
            parts.append(f"Granted for the rest of the session, without asking: {rules}.")
        else:
            parts.append(f"Its allowed tools ({rules}) were not granted: the skill is from "
                         "an untrusted project, so those calls ask as usual. (The person can "
                         "trust the project by adding it to trusted_projects in "
                         f"{paths.user_config_file()}.)")
    return "\n\n".join(parts) + "\n"


class ActivateSkillTool(Tool):
    """Loads a skill's instructions (and readies its scripts)."""

    name = ToolName.ACTIVATE_SKILL
    kind = ToolKind.READ
    description = ("Activate one of the skills listed in <available_skills>: returns its "
                   "instructions, the list of its files and the paths of its scripts. Call it "
                   "before doing a task a skill describes, then follow the instructions.")
    Params = ActivateSkillParams

    def validate(self, params: ActivateSkillParams, ctx: ToolContext) -> None:
        """Reject a name that is not one of the session's skills."""
        catalog = ctx.skills
        if catalog is None or catalog.get(params.name.strip()) is None:
            raise ToolArgumentError(unknown_skill(params.name, catalog))

    def create_invocation(self, params: ActivateSkillParams,
                          ctx: ToolContext) -> ActivateSkillInvocation:
        return ActivateSkillInvocation(self, params, ctx)
