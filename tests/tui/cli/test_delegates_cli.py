"""``agent-tui delegates list`` on the real command line: each configured delegate, started
and asked ACP's ``initialize``; one that does not answer says why and what to do."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "fakes" / "acp_delegate.py"


def delegates(home: Path, project: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AGENT_TUI_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "agent_tui.tui.cli.main", "delegates", "list"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=120)


def test_delegates_list_says_which_answer(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    done = delegates(home, project)
    assert done.returncode == 0 and "No delegate is configured" in done.stdout

    (home / "config.toml").write_text(
        f"[delegates.scripted]\ncommand = {sys.executable!r}\nargs = [{str(SCRIPT)!r}]\n"
        f"env = {{ PYTHONPATH = {os.pathsep.join(sys.path)!r} }}\n"
        '[delegates.gone]\ncommand = "no-such-agent-program"\n'
        '[delegates.broken]\nargs = ["acp"]\n')
    done = delegates(home, project)

    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0].startswith("scripted (acp: ") and lines[0].endswith("answers")
    assert f"works in {project / 'delegated'}" in lines[0]
    assert "gone (acp: no-such-agent-program" in lines[1]
    assert "'no-such-agent-program' was not found; install it or fix `command`" in lines[1]
    assert "delegate 'broken' skipped: it needs `command`" in done.stderr
