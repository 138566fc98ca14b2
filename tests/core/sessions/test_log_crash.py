"""kill -9 of a real writer process: every acknowledged event survives, the log stays valid."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from agent_tui.core import paths
from agent_tui.core.sessions.log import SessionStore, read_events

# Appends numbered events as fast as it can, some of them large (so that a kill can land
# inside a write), and prints each number once append() has returned: that is the moment
# the agent would show the event.
WRITER = """
import sys
from agent_tui.core.sessions.log import SessionStore, read_events
session_id, start = sys.argv[1], int(sys.argv[2])
store = SessionStore.open(session_id)
seq = start
while True:
    size = 300_000 if seq % 7 == 3 else 200
    store.append({"type": "tool_result", "seq": seq, "output": "x" * size})
    print(seq, flush=True)
    seq += 1
"""

# Writes one event, then half of the next line by hand, and waits to be killed.
HALF_WRITER = """
import os, sys, time
from agent_tui.core.sessions.log import SessionStore, log_path
store = SessionStore.open(sys.argv[1])
store.append({"type": "todo", "seq": 0})
fd = os.open(log_path(sys.argv[1]), os.O_WRONLY | os.O_APPEND)
os.write(fd, b'{"type":"todo","seq":1,"content":"never fini')
print("ready", flush=True)
time.sleep(60)
"""


def kill_after(args: list[str], *, lines: int) -> list[str]:
    """Run a writer, SIGKILL it once it printed ``lines`` lines; all it printed."""
    proc = subprocess.Popen(
        [sys.executable, "-c", *args], stdout=subprocess.PIPE, text=True, env=os.environ.copy()
    )
    assert proc.stdout is not None
    printed = []
    try:
        while len(printed) < lines:
            line = proc.stdout.readline()
            assert line, f"the writer stopped early (exit {proc.poll()})"
            printed.append(line.strip())
        os.kill(proc.pid, signal.SIGKILL)
        printed += [line.strip() for line in proc.stdout]  # what it said before dying
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    return printed


def create(session_id: str, tmp_path: Path) -> None:
    SessionStore.create(session_id, project=tmp_path, model="fake/model").close()


def test_sigkill_mid_loop_loses_nothing_acknowledged(tmp_path):
    create("crash", tmp_path)
    torn_seen = 0
    next_seq = 0
    for _ in range(3):  # kill, resume (the dead writer's lock is gone), kill again
        acknowledged = [int(n) for n in kill_after([WRITER, "crash", str(next_seq)], lines=40)]
        log = read_events("crash")
        seqs = [e["seq"] for e in log.events]
        assert seqs == list(range(len(seqs))), "an event in the middle went missing"
        assert seqs[-1] >= acknowledged[-1], "an acknowledged event was lost"
        assert len(log.warnings) <= 1
        if log.warnings:
            torn_seen += 1
            assert log.warnings[0].startswith("the last event was cut off by a crash; ")
        next_seq = seqs[-1] + 1

    with SessionStore.open("crash") as store:
        store.append({"type": "tool_result", "seq": next_seq, "output": "after"})
    log = read_events("crash")
    assert log.warnings == []
    assert [e["seq"] for e in log.events] == list(range(next_seq + 1))
    kept = list(paths.session_dir("crash").glob("torn-*.bin"))
    assert len(kept) == torn_seen  # a torn tail is only ever cut off with a copy kept


def test_sigkill_with_a_half_written_line_then_resume(tmp_path):
    create("half", tmp_path)
    assert kill_after([HALF_WRITER, "half"], lines=1) == ["ready"]

    log = read_events("half")
    assert [e["seq"] for e in log.events] == [0]
    assert log.warnings == [
        "the last event was cut off by a crash; 44 bytes skipped; everything before it is intact"
    ]

    with SessionStore.open("half") as store:
        assert "kept in torn-" in store.warnings[0]
        store.append({"type": "todo", "seq": 1})
        store.append({"type": "todo", "seq": 2})
    log = read_events("half")
    assert log.warnings == [] and [e["seq"] for e in log.events] == [0, 1, 2]
    lines = (paths.session_dir("half") / "events.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 5  # header + 3 events, newline-terminated
