"""The one glob language: what a glob matches, where its fixed folder ends, how braces
expand, and that it reads globs as ripgrep does wherever ripgrep accepts them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from agent_tui.core.text.glob_patterns import (
    MAX_ALTERNATIVES,
    PathMatcher,
    crosses_folders,
    escape,
    expand_braces,
    fixed_folder,
    glob_regex,
    has_magic,
    ripgrep_reads_alike,
    split_fixed,
    split_names,
    unescape,
)

MATCHES = [
    # * and ? stay within a folder name, and match a leading dot
    ("*.py", "a.py", True), ("*.py", "src/a.py", False), ("*.py", ".hidden.py", True),
    ("?.md", "a.md", True), ("?.md", "ab.md", False), ("a?b", "a/b", False),
    ("src/*.py", "src/a.py", True), ("src/*.py", "src/a/b.py", False),
    # **/ is zero or more folders; a trailing /** the folder and everything below it
    ("**/*.py", "a.py", True), ("**/*.py", "x/y/a.py", True), ("**/test_*.py", "t/test_a.py", True),
    ("a/**/b", "a/b", True), ("a/**/b", "a/x/y/b", True), ("a/**/b", "a/xb", False),
    ("src/**", "src", True), ("src/**", "src/a/b.py", True), ("src/**", "srcx/a", False),
    ("**", "a/b/c", True), ("a**b", "a/x/b", True), ("x**/y", "xa/b/y", True),
    ("x**/y", "y", False),
    # classes: members, ranges, negation, a leading ], never a /
    ("[ab].txt", "b.txt", True), ("[ab].txt", "c.txt", False), ("[a-c]x", "bx", True),
    ("[!ab].txt", "b.txt", False), ("[!ab].txt", "c.txt", True), ("[^ab]", "c", True),
    ("[]x]", "]", True), ("[!]]", "]", False), ("[a-]", "-", True), ("[-a]", "-", True),
    ("a[/]b", "a/b", False), ("a[!x]b", "a/b", False), ("a[.-0]b", "a/b", False),
    ("[z-a]", "z", False), ("[\\]", "\\", True), ("[*]", "*", True), ("[*]", "a", False),
    # alternatives: nested, holding other syntax, empty ones matching nothing at all
    ("*.{env,pem}", "x.pem", True), ("*.{env,pem}", "x.penv", False),
    ("**/*.{env,pem}", ".env", True), ("{a,{b,c}}", "c", True), ("{a,b/**}", "b/x/y", True),
    ("{**/a,b}", "x/a", True), (".env{,.local}", ".env", True),
    (".env{,.local}", ".env.local", True), ("{src,lib}/*.py", "lib/a.py", True),
    ("{a[,]b,c}", "a,b", True), ("a,b", "a,b", True),
    # escapes, and what is literal because it is not closed
    ("\\*", "*", True), ("\\*", "a", False), ("\\[ab\\]", "[ab]", True), ("a\\{b,c\\}", "a{b,c}", True),
    ("{a\\,b,c}", "a,b", True), ("x[ab", "x[ab", True), ("x{a", "x{a", True), ("a}", "a}", True),
    ("{a,b", "{a,b", True), ("{a,{b}", "{a,b", True), ("x\\", "x\\", True),
    ("secrets/[ab].txt", "secrets/[ab].txt", False), ("x[1].txt", "x1.txt", True),
]


@pytest.mark.parametrize(("pattern", "path", "matches"), MATCHES)
def test_glob_matches(pattern: str, path: str, matches: bool) -> None:
    assert bool(glob_regex(pattern).fullmatch(path)) is matches


@pytest.mark.parametrize(("pattern", "folder", "rest"), [
    ("src/**/*.py", "src", "**/*.py"), ("/p/src/*.py", "/p/src", "*.py"),
    ("/p/a{b,c}/x", "/p", "a{b,c}/x"), ("/p/{a/b,c}/x", "/p", "{a/b,c}/x"),
    ("/p/[ab]/x", "/p", "[ab]/x"), ("*.py", "", "*.py"), ("/*.py", "/", "*.py"),
    ("a/\\[b\\]/*", "a/[b]", "*"), ("a/b{c/*", "a/b{c", "*"), ("a/x[y/z", "a/x[y/z", ""),
    ("/p/src/x.py", "/p/src/x.py", ""), ("a/\\*b", "a/*b", ""),
])
def test_fixed_folder_of_a_glob(pattern: str, folder: str, rest: str) -> None:
    assert split_fixed(pattern) == (folder, rest)
    assert fixed_folder(pattern) == folder
    assert has_magic(pattern) is bool(rest)


@pytest.mark.parametrize("text", ["plain/path.txt", "a[1]/{b,c}*?.txt", "x\\y,z", ""])
def test_escape_matches_exactly_the_text(text: str) -> None:
    assert not has_magic(escape(text))
    assert unescape(escape(text)) == text
    assert glob_regex(escape(text)).fullmatch(text)


@pytest.mark.parametrize(("pattern", "expanded"), [
    ("a/{b,c/d}*", ["a/b*", "a/c/d*"]), ("{a,{b,c}}x", ["ax", "bx", "cx"]),
    ("x{,y}", ["x", "xy"]), ("{a[,]b,c}", ["a[,]b", "c"]), ("{a,b", ["\\{a\\,b"]),
    ("a}", ["a\\}"]), ("\\{a,b\\}", ["\\{a\\,b\\}"]), ("{a,b}{1,2}", ["a1", "a2", "b1", "b2"]),
])
def test_braces_expand_to_globs_that_mean_the_same(pattern: str, expanded: list[str]) -> None:
    assert expand_braces(pattern) == expanded


def test_too_many_alternatives_give_up() -> None:
    assert expand_braces("{a,b}" * (MAX_ALTERNATIVES.bit_length() + 1)) is None


@pytest.mark.parametrize(("pattern", "names", "crosses"), [
    ("a/[/]b/*", ["a", "[/]b", "*"], False), ("/p/**/x", ["", "p", "**", "x"], True),
    ("a/\\*\\*", ["a", "\\*\\*"], False), ("a[**]", ["a[**]"], False),
])
def test_names_of_a_brace_free_glob(pattern: str, names: list[str], crosses: bool) -> None:
    assert split_names(pattern) == names
    assert crosses_folders(pattern) is crosses


@pytest.mark.parametrize(("pattern", "by_name", "path", "matches", "within"), [
    ("*.py", True, "a/b/c.py", True, True), ("*.py", False, "a/b/c.py", False, False),
    ("tests", True, "tests/unit/x.py", False, True), ("src/gen", False, "src/gen/a.py", False, True),
    ("src/*", False, "src/a/b.py", False, True), ("*.min.js", True, "x/y.min.js", True, True),
])
def test_path_matcher_by_name_and_within(pattern: str, by_name: bool, path: str, matches: bool,
                                         within: bool) -> None:
    matcher = PathMatcher.parse(pattern, by_name=by_name)
    assert matcher.matches(path) is matches
    assert matcher.matches_within(path) is within


# --------------------------------------------------------------------------- against rg

TREE = ["a.py", ".env", "x.pem", "src/app.py", "src/deep/test_x.py", "src/deep/notes.md",
        "secrets/a.txt", "secrets/b.txt", "secrets/c.txt", "secrets/[ab].txt", "lib/b/c.py",
        "a/b", "a/x/y/b", "a/xb", "odd,name", "x{y}.txt", "q?.txt", "star*.txt"]

RG_AGREES = ["*.py", "**/*.py", "src/**", "**/test_*.py", "a/**/b", "**/*.{env,pem}",
             "secrets/[ab].txt", "secrets/[!a].txt", "secrets/[a-b].txt", "{src,lib}/**/*.py",
             "*,name", "x\\{y\\}.txt", "q\\?.txt", "star\\*.txt", "[]x]*", "*.{md,txt}",
             "secrets/\\[ab\\].txt", "src/*/[n-t]*", "?.env", ".*", "**/b"]


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep (rg) is not installed")
@pytest.mark.parametrize("pattern", RG_AGREES)
def test_reads_globs_as_ripgrep_does(tmp_path: Path, pattern: str) -> None:
    for name in TREE:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    done = subprocess.run(["rg", "--files", "--hidden", "--no-config", "-g", pattern],
                          cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode in (0, 1), done.stderr
    by_rg = sorted(done.stdout.splitlines())
    matcher = PathMatcher.parse(pattern, by_name="/" not in pattern)

    assert sorted(name for name in TREE if matcher.matches(name)) == by_rg


@pytest.mark.parametrize(("name", "alike"), [
    ("*.py", True), ("*.{env,pem}", True), ("[ab].txt", True), ("[]x]*", True),
    ("\\[a", True), ("x\\\\", True), ("{a[,]b,c}", True), ("x[ab", False), ("x{a", False),
    ("a}", False), ("x{,y}", False), ("{a,{b,c}}", False), ("a**", False), ("x\\", False),
])
def test_which_name_globs_ripgrep_reads_alike(name: str, alike: bool) -> None:
    assert ripgrep_reads_alike(name) is alike


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep (rg) is not installed")
@pytest.mark.parametrize("name", ["*.py", "*.{env,pem}", "[ab].txt", "[]x]*", "*,name",
                                  "x\\{y\\}.txt", "{a[,]b,c}", "[!a].txt"])
def test_a_name_glob_ripgrep_reads_alike_lists_the_same_files_as_a_type(
        tmp_path: Path, name: str) -> None:
    assert ripgrep_reads_alike(name)
    for path in TREE:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x\n")
    done = subprocess.run(["rg", "--files", "--hidden", "--no-config",
                           f"--type-add=picked:{name}", "--type=picked"],
                          cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode in (0, 1), done.stderr
    matcher = PathMatcher.parse(name, by_name=True)

    assert sorted(path for path in TREE if matcher.matches(path)) == sorted(
        done.stdout.splitlines())
