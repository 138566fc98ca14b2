"""Skills (the agentskills.io format, as g3 uses it): folders with a ``SKILL.md`` the agent
activates when a task calls for one.

Discovery (:func:`discover_skills`) reads every source, lowest priority first — bundled,
the person's, ``skill_paths``, the project's ``.agent-tui/skills``, the repository's
``skills/`` — a later skill shadowing an earlier one of the same name. Only names and
descriptions reach the system prompt (:meth:`SkillCatalog.prompt_block`); ``activate_skill``
loads a skill's instructions and extracts its scripts (:func:`extract_scripts`).
"""

from __future__ import annotations

from .catalog import GRANTING_SOURCES, SOURCES, Skill, SkillCatalog
from .discovery import bundled_skills_folder, discover_skills, skill_folders, skill_sources
from .reading import MAX_DESCRIPTION, MAX_NAME, read_skill
from .scripts import extract_scripts

__all__ = ["GRANTING_SOURCES", "MAX_DESCRIPTION", "MAX_NAME", "SOURCES", "Skill",
           "SkillCatalog", "bundled_skills_folder", "discover_skills", "extract_scripts",
           "read_skill", "skill_folders", "skill_sources"]
