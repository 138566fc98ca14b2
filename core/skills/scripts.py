"""Skills' scripts, copied to the project's ``.agent-tui/bin`` for the agent to run (g3's
extraction): executable, tracked by a content hash, copied again only when they change."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from .. import paths
from ..text.durable import write_atomically
from .catalog import Skill

SCRIPT_MODE = 0o755
VERSION_SUFFIX = ".version"


def extract_scripts(skill: Skill, workdir: Path) -> list[Path]:
    """Copy ``skill``'s scripts into the project's bin folder; return where they are.

    A script is named after its path under ``scripts/`` (``scripts/lint/run`` becomes
    ``lint-run``), prefixed with the skill's name when another skill's script (or a file
    no skill put there) already has that name. ``<bin>/<name>.version`` holds
    ``skill:sha256``; a script whose hash is unchanged is not written again. A script that
    leads out of the skill's folder through a link is left out.

    Raises:
        OSError: the bin folder or a script cannot be written or read.
    """
    if not skill.scripts:
        return []
    bin_dir = paths.project_bin_dir(workdir)
    bin_dir.mkdir(parents=True, exist_ok=True)
    ignore = bin_dir / ".gitignore"
    if not ignore.exists():  # copies, not the project's own files: keep them out of commits
        write_atomically(ignore, b"*\n")
    real_folder = os.path.realpath(skill.folder) + os.sep
    placed = []
    for script in skill.scripts:
        if not os.path.realpath(script).startswith(real_folder):
            continue  # a link changed since discovery
        data = script.read_bytes()
        digest = f"{skill.name}:{hashlib.sha256(data).hexdigest()}"
        target = bin_dir / _bin_name(skill, script)
        if not _ours(target, skill.name):
            target = bin_dir / f"{skill.name}-{target.name}"
        version = target.with_name(target.name + VERSION_SUFFIX)
        if not (target.is_file() and _read(version) == digest):
            write_atomically(target, data, mode=SCRIPT_MODE)
            write_atomically(version, (digest + "\n").encode())
        placed.append(target)
    return placed


def _bin_name(skill: Skill, script: Path) -> str:
    return "-".join(script.relative_to(skill.folder / "scripts").parts)


def _ours(target: Path, skill_name: str) -> bool:
    """Whether ``target`` is free or holds a script of the skill ``skill_name``."""
    text = _read(target.with_name(target.name + VERSION_SUFFIX))
    if text is None:
        return not os.path.lexists(target)
    return text.split(":", 1)[0] == skill_name


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None
