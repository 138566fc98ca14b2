"""A real X display (Xvfb) and a real Tk program on it for the desktop tools."""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.tools.base import ToolContext

HAVE_XVFB = bool(shutil.which("Xvfb"))
needs_xvfb = pytest.mark.skipif(not HAVE_XVFB,
                                reason="Xvfb is not installed (Debian: apt-get install xvfb)")
SCREEN = (1280, 800)


@pytest.fixture(scope="session")
def xvfb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A 1280x800 Xvfb for the whole session; yields its DISPLAY."""
    if not HAVE_XVFB:
        pytest.skip("Xvfb is not installed (Debian: apt-get install xvfb)")
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", f"{SCREEN[0]}x{SCREEN[1]}x24",
         "-nolisten", "tcp"], pass_fds=(write,), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as numbers:
        number = numbers.readline().strip()
    assert number, "Xvfb did not say which display it took"
    yield f":{number}"
    server.terminate()
    server.wait(10)


@pytest.fixture
def display(xvfb: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """DISPLAY and XAUTHORITY (an empty file: Xvfb runs without a cookie) for one test."""
    cookie = tmp_path / "xauthority"
    cookie.touch()
    monkeypatch.setenv("DISPLAY", xvfb)
    monkeypatch.setenv("XAUTHORITY", str(cookie))
    return xvfb


class TkApp:
    """The running test program and what it printed."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.geometry: dict[str, tuple[int, int, int, int]] = {}
        while len(self.geometry) < 2:
            name, *numbers = self.expect(("button ", "entry ")).split()
            self.geometry[name] = tuple(int(n) for n in numbers)  # type: ignore[assignment]

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def expect(self, prefixes: tuple[str, ...] | str, timeout: float = 10) -> str:
        """The next line starting with one of ``prefixes``, waiting up to ``timeout``."""
        prefixes = (prefixes,) if isinstance(prefixes, str) else prefixes
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if line.startswith(prefixes):
                return line
        raise AssertionError(f"the app printed no line starting with {prefixes}")

    def centre(self, name: str) -> tuple[int, int]:
        """The screen position of the middle of widget ``name``."""
        x, y, w, h = self.geometry[name]
        return x + w // 2, y + h // 2


@pytest.fixture
def tk_app(display: str) -> Iterator[TkApp]:
    """The test program, shown on the display, closed after the test."""
    process = subprocess.Popen([sys.executable, str(Path(__file__).with_name("tk_app.py"))],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        yield TkApp(process)
    finally:
        process.kill()
        process.wait(10)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    """A tool context on ``tmp_path`` for a model that takes images."""
    return ToolContext(workdir=tmp_path, output_dir=tmp_path / ".out", supports_images=True)
