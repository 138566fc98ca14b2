"""Graded batch tasks: the local worker pool beside Ray beside sequential ``agent-tui -p``.

Run from the repository root (agent-tui installed, e.g. ``pip install -e .``; Ray's part needs
``pip install 'agent-tui[ray]'`` and is skipped, saying so, without it)::

    python3 benchmarks/batch.py [--tasks 40] [--workers 2] [--rounds 2]
    python3 benchmarks/batch.py --quick          # 10 tasks, one round

Each task has a folder of its own with an ``input.txt``; its line in the tasks file gives a
``setup`` (``rm -f result.txt``), a ``check`` (``result.txt`` holds exactly the line the
agent was to write, and ``input.txt`` is intact) and a ``timeout``. The model, a fake
OpenAI-compatible provider (tests/fakes/providers.py, through real litellm and HTTP) that
answers at once, makes three tool calls per task (read ``input.txt``, write ``result.txt``,
read it back) and then answers. Measured in the same run, taking turns (pool, Ray,
sequential, Ray, pool for two rounds):

* (a) ``agent-tui batch TASKS --workers N``: the local pool;
* (b) ``agent-tui batch TASKS --ray ADDRESS``: a Ray cluster started here for the benchmark
  (``ray start --head --num-cpus N`` on loopback, free ports, its own temporary folder),
  already running when the batch starts, as a user's cluster would be; stopped at the end;
* (c) the same tasks as ``agent-tui -p`` runs one after another, each in its task's folder,
  with the same setup and check commands run around it.

Printed: wall times and ratios (goals: Ray within 1.3x of the pool; both at least 10x faster
than sequential), and peak memory: each batch worker's (``worker_peak_mb`` in the results)
beside one ``-p`` run's (its ``ru_maxrss``, from ``wait4``); goal: within 10 %. Beside them, the
peak of a Ray worker that ran an empty task (Ray's own share of a Ray worker). Every task
must pass its check in every mode. Exits 1 when a run fails or a goal is missed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.local_ray import (  # noqa: E402
    RayClusterError,
    bare_worker_peak_mb,
    ray_cluster,
    ray_missing,
)
from tests.fakes.providers import FakeProvider, RecordedRequest, Reply, ToolCall  # noqa: E402

TOOL_CALLS = 3
SPEEDUP_GOAL = 10.0
RAY_GOAL = 1.3
MEMORY_GOAL = 0.10
TASK_TIMEOUT_S = 120
RUN_TIMEOUT_S = 900
_TASK_ID = re.compile(r"\btask (t\d+)\b")


class BenchError(Exception):
    """A measured run failed; the message says which and carries its output."""


# --------------------------------------------------------------------------
# The tasks and the fake model
# --------------------------------------------------------------------------


def expected_line(task_id: str) -> str:
    """What the model writes into the task's result.txt, and its check looks for."""
    return f"{task_id} done"


def respond(request: RecordedRequest) -> Reply:
    """Read input.txt, write result.txt, read it back, then answer: whichever task asks."""
    match = _TASK_ID.search(request.last_user_text())
    task_id = match.group(1) if match else "unknown"
    step = len(request.tool_results())
    if step == 0:
        return Reply(tool_calls=[ToolCall("read_file", {"file_path": "input.txt"})])
    if step == 1:
        return Reply(
            tool_calls=[
                ToolCall(
                    "write_file",
                    {"file_path": "result.txt", "content": expected_line(task_id) + "\n"},
                )
            ]
        )
    if step == 2:
        return Reply(tool_calls=[ToolCall("read_file", {"file_path": "result.txt"})])
    return Reply(text=f"{task_id}: result.txt written and checked.")


@dataclass(frozen=True)
class BenchTask:
    """One graded task as the tasks file gives it."""

    id: str
    folder: Path
    prompt: str
    setup: str
    check: str

    def line(self, base: Path) -> dict[str, Any]:
        """Its line in the tasks file."""
        return {
            "id": self.id,
            "prompt": self.prompt,
            "folder": str(self.folder.relative_to(base)),
            "setup": self.setup,
            "check": self.check,
            "timeout": TASK_TIMEOUT_S,
        }


def make_tasks(base: Path, count: int) -> list[BenchTask]:
    """``count`` task folders under ``base``/tasks and the tasks file beside them."""
    tasks = []
    for n in range(count):
        task_id = f"t{n:02d}"
        folder = base / "tasks" / task_id
        folder.mkdir(parents=True)
        (folder / "input.txt").write_text(f"input of {task_id}\n")
        check = (
            f"grep -qx {shlex.quote(expected_line(task_id))} result.txt && "
            f"grep -qx {shlex.quote(f'input of {task_id}')} input.txt"
        )
        tasks.append(
            BenchTask(
                task_id,
                folder,
                f"task {task_id}: read input.txt, then write result.txt.",
                "rm -f result.txt",
                check,
            )
        )
    (base / "tasks.jsonl").write_text("".join(json.dumps(task.line(base)) + "\n" for task in tasks))
    return tasks


# --------------------------------------------------------------------------
# Commands and environment
# --------------------------------------------------------------------------


def agent_tui_command() -> list[str]:
    """The installed console script beside this interpreter (not a pyenv shim)."""
    beside = Path(sys.executable).with_name("agent-tui")
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which("agent-tui")
    if found:
        return [found]
    raise BenchError("agent-tui is not installed; run `python3 -m pip install -e .` first.")


def clean_env(home: Path) -> dict[str, str]:
    """The parent environment without API keys or agent-tui settings, with a fresh home."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and not k.startswith(("AGENT_TUI_", "RAY_"))
    }
    env["AGENT_TUI_HOME"] = str(home)
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    return env


def agent_flags(fake: FakeProvider) -> list[str]:
    return [
        "--model",
        "openai/fake-model",
        "--api-base",
        fake.openai_base,
        "--api-key",
        "sk-bench",
        "--approval-mode",
        "auto-edit",
    ]


def run_checked(
    label: str, argv: list[str], env: dict[str, str], cwd: Path, timeout: float = RUN_TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    """Run ``argv``; raise BenchError with its output unless it exits 0."""
    try:
        done = subprocess.run(
            argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired as exc:
        raise BenchError(f"{label}: timed out after {timeout:g} s\n{exc.stderr or ''}") from None
    if done.returncode != 0:
        raise BenchError(
            f"{label}: exit code {done.returncode}\n--- command: "
            f"{shlex.join(argv)}\n--- stderr:\n{done.stderr[-4000:]}"
            f"--- stdout:\n{done.stdout[-2000:]}"
        )
    return done


# --------------------------------------------------------------------------
# The three ways to run the tasks
# --------------------------------------------------------------------------


@dataclass
class Measured:
    """One run of all the tasks."""

    wall_s: float
    peaks_mb: list[float] = field(default_factory=list)  # one per worker (or per -p run)
    task_s: list[float] = field(default_factory=list)  # each task's own time, as measured


def run_batch(
    label: str,
    extra: list[str],
    tasks: list[BenchTask],
    base: Path,
    results: Path,
    env: dict[str, str],
    fake: FakeProvider,
) -> Measured:
    """``agent-tui batch`` over the tasks file, every task checked as passed."""
    argv = [
        *agent_tui_command(),
        "batch",
        str(base / "tasks.jsonl"),
        "--output",
        str(results),
        *extra,
        *agent_flags(fake),
    ]
    started = time.perf_counter()
    run_checked(label, argv, env, base)
    wall = time.perf_counter() - started
    lines = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    by_id = {line["id"]: line for line in lines}
    peaks: dict[Any, float] = {}
    task_s = []
    for task in tasks:
        result = by_id.get(task.id)
        if result is None:
            raise BenchError(f"{label}: no result for {task.id} in {results}")
        if (
            result.get("status") != "done"
            or result.get("passed") is not True
            or result.get("model_calls") != TOOL_CALLS + 1
        ):
            raise BenchError(f"{label}: {task.id} did not pass: {json.dumps(result)[:1500]}")
        task_s.append(float(result.get("wall_time") or 0.0))
        worker = result.get("node_id", ""), result.get("worker_pid")
        if isinstance(result.get("worker_peak_mb"), int | float):
            peaks[worker] = max(peaks.get(worker, 0.0), float(result["worker_peak_mb"]))
    return Measured(wall, list(peaks.values()), task_s)


def run_sequential(tasks: list[BenchTask], env: dict[str, str], fake: FakeProvider) -> Measured:
    """Each task as its own ``agent-tui -p`` run, setup and check around it, one by one."""
    peaks, task_s = [], []
    started = time.perf_counter()
    for task in tasks:
        task_started = time.perf_counter()
        run_checked(f"setup of {task.id}", ["sh", "-c", task.setup], env, task.folder)
        peaks.append(
            _run_measuring_peak(
                f"agent-tui -p ({task.id})",
                [
                    *agent_tui_command(),
                    "-p",
                    task.prompt,
                    "--output-format",
                    "json",
                    *agent_flags(fake),
                ],
                env,
                task.folder,
            )
        )
        run_checked(f"check of {task.id}", ["sh", "-c", task.check], env, task.folder)
        task_s.append(time.perf_counter() - task_started)
    return Measured(time.perf_counter() - started, peaks, task_s)


def _run_measuring_peak(label: str, argv: list[str], env: dict[str, str], cwd: Path) -> float:
    """Run ``argv`` to its end; its peak resident memory in MB (``wait4``'s ru_maxrss)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(
            argv, env=env, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL
        )
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            err.seek(0)
            raise BenchError(
                f"{label}: exit code {process.returncode}\n--- stderr:\n"
                f"{err.read().decode(errors='replace')[-4000:]}"
            )
    return usage.ru_maxrss / 1024


# --------------------------------------------------------------------------
# The run and the report
# --------------------------------------------------------------------------


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def load_average() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.2f} / {five:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, help="graded tasks (default 40; 10 with --quick)")
    parser.add_argument(
        "--workers",
        type=int,
        default=2,
        help="pool workers, and the CPUs of the Ray node (default 2)",
    )
    parser.add_argument(
        "--rounds", type=int, help="runs of the pool and of Ray each (default 2; 1 with --quick)"
    )
    parser.add_argument("--quick", action="store_true", help="10 tasks, one round")
    parser.add_argument("--no-ray", action="store_true", help="leave Ray's part out")
    args = parser.parse_args()
    count = args.tasks or (10 if args.quick else 40)
    rounds = args.rounds or (1 if args.quick else 2)
    no_ray = "--no-ray was given" if args.no_ray else ray_missing()
    try:
        with (
            tempfile.TemporaryDirectory(prefix="batch-bench-") as scratch,
            FakeProvider(responder=respond) as fake,
            contextlib.ExitStack() as stack,
        ):
            base = Path(scratch)
            tasks = make_tasks(base, count)
            env = clean_env(base / "home")
            address = None if no_ray else stack.enter_context(ray_cluster(args.workers, env))
            return measure(args.workers, rounds, tasks, base, env, fake, address, no_ray)
    except (BenchError, RayClusterError) as exc:
        print(f"benchmark failed: {exc}", file=sys.stderr)
        return 1


def measure(
    workers: int,
    rounds: int,
    tasks: list[BenchTask],
    base: Path,
    env: dict[str, str],
    fake: FakeProvider,
    address: str | None,
    no_ray: str | None,
) -> int:
    """Run the modes in turn (pool, Ray, …, sequential in the middle); print the report."""
    pool: list[Measured] = []
    ray: list[Measured] = []
    sequential: Measured | None = None
    loads = [load_average()]
    for n in range(rounds):
        order = ["pool", "ray"] if n % 2 == 0 else ["ray", "pool"]
        for mode in order:
            if mode == "pool":
                pool.append(
                    run_batch(
                        f"pool round {n + 1}",
                        ["--workers", str(workers)],
                        tasks,
                        base,
                        base / f"pool-{n}.jsonl",
                        env,
                        fake,
                    )
                )
                print(f"pool, round {n + 1}: {pool[-1].wall_s:.1f} s", flush=True)
            elif address is not None:
                ray.append(
                    run_batch(
                        f"ray round {n + 1}",
                        ["--ray", address],
                        tasks,
                        base,
                        base / f"ray-{n}.jsonl",
                        env,
                        fake,
                    )
                )
                print(f"Ray, round {n + 1}: {ray[-1].wall_s:.1f} s", flush=True)
        if n == (rounds - 1) // 2:
            sequential = run_sequential(tasks, env, fake)
            print(f"sequential: {sequential.wall_s:.1f} s", flush=True)
    loads.append(load_average())
    assert sequential is not None
    bare = bare_worker_peak_mb(address, env) if address is not None else None
    return report(workers, len(tasks), pool, ray, sequential, no_ray, loads, bare)


def report(
    workers: int,
    count: int,
    pool: list[Measured],
    ray: list[Measured],
    sequential: Measured,
    no_ray: str | None,
    loads: list[str],
    ray_bare_mb: float | None,
) -> int:
    """Print the figures and verdicts; 0 when every goal is met."""
    pool_s = median([m.wall_s for m in pool])
    rows = [(f"local pool, agent-tui batch --workers {workers}", pool, pool_s)]
    if ray:
        rows.append(
            (
                f"Ray, agent-tui batch --ray (1 node, {workers} CPUs)",
                ray,
                median([m.wall_s for m in ray]),
            )
        )
    print(
        f"\n{count} graded tasks of {TOOL_CALLS} tool calls each (setup, agent, check), "
        f"same fake provider, same run; load average (1 / 5 min) {loads[0]} before, "
        f"{loads[1]} after\n"
    )
    print(f"{'':<48}{'wall s':>9}{'wall / task':>13}{'a task, median':>16}   runs, s")
    for label, runs, wall in rows:
        each = ", ".join(f"{m.wall_s:.1f}" for m in runs)
        one = median([s for m in runs for s in m.task_s])
        print(f"{label:<48}{wall:>9.1f}{wall / count:>13.2f}{one:>16.2f}   {each}")
    print(
        f"{f'{count} x agent-tui -p, one after another':<48}{sequential.wall_s:>9.1f}"
        f"{sequential.wall_s / count:>13.2f}{median(sequential.task_s):>16.2f}"
        f"   {sequential.wall_s:.1f}"
    )
    print(
        "(a task, median: its wall_time in the results, setup to check, inside a warm "
        "worker; for -p, setup + the whole process + check)"
    )

    met = []
    print()
    pool_speedup = sequential.wall_s / pool_s
    met.append(pool_speedup >= SPEEDUP_GOAL)
    print(
        f"pool: {pool_speedup:.1f}x faster than sequential (goal >= {SPEEDUP_GOAL:.0f}x): "
        f"{verdict(met[-1])}"
    )
    run_peak = median(sequential.peaks_mb)
    peak_rows = [("pool worker", [p for m in pool for p in m.peaks_mb])]
    if ray:
        ray_s = rows[1][2]
        met.append(sequential.wall_s / ray_s >= SPEEDUP_GOAL)
        print(
            f"Ray: {sequential.wall_s / ray_s:.1f}x faster than sequential "
            f"(goal >= {SPEEDUP_GOAL:.0f}x): {verdict(met[-1])}"
        )
        met.append(ray_s / pool_s <= RAY_GOAL)
        print(f"Ray / pool: {ray_s / pool_s:.2f}x (goal <= {RAY_GOAL}x): {verdict(met[-1])}")
        peak_rows.append(("Ray worker", [p for m in ray for p in m.peaks_mb]))
    else:
        print(f"Ray: skipped ({no_ray})")

    print(
        f"\npeak memory (MB): one agent-tui -p run, median {run_peak:.0f} "
        f"(min {min(sequential.peaks_mb):.0f}, max {max(sequential.peaks_mb):.0f})"
    )
    for label, peaks in peak_rows:
        if not peaks:
            met.append(False)
            print(f"{label}: no worker_peak_mb in the results: MISS")
            continue
        worst = max(peaks)
        met.append(worst <= run_peak * (1 + MEMORY_GOAL))
        print(
            f"{label}: {', '.join(f'{p:.0f}' for p in peaks)}; highest {worst:.0f} = "
            f"{worst / run_peak - 1:+.1%} of a -p run (goal within {MEMORY_GOAL:.0%}): "
            f"{verdict(met[-1])}"
        )
    if ray_bare_mb is not None:
        print(f"(a Ray worker that ran an empty task, Ray's own share: {ray_bare_mb:.0f})")
    return 0 if all(met) else 1


if __name__ == "__main__":
    sys.exit(main())
