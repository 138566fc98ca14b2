#!/usr/bin/env python3
"""The peers harness with agent-tui's two measured floors, and optionally an earlier build of
agent-tui, as more programs of its run.

    export AGENT_TUI=/root/.pyenv/versions/3.11.7/bin/agent-tui
    export AGENT_TUI_BEFORE=/tmp/venv-before/bin/agent-tui     # optional
    /tmp/peers/harness-venv/bin/python benchmarks/peers_floor.py --reps 5 \\
        --peers agent-tui,agent-tui-before,floor-lines,floor-markdown,codex --out /tmp/peers-1

Takes `bench.py`'s options (`../shared/bench-peers/`, or the folder in `$BENCH_PEERS`) and adds
three programs to its table, each launched as agent-tui is (same flags, same environment), the
floors with agent-tui's own interpreter:

- `floor-lines`: `stream_floor_lines.py`, a bare Textual app drawing the streamed answer as
  plain wrapped lines (the least a Textual app can do to show it);
- `floor-markdown`: `stream_floor.py`, the same app drawing it with Textual's own Markdown
  streaming;
- `agent-tui-before`: the agent-tui at `$AGENT_TUI_BEFORE` (an install of an earlier commit,
  e.g. in a virtual environment of its own), for before and after in one run.

Interleaved with agent-tui and the peers, so a floor, agent-tui and the build before a change
are measured under the same load, in one table.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

BENCHMARKS = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.environ.get("BENCH_PEERS") or os.path.join(BENCHMARKS, "..", "..", "shared",
                                                         "bench-peers")
sys.path.insert(0, HARNESS)

import bench  # noqa: E402
import peers  # noqa: E402

Launcher = Callable[[str, str, int], tuple[list[str], dict[str, str]]]


def interpreter(script: str) -> str:
    """The Python a console script runs with (its ``#!`` line)."""
    with open(script, encoding="utf-8") as file:
        first = file.readline()
    return first[2:].strip() if first.startswith("#!") else sys.executable


def floor(script: str) -> Launcher:
    """A launcher for ``script`` of this folder, in agent-tui's place."""

    def launch(home: str, project: str, port: int) -> tuple[list[str], dict[str, str]]:
        cmd, env = peers.agent_tui(home, project, port)
        return [interpreter(peers.AGENT_TUI), os.path.join(BENCHMARKS, script), *cmd[1:]], env

    return launch


def before(home: str, project: str, port: int) -> tuple[list[str], dict[str, str]]:
    """agent-tui as ``$AGENT_TUI_BEFORE`` is built, launched as agent-tui is."""
    cmd, env = peers.agent_tui(home, project, port)
    return [os.environ["AGENT_TUI_BEFORE"], *cmd[1:]], env


peers.PEERS_TABLE["floor-lines"] = (floor("stream_floor_lines.py"), [])
peers.PEERS_TABLE["floor-markdown"] = (floor("stream_floor.py"), [])
peers.PEERS_TABLE["agent-tui-before"] = (before, [])

if __name__ == "__main__":
    bench.main()
