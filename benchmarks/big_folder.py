"""A turn in a big folder beside a turn in a small one: what checkpoints cost a turn.

Run from the repository root (agent-tui installed, e.g. ``pip install -e .``)::

    python3 benchmarks/big_folder.py [--files 100000] [--gb 5] [--turns 3] [--old]

Each turn is the real agent loop (``Agent.run``: litellm over HTTP to the fake provider of
``tests/fakes/providers.py``, approval mode yolo) on a prompt the model answers with one
``echo hi`` shell call and then a sentence, so the turn takes its ``before`` and ``after``
checkpoints. Every turn of a folder belongs to one session (one ``Agent``), with the default
checkpoint settings, after one turn elsewhere that pays litellm's first request. Folders,
under a temporary folder on the same disk as ``/var/tmp``:

* **small**: 100 files of 1 KB, the baseline;
* **big, home-like**: ``--files`` files (default 100,000) of which 100 are sparse files
  (``truncate``) of ``--gb`` GB together (default 5 GB), the rest 1 KB files in folders of
  1,000; more files than ``checkpoint_max_files``, so checkpoints turn off, said once;
* **big, project-like**: the same tree with 60 % of the small files moved under
  ``node_modules/`` and 20 % under a virtual environment (``.venv`` with ``pyvenv.cfg``):
  the ~20,000 files left are snapshotted, the big files left out for their size. Its first
  turn hashes them all (it may run past ``checkpoint_timeout`` and go on in the
  background); later turns only compare.

With ``--old``, the snapshot as it was before it was bounded (``git add -A`` of the whole
home-like tree into a fresh shadow repository) is timed too, stopped after 10 minutes.
The trees are removed at the end. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.fakes.providers import FakeProvider, Reply, ToolCall  # noqa: E402

PER_FOLDER = 1_000
SPARSE_FILES = 100
BODY = "".join(f"line {n} of a small file\n" for n in range(40))  # ~1 KB


def make_tree(root: Path, files: int, gigabytes: float) -> None:
    """``files`` files: 1 KB ones in folders of ``PER_FOLDER``, and sparse big ones."""
    small = files - SPARSE_FILES
    for n in range(small):
        folder = root / f"dir{n // PER_FOLDER:03d}"
        if n % PER_FOLDER == 0:
            folder.mkdir(parents=True)
        (folder / f"file{n:06d}.txt").write_text(BODY)
    data = root / "data"
    data.mkdir()
    size = int(gigabytes * 1024**3 / SPARSE_FILES)
    for n in range(SPARSE_FILES):
        with (data / f"disk{n:03d}.img").open("wb") as handle:
            handle.truncate(size)


def as_project(root: Path) -> None:
    """Move 60 % of the small-file folders under node_modules/, 20 % into a venv."""
    folders = sorted(p for p in root.iterdir() if p.name.startswith("dir"))
    modules, venv = root / "node_modules", root / ".venv" / "lib" / "site-packages"
    modules.mkdir()
    venv.mkdir(parents=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    for n, folder in enumerate(folders):
        share = n / len(folders)
        if share < 0.6:
            folder.rename(modules / folder.name)
        elif share < 0.8:
            folder.rename(venv / folder.name)


async def turns(fake: FakeProvider, workdir: Path, count: int) -> tuple[list[float], list[str]]:
    """Seconds of each of ``count`` turns in one session, and what the agent said."""
    from agent_tui.core.agent import Agent
    from agent_tui.core.approval import HeadlessApprover
    from agent_tui.core.config import Settings
    from agent_tui.core.events import ErrorEvent, Event
    from agent_tui.core.providers.litellm import LitellmProvider
    from agent_tui.tools.builtin import builtin_tools
    from agent_tui.tools.registry import ToolRegistry

    settings = Settings(
        model="openai/fake-model",
        api_base=fake.openai_base,
        api_key="sk-bench",
        approval_mode="yolo",
        max_retries=0,
    )
    events: list[Event] = []
    agent = Agent(
        LitellmProvider(settings),
        ToolRegistry(builtin_tools(settings)),
        settings,
        workdir,
        HeadlessApprover("yolo"),
        events.append,
    )
    took = []
    for _ in range(count):
        fake.script(
            Reply(tool_calls=[ToolCall("shell", {"command": "echo hi"})]), Reply(text="Done.")
        )
        start = time.perf_counter()
        result = await agent.run("say hi")
        took.append(time.perf_counter() - start)
        assert result.ok, result.error
    said = [e.message for e in events if isinstance(e, ErrorEvent)]
    if agent.checkpoints is not None:  # let hashing left in the background end first
        await asyncio.to_thread(agent.checkpoints.turns)
    return took, said


def old_snapshot(root: Path, scratch: Path) -> str:
    """Seconds of ``git add -A`` of the whole tree into a fresh shadow repository."""
    repo = scratch / "old-shadow"
    subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True)
    env = {
        **os.environ,
        "GIT_DIR": str(repo),
        "GIT_WORK_TREE": str(root),
        "GIT_INDEX_FILE": str(scratch / "old.index"),
    }
    start = time.perf_counter()
    try:
        subprocess.run(
            ["git", "-c", "advice.addEmbeddedRepo=false", "add", "-A"],
            cwd=root,
            env=env,
            capture_output=True,
            timeout=600,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return "> 600 s (stopped)"
    return f"{time.perf_counter() - start:.1f} s"


def row(name: str, took: list[float], baseline: list[float]) -> str:
    cells = " | ".join(f"{t:.2f} s ({t - b:+.2f})" for t, b in zip(took, baseline, strict=False))
    return f"| {name} | {cells} |"


async def main_async(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp, FakeProvider() as fake:
        scratch = Path(tmp)
        os.environ["AGENT_TUI_HOME"] = str(scratch / "home")
        small = scratch / "small"
        small.mkdir()
        for n in range(100):
            (small / f"file{n:03d}.txt").write_text(BODY)
        big = scratch / "big-home"
        start = time.perf_counter()
        make_tree(big, args.files, args.gb)
        made = time.perf_counter() - start

        warm_up = scratch / "warm-up"  # litellm's first request costs seconds of its own
        warm_up.mkdir()
        await turns(fake, warm_up, 1)
        small_took, _ = await turns(fake, small, args.turns)
        home_took, home_said = await turns(fake, big, args.turns)
        old = old_snapshot(big, scratch) if args.old else None
        project = scratch / "big-project"
        big.rename(project)
        as_project(project)
        project_took, project_said = await turns(fake, project, args.turns)

    print(
        f"{args.files:,} files, {args.gb:g} GB (sparse), made in {made:.0f} s; "
        f"{args.turns} turns per folder, one session each\n"
    )
    header = " | ".join(f"turn {n + 1}" for n in range(args.turns))
    print(f"| folder | {header} |")
    print("|---|" + "---:|" * args.turns)
    print(row("small (100 files), baseline", small_took, small_took))
    print(row("big, home-like", home_took, small_took))
    print(row("big, project-like", project_took, small_took))
    print("\n(difference from the small folder's turn of the same number in brackets)")
    if old is not None:
        print(f"\nThe unbounded snapshot (`git add -A`) of the home-like tree: {old}")
    for name, said in (("home-like", home_said), ("project-like", project_said)):
        for message in said:
            print(f"\n{name} said: {message}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--gb", type=float, default=5.0)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument(
        "--old",
        action="store_true",
        help="also time the unbounded snapshot (git add -A) of the big tree",
    )
    args = parser.parse_args()
    if shutil.which("git") is None:
        print("git is not installed; checkpoints need it", file=sys.stderr)
        return 1
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
