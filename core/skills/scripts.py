"""Skills' scripts, copied to the project's ``.agent-tui/bin`` for the agent to run (g3's
extraction): executable, tracked by a content hash, copied again only when they change."""

from __future__ import annotations

import hashlib
from pathlib import Path

from .. import paths
from ..durable import write_atomically
from .catalog import Skill


def extract_scripts(skill: Skill, workdir: Path) -> list[Path]:
    """Copy ``skill``'s scripts into the project's bin folder; return where they are.

    A script keeps its file name, prefixed with the skill's name when another skill's
    script already has it; ``<bin>/<name>.version`` holds its content hash.

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
    placed = []
    for script in skill.scripts:
        data = script.read_bytes()
        digest = f"{skill.name}:{hashlib.sha256(data).hexdigest()}"
        target = bin_dir / script.name
        version = bin_dir / f"{script.name}.version"
        owner = _owner(version)
        if owner is not None and owner != skill.name:
            target = bin_dir / f"{skill.name}-{script.name}"
            version = bin_dir / f"{target.name}.version"
        if not (target.is_file() and _read(version) == digest):
            write_atomically(target, data, mode=0o755)
            write_atomically(version, (digest + "\n").encode())
        placed.append(target)
    return placed


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _owner(version: Path) -> str | None:
    """The skill whose script a version file tracks, if any."""
    text = _read(version)
    return text.split(":", 1)[0] if text else None
