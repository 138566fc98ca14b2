"""How fast the grep and glob_files tools are on a large tree, beside rg and grep.

Run from the repository root (agent-tui installed, e.g. ``pip install -e .``)::

    python3 benchmarks/search.py [--runs N] [--tree DIR]

The tree is a copy of this Python's standard library (``sysconfig.get_paths()["stdlib"]``
without site-packages, byte code, lib-dynload and the static library in config-*), made once under /tmp and reused. It is
not a git repository, so every contender searches the same files.

Our tools are measured in-process: ``asyncio.run(invocation.execute())`` of a
``GrepTool``/``GlobFilesTool`` forced to the rg backend and to the Python fallback.
The baselines run as subprocesses: ``rg -n PATTERN``, ``grep -rnE PATTERN``,
``rg --files`` and "rg ours", the very rg command our grep runs (``rg_grep_command``: hidden
files, the skipped folders, ``--null`` output), which splits our cost into rg's work and the
tool's own (start rg, parse, lay out). Each figure is the median of ``--runs`` runs after one warm-up, the contenders taking
turns within each round.
Goal: our grep (rg backend) within 1.5x of rg.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from agent_tui.tools.base import ToolContext  # noqa: E402
from agent_tui.tools.grep_engines import ripgrep  # noqa: E402
from agent_tui.tools.search import (  # noqa: E402
    GlobFilesTool,
    GrepParams,
    GrepTool,
    rg_grep_command,
)

DEFAULT_TREE = Path("/tmp/agent-tui-bench/stdlib-src")
GOAL_RATIO = 1.5
PATTERNS = [
    ("rare literal", "def __init_subclass__"),
    ("regex", r"class \w+Error\("),
    ("alternation", "TODO|FIXME|XXX"),
]
GLOB = "**/*.py"


def build_tree(tree: Path) -> None:
    """Copy the stdlib to ``tree`` unless a previous run left it there."""
    marker = tree / ".complete"
    if marker.exists():
        return
    if tree.exists():
        shutil.rmtree(tree)
    source = Path(sysconfig.get_paths()["stdlib"])
    print(f"copying {source} to {tree} (once) ...", flush=True)
    shutil.copytree(source, tree, symlinks=True,
                    ignore=shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc",
                                                  "config-*", "lib-dynload"))
    marker.write_text("")


def tree_size(tree: Path) -> tuple[int, int]:
    """(files, bytes) under ``tree``."""
    files = [p for p in tree.rglob("*") if p.is_file() and not p.is_symlink()]
    return len(files), sum(p.stat().st_size for p in files)


def medians_ms(contenders: dict[str, Callable[[], object]],
               runs: int) -> dict[str, tuple[float, object]]:
    """Median wall time in ms and last result of each contender, after one warm-up each.

    The contenders take turns within each round, so a change in the machine's load hits
    them alike.
    """
    results = {name: run() for name, run in contenders.items()}
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(runs):
        for name, run in contenders.items():
            start = time.perf_counter()
            results[name] = run()
            times[name].append((time.perf_counter() - start) * 1000)
    return {name: (statistics.median(times[name]), results[name]) for name in contenders}


def ours(tool: GrepTool | GlobFilesTool, args: dict[str, object],
         ctx: ToolContext) -> Callable[[], str]:
    """One in-process call of ``tool``, returning what the model would read."""
    def call() -> str:
        result = asyncio.run(tool.build(args, ctx).execute())
        assert result.ok, result.llm_content
        return result.llm_content
    return call


def command(cmd: list[str], cwd: Path) -> Callable[[], bytes]:
    """One run of ``cmd`` as a subprocess, returning its stdout."""
    def call() -> bytes:
        return subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, check=False).stdout
    return call


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--tree", type=Path, default=DEFAULT_TREE)
    args = parser.parse_args()
    tree: Path = args.tree
    build_tree(tree)
    files, size = tree_size(tree)
    rg, grep = ripgrep(), shutil.which("grep")
    print(f"tree: {tree} ({files:,} files, {size / 1e6:.1f} MB), medians of {args.runs} runs")
    print("ours = in-process asyncio.run(invocation.execute()); rg/grep = subprocesses\n")
    ctx = ToolContext(workdir=tree, output_dir=Path("/tmp/agent-tui-bench/out"))
    misses = 0

    print(f"{'grep pattern':<40}{'ours rg':>10}{'ours py':>10}{'rg -n':>10}{'rg ours':>10}"
          f"{'grep -rnE':>11}{'ours/rg':>9}  our summary line")
    for label, pattern in PATTERNS:
        grep_args = {"pattern": pattern}
        contenders: dict[str, Callable[[], object]] = {}
        if rg:
            contenders["ours rg"] = ours(GrepTool("rg"), grep_args, ctx)
            contenders["rg"] = command([rg, "-n", pattern, "."], tree)
            same_flags = rg_grep_command(rg, GrepParams.model_validate(grep_args), ".")
            contenders["rg ours"] = command(same_flags, tree)
        contenders["ours py"] = ours(GrepTool("python"), grep_args, ctx)
        if grep:
            contenders["grep"] = command([grep, "-rnE", pattern, "."], tree)
        got = medians_ms(contenders, args.runs)
        row = f"{label + ': ' + pattern:<40}"
        for name, width in (("ours rg", 10), ("ours py", 10), ("rg", 10), ("rg ours", 10),
                            ("grep", 11)):
            row += f"{got[name][0]:>{width - 2}.1f}ms" if name in got else f"{'n/a':>{width}}"
        if rg:
            ratio = got["ours rg"][0] / got["rg"][0]
            misses += ratio > GOAL_RATIO
            row += f"{ratio:>8.2f}x"
        row += "  " + str(got["ours py"][1]).rsplit("\n", 1)[-1]
        if rg:
            row += f" (rg -n printed {len(got['rg'][1].splitlines()):,} lines)"  # type: ignore[attr-defined]
        print(row)

    print(f"\n{'glob_files ' + GLOB:<40}{'ours rg':>10}{'ours py':>10}{'rg --files':>12}"
          f"{'ours/rg':>9}  files found")
    glob_args = {"pattern": GLOB}
    contenders = {}
    if rg:
        contenders["ours rg"] = ours(GlobFilesTool("rg"), glob_args, ctx)
        contenders["rg"] = command([rg, "--files", "-g", "*.py", "."], tree)
    contenders["ours py"] = ours(GlobFilesTool("python"), glob_args, ctx)
    got = medians_ms(contenders, args.runs)
    row = f"{'':<40}"
    row += f"{got['ours rg'][0]:>8.1f}ms" if rg else f"{'n/a':>10}"
    row += f"{got['ours py'][0]:>8.1f}ms"
    if rg:
        row += f"{got['rg'][0]:>10.1f}ms{got['ours rg'][0] / got['rg'][0]:>8.2f}x"
    row += "  " + str(got["ours py"][1]).split(" ", 1)[0] + " (ours)"
    if rg:
        row += f", {len(got['rg'][1].splitlines()):,} (rg --files)"  # type: ignore[attr-defined]
    print(row)

    if not rg:
        print("\nGoal: grep within 1.5x of rg: not measured (rg is not installed)")
        return 0
    verdict = "PASS" if not misses else f"MISS ({misses} of {len(PATTERNS)} patterns)"
    print(f"\nGoal: our grep (rg backend) within {GOAL_RATIO}x of rg -n: {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
