"""The read-only allowlist read as the programs read their words: abbreviated long options,
unknown options, files named in option values, options that write on other platforms,
variables that load code, and the small read-only tools that run without asking."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.safety.hard_denials import hard_denial
from agent_tui.core.safety.permission_rules import RuleSet
from agent_tui.core.safety.permissions import Verdict, decide_command
from agent_tui.core.safety.shell_analysis import analyse
from agent_tui.core.safety.shell_policy import access
from agent_tui.core.safety.workspace import Workspace


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("b\na\n")
    (root / "in.txt").write_text("b\na\n")
    return root


def judged(command: str, project: Path) -> tuple[bool, str, list[str]]:
    """Read-only or not, why, and the files read, for the last part of ``command``."""
    part = analyse(command, project).parts[-1]
    result = access(part, Workspace(project))
    return result.read_only, result.why, [w.text for w in result.reads]


def verdict(command: str, project: Path) -> Verdict:
    return decide_command(command, "default", Workspace(project), RuleSet(), project).verdict


def run(command: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True,
                          timeout=30, env={**os.environ, **(env or {})}, check=False)


# ------------------------------------------------------------ abbreviated long options


@pytest.mark.parametrize(("command", "created"), [
    ("sort --out=x in.txt", "x"),
    ("sort --o y in.txt", "y"),
    ("sort --outp=z in.txt", "z"),
])
def test_an_abbreviated_sort_output_really_writes_and_is_not_read_only(project, command, created):
    ok, why, _ = judged(command, project)
    assert not ok and why == "sort --output is not read-only"
    assert run(command, project).returncode == 0 and (project / created).exists()


def test_sed_in_place_abbreviated_really_edits_and_is_not_read_only(project):
    command = "sed --in-pl s/a/X/ in.txt"
    ok, why, _ = judged(command, project)
    assert not ok and why == "sed --in-place edits files"
    run(command, project)
    assert "X" in (project / "in.txt").read_text()


@pytest.mark.parametrize(("command", "why"), [
    ("sed --fi=script.sed in.txt", "sed --file runs a script from a file"),
    ("sed --exp='1e date' in.txt", "the sed script writes files or runs commands (w, e, r)"),
    ("sed -i.bak s/a/b/ in.txt", "sed -i edits files in place"),
    ("sed --bogus s/a/b/ in.txt", "sed has an option agent-tui does not know: --bogus"),
])
def test_sed_options_are_resolved_by_sed_s_own_table(project, command, why):
    assert judged(command, project)[:2] == (False, why)


@pytest.mark.parametrize("command", [
    "sed -n -E -s -z --debug 's/a/b/p' in.txt", "sed --expression=s/a/b/ -e p in.txt",
    "sed --quiet --regexp-ext 's/(a)/\\1/p' in.txt",
])
def test_harmless_sed_options_stay_read_only(project, command):
    assert judged(command, project)[0], command


@pytest.mark.parametrize(("command", "why"), [
    ("rm --rec --for /", "deletes the root folder /"),
    ("rm --no-pres -rf /tmp/x", "deletes with --no-preserve-root"),
    ("rm -r -- ~", "deletes your home folder"),
    ("chmod --rec 777 /", "changes the permissions or owner of everything in the root folder /"),
    ("chown --recursive nobody /etc", "changes the permissions or owner of everything in the "
                                      "system folder /etc"),
])
def test_hard_denials_resolve_abbreviations(project, command, why):
    analysis = analyse(command, project)
    reasons = [hard_denial(p, analysis, Workspace(project)) for p in analysis.parts]
    assert any(r and why in r for r in reasons), reasons


def test_an_unknown_or_ambiguous_option_takes_a_command_off_the_list(project):
    assert judged("cat --frobnicate in.txt", project)[:2] == (
        False, "cat has an option agent-tui does not know: --frobnicate")
    # --s is --show-all, --show-ends, --show-nonprinting, --show-tabs, --squeeze-blank
    assert judged("cat --s in.txt", project)[:2] == (
        False, "cat has an option agent-tui does not know: --s")
    assert not judged("ls -Y", project)[0]


def test_every_table_comes_from_the_real_program(project):
    """A unique prefix the table resolves is one the program itself accepts."""
    assert run("cat --number-n in.txt", project).returncode == 0
    assert judged("cat --number-n in.txt", project)[0]
    assert run("cat --s in.txt", project).returncode != 0  # ambiguous for cat too


# ------------------------------------------------------------ files named in option values


@pytest.mark.parametrize(("command", "read"), [
    ("date -f /etc/hostname", "/etc/hostname"),
    ("date --file=/etc/hostname", "/etc/hostname"),
    ("date -r /etc/hostname", "/etc/hostname"),
    ("grep -f /etc/hostname -f pats.txt in.txt", "/etc/hostname"),
    ("grep --exclude-fr=/etc/hostname -r x .", "/etc/hostname"),
    ("diff --from-file=/etc/hostname in.txt", "/etc/hostname"),
    ("tree --gitfile /etc/hostname", "/etc/hostname"),
    ("file -m /etc/magic:/usr/share/misc/magic in.txt", "/etc/magic"),
    ("hexdump -f /etc/hostname in.txt", "/etc/hostname"),
    ("cmp in.txt /etc/hostname", "/etc/hostname"),
    ("comm in.txt /etc/hostname", "/etc/hostname"),
    ("jq --rawfile k /etc/hostname -n '$k'", "/etc/hostname"),
    ("man -l /etc/hostname", "/etc/hostname"),
])
def test_files_in_option_values_are_reads(project, command, read):
    ok, _, reads = judged(command, project)
    assert ok and read in reads, reads


def test_date_really_reads_the_file_its_f_option_names(project):
    (project / "dates").write_text("2020-01-02\n")
    assert "2020" in run("date -f dates +%Y", project).stdout
    assert verdict("date -f /etc/hostname", project) == Verdict.ASK
    assert verdict("date -f dates +%Y", project) == Verdict.ALLOW


@pytest.mark.parametrize("command", [
    "du --files0-from=list", "sort --files0-from=list", "wc --files0-from=list",
    "sha256sum -c sums", "file -f list",
])
def test_a_list_of_files_read_at_run_time_asks(project, command):
    (project / "list").write_text("/etc/hostname\0")
    assert judged(command, project)[0]
    assert verdict(command, project) == Verdict.ASK


def test_sort_really_reads_files_its_files0_from_list_names(project):
    (project / "list").write_bytes(b"/etc/hostname\0")
    assert run("sort --files0-from=list", project).stdout.strip() == (
        Path("/etc/hostname").read_text().strip())


def test_a_local_manual_page_includes_other_files(project):
    (project / "x.1").write_text(".TH X 1\n.SH NAME\nx\n.so /etc/hostname\n")
    shown = run("man -l x.1 | cat", project).stdout
    assert Path("/etc/hostname").read_text().split()[0] in shown
    assert verdict("man -l x.1", project) == Verdict.ASK
    assert verdict("man ls", project) == Verdict.ALLOW


@pytest.mark.parametrize(("command", "read_only"), [
    ("ps aux", True), ("ps -ef", True), ("ps -e -o pid,cmd", True), ("ps p 1 o pid", True),
    ("ps e", False), ("ps eww", False), ("ps auxe", False), ("ps -p 1 e", False),
    ("ps -E", False), ("ps -o pid,environ", False),
])
def test_ps_forms_that_print_environments_are_not_read_only(project, command, read_only):
    assert judged(command, project)[0] is read_only, command


def test_ps_e_really_prints_another_process_s_environment(project):
    sleeper = subprocess.Popen(["sleep", "30"], env={"AGENT_TUI_PROBE": "k3y"})
    try:
        shown = run(f"ps eww -p {sleeper.pid}", project).stdout
        assert "AGENT_TUI_PROBE=k3y" in shown
    finally:
        sleeper.kill()
        sleeper.wait()
    assert judged("ps eww", project)[1] == "ps e prints other processes' environments, " \
                                           "keys included"


# ------------------------------------------------------------ writing options, any platform


@pytest.mark.parametrize(("command", "why"), [
    ("tree -o out.txt", "tree -o is not read-only"),
    ("tree -R -H . -L 1", "tree -R is not read-only"),
    ("file -C -m magic", "file -C is not read-only"),
    ("file --comp -m magic", "file --compile is not read-only"),
    ("base64 -o out in.txt", "base64 has an option agent-tui does not know: -o"),
    ("base64 --output=out in.txt", "base64 has an option agent-tui does not know: --output"),
    ("sort --compress-prog=gzip in.txt", "sort --compress-program is not read-only"),
    ("uniq in.txt out.txt", "uniq INPUT OUTPUT writes OUTPUT"),
    ("less -o log in.txt", "less -o is not read-only"),
    ("less --log=log in.txt", "less --log-file is not read-only"),
    ("less -k keys in.txt", "less -k is not read-only"),
    ("man -P cat ls", "man -P is not read-only"),
    ("man --html=firefox ls", "man --html is not read-only"),
    ("man -Hfirefox ls", "man -H is not read-only"),
    ("man -C my.conf ls", "man -C is not read-only"),
    ("fdfind -x rm", "fdfind -x is not read-only"),
    ("fd --exec-b rm", "fd --exec-batch is not read-only"),
    ("rg --pre ./x TODO", "rg --pre is not read-only"),
    ("ag --pager cat x", "ag --pager is not read-only"),
    ("date 01010000", "date MMDDhhmm[[CC]YY][.ss] sets the clock"),
    ("date --se=tomorrow", "date --set changes the clock"),
    ("hostname -F /etc/hostname", "hostname -F is not read-only"),
    ("env -S 'rm x'", "env -S is not read-only"),
])
def test_options_that_write_or_run_take_a_command_off_the_list(project, command, why):
    assert judged(command, project)[:2] == (False, why)


def test_file_c_really_writes_a_compiled_magic_file(project):
    (project / "magic").write_text("0\tstring\tHELLO\thello file\n")
    run("file -C -m magic", project)
    assert (project / "magic.mgc").exists()


@pytest.mark.skipif(shutil.which("tree") is None, reason="tree is not installed")
def test_tree_o_really_writes(project):
    run("tree -o out.txt", project)
    assert (project / "out.txt").exists()


# ------------------------------------------------------------ variables that load code


@pytest.mark.parametrize("name", [
    "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "RIPGREP_CONFIG_PATH", "ZDOTDIR", "INPUTRC",
    "AWKPATH", "AWKLIBPATH", "PERL5LIB", "RUBYOPT", "NODE_OPTIONS", "GCONV_PATH", "LOCPATH",
    "GNUPGHOME", "MANOPT", "MANPAGER", "GROFF_TMAC_PATH", "MAGIC", "TAR_OPTIONS", "BROWSER",
    "LESSOPEN", "BASH_LOADABLES_PATH", "PS4", "GLOBIGNORE", "TERMINFO", "npm_config_script_shell",
])
def test_variables_that_load_code_or_config_take_a_command_off_the_list(project, name):
    ok, why, _ = judged(f"{name}=x ls", project)
    assert not ok and why.startswith(f"sets {name}")


@pytest.mark.parametrize("name", ["LANG", "LC_ALL", "TZ", "COLUMNS", "NO_COLOR", "CI", "TERM"])
def test_harmless_variables_stay_allowed(project, name):
    assert judged(f"{name}=C ls", project)[0]


def test_git_really_reads_its_config_from_xdg_config_home(project, tmp_path):
    run("git init -q", project)
    config = tmp_path / "xdg" / "git"
    config.mkdir(parents=True)
    (config / "config").write_text("[alias]\n\tprobe = !touch probed\n")
    run("HOME=/nonexistent XDG_CONFIG_HOME=../xdg git probe", project,
        env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert (project / "probed").exists()
    assert verdict(f"XDG_CONFIG_HOME={tmp_path / 'xdg'} git status", project) == Verdict.ASK


def test_rg_really_runs_a_preprocessor_from_its_config_path(project, tmp_path):
    (tmp_path / "rgrc").write_text("--pre=./pre.sh\n")
    (project / "pre.sh").write_text("#!/bin/sh\ntouch ran\ncat \"$1\"\n")
    (project / "pre.sh").chmod(0o755)
    run("rg -q a in.txt", project, env={"RIPGREP_CONFIG_PATH": str(tmp_path / "rgrc")})
    assert (project / "ran").exists()
    assert verdict(f"RIPGREP_CONFIG_PATH={tmp_path / 'rgrc'} rg a", project) == Verdict.ASK


# ------------------------------------------------------------ friction: harmless tools


@pytest.mark.parametrize("command", [
    "less in.txt", "less -R +G in.txt", "less +/TODO -N src/a.py", "more in.txt", "more +2 in.txt",
    "man ls", "man -k printf", "man 3 printf", "numfmt --to=iec 2048", "expr 1 + 2",
    "jq . in.json", "jq -r '.a' in.json", "jq -n --arg x 1 '$x'", "jq --slurpfile s in.json -n '$s'",
    "fdfind -e py", "fd -t f src", "ps aux", "grep --recurs TODO src", "date -Iseconds",
    "od -w8 in.txt", "tail -5 in.txt", "head -3 in.txt", "ls --color=auto -la",
    "sha256sum in.txt", "strings -n 8 in.txt", "rg --no-config -n a src", "tree -L 2 src",
])
def test_harmless_small_tools_run_without_asking(project, command):
    (project / "in.json").write_text('{"a": 1}\n')
    assert verdict(command, project) == Verdict.ALLOW, command


@pytest.mark.parametrize("command", [
    "awk '{print $1}' in.txt", "awk -F: -v x=1 '$1 > x' in.txt n=2 src/a.py",
    "gawk -e 'BEGIN{print 1}'", "mawk -- '{print}' in.txt",
])
def test_awk_programs_that_only_print_are_read_only(project, command):
    ok, _, reads = judged(command, project)
    assert ok and "n=2" not in reads and "{print}" not in reads, reads


@pytest.mark.parametrize(("command", "why"), [
    ("less '+!touch x' in.txt", "runs a less command at start"),
    ("less +s/tmp/x in.txt", "runs a less command at start"),
    ("jq -n 'import \"m\" as m; 1'", "loads modules"),
    ("awk '{print > \"out\"}' in.txt", "writes a file"),
    ("awk -f prog.awk in.txt", "from a file"),
])
def test_harmful_forms_of_friction_tools_ask(project, command, why):
    ok, reason, _ = judged(command, project)
    assert not ok and why in reason


def test_fd_reads_the_folders_it_searches(project):
    ok, _, reads = judged("fdfind x /etc", project)
    assert ok and reads == ["/etc"]
    assert judged("fd x", project)[2] == ["."]


def test_a_grep_with_an_abbreviated_recursive_option_searches_its_folder(project):
    from agent_tui.core.safety.shell_policy import searched_folders
    for command in ("grep --recur x", "grep -d recurse x", "grep --dir=rec x"):
        part = analyse(command, project).parts[0]
        assert searched_folders(part, []) == [project], command
