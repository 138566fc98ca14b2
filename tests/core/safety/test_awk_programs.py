"""awk programs and options that only read and print, and those that write, run or load;
each construct is shown doing what the judge says with the awk installed here."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.safety.awk_programs import (
    awk_options_problem,
    awk_program_index,
    awk_program_problem,
)

AWKS = [name for name in ("gawk", "mawk") if shutil.which(name)]


def run_awk(awk: str, program: str, cwd: Path, *files: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([awk, program, *files], cwd=cwd, capture_output=True, text=True,
                          timeout=30, check=False)


@pytest.mark.parametrize("program", [
    "{print $1}", "{ print $1, $2 }", "$3 > 10 { print }", "{ if ($1 > 2) print $1 }",
    "{ print ($1 > 2) }", "{ a = $1 || $2; print a }", "/x|y/ { n++ } END { print n }",
    "{ print \"a | b > c\" }", "# system(\"x\") | getline\n{ print }",
    "{ print > \"/dev/stderr\" }", "{ printf \"%s\\n\", $1 > \"/dev/stdout\" }",
    "{ x = ENVIRON[\"HOME\"]; print x }", "{ for (k in ENVIRON) print k }",
    "{ print ARGV[1], ARGC }", "{ print 6 / 2 / 3 }", "/[/]/ { print }",
    "{ gsub(/a/, \"b\"); print }", "{ s = substr($0, 2); print s }",
])
def test_programs_that_only_read_and_print(program):
    assert awk_program_problem(program) is None, program


@pytest.mark.parametrize(("program", "why"), [
    ("BEGIN { system(\"touch x\") }", "system()"),
    ("{ print | \"sh\" }", "pipes"),
    ("BEGIN { \"date\" | getline d }", "pipes"),
    ("BEGIN { getline line < \"/etc/hostname\"; print line }", "getline"),
    ("{ print > \"out\" }", "writes a file"),
    ("{ print $1 >> \"out\" }", "writes a file"),
    ("{ printf(\"%s\", $1) > \"out\" }", "writes a file"),
    ("{ print > \"/dev/stderr\" \"x\" }", "writes a file"),
    ("BEGIN { ARGV[1] = \"/etc/hostname\"; ARGC = 2 }", "changes ARGV"),
    ("BEGIN { ARGC++ }", "changes ARGC"),
    ("BEGIN { delete ARGV[1] }", "changes ARGV"),
    ("BEGIN { split(\"/etc/hostname\", ARGV) }", "ARGV"),
    ("BEGIN { sub(/x/, \"y\", ARGV[1]) }", "ARGV"),
    ("@include \"lib.awk\"", "@"),
    ("BEGIN { f = \"system\"; @f(\"touch x\") }", "@"),
    ("BEGIN { f = \"sys\" \"tem\"; @f(\"touch x\") }", "@"),
    ("{ print $1 |& \"cat\" }", "pipes"),
    ("/[/ system(\"x\") ]/", "system()"),
])
def test_programs_that_write_run_or_read_elsewhere(program, why):
    problem = awk_program_problem(program)
    assert problem is not None and why in problem, (program, problem)


@pytest.mark.parametrize("awk", AWKS)
def test_awk_really_writes_with_an_unparenthesised_print_redirection(tmp_path, awk):
    (tmp_path / "in.txt").write_text("5\n")
    run_awk(awk, '{ print $1 > 3 }', tmp_path, "in.txt")
    assert (tmp_path / "3").read_text() == "5\n"
    assert awk_program_problem('{ print $1 > 3 }') is not None
    shown = run_awk(awk, '{ print ($1 > 3) }', tmp_path, "in.txt").stdout
    assert shown == "1\n" and awk_program_problem('{ print ($1 > 3) }') is None


@pytest.mark.parametrize("awk", AWKS)
def test_awk_really_runs_system_and_pipes(tmp_path, awk):
    run_awk(awk, 'BEGIN { system("touch ran") }', tmp_path)
    run_awk(awk, 'BEGIN { print "x" | "cat > piped" }', tmp_path)
    assert (tmp_path / "ran").exists() and (tmp_path / "piped").exists()


@pytest.mark.parametrize("awk", AWKS)
def test_awk_reads_the_files_argv_is_changed_to(tmp_path, awk):
    (tmp_path / "secret").write_text("hidden\n")
    (tmp_path / "in.txt").write_text("x\n")
    shown = run_awk(awk, 'BEGIN { ARGV[1] = "secret" } { print }', tmp_path, "in.txt").stdout
    assert shown == "hidden\n"


@pytest.mark.parametrize("awk", AWKS)
def test_strings_regexes_and_comments_hide_nothing_from_awk(tmp_path, awk):
    for program in ('{ print "system(\\"touch s\\")" }', '/system\\("touch r"\\)/',
                    '# system("touch c")\n{ print }'):
        run_awk(awk, program, tmp_path, "/dev/null")
        assert awk_program_problem(program) is None
    assert not any((tmp_path / n).exists() for n in ("s", "r", "c"))


@pytest.mark.skipif("gawk" not in AWKS, reason="gawk is not installed")
def test_gawk_profile_and_dump_options_really_write(tmp_path):
    subprocess.run(["gawk", "-p", "BEGIN{}"], cwd=tmp_path, check=False, timeout=30)
    subprocess.run(["gawk", "--dump", "BEGIN{}"], cwd=tmp_path, check=False, timeout=30)
    assert (tmp_path / "awkprof.out").exists() and (tmp_path / "awkvars.out").exists()


@pytest.mark.parametrize(("argv", "why"), [
    (("awk", "-f", "prog.awk"), "from a file"),
    (("awk", "--fi=prog.awk"), "from a file"),
    (("gawk", "-E", "prog.awk"), "from a file"),
    (("mawk", "-W", "exec", "prog.awk"), "from a file"),
    (("gawk", "-i", "lib"), "loads awk code"),
    (("gawk", "--lo=x.so", "BEGIN{}"), "shared library"),
    (("gawk", "-p", "BEGIN{}"), "profile"),
    (("gawk", "--prof", "BEGIN{}"), "profile"),
    (("gawk", "-o", "BEGIN{}"), "writes the program"),
    (("gawk", "--dump", "BEGIN{}"), "variables"),
    (("mawk", "-W", "dump", "BEGIN{}"), "variables"),
    (("gawk", "-D", "BEGIN{}"), "debugger"),
    (("gawk", "-e", "BEGIN { system(\"x\") }"), "system()"),
    (("awk", "-Q", "{print}"), "does not know: -Q"),
])
def test_options_that_load_write_or_run(argv, why):
    problem = awk_options_problem(argv)
    assert problem is not None and why in problem, (argv, problem)


def test_the_program_operand_is_found_after_the_options():
    assert awk_program_index(("awk", "-F:", "-v", "x=1", "{print}", "f")) == 4
    assert awk_program_index(("awk", "--", "{print}")) == 2
    assert awk_program_index(("gawk", "-e", "BEGIN{}", "f")) is None
    assert awk_options_problem(("awk", "-F", ":", "-v", "x=1", "--sandbox", "{print}")) is None
