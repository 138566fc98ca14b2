"""``agent-tui batch convert swebench INSTANCES.jsonl --repos DIR [-o TASKS.jsonl]``: a
SWE-bench-like task set as a batch tasks file of graded worktree tasks. Nothing here imports
textual or litellm."""

from __future__ import annotations

import json
from pathlib import Path

from ...core.modes.batch import TasksError
from ...core.modes.batch_swebench import clone_candidates, find_clone, read_instances, to_task
from ...core.text.durable import write_atomically
from .cli_parser import EXIT_OK, CommandParser, say, usage_error

FORMATS = ("swebench",)
"""The task-set formats ``convert`` reads."""


def convert_parser() -> CommandParser:
    """The options of ``agent-tui batch convert``."""
    parser = CommandParser(
        prog="agent-tui batch convert",
        description="Write a batch tasks file from a SWE-bench-like task set: each instance "
        "runs in a worktree of its repository's local clone, set to its base commit, and is "
        "graded by its tests (its test patch applied for the check only).",
    )
    parser.add_argument("format", choices=FORMATS, help="the task set's format")
    parser.add_argument("instances", type=Path,
                        help="the instances (JSON lines, or one JSON array): instance_id, "
                        "repo, base_commit, problem_statement, test_cmd or FAIL_TO_PASS/"
                        "PASS_TO_PASS, test_patch")
    parser.add_argument("--repos", type=Path, required=True, metavar="DIR",
                        help="the folder holding a clone of each repository, as DIR/owner__name, "
                        "DIR/owner/name or DIR/name")
    parser.add_argument("--output", "-o", type=Path, metavar="TASKS",
                        help="the tasks file to write (default: INSTANCES with .tasks.jsonl)")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        help="each task's timeout (the agent's run; setup and check each get "
                        "as much)")
    parser.add_argument("--max-cost", type=float, metavar="USD",
                        help="US dollars each task may spend")
    return parser


def convert_main(argv: list[str]) -> int:
    """``agent-tui batch convert …`` (the arguments after ``convert``); the exit code."""
    parser = convert_parser()
    args = parser.parse_args(argv)
    for name, value in (("--timeout", args.timeout), ("--max-cost", args.max_cost)):
        if value is not None and not value > 0:
            return usage_error(parser, f"{name} must be above 0.")
    instances_file = args.instances.expanduser().resolve()
    repos = args.repos.expanduser().resolve()
    try:
        instances = read_instances(instances_file)
    except TasksError as exc:
        return usage_error(parser, str(exc))
    ids = [instance.id for instance in instances]
    if twice := sorted({i for i in ids if ids.count(i) > 1}):
        return usage_error(parser, f"instance ids used twice: {', '.join(twice)}; each "
                           "instance becomes a task, and task ids must be unique")
    clones = {i.repo: find_clone(repos, i.repo) for i in instances}
    missing = sorted(repo for repo, clone in clones.items() if clone is None)
    if missing:
        lines = "\n".join(f"  git clone https://github.com/{repo} "
                          f"{clone_candidates(repos, repo)[0]}" for repo in missing)
        return usage_error(parser, f"no clone under {repos} of {', '.join(missing)}; clone "
                           f"each first (a full clone: tasks check out old commits):\n{lines}")
    output = (args.output or instances_file.with_name(
        instances_file.name.removesuffix(".jsonl").removesuffix(".json") + ".tasks.jsonl")
    ).expanduser().resolve()
    patches = output.with_name(output.name.removesuffix(".jsonl") + ".patches")
    lines = []
    for instance in instances:
        patch_file = None
        if instance.test_patch:
            patches.mkdir(parents=True, exist_ok=True)
            patch_file = patches / f"{instance.id}.patch"
            write_atomically(patch_file, instance.test_patch.encode("utf-8"))
        task = to_task(instance, clones[instance.repo] or repos, patch_file)
        if args.timeout is not None:
            task["timeout"] = args.timeout
        if args.max_cost is not None:
            task["max_cost"] = args.max_cost
        lines.append(json.dumps(task, ensure_ascii=False) + "\n")
    output.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(output, "".join(lines).encode("utf-8"))
    say(f"agent-tui batch convert: wrote {len(lines)} tasks to {output}"
        + (f" (test patches in {patches})" if patches.exists() else "")
        + f"; run them with: agent-tui batch {output} --model MODEL")
    return EXIT_OK
