"""Finding a session's skills in their five sources and choosing, by priority, the one each
name means."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from .. import paths
from ..config import is_trusted
from .catalog import GRANTING_SOURCES, SKIPPED_FOLDERS, Skill, SkillCatalog
from .reading import read_skill

SKILL_FILE = "SKILL.md"


def bundled_skills_folder() -> Path:
    """The skills that come with agent-tui (the ``agent_tui.skills`` package)."""
    from ... import skills

    return Path(skills.__file__).parent


def skill_sources(workdir: Path, extra_paths: Sequence[Path] = ()) -> list[tuple[Path, str]]:
    """Each folder skills are read from with its source, lowest priority first: bundled,
    the person's, ``extra_paths`` (``skill_paths``), the project's ``.agent-tui/skills``,
    the repository's ``skills/``. The folders need not exist."""
    root = paths.project_root(workdir)
    return [(bundled_skills_folder(), "bundled"), (paths.user_skills_dir(), "user"),
            *((Path(p).expanduser(), "config") for p in extra_paths),
            (root / paths.PROJECT_DIR_NAME / "skills", "project"),
            (root / "skills", "repository")]


def skill_folders(workdir: Path, extra_paths: Sequence[Path] = ()) -> list[Path]:
    """The folders skills are read from, lowest priority first (existing or not)."""
    return [folder for folder, _source in skill_sources(workdir, extra_paths)]


def discover_skills(workdir: Path, extra_paths: Sequence[Path] = ()) -> SkillCatalog:
    """Every skill for a session at ``workdir``; a later source's skill shadows an earlier
    one of the same name.

    Each source folder's direct sub-folders holding a ``SKILL.md`` are skills (hidden ones
    and ``node_modules`` left out). A skill folder reached twice (agent-tui's own
    repository, whose ``skills/`` is also the bundled one) counts once, from its first
    source. Malformed files are noted in ``problems`` and skipped.

    Args:
        workdir: The working folder (its project's skills are read).
        extra_paths: More folders of skills (the ``skill_paths`` setting).
    """
    catalog = SkillCatalog()
    root = paths.project_root(workdir)
    trusted: bool | None = None  # asked once, and only when a project's skill is found
    chosen: dict[str, Skill] = {}
    seen: set[str] = set()
    for folder, source in skill_sources(workdir, extra_paths):
        real_source = os.path.realpath(folder)
        for entry in _skill_entries(folder):
            real = (os.path.realpath(entry.path) if entry.is_symlink()
                    else os.path.join(real_source, entry.name))
            if real in seen:
                continue
            seen.add(real)
            may_grant = source in GRANTING_SOURCES
            if not may_grant:
                if trusted is None:
                    trusted = is_trusted(root)
                may_grant = trusted
            skill = read_skill(Path(entry.path, SKILL_FILE), source, may_grant,
                               catalog.problems)
            if skill is None:
                continue
            if (hidden := chosen.get(skill.name)) is not None:
                catalog.shadowed.append((hidden, skill))
            chosen[skill.name] = skill
    catalog.skills = sorted(chosen.values(), key=lambda s: s.name)
    return catalog


def _skill_entries(folder: Path) -> list[os.DirEntry[str]]:
    """``folder``'s sub-folders holding a ``SKILL.md``, by name."""
    try:
        with os.scandir(folder) as scan:
            entries = [e for e in scan if not e.name.startswith(".")
                       and e.name not in SKIPPED_FOLDERS and e.is_dir()]
    except OSError:
        return []
    return sorted((e for e in entries if os.path.isfile(os.path.join(e.path, SKILL_FILE))),
                  key=lambda e: e.name)
