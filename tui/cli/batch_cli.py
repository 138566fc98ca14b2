"""``agent-tui batch TASKS.jsonl --workers N``: independent headless tasks on a pool of
worker processes, one JSON result line per task, resumable.

Each worker (:mod:`.batch_worker`) imports the engine and litellm once and runs task after
task. A worker that dies mid-task fails that task (with the end of its log) and is
replaced; the batch goes on. Nothing here imports textual.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from ...core.modes.batch import (
    Task,
    TasksError,
    append_result,
    finished_ids,
    read_tasks,
    task_failed,
)
from .batch_progress import BatchProgress
from .batch_worker import Worker
from .cli_parser import (
    EXIT_FAILURE,
    EXIT_OK,
    CommandParser,
    build_parser,
    say,
    settings_overrides,
    usage_error,
)


def batch_parser() -> argparse.ArgumentParser:
    """The batch's own options; the agent's flags (``--model``…) follow them."""
    parser = CommandParser(
        prog="agent-tui batch",
        description="Run independent headless tasks from a JSON-lines file on a pool of "
        "workers; write one JSON result per task. Run it again to go on after a stop. "
        "agent-tui batch report RESULTS.jsonl reads the results (see its --help).",
        epilog="Agent flags (--model, --api-base, --api-key, --approval-mode, --max-turns, "
        "--net, --sandbox, …) apply to every task. A task line: {\"id\", \"prompt\", "
        "\"folder\", \"worktree\", \"model\", \"approval_mode\", \"max_turns\", "
        "\"max_cost\", \"setup\", \"check\", \"timeout\"}.")
    parser.add_argument("tasks", type=Path, help="the tasks file (JSON lines)")
    parser.add_argument("--workers", type=int, default=2, metavar="N",
                        help="worker processes (default: 2)")
    parser.add_argument("--output", "-o", type=Path, metavar="FILE",
                        help="results file (default: TASKS with .results.jsonl)")
    parser.add_argument("--retry-failed", action="store_true",
                        help="run again the tasks whose recorded result is a failure (any "
                        "status but done, or a check that did not pass)")
    parser.add_argument("--ray", nargs="?", const="auto", metavar="ADDRESS",
                        help="run each task as a Ray task on the cluster at ADDRESS (HOST:PORT "
                        "or ray://HOST:PORT; alone: RAY_ADDRESS or the cluster `ray start` "
                        "started here) instead of the local workers; needs agent-tui[ray]")
    return parser


def batch_main(argv: list[str]) -> int:
    """``agent-tui batch …`` (the arguments after ``batch``); the exit code."""
    if argv[:1] == ["convert"]:
        from .batch_convert import convert_main

        return convert_main(argv[1:])
    if argv[:1] == ["report"]:
        from .batch_report_cli import report_main

        return report_main(argv[1:])
    parser = batch_parser()
    args, rest = parser.parse_known_args(argv)
    agent_parser = build_parser()
    agent_parser.prog = parser.prog
    agent_args = agent_parser.parse_args(rest)
    if agent_args.prompt is not None or agent_args.path is not None or agent_args.image \
            or agent_args.preview or agent_args.resume is not None or agent_args.continue_latest:
        return usage_error(parser, "the tasks file gives each task's prompt and folder; "
                           "only agent flags such as --model and --approval-mode go here.")
    if args.workers < 1:
        return usage_error(parser, "--workers must be at least 1.")
    tasks_file = args.tasks.expanduser().resolve()
    try:
        tasks = read_tasks(tasks_file, tasks_file.parent)
    except TasksError as exc:
        return usage_error(parser, str(exc))
    results = (args.output or tasks_file.with_suffix(".results.jsonl")).expanduser().resolve()
    done = finished_ids(results, retry_failed=args.retry_failed)
    todo = [task for task in tasks if task.id not in done]
    overrides = {k: v for k, v in settings_overrides(agent_args).items() if v is not None}
    if done:
        say(f"agent-tui batch: {len(tasks) - len(todo)} of {len(tasks)} tasks already have a "
            f"result in {results}; running the other {len(todo)}.")
    if not todo:
        return EXIT_OK
    logs = results.parent / f"{results.stem}.logs"
    if args.ray is not None:
        from .batch_ray import RayBatchError, run_on_ray

        try:
            failed = run_on_ray(todo, overrides, results, logs, args.ray)
        except RayBatchError as exc:
            say(f"agent-tui batch: {exc}")
            return EXIT_FAILURE
    else:
        failed = asyncio.run(run_batch(todo, overrides, results, logs, args.workers))
    say(f"agent-tui batch: {len(todo) - failed} done, {failed} failed; results in {results}")
    return EXIT_FAILURE if failed else EXIT_OK


async def run_batch(tasks: list[Task], overrides: dict[str, Any], results: Path, logs: Path,
                    workers: int) -> int:
    """Run ``tasks`` on ``workers`` processes, appending each result; the number failed."""
    queue: asyncio.Queue[Task] = asyncio.Queue()
    for task in tasks:
        queue.put_nowait(task)
    logs.mkdir(parents=True, exist_ok=True)
    counts = {"finished": 0, "failed": 0}
    progress = BatchProgress(len(tasks), min(workers, len(tasks)))

    async def serve(slot: int) -> None:
        worker: Worker | None = None
        try:
            while not queue.empty():
                task = queue.get_nowait()
                progress.started(task.id)
                if worker is None:
                    worker = await Worker.start(logs / f"worker-{slot}.log")
                result = await worker.run(task, overrides)
                if result is None:  # the worker died: the task fails, a new worker goes on
                    result = worker.died(task)
                    worker = None
                append_result(results, result)
                counts["finished"] += 1
                counts["failed"] += task_failed(result)
                progress.finished_task(result)
        finally:
            if worker is not None:
                await worker.stop()

    ticking = asyncio.create_task(progress.keep_fresh())
    try:
        await asyncio.gather(*(serve(slot) for slot in range(min(workers, len(tasks)))))
    finally:
        ticking.cancel()
        progress.close()
    return counts["failed"]
