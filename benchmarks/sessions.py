"""Session persistence: append+fsync per event, reading a long session, refreshing the index.

Run from the repository root (agent-tui installed, e.g. ``pip install -e .``)::

    python3 benchmarks/sessions.py [--events 2000] [--resume-events 10000] [--sessions 200]

Everything happens under a temporary ``AGENT_TUI_HOME`` on the same disk as ``/tmp``
(fsync on tmpfs would be free and say nothing). Three figures, each beside a baseline:

* append: ``SessionStore.append`` per event (redaction, JSON, one ``os.write``, ``os.fsync``),
  p50/p99 over ``--events`` events of a realistic mix, beside raw ``os.write`` + ``os.fsync``
  of the same bytes on another O_APPEND file. Goal: p99 < 2 ms.
* resume: ``read_events`` of a ``--resume-events`` session (plus ``SessionStore.open``,
  which takes the lock and checks the tail), beside reading the file and ``json.loads`` of
  each line alone. Goal: < 0.5 s.
* index: ``SessionIndex`` over ``--sessions`` sessions: cold (no index file: every log read),
  warm (nothing changed: a stat per log), and after one session grew.

Exit 1 when a goal is missed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

APPEND_GOAL_MS = 2.0
RESUME_GOAL_S = 0.5


def event_mix(count: int) -> list[dict[str, Any]]:
    """A session's worth of events: prompts, answers, tool calls and results, usage."""
    output = "".join(
        f"{n:>6}  line {n} of a file the agent read, with some code in it\n" for n in range(40)
    )  # ~2.6 KB, a typical tool result
    big = output * 12  # ~30 KB, the most a tool result gives the model
    events: list[dict[str, Any]] = []
    for i in range(count):
        kind = i % 6
        if kind == 0:
            events.append({"type": "user_message", "text": f"step {i}: please fix the tests"})
        elif kind == 1:
            events.append(
                {
                    "type": "assistant_message",
                    "text": "Reading the file first. " * 8,
                    "tool_calls": [
                        {
                            "id": f"c{i}",
                            "name": "read_file",
                            "arguments": '{"file_path": "src/app.py"}',
                        }
                    ],
                }
            )
        elif kind == 2:
            events.append(
                {
                    "type": "tool_call",
                    "id": f"c{i}",
                    "name": "read_file",
                    "args": {"file_path": "src/app.py"},
                    "summary": "read src/app.py",
                }
            )
        elif kind == 3:
            events.append(
                {
                    "type": "tool_result",
                    "id": f"c{i}",
                    "name": "read_file",
                    "ok": True,
                    "output": big if i % 60 == 3 else output,
                    "display": None,
                    "duration": 0.004,
                }
            )
        elif kind == 4:
            events.append(
                {
                    "type": "usage",
                    "usage": {
                        "prompt_tokens": 1200,
                        "completion_tokens": 80,
                        "total_tokens": 1280,
                        "cost": 0.004,
                    },
                    "session": {
                        "prompt_tokens": 1200 * i,
                        "completion_tokens": 80 * i,
                        "total_tokens": 1280 * i,
                        "cost": 0.004 * i,
                    },
                }
            )
        else:
            events.append({"type": "context", "tokens": 1280 * i, "window": 200_000})
    return events


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def bench_append(count: int, project: Path) -> tuple[list[float], list[float]]:
    """Per event, our append and then the raw write+fsync of the same line, in turn, so
    both see the same disk."""
    from agent_tui.core import paths
    from agent_tui.core.sessions.log import SessionStore, encode_record

    ours: list[float] = []
    raw: list[float] = []
    paths.sessions_dir().mkdir(parents=True, exist_ok=True)
    fd = os.open(paths.sessions_dir() / "raw.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        with SessionStore.create("append", project=project, model="m") as store:
            for event in event_mix(count):
                start = time.perf_counter()
                store.append(event)
                ours.append(time.perf_counter() - start)
                line = encode_record(event | {"ts": time.time()})
                start = time.perf_counter()
                os.write(fd, line)
                os.fsync(fd)
                raw.append(time.perf_counter() - start)
    finally:
        os.close(fd)
    return ours, raw


def bench_resume(count: int, project: Path, runs: int = 5) -> dict[str, float]:
    import json

    from agent_tui.core.sessions.log import SessionStore, encode_record, log_path, read_events

    with SessionStore.create("resume", project=project, model="m") as store:
        # written in one go: this measures reading, and 10,000 fsyncs would take a while
        store._write(b"".join(encode_record(e | {"ts": time.time()}) for e in event_mix(count)))
    path = log_path("resume")

    def baseline() -> None:
        lines = path.read_bytes().split(b"\n")
        [json.loads(line) for line in lines if line]

    def resume() -> None:
        with SessionStore.open("resume"):
            read_events("resume")

    figures = {
        "read_events": min(timed(lambda: read_events("resume")) for _ in range(runs)),
        "open + read_events": min(timed(resume) for _ in range(runs)),
        "baseline": min(timed(baseline) for _ in range(runs)),
        "size": path.stat().st_size,
    }
    assert len(read_events("resume").events) == count
    return figures


def bench_index(sessions: int, project: Path) -> dict[str, float]:
    from agent_tui.core import paths
    from agent_tui.core.sessions.index import SessionIndex
    from agent_tui.core.sessions.log import SessionStore, encode_record

    events = event_mix(60)
    for n in range(sessions):
        with SessionStore.create(f"idx{n:04}", project=project, model="m") as store:
            store._write(b"".join(encode_record(e | {"ts": time.time()}) for e in events))
    db = paths.sessions_dir() / "index.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)

    start = time.perf_counter()
    index = SessionIndex()
    cold = time.perf_counter() - start
    assert len(index.list()) >= sessions
    warm = min(timed(index.refresh) for _ in range(5))
    with SessionStore.open("idx0000") as store:
        store.append({"type": "user_message", "text": "one more thing"})
    one = timed(index.refresh)
    search_all = min(timed(lambda: index.search("fix tests")) for _ in range(5))
    search_one = min(timed(lambda: index.search("one more thing")) for _ in range(5))
    assert [s.id for s in index.search("one more thing")] == ["idx0000"]
    index.close()
    return {"cold": cold, "warm": warm, "one": one, "all": search_all, "single": search_one}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--resume-events", type=int, default=10_000)
    parser.add_argument("--sessions", type=int, default=200)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="agent-tui-bench-sessions-", dir="/tmp") as home:
        os.environ["AGENT_TUI_HOME"] = home
        project = Path(home) / "project"
        project.mkdir()
        ours, raw = bench_append(args.events, project)
        resume = bench_resume(args.resume_events, project)
        index = bench_index(args.sessions, project)

    ms = 1000.0
    p99 = percentile(ours, 0.99) * ms
    append_ok = p99 < APPEND_GOAL_MS
    resume_ok = resume["open + read_events"] < RESUME_GOAL_S
    print(f"Sessions ({sys.platform}, {os.cpu_count()} CPUs)")
    print(f"{'':44}{'p50':>9}{'p99':>9}{'max':>9}")
    for name, values in (
        (f"append+fsync, {args.events:,} events", ours),
        ("baseline: os.write+os.fsync", raw),
    ):
        print(
            f"{name:44}{statistics.median(values) * ms:>7.2f}ms"
            f"{percentile(values, 0.99) * ms:>7.2f}ms{max(values) * ms:>7.2f}ms"
        )
    print(f"  goal p99 < {APPEND_GOAL_MS} ms: {'PASS' if append_ok else 'MISS'}")
    print()
    print(f"resume, {args.resume_events:,} events ({resume['size'] / 1e6:.1f} MB), best of 5")
    print(f"  {'read_events':42}{resume['read_events'] * ms:>7.1f}ms")
    print(f"  {'SessionStore.open + read_events':42}{resume['open + read_events'] * ms:>7.1f}ms")
    print(f"  {'baseline: read + json.loads per line':42}{resume['baseline'] * ms:>7.1f}ms")
    print(f"  goal < {RESUME_GOAL_S * ms:.0f} ms: {'PASS' if resume_ok else 'MISS'}")
    print()
    print(f"index, {args.sessions} sessions of 60 events")
    print(f"  {'cold (no index.sqlite: every log read)':42}{index['cold'] * ms:>7.1f}ms")
    print(f"  {'refresh, nothing changed':42}{index['warm'] * ms:>7.1f}ms")
    print(f"  {'refresh, one session grew':42}{index['one'] * ms:>7.1f}ms")
    print(f"  {'search, 2,000 messages match':42}{index['all'] * ms:>7.1f}ms")
    print(f"  {'search, one message matches':42}{index['single'] * ms:>7.1f}ms")
    return 0 if append_ok and resume_ok else 1


if __name__ == "__main__":
    sys.exit(main())
