"""Time from launching `agent-tui` to its first frame, beside `python -c pass` and
`python -c "import textual.app"`, measured in the same run.

The workbench runs in a pseudo-terminal; the first frame is the moment the status bar
("mode: default") has been written. Goal: within 0.5 s of launch.

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
        first_frame_seconds(command, env, project)  # warm the page cache
        ours = [first_frame_seconds(command, env, project) for _ in range(args.runs)]
        bare = [wall([sys.executable, "-c", "pass"], env) for _ in range(args.runs)]
        textual_import = [
            wall([sys.executable, "-c", "import textual.app"], env) for _ in range(args.runs)
        ]
    rows = [
        ("agent-tui first frame", ours),
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
