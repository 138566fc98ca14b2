"""How long ``agent-tui -p hi`` takes to report a provider it cannot use, beside a baseline.

Run from the repository root (agent-tui installed, e.g. ``pip install -e .``)::

    python3 benchmarks/provider_errors.py [--runs N]

Two failures, each timed from launch to exit of the real binary on a pty (as a person
runs it), ``--runs`` times after one warm-up, the runs taking turns with the baseline
``python -c pass``:

* **refused**: ``--model openai/x --api-base http://127.0.0.1:PORT/v1`` where PORT was
  bound and closed (nothing listens);
* **missing key**: ``--model openai/gpt-4.1`` with no ``*_API_KEY`` variable set.

Each run must exit 1 with one error line saying what to do (``is the server running?``,
``set OPENAI_API_KEY``). Goal: each reported within 2 s (PASS/MISS is printed).
Exits 1 when a run says something else.
"""

from __future__ import annotations

import argparse
import os
import pty
import select
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from startup import agent_tui_command  # the same lookup of the installed script

GOAL_S = 2.0


def closed_port() -> int:
    """A port nothing listens on: bound, then closed."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def clean_env(home: Path) -> dict[str, str]:
    """The environment without API keys or agent-tui settings, with its own home."""
    env = {k: v for k, v in os.environ.items()
           if not k.endswith("_API_KEY") and not k.startswith("AGENT_TUI_")}
    env["AGENT_TUI_HOME"] = str(home)
    return env


def on_pty(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, int, str]:
    """Run ``command`` with a pty as its terminal: seconds to exit, exit code, output."""
    master, slave = pty.openpty()
    start = time.perf_counter()
    process = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, env=env,
                               cwd=cwd, close_fds=True)
    os.close(slave)
    output = b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b""
            if not data:
                break
            output += data
        elif process.poll() is not None:
            break
    code = process.wait()
    elapsed = time.perf_counter() - start
    os.close(master)
    return elapsed, code, output.decode(errors="replace")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    agent_tui = agent_tui_command()
    python = os.path.realpath(sys.executable)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env = clean_env(work / ".home")
        cases = {
            "refused": ([*agent_tui, "-p", "hi", "--model", "openai/x", "--api-base",
                         f"http://127.0.0.1:{closed_port()}/v1"], "is the server running?"),
            "missing key": ([*agent_tui, "-p", "hi", "--model", "openai/gpt-4.1"],
                            "set OPENAI_API_KEY"),
        }
        times: dict[str, list[float]] = {name: [] for name in [*cases, "python -c pass"]}
        for run in range(args.runs + 1):
            for name, (command, expected) in cases.items():
                elapsed, code, output = on_pty(command, env, work)
                lines = [line for line in output.splitlines() if line.strip()]
                if code != 1 or len(lines) != 1 or expected not in lines[0]:
                    print(f"{name}: exit {code}, expected one line with {expected!r}:\n"
                          f"{output}", file=sys.stderr)
                    return 1
                if run:
                    times[name].append(elapsed)
                if run == 1:
                    print(f"{name}: {lines[0]}")
            elapsed, _, _ = on_pty([python, "-c", "pass"], env, work)
            if run:
                times["python -c pass"].append(elapsed)
    print(f"\n{'case':<16}{'median':>10}{'min':>10}{'max':>10}  goal {GOAL_S:g} s")
    for name, values in times.items():
        verdict = ""
        if name in cases:
            verdict = "  PASS" if statistics.median(values) < GOAL_S else "  MISS"
        print(f"{name:<16}{statistics.median(values):>9.2f}s{min(values):>9.2f}s"
              f"{max(values):>9.2f}s{verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
