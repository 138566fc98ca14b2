"""The shell judge against an executable oracle.

Every corpus command is judged in default mode in a real project and must get the verdict the
corpus gives it. Every command the judge lets run without asking (corpus or generated) is then
run for real with bash in a sandboxed copy of the project, the fake home and the folder beside
the project, and must change nothing, try to write nothing outside them, and leave nothing
running. A judge bug shows up here whatever its class.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from agent_tui.core.safety.permission_rules import RuleSet
from agent_tui.core.safety.permissions import Decision, decide_command
from agent_tui.core.safety.workspace import Workspace
from tests.core.safety.oracle.corpus import Case, load_corpus
from tests.core.safety.oracle.generated import command_line
from tests.core.safety.oracle.project import OracleProject, build_project
from tests.core.safety.oracle.runner import Effect, run_command

CASES = load_corpus()
CLASSES = sorted({case.klass for case in CASES})
GENERATED_EXAMPLES = 600
"""Generated commands per run: about a quarter are allowed and run, ~40 s here."""

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="bubblewrap is not installed")


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OracleProject]:
    """The project, the outside folder and the fake home, with HOME set to the fake home."""
    project = build_project(tmp_path_factory.mktemp("oracle"))
    with pytest.MonkeyPatch.context() as patch:
        for name, value in project.env().items():
            patch.setenv(name, value)
        scratch = None
        shm = Path("/dev/shm")
        if shm.is_dir() and os.access(shm, os.W_OK):
            # Each run copies the project into a scratch folder and removes it: on tmpfs
            # that is several times faster than on a disk.
            scratch = tempfile.mkdtemp(prefix="oracle-", dir=shm)
            patch.setattr(tempfile, "tempdir", scratch)
        yield project
    if scratch:
        shutil.rmtree(scratch, ignore_errors=True)


def judge(command: str, project: OracleProject) -> Decision:
    """The judge's decision in default mode with no rules, in the project."""
    return decide_command(command, "default", Workspace(project.root), RuleSet(),
                          cwd=project.root)


def _shown(case: Case, decision: Decision) -> str:
    note = f"\n    ({case.note})" if case.note else ""
    return (f"  {case.command!r}\n    expected {case.expect}, got {decision.verdict.value}: "
            f"{decision.reason}{note}")


def _run_shown(command: str, effect: Effect) -> str:
    details = effect.describe().replace("\n", "\n      ")
    return f"  {command!r}\n      {details}"


def test_corpus_is_broad_and_covers_every_class() -> None:
    assert len(CASES) >= 300
    for number in range(1, 15):
        tag = f"c{number:02d}-"
        have = [c for c in CASES if c.klass.startswith(tag)] if number != 14 else [
            c for c in CASES if c.klass == "friction"]
        assert len(have) >= 5, f"class {number} has {len(have)} cases"
    assert all(case.source for case in CASES)
    assert len({case.command for case in CASES}) > 0.9 * len(CASES)


@needs_bwrap
def test_the_runner_sees_every_kind_of_effect(oracle: OracleProject) -> None:
    assert run_command("git status; cat README.md", oracle).harmless
    assert run_command("touch made.txt", oracle).changes == ("created made.txt",)
    assert run_command("echo x >> ~/.bashrc", oracle).changes == (
        f"modified {oracle.home / '.bashrc'}",)
    assert run_command("rm ../outside/notes.txt", oracle).changes == (
        f"deleted {oracle.outside / 'notes.txt'}",)
    assert run_command("touch /usr/oracle-made", oracle).refused_writes
    silent = run_command("touch /usr/oracle-made 2>/dev/null || true", oracle)
    assert bool(silent.refused_writes) == silent.traced  # only strace sees a hidden error
    left = run_command("sleep 30 &", oracle)
    assert any("sleep 30" in p for p in left.left_running)


@pytest.mark.parametrize("klass", CLASSES)
def test_judge_gives_the_corpus_verdict(oracle: OracleProject, klass: str) -> None:
    wrong = []
    for case in (c for c in CASES if c.klass == klass):
        decision = judge(case.command, oracle)
        if decision.verdict.value != case.expect:
            wrong.append(_shown(case, decision))
    assert not wrong, f"{len(wrong)} verdicts differ from the corpus ({klass}):\n" + "\n".join(
        wrong)


@needs_bwrap
@pytest.mark.parametrize("klass", CLASSES)
def test_commands_the_judge_allows_change_nothing(oracle: OracleProject, klass: str) -> None:
    harmful = []
    for case in (c for c in CASES if c.klass == klass):
        if judge(case.command, oracle).verdict.value != "allow":
            continue
        if case.expect == "deny":
            harmful.append(f"  {case.command!r}\n      allowed, and on the catastrophic list: "
                           "not run")
            continue
        effect = run_command(case.command, oracle)
        if not effect.harmless:
            harmful.append(_run_shown(case.command, effect))
    assert not harmful, (f"{len(harmful)} commands ran without asking and had an effect "
                         f"({klass}):\n" + "\n".join(harmful))


@needs_bwrap
@settings(max_examples=GENERATED_EXAMPLES, derandomize=True, database=None, deadline=None,
          phases=(Phase.explicit, Phase.generate),
          suppress_health_check=(HealthCheck.function_scoped_fixture, HealthCheck.too_slow))
@given(command=command_line())
def test_generated_commands_the_judge_allows_change_nothing(oracle: OracleProject,
                                                             command: str) -> None:
    if judge(command, oracle).verdict.value != "allow":
        return
    effect = run_command(command, oracle)
    assert effect.harmless, "ran without asking and had an effect:\n" + _run_shown(command,
                                                                                   effect)
