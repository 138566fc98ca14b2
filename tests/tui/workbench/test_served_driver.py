"""A workbench served to a browser leaves when the server's pipes are gone.

The real workbench runs as textual-serve starts it (textual's WebDriver chosen by
``TEXTUAL_DRIVER``, standard input and output pipes to the server); the test plays the
server, then closes its end of one pipe as a server that died would.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_tui.core import paths
from agent_tui.core.sessions.log import SessionLock, read_events

LEFT_WITHIN_S = 20.0
"""How long the workbench may take to leave (it notices at once; the rest is for load)."""


def start_served_workbench(project: Path) -> subprocess.Popen[bytes]:
    """The workbench on ``project`` with textual-serve's driver and pipes, once it drew."""
    env = {**os.environ, "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver",
           "COLUMNS": "120", "ROWS": "40"}
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_tui.tui.cli.main", "--model", "openai/fake-model",
         "--api-base", "http://127.0.0.1:9", "--api-key", "sk-test", str(project)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert process.stdout is not None
    drawn = b""
    deadline = time.monotonic() + 60
    while b"mode: default" not in drawn:  # the status bar: the first frame is out
        assert time.monotonic() < deadline, f"the workbench drew nothing: {drawn[-500:]!r}"
        if select.select([process.stdout], [], [], 1)[0]:
            chunk = os.read(process.stdout.fileno(), 65536)
            assert chunk, f"the workbench ended: {process.wait()}"
            drawn += chunk
    return process


def send_meta(process: subprocess.Popen[bytes], meta: dict[str, object]) -> None:
    """A packet of textual-serve's protocol on the workbench's input."""
    assert process.stdin is not None
    payload = json.dumps(meta).encode()
    process.stdin.write(b"M" + len(payload).to_bytes(4, "big") + payload)
    process.stdin.flush()


def assert_left_cleanly(process: subprocess.Popen[bytes]) -> None:
    """The workbench ended by itself, as on /quit: status 0, its session saved and free."""
    try:
        process.wait(LEFT_WITHIN_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError(f"the workbench was still running {LEFT_WITHIN_S} s later") from None
    assert process.returncode == 0
    (session_id,) = [entry.name for entry in paths.sessions_dir().iterdir() if entry.is_dir()]
    assert read_events(session_id).header
    with SessionLock(session_id):  # released: another workbench may resume it
        pass


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def test_the_end_of_its_input_ends_the_workbench(project):
    process = start_served_workbench(project)
    try:
        process.stdin.close()  # the server is gone: its end of the input closed
        # Its output is still read here, so only the end of the input can end it.
        while select.select([process.stdout], [], [], LEFT_WITHIN_S)[0]:
            if not os.read(process.stdout.fileno(), 65536):
                break
        assert_left_cleanly(process)
    finally:
        process.kill()
        process.wait()


def test_an_output_nobody_reads_any_more_ends_the_workbench(project):
    process = start_served_workbench(project)
    try:
        process.stdout.close()  # nobody reads it any more: its next frame meets EPIPE
        send_meta(process, {"type": "resize", "width": 100, "height": 30})
        assert_left_cleanly(process)
    finally:
        process.kill()
        process.wait()
