"""activate_skill (gemini-cli, g3): load a skill's instructions when a task calls for it.

The session's skills are ``ctx.skills`` (``core.skills.SkillCatalog``); only their names and
descriptions are in the system prompt until one is activated.
"""

from __future__ import annotations

import asyncio
from xml.sax.saxutils import quoteattr

from pydantic import Field

from ..core.skills import Skill, extract_scripts
from .base import Invocation, OutputCallback, Tool, ToolContext, ToolKind, ToolParams, ToolResult
from .names import ToolName

MAX_FILES_LISTED = 100


class ActivateSkillParams(ToolParams):
    """Arguments of activate_skill."""

    name: str = Field(description="The skill's name, as <available_skills> lists it.")


class ActivateSkillInvocation(Invocation[ActivateSkillParams]):
    """Load one skill: its instructions, its files, its scripts ready to run."""

    def describe(self) -> str:
        return f"activate_skill {self.params.name}"

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        catalog = self.ctx.skills
        if catalog is None:
            return ToolResult.failure("no skills are loaded in this run")
        skill = catalog.get(self.params.name.strip())
        if skill is None:
            offered = ", ".join(catalog.names) or "none"
            return ToolResult.failure(f"there is no skill called {self.params.name!r}; the "
                                      f"skills are: {offered}")
        try:
            files, scripts = await asyncio.to_thread(self._prepare, skill)
        except OSError as exc:
            return ToolResult.failure(f"the skill {skill.name}'s scripts could not be copied "
                                      f"to the project's .agent-tui/bin ({exc}); read them "
                                      f"from {skill.folder}/scripts instead")
        granted = ""
        if skill.allowed_tools:
            if skill.may_grant:
                granted = ("\nAllowed without asking for the rest of the session: "
                           f"{', '.join(skill.allowed_tools)}.")
            else:
                granted = ("\nIts allowed-tools were not granted (a skill of an untrusted "
                           "project); such calls ask as usual.")
        if self.ctx.on_skill_activated is not None:
            self.ctx.on_skill_activated(skill)
        listing = "\n".join(f"- {f}" for f in files) or "(none)"
        ran = "\n".join(f"- {s}" for s in scripts)
        text = (f"<skill name={quoteattr(skill.name)} source={quoteattr(skill.source)} "
                f"folder={quoteattr(str(skill.folder))}>\n{skill.body.strip()}\n</skill>\n\n"
                f"Files of the skill (relative to {skill.folder}):\n{listing}\n")
        if ran:
            text += f"\nIts scripts, ready to run with shell:\n{ran}\n"
        return ToolResult(text + granted, display=f"activated {skill.name} ({skill.source})")

    def _prepare(self, skill: Skill) -> tuple[list[str], list[str]]:
        return (skill.files(MAX_FILES_LISTED),
                [str(p) for p in extract_scripts(skill, self.ctx.workdir)])


class ActivateSkillTool(Tool):
    """Loads a skill's instructions (and readies its scripts)."""

    name = ToolName.ACTIVATE_SKILL
    kind = ToolKind.READ
    description = ("Activate one of the skills listed in <available_skills>: returns its "
                   "instructions, the list of its files and the paths of its scripts. Call it "
                   "before doing a task a skill describes, then follow the instructions.")
    Params = ActivateSkillParams

    def create_invocation(self, params: ActivateSkillParams,
                          ctx: ToolContext) -> ActivateSkillInvocation:
        return ActivateSkillInvocation(self, params, ctx)
