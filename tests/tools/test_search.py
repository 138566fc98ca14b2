"""Tests of the search tools ls, glob_files and grep, on real trees with real rg and git."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from agent_tui.tools.base import ToolContext
from agent_tui.tools.file_walk import PathGlob
from agent_tui.tools.search import GlobFilesTool, GrepTool, LsTool
from tests.core.loop_helpers import run
from tests.fakes.providers import Reply, ToolCall

HAVE_RG = shutil.which("rg") is not None
needs_rg = pytest.mark.skipif(not HAVE_RG, reason="ripgrep (rg) is not installed")
BACKENDS = [pytest.param("rg", marks=needs_rg), "python"]


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workdir=tmp_path, output_dir=tmp_path.parent / "out")


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with ignored, hidden, skipped, binary and nested files."""
    write(tmp_path, {
        ".gitignore": "build/\n*.log\ntracked.gen\n",
        "app.py": "import os\n\ndef main():\n    return os.getcwd()\n",
        "src/util.py": "".join(f"line {n}\n" for n in range(1, 21)).replace(
            "line 5\n", "def helper():  # TODO\n").replace("line 15\n", "TODO: later\n"),
        "src/deep/more.py": "x = 1  # todo lower case\n",
        "src/web/page.ts": "// TODO ts\n",
        "docs/notes.md": "TODO write docs\r\nsecond line\r\n",
        ".github/ci.yml": "# TODO hidden file\n",
        "build/out.py": "TODO ignored by .gitignore\n",
        "debug.log": "TODO ignored log\n",
        "node_modules/pkg/index.js": "// TODO skipped folder\n",
        "src/__pycache__/util.cpython-311.pyc": "TODO skipped\n",
        "blob.bin": b"TODO\x00binary\n",
        "tracked.gen": "TODO tracked but ignored\n",
    })
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "add", "-f", "tracked.gen")
    return tmp_path


async def call(tool, ctx: ToolContext, **args):
    return await tool.build(args, ctx).execute()


# --------------------------------------------------------------------------- ls


async def test_ls_lists_folders_first_then_files_with_sizes(repo: Path, ctx: ToolContext):
    result = await call(LsTool(), ctx)

    assert result.ok
    files = [".gitignore", "app.py", "blob.bin", "debug.log", "tracked.gen"]
    assert result.llm_content.splitlines() == [
        ".: 5 folders, 5 files",
        ".github/", "build/", "docs/", "node_modules/", "src/",
        *(f"{name}  {(repo / name).stat().st_size} bytes" for name in files),
    ]


async def test_ls_of_a_subfolder_with_ignore_and_alias(repo: Path, ctx: ToolContext):
    result = await call(LsTool(), ctx, dir_path="src", ignore=["__pycache__", "*.ts", "web"])

    size = (repo / "src/util.py").stat().st_size
    assert result.llm_content.splitlines() == [
        "src: 1 folder, 1 file (2 left out by ignore)", "deep/", f"util.py  {size:,} bytes"]


async def test_ls_errors_and_empty_folder(tmp_path: Path, ctx: ToolContext):
    (tmp_path / "empty").mkdir()
    (tmp_path / "f.txt").write_text("x")

    empty = await call(LsTool(), ctx, path="empty")
    assert empty.ok and empty.llm_content == "empty: 0 folders, 0 files; the folder is empty"
    missing = await call(LsTool(), ctx, path="nope")
    assert not missing.ok and missing.error.startswith("folder not found: nope.")
    a_file = await call(LsTool(), ctx, path="f.txt")
    assert not a_file.ok and a_file.error.startswith("f.txt is a file, not a folder")


def test_ls_is_read_only_and_locates_its_folder(ctx: ToolContext):
    invocation = LsTool().build({"path": "src"}, ctx)

    assert LsTool().read_only
    assert invocation.locations() == [ctx.workdir / "src"]
    assert invocation.describe() == "ls src"


# --------------------------------------------------------------------------- glob_files

NOT_IGNORED = [".github/ci.yml", ".gitignore", "app.py", "blob.bin", "docs/notes.md",
               "src/deep/more.py", "src/util.py", "src/web/page.ts"]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_glob_files_respects_gitignore_and_skipped_folders(repo: Path, ctx: ToolContext,
                                                                 backend):
    (repo / "link.py").symlink_to(repo / "app.py")

    result = await call(GlobFilesTool(backend), ctx, pattern="**/*")

    # build/, *.log, tracked.gen (tracked, but .gitignore names it), node_modules/,
    # __pycache__/ and the symlink are left out; hidden files are listed.
    assert result.ok
    assert result.llm_content.splitlines() == [
        "8 files matching `**/*` in . (paths relative to it, sorted by path):", *NOT_IGNORED]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("pattern", "expected"), [
    ("*.py", ["app.py"]),
    ("**/*.py", ["app.py", "src/deep/more.py", "src/util.py"]),
    ("src/*.py", ["src/util.py"]),
    ("src/**", ["src/deep/more.py", "src/util.py", "src/web/page.ts"]),
    ("**/*.{ts,md}", ["docs/notes.md", "src/web/page.ts"]),
    ("**/[a-d]*", [".github/ci.yml", "app.py", "blob.bin"]),
    ("./src/*/m?re.py", ["src/deep/more.py"]),
])
async def test_glob_files_patterns(repo: Path, ctx: ToolContext, backend, pattern, expected):
    result = await call(GlobFilesTool(backend), ctx, pattern=pattern)

    assert result.llm_content.splitlines()[1:] == expected


@pytest.mark.parametrize("backend", BACKENDS)
async def test_glob_files_in_a_subfolder_gives_relative_paths(repo: Path, ctx: ToolContext,
                                                              backend):
    result = await call(GlobFilesTool(backend), ctx, pattern="**/*.py", path="src")

    assert result.llm_content.splitlines() == [
        "2 files matching `**/*.py` in src (paths relative to it, sorted by path):",
        "deep/more.py", "util.py"]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_glob_files_outside_git_walks_the_tree(tmp_path: Path, ctx: ToolContext, backend):
    write(tmp_path, {"a.txt": "", "build/b.txt": "", ".venv/lib/c.txt": "", ".hidden/d.txt": "",
                     ".gitignore": "build/\n"})

    result = await call(GlobFilesTool(backend), ctx, pattern="**/*.txt")

    # Outside a repository .gitignore means nothing (to rg, and so to the fallback).
    assert result.llm_content.splitlines()[1:] == [".hidden/d.txt", "a.txt", "build/b.txt"]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_glob_files_caps_the_list(tmp_path: Path, ctx: ToolContext, backend):
    for n in range(1_003):
        (tmp_path / f"f{n:04}.txt").write_text("")

    lines = (await call(GlobFilesTool(backend), ctx, pattern="*.txt")).llm_content.splitlines()

    assert lines[0].startswith("1,003 files matching `*.txt`")
    assert lines[1] == "f0000.txt" and lines[1_000] == "f0999.txt"
    assert lines[1_001] == ("[... and 3 more files not shown; narrow the pattern or the "
                            "folder]")


@pytest.mark.parametrize("backend", BACKENDS)
async def test_glob_files_no_match_and_errors(repo: Path, ctx: ToolContext, backend):
    tool = GlobFilesTool(backend)

    ignored = await call(tool, ctx, pattern="*.log")
    assert ignored.llm_content.startswith("No files match `*.log`")
    none = await call(tool, ctx, pattern="**/*.rs")
    assert none.ok and none.llm_content.startswith("No files match `**/*.rs` in .")
    missing = await call(tool, ctx, pattern="*", dir="nope")
    assert not missing.ok and missing.error.startswith("folder not found: nope.")
    a_file = await call(tool, ctx, pattern="*", dir="app.py")
    assert not a_file.ok and "app.py is a file, not a folder" in a_file.error


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("pattern", "expected"), [
    ("x[ab", ["x[ab"]),  # an unclosed class is literal; rg would refuse the glob
    ("x{,y}.txt", ["x.txt", "xy.txt"]),  # an empty alternative; rg would drop it
    ("*.{py,{md,txt}}", ["a.md", "a.py", "x.txt", "xy.txt"]),  # nested alternatives
])
async def test_glob_files_lists_the_same_with_and_without_rg(tmp_path: Path, ctx: ToolContext,
                                                             backend, pattern, expected):
    write(tmp_path, {"x[ab": "", "x.txt": "", "xy.txt": "", "a.py": "", "a.md": ""})

    result = await call(GlobFilesTool(backend), ctx, pattern=pattern)

    assert result.ok, result.error
    assert result.llm_content.splitlines()[1:] == expected


def test_glob_files_locates_its_folder(ctx: ToolContext):
    invocation = GlobFilesTool().build({"pattern": "*.py", "dir": "/elsewhere"}, ctx)

    assert invocation.locations() == [Path("/elsewhere")]
    assert invocation.describe() == "glob_files *.py in /elsewhere"


def test_path_glob_reads_globs_as_rg_does():
    assert PathGlob.parse("*.py").keeps("a/b/c.py")
    assert not PathGlob.parse("*.py", anchored=True).keeps("a/b/c.py")
    assert PathGlob.parse("a/**/c.py").keeps("a/c.py")
    assert not PathGlob.parse("!tests").keeps("tests/unit/x.py")
    assert PathGlob.parse("!tests").keeps("src/x.py")
    assert not PathGlob.parse("[!a]*").keeps("abc")


# --------------------------------------------------------------------------- grep


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_finds_matches_in_sorted_files(repo: Path, ctx: ToolContext, backend):
    result = await call(GrepTool(backend), ctx, pattern="TODO")

    assert result.ok
    assert result.llm_content.splitlines() == [
        ".github/ci.yml:1: # TODO hidden file",
        "docs/notes.md:1: TODO write docs",
        "src/util.py:5: def helper():  # TODO",
        "src/util.py:15: TODO: later",
        "src/web/page.ts:1: // TODO ts",
        "[5 matches in 4 files]",
    ]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_context_lines_and_separators(repo: Path, ctx: ToolContext, backend):
    result = await call(GrepTool(backend), ctx, pattern=r"^(def|TODO)", context=2,
                        glob="src/*.py")

    assert result.llm_content.splitlines() == [
        "src/util.py-3- line 3",
        "src/util.py-4- line 4",
        "src/util.py:5: def helper():  # TODO",
        "src/util.py-6- line 6",
        "src/util.py-7- line 7",
        "--",
        "src/util.py-13- line 13",
        "src/util.py-14- line 14",
        "src/util.py:15: TODO: later",
        "src/util.py-16- line 16",
        "src/util.py-17- line 17",
        "[2 matches in 1 file]",
    ]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_separates_files_and_merges_close_groups(tmp_path: Path, ctx: ToolContext,
                                                            backend):
    write(tmp_path, {"a.txt": "hit\nx\nhit\ny\nz\nw\nhit\n", "b.txt": "q\nhit\n"})

    result = await call(GrepTool(backend), ctx, pattern="hit", context=1)

    assert result.llm_content.splitlines() == [
        "a.txt:1: hit", "a.txt-2- x", "a.txt:3: hit", "a.txt-4- y",
        "--",
        "a.txt-6- w", "a.txt:7: hit",
        "--",
        "b.txt-1- q", "b.txt:2: hit",
        "[4 matches in 2 files]",
    ]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_max_results_notes_the_truncation(repo: Path, ctx: ToolContext, backend):
    result = await call(GrepTool(backend), ctx, pattern="TODO", max_results=3, context=1)

    assert result.llm_content.splitlines() == [
        ".github/ci.yml:1: # TODO hidden file",
        "--",
        "docs/notes.md:1: TODO write docs",
        "docs/notes.md-2- second line",
        "--",
        "src/util.py-4- line 4",
        "src/util.py:5: def helper():  # TODO",
        "src/util.py-6- line 6",
        "[5 matches in 4 files; showing the first 3 (max_results=3). Narrow the pattern, "
        "path or glob, or raise max_results]",
    ]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_glob_filter_include_alias_and_case(repo: Path, ctx: ToolContext, backend):
    tool = GrepTool(backend)

    ts_only = await call(tool, ctx, pattern="TODO", include="*.{ts,yml}")
    assert ts_only.llm_content.splitlines() == [
        ".github/ci.yml:1: # TODO hidden file", "src/web/page.ts:1: // TODO ts",
        "[2 matches in 2 files]"]
    # A glob never brings back what .gitignore leaves out (rg's own -g would).
    logs = await call(tool, ctx, pattern="TODO", glob="*.log")
    assert logs.llm_content.startswith("No matches for `TODO` in . (files matching *.log)")
    not_src = await call(tool, ctx, pattern="TODO", glob="!src")
    assert not_src.llm_content.splitlines()[-1] == "[2 matches in 2 files]"
    any_case = await call(tool, ctx, pattern="todo lower", case_sensitive=False)
    assert any_case.llm_content.splitlines() == [
        "src/deep/more.py:1: x = 1  # todo lower case", "[1 match in 1 file]"]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_in_one_file_and_in_a_subfolder(repo: Path, ctx: ToolContext, backend):
    tool = GrepTool(backend)

    one = await call(tool, ctx, pattern="os", path="app.py")
    assert one.llm_content.splitlines() == [
        "app.py:1: import os", "app.py:4:     return os.getcwd()", "[2 matches in 1 file]"]
    # An ignored file named explicitly is searched, as rg does.
    ignored = await call(tool, ctx, pattern="TODO", path="debug.log")
    assert ignored.llm_content.splitlines()[0] == "debug.log:1: TODO ignored log"
    sub = await call(tool, ctx, pattern="TODO", path="src/web")
    assert sub.llm_content.splitlines()[0] == "src/web/page.ts:1: // TODO ts"
    # So is an ignored folder named explicitly.
    inside = await call(tool, ctx, pattern="TODO", path="build")
    assert inside.llm_content.splitlines()[0] == "build/out.py:1: TODO ignored by .gitignore"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_no_match_binary_and_errors(repo: Path, ctx: ToolContext, backend):
    tool = GrepTool(backend)

    none = await call(tool, ctx, pattern="nothing here")
    assert none.ok and none.llm_content.startswith("No matches for `nothing here` in .")
    assert "case_sensitive=false" in none.llm_content
    binary = await call(tool, ctx, pattern="TODO", path="blob.bin")
    assert binary.ok and "blob.bin: it is a binary file" in binary.llm_content
    bad = await call(tool, ctx, pattern="foo(")
    assert not bad.ok
    assert bad.error.startswith(
        "invalid regular expression 'foo(': missing ), unterminated subpattern at position 3")
    missing = await call(tool, ctx, pattern="x", path="nope")
    assert not missing.ok and missing.error.startswith("path not found: nope.")


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_regex_only_python_understands(repo: Path, ctx: ToolContext, backend):
    # rg's Rust regex has no look-ahead; the rg backend falls back to Python's re.
    result = await call(GrepTool(backend), ctx, pattern=r"TODO(?=:)")

    assert result.llm_content.splitlines() == ["src/util.py:15: TODO: later",
                                               "[1 match in 1 file]"]


@needs_rg
@pytest.mark.parametrize("args", [
    {"pattern": "TODO"},
    {"pattern": "line 1\\d", "context": 3},
    {"pattern": "o", "context": 1, "max_results": 7},
    {"pattern": "^\\s*(def|return)\\b", "glob": "**/*.py"},
    {"pattern": "todo", "case_sensitive": False, "include": "!*.md"},
    {"pattern": "é|ü|\\t", "context": 2},
    {"pattern": "TODO", "path": "src"},
])
async def test_grep_backends_print_the_same(repo: Path, ctx: ToolContext, args):
    write(repo, {"src/latin.txt": "caf\xe9\tno\n".encode("latin-1"),
                 "src/utf8.txt": "\ufeffüber\n\nend é\r\n",
                 "long.txt": "o" * 3_000 + "\n", "src/utf16.txt": "tab\there é\n".encode("utf-16")})

    with_rg = await call(GrepTool("rg"), ctx, **args)
    with_python = await call(GrepTool("python"), ctx, **args)

    assert with_rg.llm_content == with_python.llm_content
    assert with_rg.llm_content.count("\n") >= 1


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_stops_at_the_output_limit(tmp_path: Path, backend):
    write(tmp_path, {"many.txt": "".join(f"match {n} " + "x" * 80 + "\n" for n in range(100))})
    ctx = ToolContext(workdir=tmp_path, output_dir=tmp_path / "out", output_limit=2_000)

    text = (await call(GrepTool(backend), ctx, pattern="match")).llm_content
    lines = text.splitlines()

    assert len(text) <= 2_000
    assert lines[0].startswith("many.txt:1: match 0 xxx")
    assert lines[-1] == (f"[100 matches in 1 file; showing the first {len(lines) - 1} (the "
                         "output reached 1,700 characters). Narrow the pattern, path or glob]")


async def test_without_rg_on_path_the_default_tools_fall_back(repo: Path, ctx: ToolContext,
                                                              tmp_path_factory, monkeypatch):
    bin_dir = tmp_path_factory.mktemp("bin")
    (bin_dir / "git").symlink_to(shutil.which("git"))
    monkeypatch.setenv("PATH", str(bin_dir))

    found = await call(GrepTool(), ctx, pattern="TODO", glob="*.py")
    listed = await call(GlobFilesTool(), ctx, pattern="**/*.py")

    assert found.llm_content.splitlines()[-1] == "[2 matches in 1 file]"
    assert listed.llm_content.splitlines()[1:] == ["app.py", "src/deep/more.py", "src/util.py"]


def test_grep_locates_and_describes_its_path(ctx: ToolContext):
    invocation = GrepTool().build({"pattern": "def main", "path": "src", "glob": "*.py"}, ctx)

    assert invocation.locations() == [ctx.workdir / "src"]
    assert invocation.describe() == 'grep "def main" in src (*.py)'


async def test_grep_result_reaches_the_model(fake_provider, repo: Path):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("grep", {"pattern": "TODO", "path": "src", "context": 1})]),
        Reply(text="Two TODOs in src/util.py."),
    )

    outcome = await run(fake_provider, repo, "find the TODOs in src")

    assert outcome.code == 0, outcome.stderr
    results = fake_provider.requests[1].tool_results()
    assert len(results) == 1
    told = results[0]["content"].splitlines()
    assert told[:3] == ["src/util.py-4- line 4", "src/util.py:5: def helper():  # TODO",
                        "src/util.py-6- line 6"]
    assert told[-1] == "[3 matches in 2 files]"
    assert outcome.of_type("tool_result")[0]["ok"] is True
