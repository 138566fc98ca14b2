"""Skill discovery at start-up: ``discover_skills`` over 50 project skills plus the bundled
ones, beside reading the same 50 files raw (the floor). Goal: well under 20 ms.

    python3 benchmarks/skills.py            # --skills 50 --runs 30
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

SKILL = """---
name: {name}
description: Does task {i} of the benchmark when the person asks for it.
allowed-tools: shell(git diff *) read_file
---
""" + "An instruction line of the skill's body.\n" * 60


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--skills", type=int, default=50)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["AGENT_TUI_HOME"] = str(Path(tmp, "home"))
        project = Path(tmp, "project")
        (project / ".git").mkdir(parents=True)
        files = []
        for i in range(args.skills):
            folder = project / ".agent-tui" / "skills" / f"skill-{i}"
            (folder / "scripts").mkdir(parents=True)
            (folder / "SKILL.md").write_text(SKILL.format(name=f"skill-{i}", i=i))
            (folder / "scripts" / "run").write_text("#!/bin/sh\n")
            files.append(folder / "SKILL.md")
        from agent_tui.core.skills import discover_skills

        catalog = discover_skills(project)  # imports and caches warm
        discovery, floor = [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            discover_skills(project)
            discovery.append(time.perf_counter() - start)
            start = time.perf_counter()
            for path in files:
                path.read_text()
            floor.append(time.perf_counter() - start)
    median = statistics.median(discovery) * 1000
    print(f"{len(catalog.skills)} skills: discover_skills median {median:.2f} ms, "
          f"min {min(discovery) * 1000:.2f} ms; reading the files alone "
          f"{statistics.median(floor) * 1000:.2f} ms; {'PASS' if median < 20 else 'MISS'}")


if __name__ == "__main__":
    main()
