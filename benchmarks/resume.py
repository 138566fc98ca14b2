"""Resuming a 10,000-event session in the workbench: time until its transcript is on screen.

Builds a recorded session of 10,000 events (user prompts, answers, tool calls and results),
then measures, in-process with Textual's headless driver: opening and reading the log, and
the workbench from start to the first frame that shows the resumed transcript. Baseline in
the same run: the same workbench starting with no session to restore.
Goal: under 0.5 s to the first frame of the transcript.

Usage: python3 benchmarks/resume.py [--runs N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

GOAL_S = 0.5


def build_session(project: Path, events: int) -> str:
    from agent_tui.core.sessions.log import SessionStore

    store = SessionStore.create("bench-resume", project=project, model="openai/bench")
    written = 0
    turn = 0
    while written < events:
        turn += 1
        store.append({"type": "user_message", "text": f"prompt {turn}: look at module {turn}"})
        store.append({"type": "assistant_message", "text": "",
                      "tool_calls": [{"id": f"c{turn}", "name": "read_file",
                                      "arguments": '{"file_path": "m.py"}'}]})
        store.append({"type": "tool_call", "id": f"c{turn}", "name": "read_file",
                      "args": {"file_path": "m.py"}, "summary": "read_file m.py"})
        store.append({"type": "tool_result", "id": f"c{turn}", "name": "read_file", "ok": True,
                      "output": "x = 1\n" * 40, "display": None, "duration": 0.01})
        store.append({"type": "assistant_message", "text": f"Module {turn} sets **x**.",
                      "tool_calls": []})
        written += 5
    store.close()
    return store.session_id


async def first_frame(project: Path, session_id: str | None) -> float:
    from agent_tui.core.config import Settings
    from agent_tui.core.sessions.start import close_session, open_session
    from agent_tui.tui.app import make_app
    from agent_tui.tui.widgets.conversation import UserBlock

    start = time.perf_counter()
    opened = open_session(project, "openai/bench", resume=session_id)
    app = make_app(Settings(model="openai/bench"), project, load_litellm=False, session=opened)
    async with app.run_test(size=(120, 40)) as pilot:
        while session_id and not app.query(UserBlock):
            await pilot.pause(0.005)
        elapsed = time.perf_counter() - start
    close_session(opened)
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--events", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as project:
        os.environ["AGENT_TUI_HOME"] = home
        session_id = build_session(Path(project), args.events)
        from agent_tui.core.sessions.log import read_events

        reads = []
        for _ in range(args.runs):
            start = time.perf_counter()
            read_events(session_id)
            reads.append(time.perf_counter() - start)
        resumed = [asyncio.run(first_frame(Path(project), session_id))
                   for _ in range(args.runs)]
        fresh = [asyncio.run(first_frame(Path(project), None)) for _ in range(args.runs)]
    rows = [(f"read_events ({args.events:,} events)", reads),
            ("workbench, resumed, to transcript", resumed),
            ("workbench, new session (baseline)", fresh)]
    print(f"{'':38}{'median':>10}{'min':>10}")
    for label, values in rows:
        print(f"{label:38}{statistics.median(values) * 1000:>8.0f}ms"
              f"{min(values) * 1000:>8.0f}ms")
    median = statistics.median(resumed)
    verdict = "PASS" if median <= GOAL_S else "MISS"
    print(f"goal: the resumed transcript on screen within {GOAL_S * 1000:.0f} ms -> {verdict} "
          f"({median * 1000:.0f} ms; the process start-up is benchmarks/tui_startup.py's)")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
