"""Every directory agent-tui uses. ``AGENT_TUI_HOME`` moves them all under one folder.

Nothing is created at import time; callers create what they write to.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from pathlib import Path

APP_NAME = "agent-tui"
PROJECT_DIR_NAME = ".agent-tui"


def home() -> Path | None:
    """The folder named by ``AGENT_TUI_HOME``, or None when it is not set."""
    value = os.environ.get("AGENT_TUI_HOME")
    return Path(value).expanduser() if value else None


def config_dir() -> Path:
    """Where the user's ``config.toml`` lives."""
    root = home()
    if root is not None:
        return root
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def data_dir() -> Path:
    """Where sessions and other state live."""
    root = home()
    if root is not None:
        return root
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def user_config_file() -> Path:
    """The user's config file."""
    return config_dir() / "config.toml"


def project_config_file(workdir: Path) -> Path:
    """A project's own config file (its settings that grant permissions need trust)."""
    return workdir / PROJECT_DIR_NAME / "config.toml"


def new_session_id() -> str:
    """A short unique id for a session; it names the session's folder."""
    return uuid.uuid4().hex[:12]


def sessions_dir() -> Path:
    """The folder holding one sub-folder per session."""
    return data_dir() / "sessions"


def session_dir(session_id: str) -> Path:
    """The folder of one session (its log, large tool outputs, fragments)."""
    return sessions_dir() / session_id


def fragments_dir(session_id: str) -> Path:
    """Where thinned-out tool results are kept for ``rehydrate``."""
    return session_dir(session_id) / "fragments"


def tool_output_dir(session_id: str) -> Path:
    """Where full outputs of truncated tool results are kept."""
    return session_dir(session_id) / "outputs"


def checkpoints_dir(workdir: Path) -> Path:
    """The shadow git repository holding a project's checkpoints (one per project).

    It is keyed by a hash of the project's real path, so a symlinked or relative spelling
    of the same folder finds the same repository.
    """
    real = os.path.realpath(workdir)
    key = hashlib.sha256(os.fsencode(real)).hexdigest()[:16]
    return data_dir() / "checkpoints" / key


def repo_map_cache_file(workdir: Path) -> Path:
    """The tags of a project's source files that its repository map keeps between sessions,
    keyed like :func:`checkpoints_dir` by a hash of the project's real path."""
    real = os.path.realpath(workdir)
    key = hashlib.sha256(os.fsencode(real)).hexdigest()[:16]
    return data_dir() / "repo-maps" / f"{key}.json"


def user_instructions_file() -> Path:
    """The person's own ``AGENTS.md``, loaded into every session's system prompt."""
    return config_dir() / "AGENTS.md"


def user_skills_dir() -> Path:
    """The person's own skills, one ``<name>/SKILL.md`` each."""
    return config_dir() / "skills"


def user_commands_dir() -> Path:
    """The person's own slash commands, one ``<name>.md`` each."""
    return config_dir() / "commands"


def user_agents_dir() -> Path:
    """The person's own personas (``--agent NAME``), one ``<name>.md`` each."""
    return config_dir() / "agents"


def project_agents_dir(workdir: Path) -> Path:
    """A project's personas (``.agent-tui/agents``), one ``<name>.md`` each."""
    return project_root(workdir) / PROJECT_DIR_NAME / "agents"


def project_root(workdir: Path) -> Path:
    """The top of the project ``workdir`` is in: the nearest folder at or above it holding
    ``.git`` or ``.agent-tui``; ``workdir`` itself when there is none."""
    start = Path(os.path.realpath(workdir))
    for folder in (start, *start.parents):
        if (folder / ".git").exists() or (folder / PROJECT_DIR_NAME).is_dir():
            if folder == Path.home() and folder != start:
                break  # a dotfiles repository in $HOME is not every project's root
            return folder
    return start


def project_bin_dir(workdir: Path) -> Path:
    """Where skills' scripts are extracted for a project (``.agent-tui/bin``)."""
    return project_root(workdir) / PROJECT_DIR_NAME / "bin"


def memory_db() -> Path:
    """The SQLite database of memories (every project's and the person's own)."""
    return data_dir() / "memory.sqlite"


def project_memory_file(workdir: Path) -> Path:
    """The project's Markdown memory, which ``remember`` merges notes into."""
    return project_root(workdir) / PROJECT_DIR_NAME / "memory.md"
