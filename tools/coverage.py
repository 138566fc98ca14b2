"""The code_coverage tool: run the project's tests under coverage and report the summary.

Python projects run ``python -m coverage run -m pytest -q`` then ``python -m coverage report``;
Rust projects run ``cargo llvm-cov --summary-only``. Nothing is installed automatically: a
missing tool comes back as a message saying how to install it.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shlex
import shutil
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .base import (
    Confirmation,
    ErrorType,
    Invocation,
    OutputCallback,
    Tool,
    ToolContext,
    ToolKind,
    ToolParams,
    ToolResult,
)
from .names import ToolName
from .shell import OutputSink, kill_group, pump_output

DEFAULT_TIMEOUT_S = 600.0
"""How long the test run may take before it is killed (10 minutes)."""
PROBE_TIMEOUT_S = 60.0
"""How long checking that the coverage tool is installed may take."""
PYTHON_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", "pytest.ini")
"""Files that make a folder a Python project."""
_PROBE_PYTHON = ("import importlib.util as u; print(' '.join(m for m in ('coverage', 'pytest') "
                 "if u.find_spec(m) is None))")


@dataclass(frozen=True, slots=True)
class CoveragePlan:
    """How to measure a project's coverage.

    Attributes:
        project: ``Python`` or ``Rust``.
        marker: The file (or folder) that told which kind of project it is.
        test_argv: The command that runs the tests under coverage.
        report_argv: The command that prints the summary afterwards (None: the test command
            prints it).
    """

    project: str
    marker: str
    test_argv: list[str]
    report_argv: list[str] | None = None

    @property
    def command(self) -> str:
        """The commands as one line, for people."""
        steps = [self.test_argv] + ([self.report_argv] if self.report_argv else [])
        return "; ".join(shlex.join(step) for step in steps)


def plan_for(workdir: Path, env: Mapping[str, str] | None = None) -> CoveragePlan | None:
    """The coverage plan of the project in ``workdir``, or None when its kind is unsupported.

    A folder with both Python and Rust markers (a PyO3 project, say) is treated as Python.
    """
    marker = next((m for m in PYTHON_MARKERS if (workdir / m).is_file()), None)
    tests = workdir / "tests"
    if marker is None and tests.is_dir() and next(tests.rglob("*.py"), None) is not None:
        marker = "tests/"
    if marker is not None:
        python = python_for(workdir, env)
        return CoveragePlan("Python", marker, [python, "-m", "coverage", "run", "-m", "pytest",
                                               "-q"], [python, "-m", "coverage", "report"])
    if (workdir / "Cargo.toml").is_file():
        return CoveragePlan("Rust", "Cargo.toml", ["cargo", "llvm-cov", "--summary-only"])
    return None


def python_for(workdir: Path, env: Mapping[str, str] | None = None) -> str:
    """The project's interpreter: its virtualenv's, else ``python3`` on PATH, else ours."""
    for venv in (".venv", "venv"):
        candidate = workdir / venv / "bin" / "python"
        if candidate.is_file():
            return str(candidate)
    path = (env if env is not None else os.environ).get("PATH")
    return shutil.which("python3", path=path) or shutil.which("python", path=path) or \
        sys.executable


class CoverageParams(ToolParams):
    """code_coverage takes no arguments."""


class CoverageTool(Tool):
    """Runs the project's test suite under coverage and returns the summary table."""

    name = ToolName.CODE_COVERAGE
    kind = ToolKind.EXECUTE
    description = (
        "Measure test coverage of the project: runs its whole test suite under coverage and "
        "returns the summary table, its TOTAL line first, and the tests' exit status. Python "
        "projects (pyproject.toml, setup.cfg, setup.py, pytest.ini or tests/*.py): `python -m "
        "coverage run -m pytest -q` then `python -m coverage report` (the .coverage data stays, "
        "so `python -m coverage report -m` with the shell tool shows the missed lines). Rust "
        "projects (Cargo.toml): `cargo llvm-cov --summary-only`. It runs the tests, so it "
        "needs approval like shell."
    )
    Params = CoverageParams

    def __init__(self, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        self.timeout_s = timeout_s

    def create_invocation(self, params: CoverageParams, ctx: ToolContext) -> CoverageInvocation:
        """Make the invocation."""
        return CoverageInvocation(self, params, ctx)


class CoverageInvocation(Invocation[CoverageParams]):
    """One code_coverage call."""

    tool: CoverageTool

    @property
    def plan(self) -> CoveragePlan | None:
        """What will run (None: the project's kind is not supported)."""
        return plan_for(self.ctx.workdir, self.ctx.env)

    def describe(self) -> str:
        """E.g. ``code_coverage: python3 -m coverage run -m pytest -q; …``."""
        plan = self.plan
        return f"code_coverage: {plan.command if plan else 'no supported project found'}"

    def confirmation(self) -> Confirmation:
        """The commands that run the tests, and where."""
        plan = self.plan
        return Confirmation(
            kind="execute", title="Run the test suite under coverage",
            command=plan.command if plan else "", working_dir=self.ctx.workdir,
            details="" if plan else "nothing will run: no supported project found")

    async def execute(self, on_output: OutputCallback | None = None) -> ToolResult:
        """Check the coverage tool is there, run the tests, then summarise the report."""
        plan = self.plan
        if plan is None:
            return ToolResult.failure(
                f"not supported: found no pyproject.toml, setup.cfg, setup.py, pytest.ini, "
                f"tests/*.py or Cargo.toml in {self.ctx.workdir}. code_coverage measures "
                "Python (pytest) and Rust (cargo llvm-cov) projects; for others run the "
                "project's own coverage command with the shell tool")
        try:
            self.ctx.output_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return ToolResult.failure(
                f"cannot create the output folder {self.ctx.output_dir}: {exc}; check that it "
                "is writable")
        missing = await self._missing_tool(plan)
        if missing:
            return ToolResult.failure(missing)
        deadline = time.monotonic() + self.tool.timeout_s
        test_budget = self.ctx.output_limit // 3 if plan.report_argv else self.ctx.output_limit
        tests = await self._run(plan.test_argv, test_budget, deadline, on_output)
        if tests.code is None:
            return self._timed_out(plan, tests)
        report = (await self._run(plan.report_argv, self.ctx.output_limit - test_budget, deadline)
                  if plan.report_argv else tests)
        if report.code is None:
            return self._timed_out(plan, report)
        return self._result(plan, tests, report)

    async def _missing_tool(self, plan: CoveragePlan) -> str | None:
        """Why the plan cannot run (coverage.py, pytest or cargo-llvm-cov missing), or None."""
        deadline = time.monotonic() + PROBE_TIMEOUT_S
        if plan.project == "Python":
            python = plan.test_argv[0]
            probe = await self._run([python, "-c", _PROBE_PYTHON], 2_000, deadline)
            absent = probe.output.split() if probe.code == 0 else ["coverage"]
            if not absent:
                return None
            return (f"{' and '.join(absent)} {'is' if len(absent) == 1 else 'are'} not installed "
                    f"for {python}: install with `{shlex.quote(python)} -m pip install "
                    f"{' '.join(absent)}`, then call code_coverage again")
        install = ("install it with `cargo install cargo-llvm-cov` and `rustup component add "
                   "llvm-tools-preview`, then call code_coverage again (it is not installed "
                   "automatically)")
        probe = await self._run(["cargo", "llvm-cov", "--version"], 2_000, deadline)
        if probe.code == 0:
            return None
        if probe.not_found:
            return f"cargo was not found on PATH: install Rust (https://rustup.rs), then {install}"
        return f"cargo-llvm-cov is not installed (`cargo llvm-cov --version` failed): {install}"

    async def _run(self, argv: list[str], limit: int, deadline: float,
                   on_output: OutputCallback | None = None) -> CommandRun:
        """Run ``argv`` in the project folder in its own process group, until ``deadline``."""
        log = self.ctx.output_dir / (f"coverage-{time.strftime('%Y%m%d-%H%M%S')}-"
                                     f"{secrets.token_hex(4)}.log")
        sink = OutputSink(limit, log, on_output)
        try:
            code = await run_in_group(argv, self.ctx.workdir, self.ctx.env,
                                      max(deadline - time.monotonic(), 0.1), sink)
        except OSError as exc:
            return CommandRun(argv, -1, f"cannot start {argv[0]}: {exc}", not_found=True)
        finally:
            sink.finish()
            sink.close()
        return CommandRun(argv, code, sink.render())

    def _timed_out(self, plan: CoveragePlan, run: CommandRun) -> ToolResult:
        seconds = f"{self.tool.timeout_s:g}"
        note = (f"[timed out after {seconds} s: `{shlex.join(run.argv)}` and its children were "
                "killed. Measure part of the suite instead with the shell tool")
        note += (", e.g. `python -m coverage run -m pytest -q tests/some_part` and "
                 "`python -m coverage report`]" if plan.project == "Python" else "]")
        return ToolResult(llm_content=f"{run.output.rstrip()}\n{note}",
                          error=f"{plan.project} coverage timed out after {seconds} s",
                          error_type=ErrorType.TIMEOUT)

    def _result(self, plan: CoveragePlan, tests: CommandRun, report: CommandRun) -> ToolResult:
        verdict = {0: "passed", 1: "failed", 5: "none collected"}.get(tests.code or 0, "error")
        status = f"tests {verdict} (exit code {tests.code})"
        total = total_line(report.output)
        if total is None:
            body = report.output if report is tests else (
                f"{report.output.rstrip()}\n\nTest output:\n{tests.output.rstrip()}")
            return ToolResult(
                llm_content=f"No coverage TOTAL found; {status}.\nCommand: {plan.command}\n\n"
                            f"{body.rstrip()}",
                error=f"the coverage report has no TOTAL line ({status}); see the output")
        parts = [f"Coverage {total} — {status}", f"Command: {plan.command}", "",
                 report.output.rstrip()]
        if report is not tests:
            parts += ["", "Test output:", tests.output.rstrip()]
        return ToolResult(llm_content="\n".join(parts))


@dataclass(frozen=True, slots=True)
class CommandRun:
    """How one command ended: its exit code (None: timed out) and its capped output."""

    argv: list[str]
    code: int | None
    output: str
    not_found: bool = False


def total_line(report: str) -> str | None:
    """The report's TOTAL row, labelled with the column headers when they line up.

    E.g. ``TOTAL: Stmts 9, Miss 3, Cover 67%`` for coverage.py; llvm-cov's many-word headers
    do not line up, so its row comes back as is, spaces squeezed.
    """
    lines = report.splitlines()
    totals = [i for i, line in enumerate(lines) if line.startswith("TOTAL")]
    if not totals:
        return None
    values = lines[totals[-1]].split()
    rule = next((i for i, line in enumerate(lines) if line.strip() and set(line.strip()) == {"-"}),
                None)
    header = lines[rule - 1].split() if rule else []
    if len(header) == len(values) and len(values) > 1:
        return "TOTAL: " + ", ".join(f"{h} {v}" for h, v in zip(header[1:], values[1:],
                                                                strict=True))
    return " ".join(values)


async def run_in_group(argv: list[str], cwd: Path, env: Mapping[str, str] | None,
                       timeout_s: float, sink: OutputSink) -> int | None:
    """Run ``argv`` as the leader of a new process group, its output going to ``sink``.

    Returns the exit code, or None when the timeout passed (the group is then killed, as it
    is on cancellation, which is re-raised).

    Raises:
        OSError: The program cannot be started (not found, not executable).
    """
    read_fd, write_fd = os.pipe()
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL, stdout=write_fd,
            stderr=asyncio.subprocess.STDOUT, start_new_session=True)
    except OSError:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    # As in the shell tool: owning the pipe lets reading stop while a stray child keeps it open.
    reader = asyncio.StreamReader()
    pipe = os.fdopen(read_fd, "rb", 0)
    transport: asyncio.ReadTransport | None = None
    try:
        transport, _ = await asyncio.get_running_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe)
        async with asyncio.timeout(timeout_s):
            await pump_output(reader, proc, sink)
            return await proc.wait()
    except TimeoutError:
        await kill_group(proc)
        return None
    except BaseException:
        await kill_group(proc)
        raise
    finally:
        if transport is not None:
            transport.close()
        else:
            pipe.close()
