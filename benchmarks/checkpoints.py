"""Checkpoints: snapshotting and restoring a mid-size project in the shadow git repository.

Run from the repository root (agent-tui installed, e.g. ``pip install -e .``)::

    python3 benchmarks/checkpoints.py [--files 5000] [--repeats 5]

A project of ``--files`` files (about 2 KB each, in folders of 50) is written under a
temporary folder on the same disk as ``/tmp``, with a temporary ``AGENT_TUI_HOME``. Each
figure stands beside a baseline measured in the same run, on a byte-for-byte copy of the
tree in a plain git repository (``git add -A && git commit``, the person's own workflow):

* first snapshot: ``Checkpoints.snapshot`` of the whole tree (every file hashed) beside
  the first ``git add -A && git commit -q``;
* turn snapshot: 10 files edited, then the turn's after-snapshot, beside the same edit
  then ``git add -A && git commit -q`` (median of ``--repeats`` turns);
* unchanged snapshot: a turn's before-snapshot, nothing changed since the last one, beside
  ``git add -A && git commit -q --allow-empty``;
* first snapshot of a later session on the same project (its index starts from the
  newest one there), beside the plain repository's unchanged commit;
* changes and restore of the last 10-file turn, beside ``git diff HEAD~1 HEAD`` and
  ``git checkout HEAD~1 -- .`` in the plain repository.

Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

PER_FOLDER = 50
EDITED = 10


def make_tree(root: Path, files: int) -> list[Path]:
    """``files`` source-like files of about 2 KB in folders of ``PER_FOLDER``."""
    paths = []
    body = "".join(f"def function_{n}(x):\n    return x * {n} + 1\n\n" for n in range(50))
    for n in range(files):
        path = root / f"pkg{n // PER_FOLDER:03d}" / f"module_{n:05d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# module {n}\n{body}")
        paths.append(path)
    return paths


def edit(paths: list[Path], round_: int) -> None:
    """Change ``EDITED`` files spread over the tree."""
    step = max(1, len(paths) // EDITED)
    for path in paths[::step][:EDITED]:
        with path.open("a") as handle:
            handle.write(f"# edit {round_}\n")


def timed(action: Callable[[], object]) -> float:
    """Milliseconds one call of ``action`` takes."""
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1000


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b",
                    "-c", "commit.gpgsign=false", *args],
                   cwd=repo, check=True, capture_output=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if shutil.which("git") is None:
        print("git is not installed; checkpoints need it", file=sys.stderr)
        return 1

    with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
        os.environ["AGENT_TUI_HOME"] = str(Path(tmp) / "home")
        from agent_tui.core.changes.checkpoints import Checkpoints
        from agent_tui.core.changes.snapshot_scope import SnapshotLimits

        unbounded = SnapshotLimits(timeout=None)  # the cost itself, not the turn's wait

        project, plain = Path(tmp) / "project", Path(tmp) / "plain"
        paths = make_tree(project, args.files)
        shutil.copytree(project, plain, symlinks=True)
        plain_paths = [plain / p.relative_to(project) for p in paths]
        git(plain, "init", "-q")

        rows: list[tuple[str, float, float]] = []
        cp = Checkpoints(project, "bench", unbounded)
        first = timed(lambda: cp.snapshot(0, "before"))
        first_base = timed(lambda: (git(plain, "add", "-A"), git(plain, "commit", "-qm", "0")))
        rows.append(("first snapshot (every file hashed)", first, first_base))

        turn, base, same, same_base = [], [], [], []
        for n in range(1, args.repeats + 1):
            # A turn: the before-snapshot finds nothing new, the after one finds the edit.
            same.append(timed(lambda n=n: cp.snapshot(n, "before")))
            same_base.append(timed(lambda n=n: (
                git(plain, "add", "-A"), git(plain, "commit", "-q", "--allow-empty",
                                             "-m", f"{n} before"))))
            edit(paths, n)
            turn.append(timed(lambda n=n: cp.snapshot(n, "after")))
            edit(plain_paths, n)
            base.append(timed(lambda n=n: (git(plain, "add", "-A"),
                                           git(plain, "commit", "-qm", f"{n} after"))))
        rows.append((f"turn snapshot ({EDITED} files edited), median", statistics.median(turn),
                     statistics.median(base)))
        rows.append(("unchanged snapshot, median", statistics.median(same),
                     statistics.median(same_base)))

        later = Checkpoints(project, "bench-later", unbounded)
        rows.append(("first snapshot of a later session", timed(
            lambda: later.snapshot(0, "before")), statistics.median(same_base)))

        last = args.repeats
        found: list[object] = []
        changes = timed(lambda: found.extend(cp.changes(last)))
        assert len(found) == EDITED, found
        changes_base = timed(lambda: git(plain, "diff", "HEAD~1", "HEAD"))
        rows.append((f"changes of one turn ({EDITED} files, contents read)", changes,
                     changes_base))
        restored: list[str] = []
        restore = timed(lambda: restored.extend(cp.restore(last)))
        assert len(restored) == EDITED, restored
        restore_base = timed(lambda: git(plain, "checkout", "HEAD~1", "--", "."))
        rows.append((f"restore one turn ({EDITED} files)", restore, restore_base))

    print(f"{args.files} files, {args.repeats} repeats\n")
    print("| figure | checkpoints | plain git | difference |")
    print("|---|---:|---:|---:|")
    for name, ours, theirs in rows:
        print(f"| {name} | {ours:.0f} ms | {theirs:.0f} ms | {ours - theirs:+.0f} ms |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
