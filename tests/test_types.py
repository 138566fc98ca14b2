"""The type checker DESIGN.md promises: mypy, configured in pyproject.toml, finds no error in
core/ and tools/.

mypy keeps its cache in the repository's .mypy_cache, so a later run checks only what changed.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_core_and_tools_type_check_clean():
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    report = (done.stdout + done.stderr).strip()
    assert done.returncode == 0, (
        f"mypy found errors; run `python3 -m mypy` in {ROOT} to see them:\n{report}")
    # Every module of core/ and tools/ was checked: the link .ci/mypy/agent_tui resolves.
    checked = re.search(r"no issues found in (\d+) source files", report)
    assert checked, report
    modules = sum(1 for folder in ("core", "tools") for _ in (ROOT / folder).rglob("*.py"))
    assert int(checked[1]) >= modules, report
