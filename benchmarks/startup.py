"""How fast agent-tui starts and how much it adds per model turn, beside baselines.

Run from the repository root (agent-tui installed, e.g. ``pip install -e .``)::

    python3 benchmarks/startup.py [--runs N] [--repeats R]

Every figure is printed beside a baseline measured in the same run, on the same machine:

* ``agent-tui --version`` wall time vs ``python -c pass`` (median and min over ``--runs``
  runs, after 2 warm-ups). Goal: within 100 ms of ``python -c pass``.
* a headless ``agent-tui -p`` run of a 10-tool-call task against an instant fake provider
  (tests/fakes/providers.py, spoken to through real litellm), split into
    - start-up: process launch -> first request arriving at the fake,
      vs ``python -c "import litellm"``;
    - per-turn overhead: mean gap between consecutive requests (everything agent-tui and
      litellm do between two model calls, running the tool included),
      vs a bare ``litellm.acompletion`` loop against the same kind of fake; also the
      median gap, since the first gap carries one-time costs (~200 ms in litellm);
    - exit: last request -> process gone (mostly CPython tearing down litellm's ~2,700
      modules), vs the same span of the bare loop and of ``import litellm``;
    - total wall time, vs the bare loop's.
  The start-up is also shown beside ``import litellm``'s launch -> imported and the bare
  loop's launch -> first request, the like-for-like figures (the wall time of
  ``import litellm`` includes ~1 s of interpreter exit). ``--repeats`` rounds of the three
  runs, interleaved; medians are reported.

Exits 1 when a run fails (its stderr is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.fakes.providers import (  # noqa: E402
    FakeProvider,
    RecordedRequest,
    Reply,
    ToolCall,
)

TOOL_CALLS = 10
FINAL_TEXT = "All ten reads done."
GOAL_MS = 100.0
SMALL_FILE = "notes.txt"
SMALL_TEXT = "benchmark notes\n" * 5


class BenchError(Exception):
    """A measured run failed; the message says which and carries its stderr."""


# --------------------------------------------------------------------------
# Commands and environment
# --------------------------------------------------------------------------


def real_python() -> str:
    """The interpreter itself, not a pyenv/asdf shim (a shim is a shell script that
    costs ~100 ms on its own and would drown both figures)."""
    return os.path.realpath(sys.executable)


def agent_tui_command() -> list[str]:
    """The installed console script, preferably the one beside this interpreter."""
    beside = Path(sys.executable).with_name("agent-tui")
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which("agent-tui")
    if found:
        return [found]
    raise BenchError("agent-tui is not installed; run `python3 -m pip install -e .` first.")


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """The parent environment without API keys or agent-tui settings, with a fresh home."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and not k.startswith("AGENT_TUI_")
    }
    env["AGENT_TUI_HOME"] = str(home)
    # The fake is on 127.0.0.1; a proxy from the environment must not sit in between.
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    env.update(extra)
    return env


def run_checked(
    label: str, argv: list[str], env: dict[str, str], cwd: Path, timeout: float = 300
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
            f"{label}: exit code {done.returncode}\n"
            f"--- command: {' '.join(argv)}\n--- stderr:\n{done.stderr}"
            f"--- stdout:\n{done.stdout}"
        )
    return done


def timed(label: str, argv: list[str], env: dict[str, str], cwd: Path) -> float:
    """Wall time of one checked run, in seconds."""
    start = time.perf_counter()
    run_checked(label, argv, env, cwd)
    return time.perf_counter() - start


# --------------------------------------------------------------------------
# The instant fake provider
# --------------------------------------------------------------------------


def tool_task_responder(file_path: str) -> Callable[[RecordedRequest], Reply]:
    """Answers the first TOOL_CALLS requests with one read_file call each, then text."""
    count = 0

    def respond(request: RecordedRequest) -> Reply:
        nonlocal count
        count += 1
        if count <= TOOL_CALLS:
            return Reply(tool_calls=[ToolCall("read_file", {"file_path": file_path})])
        return Reply(text=FINAL_TEXT)

    return respond


def model_requests(fake: FakeProvider) -> list[RecordedRequest]:
    return [r for r in fake.requests if r.method == "POST"]


@dataclass
class Timeline:
    """One run against the fake, in seconds."""

    startup: float  # process launch -> first request at the fake
    gap: float  # mean time between consecutive requests
    steady_gap: float  # median of those gaps: the first one carries one-time costs
    exit: float  # last request at the fake -> process gone
    total: float  # process launch -> process gone


def timeline(start: float, end: float, requests: list[RecordedRequest]) -> Timeline:
    arrivals = [r.received_at for r in requests]
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:], strict=False)]
    return Timeline(
        startup=arrivals[0] - start,
        gap=statistics.fmean(gaps),
        steady_gap=statistics.median(gaps),
        exit=end - arrivals[-1],
        total=end - start,
    )


def check_requests(label: str, requests: list[RecordedRequest]) -> None:
    """The task really ran: 11 model calls, the last one carrying 10 read results."""
    if len(requests) != TOOL_CALLS + 1:
        raise BenchError(f"{label}: the fake got {len(requests)} requests, not {TOOL_CALLS + 1}")
    results = requests[-1].tool_results()
    if len(results) != TOOL_CALLS:
        raise BenchError(f"{label}: the last request carried {len(results)} tool results")


# --------------------------------------------------------------------------
# The measurements
# --------------------------------------------------------------------------


def measure_version(runs: int, work: Path) -> dict[str, list[float]]:
    """``agent-tui --version`` and ``python -c pass``, interleaved so drift hits both."""
    env = clean_env(work / "home")
    commands = {
        "version": [*agent_tui_command(), "--version"],
        "python": [real_python(), "-c", "pass"],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for i in range(2 + runs):
        for name, argv in commands.items():
            elapsed = timed(" ".join([Path(argv[0]).name, *argv[1:]]), argv, env, work)
            if i >= 2:  # two warm-ups
                times[name].append(elapsed)
    return times


def measure_headless(work: Path) -> Timeline:
    """One headless run of the 10-tool task."""
    project = Path(tempfile.mkdtemp(prefix="project-", dir=work))
    (project / SMALL_FILE).write_text(SMALL_TEXT)
    env = clean_env(Path(tempfile.mkdtemp(prefix="home-", dir=work)))
    with FakeProvider(responder=tool_task_responder(SMALL_FILE)) as fake:
        argv = [
            *agent_tui_command(),
            "-p",
            f"Read {SMALL_FILE} ten times, one read_file call at a time, then say you are done.",
            "--output-format",
            "json",
            "--approval-mode",
            "yolo",
            "--model",
            "openai/bench",
            "--api-base",
            fake.openai_base,
            "--api-key",
            "sk-bench",
        ]
        start = time.perf_counter()
        done = run_checked("agent-tui -p (headless, 10 tool calls)", argv, env, project)
        end = time.perf_counter()
        requests = model_requests(fake)
    try:
        result = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise BenchError(
            f"agent-tui -p: stdout is not JSON:\n{done.stdout}\n{done.stderr}"
        ) from None
    if not result.get("ok") or result.get("text") != FINAL_TEXT:
        raise BenchError(f"agent-tui -p: unexpected result {result}\n--- stderr:\n{done.stderr}")
    check_requests("agent-tui -p", requests)
    if SMALL_TEXT.splitlines()[0] not in requests[-1].tool_results()[0]["content"]:
        raise BenchError("agent-tui -p: read_file did not return the file's text")
    return timeline(start, end, requests)


def measure_import_litellm(work: Path) -> tuple[float, float]:
    """``python -c "import litellm"`` with the local cost map: (wall time, launch -> imported).

    The child prints ``time.perf_counter()`` once litellm is imported; on Linux (and macOS,
    Windows) that clock is system-wide, so it compares with the parent's.
    """
    env = clean_env(work / "home", LITELLM_LOCAL_MODEL_COST_MAP="True")
    code = "import time, litellm; print(time.perf_counter())"
    start = time.perf_counter()
    done = run_checked('python -c "import litellm"', [real_python(), "-c", code], env, work)
    wall = time.perf_counter() - start
    return wall, float(done.stdout.split()[-1]) - start


# A bare litellm tool loop: 11 streamed calls, the conversation growing by one tool call
# and its result per turn, no agent around it.
BARE_LOOP = r"""
import asyncio, json, sys
import litellm

litellm.suppress_debug_info = True
base, calls = sys.argv[1], int(sys.argv[2])
TOOL = {"type": "function", "function": {
    "name": "read_file", "description": "Read a file.",
    "parameters": {"type": "object", "properties": {"file_path": {"type": "string"}},
                   "required": ["file_path"]}}}

async def main():
    messages = [{"role": "user", "content": "read notes.txt ten times"}]
    for _ in range(calls):
        stream = await litellm.acompletion(
            model="openai/bench", api_base=base, api_key="sk-bench", messages=messages,
            tools=[TOOL], stream=True, stream_options={"include_usage": True},
            max_retries=0, _skip_mcp_handler=True)
        call_id, name, args = None, None, ""
        async for chunk in stream:
            for choice in chunk.choices:
                for call in choice.delta.tool_calls or []:
                    call_id = call.id or call_id
                    name = call.function.name or name
                    args += call.function.arguments or ""
        if call_id is None:
            break
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}]})
        messages.append({"role": "tool", "tool_call_id": call_id, "content": "benchmark notes"})

asyncio.run(main())
"""


def measure_bare_litellm(work: Path) -> Timeline:
    """A bare litellm loop of 11 calls."""
    env = clean_env(work / "home", LITELLM_LOCAL_MODEL_COST_MAP="True")
    with FakeProvider(responder=tool_task_responder(SMALL_FILE)) as fake:
        argv = [real_python(), "-c", BARE_LOOP, fake.openai_base, str(TOOL_CALLS + 1)]
        start = time.perf_counter()
        run_checked("bare litellm loop", argv, env, work)
        end = time.perf_counter()
        requests = model_requests(fake)
    check_requests("bare litellm loop", requests)
    return timeline(start, end, requests)


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def row(label: str, ours: float | None, base: float | None = None, base_label: str = "") -> str:
    """One aligned line: label, ours, baseline, difference, what the baseline is."""
    cells = [
        f"  {label:<29}",
        ms(ours) if ours is not None else " " * 10,
        f"  {ms(base)}" if base is not None else " " * 12,
        f"  {(ours - base) * 1000:+8.1f} ms" if ours is not None and base is not None else " " * 13,
        f"   {base_label}" if base_label else "",
    ]
    return "".join(cells).rstrip()


def litellm_version() -> str:
    try:
        from importlib.metadata import version

        return version("litellm")
    except Exception:
        return "?"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--runs", type=int, default=20, help="--version runs after 2 warm-ups (default 20)"
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="runs of each headless / litellm figure; medians are reported (default 3)",
    )
    args = parser.parse_args(argv)
    if args.runs < 1 or args.repeats < 1:
        parser.error("--runs and --repeats must be at least 1")

    print(
        f"agent-tui start-up benchmark: python {sys.version.split()[0]}, "
        f"litellm {litellm_version()}, {os.cpu_count()} CPUs"
    )
    try:
        print(f"  agent-tui: {agent_tui_command()[0]}\n  python:    {real_python()}")
        with tempfile.TemporaryDirectory(prefix="agent-tui-bench-") as tmp:
            work = Path(tmp)
            (work / "home").mkdir()
            version = measure_version(args.runs, work)
            measure_import_litellm(work)  # warm-up: litellm's files into the page cache
            ours: list[Timeline] = []
            imports: list[tuple[float, float]] = []
            bare: list[Timeline] = []
            for _ in range(args.repeats):  # round-robin, so drift in load hits all three
                ours.append(measure_headless(work))
                imports.append(measure_import_litellm(work))
                bare.append(measure_bare_litellm(work))
    except BenchError as exc:
        print(f"\nFAILED: {exc}", file=sys.stderr)
        return 1

    median = statistics.median

    def med(runs: list[Timeline], field: str) -> float:
        return median(getattr(run, field) for run in runs)

    v_med, p_med = median(version["version"]), median(version["python"])
    head = f"  {'':<29}{'ours':>10}  {'baseline':>10}  {'difference':>11}   baseline"
    print()
    print(f"(a) agent-tui --version: {args.runs} runs after 2 warm-ups")
    print(head)
    print(row("median", v_med, p_med, "python -c pass"))
    print(row("min", min(version["version"]), min(version["python"]), "python -c pass"))
    verdict = "PASS" if v_med - p_med <= GOAL_MS / 1000 else "MISS"
    print(
        f"  goal: within {GOAL_MS:.0f} ms of python -c pass: {verdict} "
        f"({(v_med - p_med) * 1000:+.1f} ms, medians)"
    )
    print()
    print(
        f"(b) agent-tui -p: {TOOL_CALLS} read_file calls + a final answer from an instant fake "
        f"provider; medians of {args.repeats}"
    )
    print(head)
    startup, gap, exit_, total = (med(ours, f) for f in ("startup", "gap", "exit", "total"))
    imp = 'python -c "import litellm"'
    rows = [
        (
            "start-up (launch -> 1st req)",
            startup,
            median(w for w, _ in imports),
            f"{imp}, wall time",
        ),
        ("", startup, median(d for _, d in imports), f"{imp}, launch -> imported"),
        ("", startup, med(bare, "startup"), "bare litellm loop, launch -> 1st request"),
        ("per-turn overhead (mean gap)", gap, med(bare, "gap"), "bare litellm loop, mean gap"),
        (
            "per-turn, steady (median gap)",
            med(ours, "steady_gap"),
            med(bare, "steady_gap"),
            "bare litellm loop, median gap",
        ),
        (
            "exit (last req -> exit)",
            exit_,
            med(bare, "exit"),
            "bare litellm loop, last request -> exit",
        ),
        ("", exit_, median(w - d for w, d in imports), f"{imp}, imported -> exit"),
        (
            f"total ({TOOL_CALLS + 1} model calls)",
            total,
            med(bare, "total"),
            "bare litellm loop, wall time",
        ),
    ]
    for cells in rows:
        print(row(*cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
