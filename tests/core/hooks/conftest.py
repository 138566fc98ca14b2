"""Helpers for the hooks tests: config files in the temporary home, hook scripts on disk."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_tui.core.hooks import HookRunner, load_hooks

ConfigWriter = Callable[..., Path]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project folder with its ``.agent-tui`` folder."""
    root = tmp_path / "project"
    (root / ".agent-tui").mkdir(parents=True)
    return root


@pytest.fixture
def user_config(agent_tui_home: Path) -> Path:
    """The user's ``config.toml`` (not written yet)."""
    return agent_tui_home / "config.toml"


@pytest.fixture
def script(tmp_path: Path) -> Callable[[str], str]:
    """Writes a bash script and returns the command that runs it."""
    count = 0

    def write(body: str) -> str:
        nonlocal count
        count += 1
        path = tmp_path / "scripts" / f"hook{count}.sh"
        path.parent.mkdir(exist_ok=True)
        path.write_text(body)
        return f"bash {shlex.quote(str(path))}"

    return write


def hook_entry(event: str, command: str, **keys: object) -> str:
    """A flat ``[[hooks.<event>]]`` entry in TOML."""
    lines = [f"[[hooks.{event}]]", f"command = {json.dumps(command)}"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in keys.items()]
    return "\n".join(lines) + "\n\n"


@pytest.fixture
def runner(user_config: Path, project: Path) -> Callable[..., HookRunner]:
    """Writes the given entries into the user config and returns a runner for ``project``."""

    def make(*entries: str, env: dict[str, str] | None = None) -> HookRunner:
        user_config.write_text("".join(entries))
        hooks = load_hooks(project)
        assert hooks.warnings == []
        return HookRunner(hooks, project, "session-1", env)

    return make
