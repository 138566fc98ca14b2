"""A skill, and the catalog of a session's skills with the system prompt's block about them."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

SOURCES: tuple[str, ...] = ("bundled", "user", "config", "project", "repository")
"""Where skills come from, lowest priority first."""

GRANTING_SOURCES = frozenset({"bundled", "user", "config"})
"""Sources whose skills' ``allowed-tools`` apply whatever the project: the person put them
there. A project's or a repository's grant nothing until the person trusts the folder: a
repository cannot grant itself tools through a skill's allowed tools."""

MAX_FILES_LISTED = 100
"""Files of a skill :meth:`Skill.files` lists at most."""
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__"})
"""Folders never looked into (hidden ones neither)."""


@dataclass(frozen=True, slots=True)
class Skill:
    """One skill: a folder with a ``SKILL.md``.

    Attributes:
        name: Its name (lowercase letters, digits and hyphens).
        description: What it does and when to use it (what the model chooses by).
        body: Its instructions, the Markdown after the front matter.
        path: Its ``SKILL.md``.
        source: One of :data:`SOURCES`.
        allowed_tools: Permission rules (``shell(git diff *)``) allowed for the session once
            it is activated, where ``may_grant``.
        may_grant: Whether ``allowed_tools`` apply (see :data:`GRANTING_SOURCES`).
        scripts: Its scripts (the files under ``scripts/``), inside its folder.
        license: Its ``license`` field ("" when absent).
    """

    name: str
    description: str
    body: str
    path: Path
    source: str
    allowed_tools: tuple[str, ...] = ()
    may_grant: bool = True
    scripts: tuple[Path, ...] = ()
    license: str = ""

    @property
    def folder(self) -> Path:
        """The skill's folder."""
        return self.path.parent

    def files(self, limit: int = MAX_FILES_LISTED) -> list[str]:
        """The skill's files besides ``SKILL.md``, relative to its folder, sorted, at most
        ``limit`` (hidden files and folders left out; linked folders not entered)."""
        found: list[str] = []
        for root, folders, names in os.walk(self.folder):
            folders[:] = sorted(f for f in folders
                                if not f.startswith(".") and f not in SKIPPED_FOLDERS)
            for name in sorted(names):
                relative = Path(root, name).relative_to(self.folder)
                if name.startswith(".") or str(relative) == "SKILL.md":
                    continue
                found.append(str(relative))
                if len(found) >= limit:
                    return found
        return found


@dataclass(slots=True)
class SkillCatalog:
    """The skills of a session, and what could not be loaded.

    Attributes:
        skills: The skills in force (one per name), sorted by name.
        shadowed: Skills a higher-priority one of the same name hides: (hidden, winner).
        problems: What is wrong in skills' files, each with file and line: a malformed
            ``SKILL.md`` (that skill was skipped), a bad allowed-tools rule (dropped), a
            name that differs from its folder.
    """

    skills: list[Skill] = field(default_factory=list)
    shadowed: list[tuple[Skill, Skill]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def get(self, name: str) -> Skill | None:
        """The skill called ``name``, if any."""
        return next((skill for skill in self.skills if skill.name == name), None)

    @property
    def names(self) -> list[str]:
        """The names of the skills in force, sorted."""
        return [skill.name for skill in self.skills]

    def prompt_block(self) -> str:
        """The system prompt's ``<available_skills>`` block: names, descriptions and
        locations only, so that a skill costs a few tokens until it is activated ("" without
        skills)."""
        if not self.skills:
            return ""
        lines = [
            "\nSkills: packaged instructions for particular tasks. When a task matches a "
            "skill's description, call activate_skill(name) first and follow what it returns.",
            "<available_skills>",
        ]
        for skill in self.skills:
            lines += ["  <skill>",
                      f"    <name>{escape(skill.name)}</name>",
                      f"    <description>{escape(skill.description)}</description>",
                      f"    <location>{escape(str(skill.path))}</location>",
                      "  </skill>"]
        lines.append("</available_skills>\n")
        return "\n".join(lines)

    def describe(self) -> str:
        """One attribute-quoted entry per skill, for messages: ``"name" (source)``."""
        return ", ".join(f"{quoteattr(s.name)} ({s.source})" for s in self.skills)
