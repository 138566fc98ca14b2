"""The repository map on a large real project: cold build, warm refresh after one file
changes, and tokens, beside aider's own repo map on the same tree and budget.

Run from the repository root (agent-tui installed, e.g. ``pip install -e .``)::

    python3 benchmarks/repo_map.py TREE [--budget 2048] [--aider-python PYTHON]

``TREE`` is a project folder (e.g. a checkout of SQLAlchemy); it is copied to
``/tmp/agent-tui-bench/repo-map`` so that the file the benchmark edits is a copy. Both maps
get the same files (the source files agent-tui's map reads) and the same budget; tokens are
counted by litellm's ``token_counter`` for ``gpt-4o`` on both sides. Printed for each:

* cold: the first map with no cache (every file parsed, ranked, rendered to the budget);
* next session: a new map that reads the tags cached on disk (agent-tui only);
* warm after one edit: the same map object again after one file gained a function (the
  changed file parsed again, everything ranked and rendered again);
* tokens of the map, and how many files it shows.

aider's side runs in a separate virtual environment (``python3 -m venv /tmp/aider &&
/tmp/aider/bin/pip install aider-chat``), with ``map_mul_no_files=1`` so that it fills the
same budget, and ``force_refresh`` after the edit. Without that environment the script says
so and prints agent-tui's figures alone.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from agent_tui.core.context.repo_map import RepoMap, SourceFiles
from agent_tui.core.context.repo_map_tags import has_tags
from agent_tui.tools.code_search import list_source_files
from agent_tui.tools.source_languages import language_of

COPY = Path("/tmp/agent-tui-bench/repo-map")
ADDED = "\n\ndef benchmark_added_function(value):\n    return value\n"
AIDER = r'''
import json, os, sys, time
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
from aider.io import InputOutput
from aider.models import Model
from aider.repomap import RepoMap
root, listing, budget, edited = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
files = [os.path.join(root, line.strip()) for line in open(listing)]
model = Model("gpt-4o")
repo_map = RepoMap(map_tokens=budget, root=root, main_model=model,
                   io=InputOutput(yes=True, pretty=False), map_mul_no_files=1, refresh="always")
started = time.perf_counter()
cold_text = repo_map.get_repo_map([], files) or ""
cold = time.perf_counter() - started
with open(edited, "a") as handle:
    handle.write(sys.argv[5])
started = time.perf_counter()
warm_text = repo_map.get_repo_map([], files, force_refresh=True) or ""
warm = time.perf_counter() - started
print(json.dumps({"cold": cold, "warm": warm, "text": cold_text, "warm_text": warm_text}))
'''


def token_counter() -> object:
    """litellm's counter for gpt-4o, as aider counts its map."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    return lambda text: litellm.token_counter(model="gpt-4o", text=text)


def copy_tree(tree: Path) -> Path:
    """A fresh copy of ``tree`` (its .git and caches left out)."""
    if COPY.exists():
        shutil.rmtree(COPY)
    shutil.copytree(tree, COPY, ignore=shutil.ignore_patterns(".git", ".aider*", "__pycache__"))
    return COPY


def shown_files(text: str) -> int:
    """Files a map names (its lines that are neither code nor ⋮)."""
    return sum(1 for line in text.splitlines()
               if line.endswith(":") and not line.startswith(("│", "⋮", " ", "[")))


def ours(root: Path, budget: int, count: object, edited: Path) -> dict[str, float | int]:
    """agent-tui's figures."""
    sources = SourceFiles(lambda folder, wanted: list_source_files([folder], wanted), language_of)
    cache = COPY.parent / "repo-map-tags.json"
    cache.unlink(missing_ok=True)
    started = time.perf_counter()
    cold_map = RepoMap(root, sources, budget, count, cache)  # type: ignore[arg-type]
    cold_map.refresh([])
    cold = time.perf_counter() - started
    started = time.perf_counter()
    later = RepoMap(root, sources, budget, count, cache)  # type: ignore[arg-type]
    later.refresh([])
    next_session = time.perf_counter() - started
    with edited.open("a") as handle:
        handle.write(ADDED)
    parses = later.cache.parses
    started = time.perf_counter()
    later.refresh([])
    warm = time.perf_counter() - started
    return {"cold": cold, "next": next_session, "warm": warm, "tokens": cold_map.tokens,
            "files": shown_files(cold_map.text), "parsed": later.cache.parses - parses,
            "sources": len(cold_map.cache.files)}


def theirs(python: str, root: Path, listing: Path, budget: int, edited: Path,
           count: object) -> dict[str, float | int] | str:
    """aider's figures, or why there are none."""
    if not Path(python).exists():
        return f"aider not measured: {python} does not exist (pip install aider-chat in a venv)"
    done = subprocess.run([python, "-c", AIDER, str(root), str(listing), str(budget),
                           str(edited), ADDED], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return f"aider not measured: it failed ({done.stderr.strip()[-300:]})"
    found = json.loads(done.stdout.strip().splitlines()[-1])
    text = found["text"]
    return {"cold": found["cold"], "warm": found["warm"], "tokens": count(text),  # type: ignore[operator]
            "files": shown_files(text)}


def main() -> None:
    """Copy the tree, measure both maps and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path, help="a project folder, e.g. a SQLAlchemy checkout")
    parser.add_argument("--budget", type=int, default=2048, help="tokens of the map")
    parser.add_argument("--aider-python", default="/tmp/aider/bin/python",
                        help="the python of a venv with aider-chat")
    args = parser.parse_args()

    root = copy_tree(args.tree.resolve())

    def wanted(path: Path) -> bool:
        language = language_of(path)
        return language is not None and has_tags(language)

    files = list_source_files([root], wanted)
    lines = sum(len(p.read_bytes().splitlines()) for p in files)
    listing = COPY.parent / "repo-map-files.txt"
    listing.write_text("".join(f"{p.relative_to(root)}\n" for p in files))
    edited = sorted(files, key=lambda p: p.stat().st_size)[len(files) // 2]
    print(f"tree: {args.tree} copied to {root}: {len(files):,} source files, {lines:,} lines; "
          f"budget {args.budget:,} tokens; edited: {edited.relative_to(root)}")
    count = token_counter()
    mine = ours(root, args.budget, count, edited)
    shutil.copyfile(args.tree.resolve() / edited.relative_to(root), edited)  # undo the edit
    aider = theirs(args.aider_python, root, listing, args.budget, edited, count)

    rows = [("agent-tui, cold (no cache)", f"{mine['cold']:.2f} s",
             f"{mine['tokens']:,} tokens, {mine['files']} files shown"),
            ("agent-tui, next session (tags from disk)", f"{mine['next']:.2f} s", ""),
            ("agent-tui, warm after one edit", f"{mine['warm']:.2f} s",
             f"{mine['parsed']} file parsed again")]
    if isinstance(aider, str):
        rows.append((aider, "", ""))
    else:
        rows += [("aider, cold (no cache)", f"{aider['cold']:.2f} s",
                  f"{aider['tokens']:,} tokens, {aider['files']} files shown"),
                 ("aider, warm after one edit (force_refresh)", f"{aider['warm']:.2f} s", "")]
    width = max(len(r[0]) for r in rows)
    print(f"\n{'map':<{width}}  {'time':>8}  result")
    for name, seconds, result in rows:
        print(f"{name:<{width}}  {seconds:>8}  {result}")
    if mine["tokens"] > args.budget:
        sys.exit(f"agent-tui's map took {mine['tokens']} tokens, over its budget")


if __name__ == "__main__":
    main()
