"""Read-only programs fed the project's paths by xargs from a lister (find, git ls-files, rg -l,
grep -rl, ls) run without asking, judged as reads of those paths; anything that could make
xargs pass other words (a name split at blanks, an option, a link out of the project, a
lister outside it or one that is not a lister) still asks.

The allowed commands run for real in a throwaway copy of the oracle's project and must
change nothing; in a copy with hostile names the same pipelines ask, and running them shows
why (``sort`` fed the name ``src/app.py -o victim.txt`` writes victim.txt).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator

import pytest

from agent_tui.core.safety.git_index import IndexUnreadable, index_paths
from agent_tui.core.safety.permission_rules import RuleSet, parse_rules
from agent_tui.core.safety.permissions import Verdict, decide_command
from agent_tui.core.safety.workspace import Workspace
from tests.core.safety.oracle.project import OracleProject, build_project
from tests.core.safety.oracle.runner import run_command

needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap is not installed"
)

READS_THE_PROJECT = [
    "find . -name '*.py' | xargs wc -l",
    "find src -name '*.py' | xargs wc -l",
    "find src -type f | xargs cat",
    "find . -type f -name '*.txt' | xargs grep -n line",
    "find src tests -name '*.py' | xargs grep -l def",
    "find src -type f -print0 | xargs -0 grep -n def",
    "find . -maxdepth 1 -type f -print0 | xargs -0 wc -c",
    "find src -type f | xargs -n1 sha256sum",
    "find src -type f | xargs -r head -n 1",
    "find src -type f | xargs -P2 -n1 wc -l",
    "find src -type f | xargs -I{} cat {}",
    "find src -type f -print0 | xargs -0 -I{} wc -l {}",
    "find src -type f | xargs -d '\\n' cat",
    "find src -type f | xargs ls -l",
    "find src -type f | xargs stat -c %s",
    "find src -name '*.py' | xargs sort",
    "find . -name '*.json' | xargs cat",
    "find . -type f -newer README.md | xargs wc -l",
    "find src -type f | timeout 5 xargs cat",
    "cd src && find . -type f | xargs wc -l",
    "git ls-files | xargs wc -l",
    "git ls-files | xargs cat",
    "git ls-files '*.py' | xargs grep -n def",
    "git ls-files -z | xargs -0 wc -l",
    "git ls-files -z src | xargs -0 grep -n def",
    "git ls-files --others --exclude-standard | xargs wc -l",
    "git ls-files -m | xargs cat",
    "rg -l def | xargs wc -l",
    "rg -l def src | xargs cat",
    "rg --files | xargs wc -l",
    "rg --files src | xargs cat",
    "rg -l0 def | xargs -0 head -n 1",
    "grep -rl def . | xargs cat",
    "grep -rl def src | xargs wc -l",
    "grep -rl line | xargs head -n 1",
    "grep -rlZ def src | xargs -0 cat",
    "grep -l line notes.txt README.md | xargs wc -l",
    "ls | xargs wc -l",
    "ls src | xargs echo",
    "ls -1 src | xargs -I{} echo {}",
    "cd src && ls | xargs cat",
    "find src -type f | xargs sed -n 1p",
    "find src -type f -print0 | xargs -0 awk 'END {print NR}'",
    "find src -name '*.json' | xargs jq .name",
    "find src -type d | xargs find",
]
"""Pipelines that only read the project's files: allowed and harmless when run."""

STILL_ASK = [
    # the program xargs runs is not read-only, or runs what it is given
    "find . -name '*.py' | xargs rm",
    "git ls-files | xargs rm -f",
    "find src -type f | xargs sed -i s/a/b/",
    "find src -type f | xargs sort -o out.txt",
    "find src -type f -print0 | xargs -0 uniq",
    "find src -type f | xargs sh -c 'cat \"$@\"' sh",
    "find src -type f | xargs bash",
    "find src -type f | xargs env",
    "find src -type f | xargs xargs",
    "find src -type f | xargs python3",
    "find src -type f | xargs -I{} sh -c 'cat {}'",
    "find src -type f | xargs -I{} cp {} /tmp",
    "find src -type f | xargs -I{} cat {}.bak",
    "find src -type f | xargs -I{} {}",
    "find src -type f | xargs date",
    "echo evil | xargs hostname",
    "find src -type f | xargs tee copy.txt",
    "find src -type f | xargs sed",
    "find src -type f | xargs git log",
    "echo ~/.ssh/id_ed25519 | xargs sed -n p",
    "echo /etc/passwd | xargs awk '{print}'",
    "echo --output=x | xargs git diff",
    "echo -delete | xargs find",
    "echo e | xargs ps",
    "echo -Pfoo | xargs man ls",
    # xargs reads its names elsewhere or splits them differently from the lister
    "find src -type f | xargs -a notes.txt cat",
    "find src -type f -print0 | xargs cat",
    "find src -type f | xargs -0 cat",
    "find src -type f | xargs -d , cat",
    "find src -type f -print0 | xargs -0 -d x sort",
    "find src -type f -print0 | xargs -0 --process-slot-var=PATH cat",
    # the lister looks outside the project
    "find / -name '*.conf' | xargs cat",
    "find ~ -type f | xargs cat",
    "find .. -type f | xargs cat",
    "find ../outside -type f | xargs cat",
    "find /etc -name passwd | xargs cat",
    "grep -rl key ~/.aws | xargs cat",
    "rg -l key .. | xargs cat",
    "cd .. && find . -type f | xargs cat",
    # the lister is not read-only, or prints more than names
    "find . -delete | xargs cat",
    "find . -exec cat {} \\; | xargs cat",
    "find . -fprint list.txt | xargs cat",
    "find . -ls | xargs cat",
    "find . -printf '%p %s\\n' | xargs cat",
    "find -L . -type f | xargs cat",
    "ls -l | xargs cat",
    "ls -a | xargs cat",
    "ls -R | xargs cat",
    "grep -rn def src | xargs cat",
    "grep -rc def src | xargs cat",
    "rg -n def | xargs cat",
    "rg --json -l def | xargs cat",
    "git ls-files -s | xargs cat",
    "git ls-files :/ | xargs cat",
    "git ls-files .. | xargs cat",
    # the names come from anything else
    "echo /etc/shadow | xargs cat",
    "cat notes.txt | xargs cat",
    "printf '%s\\n' ~/.ssh/id_ed25519 | xargs cat",
    "git log --format=%s | xargs cat",
    "xargs cat < notes.txt",
    "sort notes.txt | xargs cat",
    "find $DIR -type f | xargs cat",
]
"""Pipelines that still ask in the oracle's project."""

HOSTILE = [
    ("find src -type f | xargs sort", "split at its blanks"),
    ("find src -name '*.txt' | xargs cat", "split at its blanks"),
    ("git ls-files | xargs wc -l", "pass on as an option"),
    ("git ls-files -z | xargs -0 wc -l", "pass on as an option"),
    ("ls | xargs cat", "pass on as an option"),
    ("rg --files | xargs wc -l", "pass on as an option"),
    ("find docs -type f | xargs cat", "outside the project"),
    ("find docs -print0 | xargs -0 cat", "outside the project"),
    ("find lines -type f | xargs -d '\\n' cat", "newline"),
    ("find lines -type f | xargs cat", "newline"),
]
"""Pipelines whose names xargs would not pass on intact in the hostile project, with why."""


@pytest.fixture(scope="module")
def projects(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[OracleProject, OracleProject]]:
    """The oracle's project, and a copy whose names xargs would misread."""
    plain = build_project(tmp_path_factory.mktemp("plain"))
    hostile = build_project(tmp_path_factory.mktemp("hostile"))
    root = hostile.root
    (root / "src" / "app.py -o victim.txt").write_text("x\n")
    (root / "-ostolen.txt").write_text("x\n")
    (root / "docs").mkdir()
    (root / "docs" / "secret.txt").symlink_to(hostile.outside / "secret.txt")
    (root / "lines").mkdir()
    (root / "lines" / "a\nb.txt").write_text("x\n")
    env = {
        **os.environ,
        **hostile.env(),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    subprocess.run(["git", "add", "--", "-ostolen.txt"], cwd=root, env=env, check=True)
    subprocess.run(["git", "commit", "-qm", "names"], cwd=root, env=env, check=True)
    with pytest.MonkeyPatch.context() as patch:
        for name, value in plain.env().items():
            patch.setenv(name, value)
        yield plain, hostile


def verdict(command: str, project: OracleProject, deny: tuple[str, ...] = ()):
    return decide_command(
        command,
        "default",
        Workspace(project.root),
        RuleSet(deny=parse_rules(deny)),
        cwd=project.root,
    )


@pytest.mark.parametrize("command", READS_THE_PROJECT)
def test_a_read_only_program_fed_the_projects_paths_runs_without_asking(projects, command):
    decision = verdict(command, projects[0])
    assert decision.verdict == Verdict.ALLOW, decision.reason


@needs_bwrap
def test_what_runs_without_asking_changes_nothing(projects):
    harmful = []
    for command in READS_THE_PROJECT:
        effect = run_command(command, projects[0])
        if not effect.harmless:
            harmful.append(f"{command!r}: {effect.describe()}")
    assert not harmful, "\n".join(harmful)


@pytest.mark.parametrize("command", STILL_ASK)
def test_other_pipelines_still_ask(projects, command):
    assert verdict(command, projects[0]).verdict == Verdict.ASK


@pytest.mark.parametrize(("command", "why"), HOSTILE)
def test_names_xargs_would_misread_make_it_ask(projects, command, why):
    assert verdict(command, projects[0]).verdict == Verdict.ALLOW
    decision = verdict(command, projects[1])
    assert decision.verdict == Verdict.ASK and why in decision.reason, decision.reason


@needs_bwrap
@pytest.mark.parametrize(
    ("command", "written"),
    [
        ("find src -type f | xargs sort", "victim.txt"),
        ("git ls-files | xargs sort", "stolen.txt"),
    ],
)
def test_the_hostile_names_really_turn_a_read_into_a_write(projects, command, written):
    hostile = projects[1]
    assert verdict(command, hostile).verdict == Verdict.ASK
    assert f"created {written}" in run_command(command, hostile).changes


def test_a_name_only_the_git_index_holds_is_looked_at(projects, tmp_path):
    """A tracked file deleted from the folder (or left out by a sparse checkout) is still
    listed by git ls-files."""
    hostile = projects[1]
    copy = tmp_path / "copy"
    shutil.copytree(hostile.root, copy, symlinks=True)
    project = OracleProject(copy, hostile.outside, hostile.home)
    (copy / "-ostolen.txt").unlink()
    for other in ("docs", "lines", "src/app.py -o victim.txt"):  # other names that would ask
        subprocess.run(["rm", "-r", "--", str(copy / other)], check=True)
    decision = verdict("git ls-files | xargs wc -l", project)
    assert decision.verdict == Verdict.ASK and "-ostolen.txt" in decision.reason


def test_a_deny_rule_on_a_listed_file_still_applies(projects):
    plain = projects[0]
    assert (
        verdict("find src -type f | xargs cat", plain, ("read_file(src/util.py)",)).verdict
        == Verdict.ASK
    )
    assert (
        verdict("find tests -type f | xargs cat", plain, ("read_file(src/util.py)",)).verdict
        == Verdict.ALLOW
    )
    assert verdict("find src -type f | xargs rm", plain, ("shell(rm *)",)).verdict == Verdict.DENY


@pytest.mark.parametrize("version", [2, 3, 4])
def test_the_index_is_read_as_git_reads_it(projects, tmp_path, version):
    copy = tmp_path / "copy"
    shutil.copytree(projects[1].root, copy, symlinks=True)
    git = ["git", "-C", str(copy)]
    subprocess.run([*git, "update-index", "--index-version", str(version)], check=True)
    listed = subprocess.run([*git, "ls-files", "-z"], capture_output=True, check=True).stdout
    expected = [os.fsdecode(name) for name in listed.split(b"\0") if name]
    assert index_paths(copy / ".git") == expected
    subprocess.run([*git, "update-index", "--split-index"], check=True)
    with pytest.raises(IndexUnreadable):
        index_paths(copy / ".git")


@pytest.mark.parametrize(
    "command",
    [
        "mkdir -p 'x /etc' && find . -type f | xargs cat",
        "find . -type f | xargs cat & mkdir -p 'x /etc'",
        "mkdir -p src/-o && git ls-files | xargs sort",
    ],
)
def test_names_another_part_may_make_are_not_taken_on_trust(projects, command):
    """The names are looked at before anything runs: another part that changes files (here
    allowed by a rule) may make new ones first, so the pipeline asks."""
    allow_mkdir = RuleSet(allow=parse_rules(["shell(mkdir *)"]))
    decision = decide_command(
        command, "default", Workspace(projects[0].root), allow_mkdir, cwd=projects[0].root
    )
    assert decision.verdict == Verdict.ASK and "may make new files" in decision.reason
