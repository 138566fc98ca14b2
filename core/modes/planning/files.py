"""The plan's files in ``<project>/agent-tui-plan/``: which stage a plan is at, the template,
and moving the files on (approval, archiving) atomically with timestamps.

A plan goes ``new_requirements.md`` (the person's) -> ``refined_requirements.md`` (the
model's, for the person to approve or edit) -> ``current_requirements.md`` (being
implemented) -> ``archive/<time>-current_requirements.md`` (done); the person's original is
archived when the refinement is approved.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path

PLAN_DIR = "agent-tui-plan"
"""The plan's folder, in the project."""
NEW = "new_requirements.md"
REFINED = "refined_requirements.md"
CURRENT = "current_requirements.md"
ARCHIVE = "archive"
BASELINE = ".baseline.json"
"""What was already changed in the worktree when the plan was approved (not committed)."""

TEMPLATE = """# New requirements

<!--
Write what you want built below, in your own words: features, fixes, constraints, how
you will know it works. Then run `agent-tui --planning` again: the model turns this into
numbered, testable requirements for you to approve or edit, a coach-player pair implements
them, and the result is committed (after your approval). Comments like this one are ignored.
-->

"""
"""What a new plan's ``new_requirements.md`` starts as."""

_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


class Stage(StrEnum):
    """Where a plan is."""

    MISSING = "missing"
    """No ``new_requirements.md`` (nor a plan in progress)."""
    EMPTY = "empty"
    """``new_requirements.md`` says nothing yet (the template, or blank)."""
    NEW = "new"
    """New requirements to refine."""
    REFINED = "refined"
    """A refinement waits for approval (and is newer than the requirements it refines)."""
    CURRENT = "current"
    """Approved requirements, not yet implemented: an unfinished plan to resume."""


@dataclass(frozen=True, slots=True)
class PlanFiles:
    """The plan's paths in one project.

    Attributes:
        project: The project folder.
    """

    project: Path

    @property
    def folder(self) -> Path:
        """``agent-tui-plan/``."""
        return self.project / PLAN_DIR

    @property
    def new(self) -> Path:
        """The person's requirements."""
        return self.folder / NEW

    @property
    def refined(self) -> Path:
        """The model's refinement, waiting for approval."""
        return self.folder / REFINED

    @property
    def current(self) -> Path:
        """The approved requirements being implemented."""
        return self.folder / CURRENT

    @property
    def archive(self) -> Path:
        """Where finished plans' files go, each with its time."""
        return self.folder / ARCHIVE

    @property
    def baseline(self) -> Path:
        """The worktree's changes when the plan was approved."""
        return self.folder / BASELINE

    def shown(self, path: Path) -> str:
        """``path`` relative to the project, for people."""
        try:
            return str(path.relative_to(self.project))
        except ValueError:
            return str(path)


def requirements_text(path: Path) -> str:
    """The requirements in ``path`` without HTML comments, stripped ("" when none)."""
    return _COMMENT.sub("", path.read_text(encoding="utf-8")).strip()


def says_something(requirements: str) -> bool:
    """Whether ``requirements`` has a line that is not a heading (the template has none)."""
    return any(line.strip() and not line.lstrip().startswith("#")
               for line in requirements.splitlines())


def stage(plan: PlanFiles) -> Stage:
    """Where the plan is; an unfinished plan (``current_requirements.md``) comes first."""
    if plan.current.is_file():
        return Stage.CURRENT
    if not plan.new.is_file():
        return Stage.MISSING
    if not says_something(requirements_text(plan.new)):
        return Stage.EMPTY
    if plan.refined.is_file() and plan.refined.stat().st_mtime >= plan.new.stat().st_mtime:
        return Stage.REFINED
    return Stage.NEW


def write_template(plan: PlanFiles) -> Path:
    """Create the plan folder and a template ``new_requirements.md`` (never overwriting)."""
    plan.folder.mkdir(parents=True, exist_ok=True)
    with plan.new.open("x", encoding="utf-8") as file:
        file.write(TEMPLATE)
    return plan.new


def stamp(now: datetime | None = None) -> str:
    """A file name's timestamp, in UTC: ``2026-11-26T18-40-00``."""
    return (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y-%m-%dT%H-%M-%S")


def archived_path(plan: PlanFiles, name: str, now: datetime | None = None) -> Path:
    """A free archive path for ``name`` at ``now`` (``-2``, ``-3``… within one second)."""
    base = f"{stamp(now)}-{Path(name).stem}"
    suffix = Path(name).suffix
    candidate = plan.archive / f"{base}{suffix}"
    number = 2
    while candidate.exists():
        candidate = plan.archive / f"{base}-{number}{suffix}"
        number += 1
    return candidate


def archive_file(plan: PlanFiles, path: Path, now: datetime | None = None) -> Path:
    """Move ``path`` into the archive with a timestamp (a rename: atomic)."""
    plan.archive.mkdir(parents=True, exist_ok=True)
    target = archived_path(plan, path.name, now)
    os.replace(path, target)
    return target


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temp file and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.tmp")
    with temp.open("w", encoding="utf-8") as file:
        file.write(text)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temp, path)


def approve(plan: PlanFiles, baseline: dict[str, str | None],
            now: datetime | None = None) -> Path:
    """The refinement becomes ``current_requirements.md`` and the person's original goes to
    the archive; ``baseline`` (see :func:`~.git.worktree_state`) is kept for the commit.
    Returns the original's archived path."""
    write_atomic(plan.baseline, json.dumps(baseline, sort_keys=True))
    os.replace(plan.refined, plan.current)
    return archive_file(plan, plan.new, now)


def read_baseline(plan: PlanFiles) -> dict[str, str | None] | None:
    """The worktree's changes when the plan was approved (None: not recorded)."""
    try:
        data = json.loads(plan.baseline.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def finish(plan: PlanFiles, now: datetime | None = None) -> Path:
    """Archive the implemented ``current_requirements.md`` and forget the baseline; returns
    the archived requirements' path."""
    done = archive_file(plan, plan.current, now)
    plan.baseline.unlink(missing_ok=True)
    return done
