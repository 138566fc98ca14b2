#!/usr/bin/env python3
"""The floor with its answer drawn as plain wrapped lines (see `stream_floor.py`): run it where
the peers harness runs agent-tui, `AGENT_TUI=/work/main/benchmarks/stream_floor_lines.py`."""

import sys

from stream_floor import main

if __name__ == "__main__":
    sys.exit(main(view="lines"))
