"""What studio knows of each session: one JSON file per session, per project, in agent-tui's
data folder (never in the project), written atomically."""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from ... import paths
from ...text.text_files import atomic_write_text


@dataclass(slots=True)
class StudioSession:
    """One studio session.

    Attributes:
        name: Its name (its branch is ``agent-tui/NAME``).
        project: The repository's top folder.
        worktree: Its own folder.
        base: The commit it started from.
        prompt: What it was asked (empty for an interactive session).
        created: Unix time it was made.
        state: ``running``, ``done``, ``failed`` or ``open`` (interactive, not running).
        pid: The process running it while ``running``.
        session_id: Its agent-tui session (``agent-tui --resume ID`` in the worktree).
        model_calls: Requests to the model it made.
        cost: US dollars, when known.
        answer: The start of its last answer.
        error: Why it failed.
    """

    name: str
    project: str
    worktree: str
    base: str
    prompt: str = ""
    created: float = field(default_factory=time.time)
    state: str = "running"
    pid: int | None = None
    session_id: str | None = None
    model_calls: int = 0
    cost: float | None = None
    answer: str = ""
    error: str | None = None

    @property
    def alive(self) -> bool:
        """Whether the process it is ``running`` in still runs (False after a crash)."""
        if self.state != "running" or self.pid is None:
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    @property
    def shown_state(self) -> str:
        """Its state for people: a ``running`` session whose process is gone is ``stopped``."""
        return "stopped" if self.state == "running" and not self.alive else self.state


def studio_dir(project: Path) -> Path:
    """Where the records of a project's sessions are kept."""
    key = hashlib.sha256(str(project).encode()).hexdigest()[:10]
    return paths.data_dir() / "studio" / f"{project.name or 'root'}-{key}"


def worktree_folder(project: Path, name: str) -> Path:
    """The folder of a session's worktree: beside the project, in ``PROJECT-studio/NAME``.

    Not in agent-tui's data folder, whose files the agent may not write, and not inside the
    project, whose searches would find the copy."""
    return project.parent / f"{project.name}-studio" / name


def _record(project: Path, name: str) -> Path:
    return studio_dir(project) / "sessions" / f"{name}.json"


def save(session: StudioSession) -> None:
    """Write the session's record (atomically)."""
    path = _record(Path(session.project), session.name)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(asdict(session), indent=1, ensure_ascii=False))


def load(project: Path, name: str) -> StudioSession | None:
    """The session called ``name``, or None."""
    return _read(_record(project, name))


def sessions(project: Path) -> list[StudioSession]:
    """The project's sessions, oldest first (unreadable records are skipped)."""
    folder = studio_dir(project) / "sessions"
    found = [s for p in sorted(folder.glob("*.json")) if (s := _read(p)) is not None]
    return sorted(found, key=lambda s: s.created)


def forget(project: Path, name: str) -> None:
    """Delete the session's record."""
    _record(project, name).unlink(missing_ok=True)


def _read(path: Path) -> StudioSession | None:
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    known = {f.name for f in fields(StudioSession)}
    if "turns" in data and "model_calls" not in data:  # what records written before call it
        data["model_calls"] = data["turns"]
    try:
        return StudioSession(**{k: v for k, v in data.items() if k in known})
    except TypeError:
        return None
