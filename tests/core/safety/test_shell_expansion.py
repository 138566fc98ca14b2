"""The judge reads a command as bash will: each case below is first run with real bash in a
throwaway project to show that it really does what the judge must not let through (it
creates ``pwned`` or empties ``victim``), then judged in default mode, where it must ask."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_tui.core.safety.permission_rules import RuleSet
from agent_tui.core.safety.permissions import Verdict, decide_command
from agent_tui.core.safety.workspace import Workspace

EVIL_LS = "#!/bin/sh\n: > pwned\n"  # no PATH needed: PATH is what it replaced


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "bin").mkdir(parents=True)
    (root / "README").write_text("hello\n")
    (root / "victim").write_text("b\na\n")
    (root / "evil.sh").write_text("touch pwned\n")
    (root / "cat").write_text("x\n")  # a file named like a program, read by `xargs --arg`
    (root / "bin" / "ls").write_text(EVIL_LS)
    (root / "bin" / "ls").chmod(0o755)
    (root / "traps").mkdir()
    (root / "traps" / "-o").write_text("")
    (root / "traps" / "victim").write_text("b\na\n")
    return root


def run_bash(command: str, cwd: Path) -> None:
    subprocess.run(["bash", "-c", command], cwd=cwd, stdin=subprocess.DEVNULL,
                   capture_output=True, timeout=20, check=False)


def judge(command: str, project: Path, cwd: Path | None = None) -> tuple[Verdict, str]:
    decision = decide_command(command, "default", Workspace(project), RuleSet(),
                              cwd or project)
    return decision.verdict, decision.reason


CREATES_PWNED = [
    # 1. a newline inside a double-quoted -c / eval string
    'bash -c "echo a\ntouch pwned"',
    'eval "ls\ntouch pwned"',
    'sh -c "true\n touch pwned"',
    # 4. an abbreviated wrapper option that takes a value shifts the command word
    "xargs --arg cat touch pwned",
    "xargs --arg=cat touch pwned",
    "env --chd . touch pwned",
    # 5. text bash evaluates later as code
    "x='a[$(touch pwned)]'; echo $((x))",
    "test -v 'a[$(touch pwned)]'",
    "[ -v 'a[$(touch pwned)]' ]",
    "[[ -v 'a[$(touch pwned)]' ]]",
    "printf -v 'a[$(touch pwned)]' %s x",
    "read 'a[$(touch pwned)]' <<< x",
    "declare 'a[$(touch pwned)]=1'",
    "x='$(touch pwned)'; echo ${x@P}",
    # 6. the outer shell of bash -c
    "BASH_ENV=evil.sh bash -c true",
    "env BASH_ENV=evil.sh bash -c true",
    "BASH_ENV=evil.sh bash -c 'ls'",
    # 8. PATH or a command's meaning changed without an assignment
    'printf -v PATH %s "$PWD/bin"; ls',
    'read PATH <<< "$PWD/bin"; ls',
    'declare -n r=PATH; r=$PWD/bin; ls',
    "hash -p ./bin/ls ls; ls",
    "a=(1); unset 'a[$(touch pwned)]'",
    # a program of the project named like a read-only one
    "./bin/ls", "bin/ls -la",
]


@pytest.mark.parametrize("command", CREATES_PWNED)
def test_commands_that_run_code_through_bash_ask(project: Path, command: str) -> None:
    run_bash(command, project)
    assert (project / "pwned").exists(), "bash did not run the hidden command: a bad case"
    (project / "pwned").unlink()
    verdict, reason = judge(command, project)
    assert verdict != Verdict.ALLOW, reason


@pytest.mark.parametrize("command", ["sort *", "sort {-o,victim} ../README"])
def test_options_made_by_brace_and_pathname_expansion_are_seen(project: Path,
                                                               command: str) -> None:
    folder = project / "traps"
    before = (folder / "victim").read_text()
    run_bash(command, folder)
    assert (folder / "victim").read_text() != before, "bash did not write victim: a bad case"
    verdict, reason = judge(command, project, folder)
    assert verdict == Verdict.ASK and "-o" in reason, reason


@pytest.mark.parametrize("command", [
    "cat a{b,c}", "echo {1..3}", "ls src/*.py", "wc -l *", "cat 'a{b,c}' \"*\"",
    "LC_ALL=C bash -c 'ls'", "for ((i=0; i<3; i++)); do echo $i; done",
    "read -r line < README; echo \"$line\"", "echo '$(not run)'", "(( n = 1 + 2 ))",
    "timeout --sig KILL 5 ls", "nice -10 ls", "xargs -0 -n1 echo",
    "awk '{print $1}' README", "ls | awk -F: '{ n += length($0) } END { print n }'",
])
def test_harmless_commands_still_run_without_asking(project: Path, command: str) -> None:
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text("")
    verdict, reason = judge(command, project)
    assert verdict == Verdict.ALLOW, reason


def test_glob_arguments_are_the_files_they_match(project: Path) -> None:
    from agent_tui.core.safety.shell_analysis import analyse

    (part,) = analyse("wc -l traps/*", project).parts
    assert part.argv == ("wc", "-l", "traps/-o", "traps/victim")
    (part,) = analyse("cat 'traps/*' traps/nothing*", project).parts
    assert part.argv == ("cat", "traps/*", "traps/nothing*")  # no match: left as written


def test_a_double_quoted_script_keeps_its_lines(project: Path) -> None:
    from agent_tui.core.safety.shell_analysis import analyse

    lines = [p.line for p in analyse('bash -c "echo \\"a\\"\n  rm x \\$y z"', project).parts]
    assert lines == ["echo a", "rm x $y z"]


def test_an_unknown_wrapper_option_asks_with_the_reason(project: Path) -> None:
    verdict, reason = judge("timeout --bogus 5 ls", project)
    assert verdict == Verdict.ASK and "--bogus" in reason


@pytest.mark.parametrize(("command", "verdict"), [
    ("f=README; cat $f", Verdict.ALLOW),
    ('f="README victim"; wc -l $f', Verdict.ALLOW),  # split into two files, as bash does
    ("x=-o; sort $x victim README", Verdict.ASK),  # the option hidden in a variable is seen
    ("f=~/.ssh/id_rsa; cat $f", Verdict.ASK),
    # a value that may have changed is not known: a branch, a function, read, eval
    ("f=README; if true; then f=~/.ssh/id_rsa; fi; cat $f", Verdict.ASK),
    ("f=README; g() { f=~/.ssh/id_rsa; }; g; cat $f", Verdict.ASK),
    ("f=README; read f < victim; cat $f", Verdict.ASK),
    ("f=README; eval true; cat $f", Verdict.ASK),
    # a new shell does not see this one's unexported variables
    ("f=README; bash -c 'cat $f'", Verdict.ASK),
])
def test_variables_with_a_known_value_are_expanded(project: Path, command: str,
                                                   verdict: Verdict) -> None:
    got, reason = judge(command, project)
    assert got == verdict, reason


def test_a_known_value_is_what_bash_uses(project: Path) -> None:
    """The value the judge reads for `$f` is the one bash passes to the program."""
    (project / "victim").write_text("b\na\n")
    run_bash("f=victim; sort -o $f $f", project)
    assert (project / "victim").read_text() == "a\nb\n"
    got, reason = judge("f=victim; sort -o $f $f", project)
    assert got == Verdict.ASK and "-o" in reason, reason


@pytest.mark.parametrize("command", ["time --bogus x rm -rf /", "sudo --bogus rm -rf ~",
                                     "timeout --nope 5 rm -rf /"])
def test_a_wrapper_whose_options_cannot_be_read_is_refused_if_any_reading_is(
        project: Path, command: str) -> None:
    """Each word after unreadable options may be the command; a hard-denied one refuses."""
    verdict, reason = judge(command, project)
    assert verdict == Verdict.DENY, reason


def test_xargs_splits_names_at_blanks_so_their_words_may_be_options(project: Path) -> None:
    """A file named `victim -o victim` turns `find … | xargs sort` into
    `sort traps/victim -o victim …`, which overwrites ./victim."""
    folder = project / "traps"
    (folder / "-o").unlink()
    (folder / "victim -o victim").write_text("")
    command = "find traps -type f | xargs sort"
    run_bash(command, project)
    assert (project / "victim").read_text() != "b\na\n", "xargs did not split: a bad case"
    assert judge(command, project)[0] == Verdict.ASK


def test_find_print0_into_xargs_0_reads_files_in_the_folders_find_starts_in(
        project: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text("x\n")
    (project / "src" / "a -o victim").write_text("")
    command = "find src -type f -name '*' -print0 | xargs -0 wc -l"
    assert judge(command, project)[0] == Verdict.ALLOW
    run_bash(command, project)
    assert (project / "victim").read_text() == "b\na\n"  # names stay whole: nothing written


@pytest.mark.parametrize("command", [
    "find src -print0 | xargs -0 cat",  # without -type f a symlink found may lead outside
    "find -L src -type f -print0 | xargs -0 cat",
    "find src -type f -print0 | xargs cat",  # xargs without -0 splits at blanks
    "find src -type f -print0 | xargs -0 sort -o out",
])
def test_other_feeds_into_xargs_ask(project: Path, command: str) -> None:
    (project / "src").mkdir()
    (project / "src" / "link").symlink_to("/etc/hostname")
    assert judge(command, project)[0] == Verdict.ASK


def test_a_deny_rule_on_a_file_find_may_feed_to_xargs_asks(project: Path) -> None:
    from agent_tui.core.safety.permission_rules import parse_rules

    (project / ".env").write_text("KEY=1\n")
    decision = decide_command("find . -type f -print0 | xargs -0 cat", "default",
                              Workspace(project), RuleSet(deny=parse_rules(["read_file(.env)"])),
                              project)
    assert decision.verdict == Verdict.ASK and "read_file(.env)" in decision.reason
