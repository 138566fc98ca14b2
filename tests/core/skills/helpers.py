"""Writing skills, projects and the person's trust on disk for the skills tests."""

from __future__ import annotations

import subprocess
from pathlib import Path


def write_skill(parent: Path, folder: str, *, name: str | None = None,
                description: str = "Does a thing when asked.", extra: str = "",
                body: str = "Do the thing.\n", scripts: dict[str, str] | None = None) -> Path:
    """Write ``parent/folder/SKILL.md`` (and its scripts); return the SKILL.md."""
    skill = parent / folder
    skill.mkdir(parents=True, exist_ok=True)
    path = skill / "SKILL.md"
    path.write_text(f"---\nname: {name or folder}\ndescription: {description}\n{extra}---\n"
                    f"{body}")
    for relative, text in (scripts or {}).items():
        script = skill / "scripts" / relative
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text(text)
    return path


def make_project(root: Path) -> Path:
    """A folder that is a project root (it has .git)."""
    (root / ".git").mkdir(parents=True)
    return root


def trust(home: Path, project: Path) -> None:
    """Let the person trust ``project`` (the user config's trusted_projects)."""
    (home / "config.toml").write_text(f'trusted_projects = ["{project.resolve()}"]\n')


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd`` with a fixed identity; return its output."""
    result = subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com",
         "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
        cwd=cwd, capture_output=True, text=True, check=True)
    return result.stdout
