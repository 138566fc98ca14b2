"""How fast code_search is on a ~30 MB Python tree, cold and warm, beside ripgrep.

Run from the repository root (agent-tui installed, e.g. ``pip install -e .``)::

    python3 benchmarks/code_search.py [--runs N] [--size-mb 30]

The tree is copies of the standard library's ``.py`` files under
``/tmp/agent-tui-bench/code-search``, built once (until it holds ``--size-mb``). The search is
``(function_definition name: (identifier) @name)`` over the whole tree with a match cap high
enough that every file is searched. Printed:

* cold: the first search with an empty cache (read, parse and query every file);
* warm: the same search again (median of ``--runs``): a ``stat`` per file and cached matches;
* new query: another query right after, which reuses whatever parse trees fit in the cache;
* baseline: ``rg -c 'def '`` over the same tree (median of ``--runs``), a text search that
  needs no parsing.

Goal: warm under 0.5 s. Exits 1 when a search fails.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

from agent_tui.tools.base import ToolContext
from agent_tui.tools.code_search import CodeSearchTool
from agent_tui.tools.syntax_cache import SYNTAX_CACHE

TREE = Path("/tmp/agent-tui-bench/code-search")
QUERY = "(function_definition name: (identifier) @name)"
OTHER_QUERY = "(class_definition name: (identifier) @name)"
GOAL_S = 0.5


def build_tree(size_mb: float) -> tuple[int, int]:
    """Copy the stdlib's .py files into TREE until it holds ``size_mb``; (files, bytes)."""
    done = TREE / ".built"
    if done.exists():
        files, size, wanted = map(float, done.read_text().split())
        if wanted == size_mb:
            return int(files), int(size)
        shutil.rmtree(TREE)
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    sources = sorted(p for p in stdlib.rglob("*.py")
                     if "site-packages" not in p.parts and p.is_file())
    files = size = copy = 0
    while size < size_mb * 1024 * 1024:
        for src in sources:
            target = TREE / f"copy{copy}" / src.relative_to(stdlib)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, target)
            files += 1
            size += target.stat().st_size
        copy += 1
    done.write_text(f"{files} {size} {size_mb}")
    return files, size


def search(query: str, ctx: ToolContext) -> tuple[float, int]:
    """One code_search call over the tree: (seconds, matches)."""
    args = {"searches": [{"name": "q", "query": query, "language": "python"}],
            "max_matches_per_search": 100_000}
    started = time.perf_counter()
    result = asyncio.run(CodeSearchTool().build(args, ctx).execute())
    elapsed = time.perf_counter() - started
    if not result.ok:
        sys.exit(f"code_search failed: {result.error}")
    found = re.match(r"code_search: ([\d,]+) match", result.llm_content)
    return elapsed, int(found[1].replace(",", "")) if found else -1


def ripgrep(runs: int) -> tuple[float, int]:
    """Median seconds of ``rg -c 'def '`` over the tree, and its line count."""
    times, count = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(["rg", "-c", "def ", str(TREE)], capture_output=True, text=True,
                              check=False)
        times.append(time.perf_counter() - started)
        count = sum(int(line.rsplit(":", 1)[1]) for line in done.stdout.splitlines())
    return statistics.median(times), count


def main() -> None:
    """Build the tree, time the searches and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="warm and rg runs (median)")
    parser.add_argument("--size-mb", type=float, default=30.0, help="size of the tree")
    args = parser.parse_args()

    files, size = build_tree(args.size_mb)
    ctx = ToolContext(workdir=TREE, output_dir=TREE.parent / "out")
    print(f"tree: {TREE}, {files:,} .py files, {size / 1e6:.1f} MB")

    SYNTAX_CACHE.clear()
    cold, matches = search(QUERY, ctx)
    warm_runs = [search(QUERY, ctx) for _ in range(args.runs)]
    warm = statistics.median(t for t, _ in warm_runs)
    stats = SYNTAX_CACHE.stats()
    other, other_matches = search(OTHER_QUERY, ctx)
    reused = SYNTAX_CACHE.stats().tree_hits - stats.tree_hits
    have_rg = shutil.which("rg") is not None
    rg_time, rg_count = ripgrep(args.runs) if have_rg else (float("nan"), 0)

    rows = [
        ("code_search, cold (empty cache)", f"{cold:.2f} s", f"{matches:,} functions"),
        (f"code_search, warm (median of {args.runs})", f"{warm:.3f} s",
         f"{warm_runs[-1][1]:,} functions"),
        (f"code_search, new query ({reused:,} trees cached)", f"{other:.2f} s",
         f"{other_matches:,} classes"),
        (f"rg -c 'def ' (median of {args.runs})" if have_rg else "rg: not installed",
         f"{rg_time:.3f} s", f"{rg_count:,} lines"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"\n{'run':<{width}}  {'time':>9}  result")
    for name, seconds, result in rows:
        print(f"{name:<{width}}  {seconds:>9}  {result}")
    verdict = "PASS" if warm < GOAL_S else "MISS"
    print(f"\ngoal: warm under {GOAL_S} s: {verdict} ({warm:.3f} s; "
          f"{warm / rg_time:.1f}x rg)" if have_rg else f"\ngoal: warm under {GOAL_S} s: {verdict}")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"cache after the warm runs: {stats.trees:,} trees (~{stats.tree_bytes / 1e6:.0f} MB "
          f"estimated), {stats.match_entries:,} match lists (~{stats.match_bytes / 1e6:.0f} MB); "
          f"peak RSS {peak_mb:.0f} MB")


if __name__ == "__main__":
    main()
