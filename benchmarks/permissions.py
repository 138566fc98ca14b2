"""How long judging a shell command takes: tree-sitter analysis, rules and the boundary.

Run from the repository root (agent-tui installed)::

    python3 benchmarks/permissions.py [--runs N]

Each command below is judged ``--runs`` times (default 200, after one warm-up) by
``permissions.decide_command`` in default mode with a few allow and deny rules, in a
temporary project; the median and minimum are printed beside a baseline measured in the
same run: ``shlex.split`` of the same text, the cheapest way to tokenise a command (and all
a naive checker does). No goal is set by the issue; judging runs once per tool call, before
the approval modal, so anything under a few milliseconds is invisible next to a model turn.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from agent_tui.core.safety.permission_rules import RuleSet, parse_rules
from agent_tui.core.safety.permissions import decide_command
from agent_tui.core.safety.workspace import Workspace

COMMANDS = {
    "simple": "git status",
    "compound": "cd src && grep -rn 'TODO' . | sort | uniq -c > /tmp/todos.txt; ls -la",
    "substitutions": 'echo "$(cat README.md)" `date` && diff <(sort a.txt) <(sort b.txt)',
    "wrappers": "timeout 5 env X=1 nice -n 5 bash -c 'python3 -m pytest -q tests && echo ok'",
    "script (40 lines)": "\n".join(
        f"if [ -f file{n}.txt ]; then cat file{n}.txt | wc -l; else echo none{n}; fi"
        for n in range(40)),
}


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    """Milliseconds of ``runs`` calls of ``fn``, after one warm-up."""
    fn()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return times


def main() -> int:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        (project / "src").mkdir()
        workspace = Workspace(project)
        rules = RuleSet(allow=parse_rules(["shell(git status)", "shell(npm run test:*)"]),
                        deny=parse_rules(["shell(rm *)", "read_file(.env)"]))
        print(f"median and min of {args.runs} runs, milliseconds")
        print(f"{'command':20} {'decide':>16} {'shlex.split':>16}  verdict")
        for name, command in COMMANDS.items():
            judged = timed(lambda c=command: decide_command(c, "default", workspace, rules,
                                                            project), args.runs)
            split = timed(lambda c=command: shlex.split(c), args.runs)
            verdict = decide_command(command, "default", workspace, rules, project).verdict
            print(f"{name:20} {statistics.median(judged):8.2f} {min(judged):6.2f} "
                  f"{statistics.median(split):8.2f} {min(split):6.2f}  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
