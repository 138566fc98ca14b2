"""Writes the oracle's failures as a Markdown list for the people fixing the judge.

Run ``python3 -m tests.core.safety.oracle.report OUT.md [GENERATED]``: it builds the project in
a temporary folder, judges every corpus case, runs every command the judge allows (and
``GENERATED`` generated ones, 600 by default), and lists each failure with the command, the
verdict expected and given, the judge's reason, the effect and the class.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings

from agent_tui.core.safety.permission_rules import RuleSet
from agent_tui.core.safety.permissions import Decision, decide_command
from agent_tui.core.safety.workspace import Workspace

from .corpus import load_corpus
from .generated import command_line
from .project import OracleProject, build_project
from .runner import run_command


def _judge(command: str, project: OracleProject) -> Decision:
    return decide_command(command, "default", Workspace(project.root), RuleSet(),
                          cwd=project.root)


def _fence(text: str) -> str:
    return "`` " + text.replace("\n", "⏎") + " ``"


def failures(project: OracleProject, generated: int) -> tuple[list[str], list[str]]:
    """Verdict failures (one Markdown line each) and effect failures (corpus and generated)."""
    verdicts: list[str] = []
    effects: list[str] = []
    for case in load_corpus():
        decision = _judge(case.command, project)
        got = decision.verdict.value
        if got != case.expect:
            verdicts.append(f"- {_fence(case.command)} — expected **{case.expect}**, got "
                            f"**{got}** ({decision.reason}) — class `{case.klass}`"
                            + (f" — {case.note}" if case.note else ""))
        if got == "allow" and case.expect != "deny":
            effect = run_command(case.command, project)
            if not effect.harmless:
                effects.append(f"- {_fence(case.command)} — class `{case.klass}` — "
                               + effect.describe().replace("\n", "; "))

    @settings(max_examples=generated, derandomize=True, database=None, deadline=None,
              phases=(Phase.generate,), suppress_health_check=(HealthCheck.too_slow,))
    @given(command_line())
    def run_generated(command: str) -> None:
        if _judge(command, project).verdict.value == "allow":
            effect = run_command(command, project)
            if not effect.harmless:
                effects.append(f"- {_fence(command)} — generated — "
                               + effect.describe().replace("\n", "; "))

    if generated:
        run_generated()
    return verdicts, effects


def main(argv: list[str]) -> int:
    """Write the report to ``argv[0]``."""
    out = Path(argv[0])
    generated = int(argv[1]) if len(argv) > 1 else 600
    with tempfile.TemporaryDirectory(prefix="oracle-report-") as base:
        project = build_project(Path(base))
        os.environ.update(project.env(), AGENT_TUI_HOME=str(Path(base) / "agent-tui-home"))
        if os.access("/dev/shm", os.W_OK):
            tempfile.tempdir = "/dev/shm"  # the runs' scratch copies: much faster on tmpfs
        verdicts, effects = failures(project, generated)
    out.write_text(
        "# Shell judge oracle: failing cases\n\n"
        "Written by `python3 -m tests.core.safety.oracle.report` (default mode, no rules, in "
        "the oracle's project; `PWNED` is the file the project's planted payloads create).\n\n"
        f"## Verdicts that differ from the corpus ({len(verdicts)})\n\n"
        + "\n".join(verdicts) + "\n\n"
        f"## Commands the judge allowed that had an effect when run ({len(effects)})\n\n"
        + "\n".join(effects) + "\n")
    print(f"{out}: {len(verdicts)} verdicts, {len(effects)} effects")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
