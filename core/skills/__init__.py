"""Skills (the agentskills.io format, as g3 uses it): folders with a ``SKILL.md`` the agent
activates when a task calls for one.

Discovery (:func:`discover_skills`) reads every source, lowest priority first — bundled,
the person's, ``skill_paths``, the project's ``.agent-tui/skills``, the repository's
``skills/`` — a later skill shadowing an earlier one of the same name. Only names and
descriptions reach the system prompt (:meth:`SkillCatalog.prompt_block`); ``activate_skill``
loads a skill's instructions and extracts its scripts (:func:`extract_scripts`).
"""

from __future__ import annotations

from .catalog import SOURCES, Skill, SkillCatalog, discover_skills, skill_folders
from .scripts import extract_scripts

__all__ = ["SOURCES", "Skill", "SkillCatalog", "discover_skills", "extract_scripts",
           "skill_folders"]
