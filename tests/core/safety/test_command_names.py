"""A deny rule on a program refuses every command line that makes another name run it (hash -p,
alias, a function, PATH, enable -f, xargs handing a wrapper its command) or runs a name only
known at run time, with the rule's own message; what runs something else stays as it was.

bash itself shows each construct at work: the witnesses run them for real in a folder and
see the file go.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_tui.core.safety.permission_rules import RuleSet, parse_rules
from agent_tui.core.safety.permissions import Decision, Verdict, decide_command
from agent_tui.core.safety.workspace import Workspace

RM = "shell(rm *)"
RM_RF = "shell(rm -rf *)"

REFUSED = [
    "hash -p /usr/bin/rm foo; foo -rf victim",
    "hash -p /bin/rm foo",
    "hash -p /bin/rm foo bar; bar -rf victim",
    'hash -p "$x" foo; foo -rf victim',
    'hash -p /bin/rm "$n"',
    "alias foo=rm; foo -rf victim",
    "alias foo='rm -rf'; foo victim",
    'alias foo="$(printf rm)"',
    'alias "$n"=rm',
    "shopt -s expand_aliases\nalias foo=rm\nfoo -rf victim",
    'foo() { rm "$@"; }; foo -rf victim',
    'function foo { rm "$1" "$2"; }; foo -rf victim',
    "foo() { rm $*; }; foo -rf victim",
    "foo() { alias bar=rm; }; foo",
    "eval 'alias foo=rm'; foo -rf victim",
    "PATH=./bin:$PATH; foo -rf victim",
    "export PATH=./bin; ls",
    "PATH=./bin ls",
    "env PATH=./bin ls",
    "declare PATH=./bin",
    "read PATH",
    "printf -v PATH %s ./bin; ls",
    "enable -f ./evil.so foo; foo victim",
    "p=rm; $p -rf victim",
    "p=$(printf rm); $p -rf victim",
    "$(printf rm) -rf victim",
    "`printf rm` -rf victim",
    '"${p:-rm}" -rf victim',
    "${!name} -rf victim",
    'eval "$c"',
    'bash -c "$c"',
    "echo rm -rf victim | xargs xargs",
    "echo rm -rf victim | xargs env",
    "echo rm -rf victim | xargs command",
    "find . -name victim | xargs -I{} {} -rf victim",
    "command rm -rf victim",
    "builtin rm -rf victim",
    "exec rm -rf victim",
    "exec -a foo rm -rf victim",
    "command -p rm -rf victim",
    "nice -n 5 rm -rf victim",
    "\\rm -rf victim",
    "/bin/rm -rf victim",
    "cp /bin/rm foo; ./foo -rf victim",
    "ln -s /bin/rm foo && ./foo -rf victim",
    "cat /bin/rm > foo; chmod +x foo; ./foo -rf victim",
    "mkdir bin; cp /bin/rm bin/x; PATH=bin x -rf victim",
]
"""Refused by ``shell(rm -rf *)`` and by ``shell(rm *)``."""

NOT_REFUSED = [
    ("hash -p /bin/ls l; l", Verdict.ASK),
    ("alias ll='ls -l'; ll", Verdict.ASK),
    ("foo() { echo hi; }; foo", Verdict.ASK),
    ('foo() { rm -i "$@"; }; foo victim', Verdict.ASK),
    ('function foo { rm "$@"; }; foo victim', Verdict.ASK),
    ("p=ls; $p -la", Verdict.ALLOW),
    ("rm victim", Verdict.ASK),
    ("enable -n echo", Verdict.ASK),
    ("hash -r", Verdict.ALLOW),
    ("ls | xargs echo", Verdict.ALLOW),
    ("git status", Verdict.ALLOW),
    ("X=1 ls", Verdict.ALLOW),
    ("chmod +x run.sh && ./run.sh", Verdict.ASK),
    ("cp a.txt b.txt; ./c", Verdict.ASK),
]
"""Under ``shell(rm -rf *)``: they run something else (or rm without -rf)."""


def decide(command: str, project: Path, deny: tuple[str, ...]) -> Decision:
    return decide_command(
        command, "default", Workspace(project), RuleSet(deny=parse_rules(deny)), project
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "victim").mkdir()
    return root


@pytest.mark.parametrize("rule", [RM_RF, RM])
@pytest.mark.parametrize("command", REFUSED)
def test_a_name_made_to_run_a_denied_program_is_refused_with_the_rules_message(
    project, command, rule
):
    decision = decide(command, project, (rule,))
    assert decision.verdict == Verdict.DENY, decision.reason
    assert f"rule {rule}" in decision.reason and decision.by == "rule"


@pytest.mark.parametrize(("command", "expected"), NOT_REFUSED)
def test_names_that_run_other_programs_are_judged_as_before(project, command, expected):
    assert decide(command, project, (RM_RF,)).verdict == expected


def test_the_message_says_what_the_name_runs(project):
    reason = decide("hash -p /usr/bin/rm foo; foo -rf victim", project, (RM_RF,)).reason
    assert reason == (
        f"`hash -p /usr/bin/rm foo`: makes foo run /usr/bin/rm; denied by the rule {RM_RF}"
    )
    reason = decide('foo() { rm "$@"; }; foo -rf victim', project, (RM_RF,)).reason
    assert "foo runs `rm -rf victim` here" in reason
    assert reason.endswith(f"it may run what the rule {RM_RF} denies, so that rule refuses it")
    reason = decide("PATH=./bin:$PATH; foo", project, (RM,)).reason
    assert "changes PATH, so every command after it may run another program" in reason


def test_a_rebinding_is_refused_when_the_name_could_reach_the_denied_command(project):
    git_push = ("shell(git push *)",)
    assert decide("alias gs='git status'; gs", project, git_push).verdict == Verdict.ASK
    assert decide("alias g=git; g status", project, git_push).verdict == Verdict.DENY
    assert decide("alias g=git; g push", project, git_push).verdict == Verdict.DENY


def test_only_path_rules_leave_an_unknown_program_asking_in_every_mode(project):
    decision = decide_command(
        "a=$(printf rm); $a -rf victim",
        "yolo",
        Workspace(project),
        RuleSet(deny=parse_rules(["read_file(.env)"])),
        project,
    )
    assert decision.verdict == Verdict.ASK and decision.any_mode


@pytest.mark.parametrize(
    "command",
    [
        "hash -p /bin/rm foo; foo -rf victim",
        "shopt -s expand_aliases\nalias foo=rm\nfoo -rf victim",
        'foo() { rm "$@"; }; foo -rf victim',
        "mkdir bin && ln -s /bin/rm bin/foo; PATH=./bin:$PATH; foo -rf victim",
        "p=rm; $p -rf victim",
        "cp /bin/rm foo; ./foo -rf victim",
        "echo rm -rf victim | xargs xargs",
        "echo rm -rf victim | xargs env",
    ],
)
def test_bash_really_runs_rm_under_the_other_name(project, command):
    subprocess.run(
        ["bash", "-c", command], cwd=project, capture_output=True, timeout=30, check=False
    )
    assert not (project / "victim").exists()
    assert decide(command, project, (RM_RF,)).verdict == Verdict.DENY
