"""Finding skills and choosing, by priority, the one each name means."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from .. import paths
from ..config import is_trusted
from ..frontmatter import FrontmatterError, read_markdown

SOURCES: tuple[str, ...] = ("bundled", "user", "config", "project", "repository")
"""Where skills come from, lowest priority first."""

GRANTING_SOURCES = frozenset({"bundled", "user", "config"})
"""Sources whose skills' ``allowed-tools`` apply whatever the project: the person put them
there. A project's or repository's grant nothing until the folder is trusted."""

MAX_NAME = 64
MAX_DESCRIPTION = 1024
_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__"})


@dataclass(frozen=True, slots=True)
class Skill:
    """One skill.

    Attributes:
        name: Its name (lowercase letters, digits and hyphens).
        description: What it does and when to use it (what the model chooses by).
        body: Its instructions, the Markdown after the front matter.
        path: Its ``SKILL.md``.
        source: One of :data:`SOURCES`.
        allowed_tools: Permission rules allowed for the session once it is activated.
        may_grant: Whether ``allowed_tools`` apply (see :data:`GRANTING_SOURCES`).
        scripts: Its scripts (the files under ``scripts/``).
    """

    name: str
    description: str
    body: str
    path: Path
    source: str
    allowed_tools: tuple[str, ...] = ()
    may_grant: bool = True
    scripts: tuple[Path, ...] = ()

    @property
    def folder(self) -> Path:
        """The skill's folder."""
        return self.path.parent

    def files(self, limit: int = 100) -> list[str]:
        """The skill's files besides ``SKILL.md``, relative to its folder, sorted."""
        found: list[str] = []
        for root, folders, names in os.walk(self.folder):
            folders[:] = sorted(f for f in folders
                                if not f.startswith(".") and f not in _SKIPPED_FOLDERS)
            for name in sorted(names):
                relative = Path(root, name).relative_to(self.folder)
                if str(relative) != "SKILL.md":
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
        problems: Files that could not be loaded, with file and line; they were skipped.
    """

    skills: list[Skill] = field(default_factory=list)
    shadowed: list[tuple[Skill, Skill]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def get(self, name: str) -> Skill | None:
        """The skill called ``name``, if any."""
        return next((skill for skill in self.skills if skill.name == name), None)

    @property
    def names(self) -> list[str]:
        """The names of the skills in force."""
        return [skill.name for skill in self.skills]

    def prompt_block(self) -> str:
        """The system prompt's ``<available_skills>`` block: names, descriptions and
        locations only (empty without skills)."""
        if not self.skills:
            return ""
        lines = [
            "\nSkills: packaged instructions for particular tasks. When a task matches a "
            "skill's description, call activate_skill with its name first and follow what "
            "it returns.",
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
        """One attribute-quoted line per skill, for messages: ``"name" (source)``."""
        return ", ".join(f"{quoteattr(s.name)} ({s.source})" for s in self.skills)


def bundled_skills_folder() -> Path:
    """The skills that come with agent-tui (the ``agent_tui.skills`` package)."""
    from ... import skills

    return Path(skills.__file__).parent


def skill_folders(workdir: Path, extra_paths: Sequence[Path] = ()) -> list[Path]:
    """The folders skills are read from, lowest priority first (existing or not)."""
    return [folder for folder, _source in _sources(workdir, extra_paths)]


def _sources(workdir: Path, extra_paths: Sequence[Path]) -> list[tuple[Path, str]]:
    root = paths.project_root(workdir)
    return [(bundled_skills_folder(), "bundled"), (paths.user_skills_dir(), "user"),
            *((Path(p), "config") for p in extra_paths),
            (root / paths.PROJECT_DIR_NAME / "skills", "project"), (root / "skills", "repository")]


def discover_skills(workdir: Path, extra_paths: Sequence[Path] = ()) -> SkillCatalog:
    """Every skill for a session at ``workdir``, by priority.

    Args:
        workdir: The working folder (its project's skills are read).
        extra_paths: More folders of skills (the ``skill_paths`` setting).
    """
    catalog = SkillCatalog()
    trusted: bool | None = None
    chosen: dict[str, Skill] = {}
    seen: set[Path] = set()
    for folder, source in _sources(workdir, extra_paths):
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            continue
        for entry in entries:
            skill_file = entry / "SKILL.md"
            if entry.name.startswith(".") or not skill_file.is_file():
                continue
            real = skill_file.resolve()
            if real in seen:
                continue  # one folder reached twice (agent-tui's own repository)
            seen.add(real)
            if source not in GRANTING_SOURCES and trusted is None:
                trusted = is_trusted(paths.project_root(workdir))
            skill = _read_skill(skill_file, source, bool(trusted) or source in GRANTING_SOURCES,
                                catalog.problems)
            if skill is None:
                continue
            if (hidden := chosen.get(skill.name)) is not None:
                catalog.shadowed.append((hidden, skill))
            chosen[skill.name] = skill
    catalog.skills = sorted(chosen.values(), key=lambda s: s.name)
    return catalog


def _read_skill(path: Path, source: str, may_grant: bool, problems: list[str]) -> Skill | None:
    """One ``SKILL.md``, or None (with the problem noted) when it is malformed."""
    try:
        document = read_markdown(path)
        name = document.text("name", required=True)
        description = document.text("description", required=True)
        allowed = document.names("allowed-tools")
    except FrontmatterError as exc:
        problems.append(f"{exc}; the skill was skipped.")
        return None
    if not _NAME.match(name) or len(name) > MAX_NAME:
        problems.append(f"{path}:1: the name {name!r} must be lowercase letters, digits and "
                        f"single hyphens, at most {MAX_NAME} characters; the skill was "
                        "skipped.")
        return None
    if not description or len(description) > MAX_DESCRIPTION:
        problems.append(f"{path}:1: the description must be 1 to {MAX_DESCRIPTION} "
                        "characters; the skill was skipped.")
        return None
    if name != path.parent.name:
        problems.append(f"{path}:1: the name {name} differs from its folder "
                        f"{path.parent.name}; it is known as {name}.")
    if allowed:
        from ..safety.permission_rules import RuleError, parse_rules

        try:
            parse_rules(allowed)
        except RuleError as exc:
            problems.append(f"{path}:1: allowed-tools: {exc}; the skill was skipped.")
            return None
    scripts = _scripts(path.parent)
    return Skill(name, description, document.body, path, source, allowed, may_grant, scripts)


def _scripts(folder: Path) -> tuple[Path, ...]:
    """The files under the skill's ``scripts/`` (not following links out of the skill)."""
    scripts_folder = folder / "scripts"
    if not scripts_folder.is_dir():
        return ()
    real_folder = folder.resolve()
    found = []
    for path in sorted(scripts_folder.rglob("*")):
        if path.is_file() and not any(part.startswith(".") for part in
                                      path.relative_to(scripts_folder).parts):
            if path.resolve().is_relative_to(real_folder):
                found.append(path)
    return tuple(found)
