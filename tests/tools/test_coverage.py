"""Tests of code_coverage: real pytest runs under coverage.py in tiny projects."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_tui.tools.base import ToolContext, ToolKind, ToolResult
from agent_tui.tools.coverage import CoverageTool, plan_for, total_line

pytest.importorskip("coverage", reason="code_coverage's tests need `pip install coverage`")

CALC = """\
def add(a, b):
    return a + b


def unused(x):
    if x:
        return 1
    return 2
"""
TEST_CALC = """\
from calc import add


def test_add():
    assert add(1, 2) == 3
"""


def python_project(root: Path, test: str = TEST_CALC) -> ToolContext:
    (root / "pyproject.toml").write_text('[project]\nname = "calc"\nversion = "0"\n')
    (root / "calc.py").write_text(CALC)
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(test)
    # The project's interpreter is looked up on PATH; pin it to the one running these tests.
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(root),
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # the tiny suite needs none; faster
    return ToolContext(workdir=root, output_dir=root / ".out", env=env)


async def run(ctx: ToolContext, tool: CoverageTool | None = None) -> ToolResult:
    return await (tool or CoverageTool()).build({}, ctx).execute()


async def test_python_project_reports_total_first(tmp_path: Path) -> None:
    ctx = python_project(tmp_path)

    result = await run(ctx)

    assert result.ok, result.llm_content
    lines = result.llm_content.splitlines()
    # calc.py: 6 statements, 3 missed; the test file: 3 statements, all run.
    assert lines[0] == "Coverage TOTAL: Stmts 9, Miss 3, Cover 67% — tests passed (exit code 0)"
    assert lines[1].endswith("-m coverage run -m pytest -q; "
                             f"{lines[1].split()[1]} -m coverage report")
    report = [row for row in lines[lines.index("") + 1:lines.index("Test output:")] if row]
    assert report[0].split() == ["Name", "Stmts", "Miss", "Cover"]
    assert ["calc.py", "6", "3", "50%"] in [row.split() for row in report]
    assert report[-1].split() == ["TOTAL", "9", "3", "67%"]
    assert "1 passed" in result.llm_content
    assert (tmp_path / ".coverage").exists()  # left for `coverage report -m`


async def test_failing_tests_still_report_coverage(tmp_path: Path) -> None:
    ctx = python_project(tmp_path, TEST_CALC.replace("== 3", "== 4"))

    result = await run(ctx)

    first = result.llm_content.splitlines()[0]
    assert first.startswith("Coverage TOTAL: Stmts 9, Miss 3, Cover 67%")
    assert first.endswith("tests failed (exit code 1)")
    assert "1 failed" in result.llm_content


async def test_missing_coverage_says_how_to_install(tmp_path: Path) -> None:
    ctx = python_project(tmp_path)
    # A project virtualenv without coverage.py or pytest is preferred over PATH's python.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / ".venv")],
                   check=True)

    result = await run(ctx)

    venv_python = tmp_path / ".venv" / "bin" / "python"
    assert not result.ok
    assert result.error == (
        f"coverage and pytest are not installed for {venv_python}: install with "
        f"`{venv_python} -m pip install coverage pytest`, then call code_coverage again")


async def test_unsupported_project(tmp_path: Path) -> None:
    (tmp_path / "main.c").write_text("int main(void) { return 0; }\n")
    ctx = ToolContext(workdir=tmp_path, output_dir=tmp_path / ".out")

    result = await run(ctx)

    assert not result.ok
    assert result.error.startswith("not supported: found no pyproject.toml, setup.cfg, "
                                   "setup.py, pytest.ini, tests/*.py or Cargo.toml in")
    assert "shell tool" in result.error
    assert not (tmp_path / ".out").exists()  # nothing ran


async def test_rust_without_cargo_llvm_cov_says_how_to_install(tmp_path: Path) -> None:
    probe = subprocess.run("cargo llvm-cov --version", shell=True, capture_output=True)
    if probe.returncode == 0:
        pytest.skip("cargo-llvm-cov is installed here")
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "x"\nversion = "0.1.0"\n')
    ctx = ToolContext(workdir=tmp_path, output_dir=tmp_path / ".out")

    result = await run(ctx)

    assert not result.ok
    assert "cargo install cargo-llvm-cov" in result.error
    assert "rustup component add llvm-tools-preview" in result.error
    assert "not installed automatically" in result.error


async def test_timeout_kills_the_whole_test_run(tmp_path: Path) -> None:
    hang = """\
import os, subprocess, time
from pathlib import Path


def test_hangs():
    child = subprocess.Popen(["sleep", "60"])
    Path("pids").write_text(f"{os.getpid()} {child.pid}")
    time.sleep(60)
"""
    ctx = python_project(tmp_path, hang)

    started = time.monotonic()
    result = await run(ctx, CoverageTool(timeout_s=4))

    assert time.monotonic() - started < 15
    assert not result.ok
    assert result.error == "Python coverage timed out after 4 s"
    assert "and its children were killed" in result.llm_content
    for pid in map(int, (tmp_path / "pids").read_text().split()):
        assert await gone(pid), f"process {pid} survived"


async def gone(pid: int, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z" or time.monotonic() > deadline:
            return state == "Z"
        await asyncio.sleep(0.05)


def test_needs_approval_with_the_command(tmp_path: Path) -> None:
    ctx = python_project(tmp_path)
    invocation = CoverageTool().build({}, ctx)

    confirmation = invocation.confirmation()

    assert CoverageTool.kind is ToolKind.EXECUTE
    assert confirmation.kind == "execute"
    assert confirmation.working_dir == tmp_path
    assert "-m coverage run -m pytest -q" in confirmation.command
    assert invocation.describe().startswith("code_coverage: ")


def test_detects_rust_and_python_projects(tmp_path: Path) -> None:
    assert plan_for(tmp_path) is None
    (tmp_path / "Cargo.toml").write_text("")
    assert plan_for(tmp_path).command == "cargo llvm-cov --summary-only"
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("")
    assert plan_for(tmp_path).project == "Python"  # a PyO3 project's tests are Python


def test_total_line_of_llvm_cov_is_kept_whole() -> None:
    report = (
        "Filename   Regions  Missed Regions  Cover  Functions  Missed Functions  Executed\n"
        "---------------------------------------------------------------------------\n"
        "lib.rs          10               2  80.00%         3                 0  100.00%\n"
        "---------------------------------------------------------------------------\n"
        "TOTAL           10               2  80.00%         3                 0  100.00%\n"
    )
    assert total_line(report) == "TOTAL 10 2 80.00% 3 0 100.00%"
    assert total_line("No data to report.\n") is None
