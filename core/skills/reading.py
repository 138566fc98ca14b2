"""Reading one ``SKILL.md``: its front matter checked against the agentskills.io rules."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..text.frontmatter import FrontmatterError, MarkdownDocument, read_markdown
from .catalog import SKIPPED_FOLDERS, Skill

MAX_NAME = 64
"""Characters a skill's name may have."""
MAX_DESCRIPTION = 1024
"""Characters a skill's description may have."""
_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def read_skill(path: Path, source: str, may_grant: bool, problems: list[str]) -> Skill | None:
    """Read the skill whose ``SKILL.md`` is ``path``.

    Args:
        path: The ``SKILL.md``.
        source: Where it was found (one of ``SOURCES``).
        may_grant: Whether its allowed tools may apply.
        problems: Where what is wrong is noted, with file and line.

    Returns:
        The skill, or None when the file is malformed (the reason is in ``problems``).
        A bad allowed-tools rule is dropped and a name that differs from the folder's is
        kept; both are noted.
    """
    try:
        document = read_markdown(path)
        name = document.text("name", required=True)
        description = document.text("description", required=True)
        allowed = document.names("allowed-tools")
        license_text = document.text("license")
    except FrontmatterError as exc:
        problems.append(f"{exc}; the skill was skipped.")
        return None
    if not _NAME.match(name) or len(name) > MAX_NAME:
        problems.append(f"{path}:{_line_of(document, 'name')}: the name {name!r} must be "
                        f"lowercase letters, digits and single hyphens, at most {MAX_NAME} "
                        "characters; rename it (and its folder). The skill was skipped.")
        return None
    if not description or len(description) > MAX_DESCRIPTION:
        problems.append(f"{path}:{_line_of(document, 'description')}: the description has "
                        f"{len(description)} characters; write 1 to {MAX_DESCRIPTION} saying "
                        "what the skill does and when to use it. The skill was skipped.")
        return None
    if name != path.parent.name:
        problems.append(f"{path}:{_line_of(document, 'name')}: the name {name} differs from "
                        f"its folder {path.parent.name}; it is loaded as {name}, but rename "
                        "one of them so they match.")
    if "metadata" in document.meta and not isinstance(document.meta["metadata"], dict):
        problems.append(f"{path}:{_line_of(document, 'metadata')}: `metadata` should be "
                        "`key: value` lines; it is ignored.")
    return Skill(name, description, document.body, path, source,
                 _valid_rules(allowed, document, problems), may_grant, _scripts(path.parent),
                 license_text)


def _valid_rules(texts: tuple[str, ...], document: MarkdownDocument,
                 problems: list[str]) -> tuple[str, ...]:
    """The rules among ``texts`` that parse; each other one is noted and dropped."""
    if not texts:
        return ()
    from ..safety.permission_rules import RuleError, parse_rules

    valid = []
    for text in texts:
        try:
            parse_rules([text])
        except RuleError as exc:
            problems.append(f"{document.path}:{_line_of(document, 'allowed-tools')}: "
                            f"allowed-tools: {exc}. That rule was dropped.")
        else:
            valid.append(text)
    return tuple(valid)


def _scripts(folder: Path) -> tuple[Path, ...]:
    """The files under ``folder/scripts``, sorted; none reached through a link that leads
    out of the skill's folder."""
    scripts = folder / "scripts"
    if not scripts.is_dir():
        return ()
    real_folder: str | None = None
    found: list[Path] = []
    for root, folders, names in os.walk(scripts):
        folders[:] = [f for f in folders if not f.startswith(".") and f not in SKIPPED_FOLDERS]
        for name in names:
            candidate = Path(root, name)
            if name.startswith(".") or not candidate.is_file():
                continue
            if candidate.is_symlink() or scripts.is_symlink():
                real_folder = real_folder or os.path.realpath(folder)
                if not _inside(os.path.realpath(candidate), real_folder):
                    continue
            found.append(candidate)
    return tuple(sorted(found))


def _inside(real_path: str, real_folder: str) -> bool:
    return real_path.startswith(real_folder.rstrip(os.sep) + os.sep)


def _line_of(document: MarkdownDocument, key: str) -> int:
    """The line ``key:`` is on in the front matter (1 when it is not found)."""
    try:
        text = document.path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return 1
    for number, line in enumerate(text.splitlines()[:document.body_line], start=1):
        if line.startswith(f"{key}:"):
            return number
    return 1

