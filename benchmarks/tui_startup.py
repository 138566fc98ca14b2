"""Time from launching `agent-tui` to its first frame, beside a bare Textual app with the
same layout, `python -c pass` and `python -c "import textual.app"`, measured in the same run.

The workbench runs in a pseudo-terminal; the first frame is the moment the status bar
("mode: default") has been written. The bare app (written to a temporary file, run by the
same interpreter on the same kind of pty) has the workbench's widgets and layout: two
panes, a scrolling conversation, a prompt text area, side titles, a data table, a status
bar; it writes the same marker. Goals: the first frame within 0.5 s of launch, and at
most 1.15x the bare app's.

Usage: python3 benchmarks/tui_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import pty
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

GOAL_S = 0.5
GOAL_RATIO = 1.15

BARE_APP = '''
from textual.app import App
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Static, TextArea


class Bare(App):
    CSS = """
    #main { height: 1fr; }
    #left { width: 2fr; }
    #side { width: 1fr; border-left: solid $primary; }
    #conversation { height: 1fr; }
    #prompt { height: 3; border: round $primary; }
    #status { height: 1; background: $panel; }
    """

    def compose(self):
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield VerticalScroll(id="conversation")
                yield TextArea(id="prompt")
            with Vertical(id="side"):
                yield Static("context")
                yield Static("0 / 128K tokens")
                yield Static("todos")
                yield Static("No todos yet.")
                yield Static("tool log")
                table = DataTable()
                table.add_columns("time", "tool", "arguments", "status", "took")
                yield table
        yield Static(" idle  model | mode: default | net: off", id="status")

    def on_mount(self):
        self.query_one(TextArea).focus()


Bare().run()
'''
"""A bare Textual app with the workbench's layout, writing the same marker."""
MARKER = b"mode: default"


def first_frame_seconds(command: list[str], env: dict[str, str], cwd: str) -> float:
    """Launch ``command`` on a pty and return the seconds until MARKER appears."""
    master, slave = pty.openpty()
    os.set_blocking(master, False)
    start = time.perf_counter()
    proc = subprocess.Popen(
        command, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, start_new_session=True
    )
    os.close(slave)
    seen = b""
    try:
        while time.perf_counter() - start < 20:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    break
                # Textual draws cells with escape sequences between them; compare text only.
                plain = seen.replace(b"\x1b", b"")
                if MARKER in plain or MARKER in _strip_ansi(seen):
                    return time.perf_counter() - start
        raise RuntimeError(f"no first frame within 20 s; output so far: {seen[-400:]!r}")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        os.close(master)


def _strip_ansi(data: bytes) -> bytes:
    import re

    return re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", data)


def wall(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    # The script beside this interpreter, not a pyenv shim (which adds ~100 ms per launch).
    binary = shutil.which("agent-tui", path=os.path.dirname(sys.executable)) or shutil.which(
        "agent-tui"
    )
    if binary is None:
        print("agent-tui is not installed (pip install -e .)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as project:
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env.update(AGENT_TUI_HOME=home, TERM="xterm-256color", COLUMNS="120", LINES="40")
        command = [binary, "--model", "openai/bench", "--api-base", "http://127.0.0.1:9/v1"]
        bare_script = os.path.join(project, "bare_textual_app.py")
        with open(bare_script, "w") as file:
            file.write(BARE_APP)
        bare_command = [sys.executable, bare_script]
        first_frame_seconds(command, env, project)  # warm the page cache
        first_frame_seconds(bare_command, env, project)
        ours, bare_app = [], []
        for _ in range(args.runs):  # taking turns, so both see the same machine
            ours.append(first_frame_seconds(command, env, project))
            bare_app.append(first_frame_seconds(bare_command, env, project))
        bare = [wall([sys.executable, "-c", "pass"], env) for _ in range(args.runs)]
        textual_import = [
            wall([sys.executable, "-c", "import textual.app"], env) for _ in range(args.runs)
        ]
    rows = [
        ("agent-tui first frame", ours),
        ("bare Textual app, same layout", bare_app),
        ("python -c pass", bare),
        ("python -c 'import textual.app'", textual_import),
    ]
    print(f"{'':34}{'median':>10}{'min':>10}")
    for label, values in rows:
        print(f"{label:34}{statistics.median(values) * 1000:>8.0f}ms{min(values) * 1000:>8.0f}ms")
    median = statistics.median(ours)
    verdict = "PASS" if median <= GOAL_S else "MISS"
    print(
        f"goal: first frame within {GOAL_S * 1000:.0f} ms of launch -> {verdict} "
        f"({median * 1000:.0f} ms)"
    )
    ratio = median / statistics.median(bare_app)
    verdict = "PASS" if ratio <= GOAL_RATIO else "MISS"
    print(f"goal: at most {GOAL_RATIO:.2f}x the bare Textual app's first frame -> {verdict} "
          f"({ratio:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
