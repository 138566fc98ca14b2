"""A terminal that goes away without a hang-up signal ends the workbench cleanly.

The real binary runs under its own session (as ``setsid`` starts it) on a pseudo-terminal;
closing the terminal's other side sends no SIGHUP to it. It must leave on its own, with its
session saved and unlocked, instead of spinning on reads that return nothing.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import shutil
import struct
import subprocess
import termios
import time
from pathlib import Path

import pytest

from agent_tui.tui.workbench.terminal_watch import terminal_gone
from tests.fakes.providers import Reply

pytestmark = pytest.mark.skipif(shutil.which("agent-tui") is None,
                                reason="needs the installed agent-tui binary")

GIVE_UP_S = 20.0
"""Only a hang fails the test; how fast it leaves is measured, not asserted here."""


def test_a_closed_pty_is_seen_without_reading_it() -> None:
    master, slave = pty.openpty()
    try:
        assert not terminal_gone(slave)
        os.close(master)
        assert terminal_gone(slave)
    finally:
        os.close(slave)


def test_the_workbench_leaves_when_its_terminal_vanishes_and_the_session_resumes(
        fake_provider, tmp_path: Path) -> None:
    fake_provider.script(Reply(text="hello"))
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "AGENT_TUI_HOME": str(home), "TERM": "xterm-256color"}
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    command = ["agent-tui", "--model", "openai/fake", "--api-base", fake_provider.openai_base,
               "--api-key", "sk-test"]
    proc = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, cwd=project,
                            env=env, start_new_session=True)
    os.close(slave)
    try:
        seen = b""
        os.set_blocking(master, False)
        deadline = time.monotonic() + 30
        while b"mode" not in seen and time.monotonic() < deadline:
            try:
                seen += os.read(master, 65536)
            except BlockingIOError:
                time.sleep(0.05)
        assert b"mode" in seen, "no first frame"
        os.close(master)
        master = -1
        closed = time.monotonic()
        while proc.poll() is None and time.monotonic() - closed < GIVE_UP_S:
            time.sleep(0.05)
        assert proc.poll() is not None, "the workbench kept running on a vanished terminal"
    finally:
        if master != -1:
            os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    listed = subprocess.run(["agent-tui", "sessions", "list", "--json"], env=env, cwd=project,
                            capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    sessions = json.loads(listed.stdout)
    assert len(sessions) == 1
    session_id = sessions[0]["id"]
    # The lock was released: the session opens again (headless, one prompt).
    resumed = subprocess.run(
        [*command, "--resume", session_id, "-p", "hi", "--output-format", "json"],
        env=env, cwd=project, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert '"text": "hello"' in resumed.stdout
