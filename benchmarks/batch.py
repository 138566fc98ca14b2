"""agent-tui batch against sequential headless runs, same tasks, same run.

Run from the repository root (agent-tui installed, e.g. ``pip install -e .``)::

    python3 benchmarks/batch.py [--tasks 40] [--workers 2]

Each task asks the agent for three tool calls (read_file) and an answer, from a fake
OpenAI-compatible provider (tests/fakes/providers.py, through real litellm and HTTP) that
answers at once. Printed side by side:

* ``agent-tui batch tasks.jsonl --workers N``: wall time, and the peak memory of each worker;
* the same tasks as ``agent-tui -p`` runs one after another (each pays Python's and litellm's
  start-up), wall time and peak memory of a run.

Goal: the batch at least 3x faster. Exits 1 when a run fails.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.fakes.providers import FakeProvider, RecordedRequest, Reply, ToolCall  # noqa: E402

TOOL_CALLS = 3
GOAL = 3.0


def respond(request: RecordedRequest) -> Reply:
    """Three read_file calls, then the answer, whichever task asks."""
    if len(request.tool_results()) < TOOL_CALLS:
        return Reply(tool_calls=[ToolCall("read_file", {"file_path": "notes.txt"})])
    return Reply(text=f"done: {request.last_user_text()}")


def agent_flags(fake: FakeProvider) -> list[str]:
    return ["--model", "openai/fake-model", "--api-base", fake.openai_base,
            "--api-key", "sk-bench"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=40)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch, FakeProvider(responder=respond) as fake:
        folder = Path(scratch)
        (folder / "notes.txt").write_text("benchmark notes\n" * 5)
        env = {k: v for k, v in os.environ.items()
               if not k.endswith("_API_KEY") and not k.startswith("AGENT_TUI_")}
        env["AGENT_TUI_HOME"] = str(folder / ".home")
        tasks = folder / "tasks.jsonl"
        tasks.write_text("".join(json.dumps({"id": f"t{n}", "prompt": f"task {n}"}) + "\n"
                                 for n in range(args.tasks)))
        command = [sys.executable, "-m", "agent_tui.tui.cli.main"]

        started = time.monotonic()
        batch = subprocess.run([*command, "batch", str(tasks), "--workers", str(args.workers),
                                *agent_flags(fake)], cwd=folder, env=env, capture_output=True,
                               text=True)
        batch_s = time.monotonic() - started
        if batch.returncode != 0:
            print(batch.stderr, file=sys.stderr)
            return 1
        results = [json.loads(line) for line in
                   (folder / "tasks.results.jsonl").read_text().splitlines()]
        peaks: dict[int, float] = {}
        for result in results:
            assert result["status"] == "done" and result["model_calls"] == TOOL_CALLS + 1, result
            peaks[result["worker_pid"]] = max(peaks.get(result["worker_pid"], 0.0),
                                              result["worker_peak_mb"])

        started = time.monotonic()
        for n in range(args.tasks):
            run = subprocess.run([*command, "-p", f"task {n}", *agent_flags(fake)], cwd=folder,
                                 env=env, capture_output=True, text=True)
            if run.returncode != 0:
                print(run.stderr, file=sys.stderr)
                return 1
        sequential_s = time.monotonic() - started
        # The peak of one agent-tui -p run, measured in a process of its own.
        probe = subprocess.run(
            [sys.executable, "-c", "import resource, subprocess, sys; "
             "subprocess.run(sys.argv[1:], capture_output=True); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)",
             *command, "-p", "task probe", *agent_flags(fake)],
            cwd=folder, env=env, capture_output=True, text=True)
        run_peak = int(probe.stdout.strip() or 0) / 1024

    speedup = sequential_s / batch_s
    print(f"{args.tasks} tasks of {TOOL_CALLS} tool calls each, same fake provider, same run\n")
    print(f"{'':<44}{'wall s':>9}{'per task s':>12}")
    print(f"{f'agent-tui batch --workers {args.workers}':<44}{batch_s:>9.1f}"
          f"{batch_s / args.tasks:>12.2f}")
    print(f"{f'{args.tasks} x agent-tui -p, one after another':<44}{sequential_s:>9.1f}"
          f"{sequential_s / args.tasks:>12.2f}")
    verdict = "PASS" if speedup >= GOAL else "MISS"
    print(f"\nspeed-up {speedup:.1f}x (goal >= {GOAL:.0f}x): {verdict}")
    print("peak memory: each batch worker " + ", ".join(f"{mb:.0f} MB" for mb in peaks.values())
          + f"; one agent-tui -p run {run_peak:.0f} MB")
    return 0 if speedup >= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
