"""Tests of read_many_files on real folders, with and without a git repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_tui.tools.base import ToolArgumentError, ToolContext, ToolKind
from agent_tui.tools.read_many import ReadManyFilesTool


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    project = tmp_path / "project"
    project.mkdir()
    return ToolContext(workdir=project, output_dir=tmp_path / "out")


def make_tree(root: Path) -> None:
    files = {
        "README.md": "# Title\n",
        "src/app.py": "import os\nprint(os.sep)\n",
        "src/util/helpers.py": "def helper():\n    pass\n",
        "src/data.json": "{}\n",
        "build/out.py": "generated = True\n",
        "notes.log": "log line\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def git_init(root: Path, ignore: str) -> None:
    (root / ".gitignore").write_text(ignore)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)


async def read_many(ctx: ToolContext, **args):
    return await ReadManyFilesTool().build(args, ctx).execute()


def headers(text: str) -> list[str]:
    return [line[4:-4] for line in text.splitlines() if line.startswith("--- ")]


async def test_files_globs_and_numbered_sections(ctx: ToolContext) -> None:
    make_tree(ctx.workdir)
    result = await read_many(ctx, paths=["README.md", "src/**/*.py"])
    assert result.ok, result.error
    assert headers(result.llm_content) == ["README.md", "src/app.py", "src/util/helpers.py"]
    assert "--- src/app.py ---\n     1: import os\n     2: print(os.sep)" in result.llm_content
    assert result.llm_content.startswith("[read_many_files: 3 file(s), ")


async def test_gitignore_is_respected_in_git_repos(ctx: ToolContext) -> None:
    make_tree(ctx.workdir)
    git_init(ctx.workdir, "build/\n*.log\n")
    result = await read_many(ctx, paths=["."])
    names = headers(result.llm_content)
    assert "build/out.py" not in names and "notes.log" not in names
    assert {"README.md", "src/app.py", ".gitignore"} <= set(names)
    # A file named outright is read even when ignored.
    named = await read_many(ctx, paths=["notes.log"])
    assert headers(named.llm_content) == ["notes.log"]


async def test_exclude(ctx: ToolContext) -> None:
    make_tree(ctx.workdir)
    result = await read_many(ctx, paths=["src"], exclude=["util", "*.json"])
    assert headers(result.llm_content) == ["src/app.py"]


async def test_an_exclude_glob_that_matches_a_folder_leaves_out_its_files(
        ctx: ToolContext) -> None:
    make_tree(ctx.workdir)
    result = await read_many(ctx, paths=["src"], exclude=["src/util", "src/*.json"])
    assert headers(result.llm_content) == ["src/app.py"]


async def test_braces_classes_and_escapes_read_as_glob_files_reads_them(
        ctx: ToolContext) -> None:
    make_tree(ctx.workdir)
    (ctx.workdir / "x[1].txt").write_text("bracketed\n")
    (ctx.workdir / "x1.txt").write_text("plain\n")

    braces = await read_many(ctx, paths=["{src,build}/*.{py,json}"])
    assert headers(braces.llm_content) == ["build/out.py", "src/app.py", "src/data.json"]
    a_class = await read_many(ctx, paths=["x[1].txt"])
    assert headers(a_class.llm_content) == ["x1.txt"]
    escaped = await read_many(ctx, paths=["x\\[1\\].txt"])
    assert headers(escaped.llm_content) == ["x[1].txt"]
    invocation = ReadManyFilesTool().build({"paths": ["x\\[1\\].txt", "*.md"]}, ctx)
    assert invocation.locations() == [ctx.workdir / "x[1].txt", ctx.workdir / "*.md"]


async def test_binary_and_images_are_skipped_with_reasons(ctx: ToolContext) -> None:
    (ctx.workdir / "a.txt").write_text("text\n")
    (ctx.workdir / "blob.bin").write_bytes(b"\0\1\2" * 10)
    (ctx.workdir / "pic.dat").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(20))
    result = await read_many(ctx, paths=["*"])
    assert headers(result.llm_content) == ["a.txt"]
    assert "- blob.bin: binary (30 bytes)" in result.llm_content
    assert "- pic.dat: an image; look at it with read_image" in result.llm_content
    assert "2 skipped" in result.llm_content


async def test_caps_say_what_was_left_out(ctx: ToolContext) -> None:
    for n in range(5):
        (ctx.workdir / f"f{n}.txt").write_text(f"file {n}\n" * 10)  # 70 bytes each
    (ctx.workdir / "big.txt").write_text("x" * 500)
    result = await read_many(ctx, paths=["*.txt"], max_files=3, max_file_bytes=200)
    assert headers(result.llm_content) == ["f0.txt", "f1.txt", "f2.txt"]
    assert "- big.txt: 500 bytes, over max_file_bytes=200; read it with read_file" \
        in result.llm_content
    assert "- f3.txt (max_files=3 reached)" in result.llm_content
    assert "Left out" in result.llm_content

    by_bytes = await read_many(ctx, paths=["*.txt"], max_total_bytes=150, max_file_bytes=200)
    assert headers(by_bytes.llm_content) == ["f0.txt", "f1.txt"]
    assert "- f2.txt (70 bytes; max_total_bytes=150 reached)" in by_bytes.llm_content


async def test_nothing_matches_is_an_error(ctx: ToolContext) -> None:
    result = await read_many(ctx, paths=["nope/*.py"])
    assert not result.ok
    assert "no files match nope/*.py" in result.error


def test_metadata(ctx: ToolContext) -> None:
    tool = ReadManyFilesTool()
    assert tool.kind is ToolKind.READ and tool.read_only
    assert tool.build({"paths": ["a", "b/*.py"]}, ctx).describe() == "read_many_files a, b/*.py"
    with pytest.raises(ToolArgumentError):
        tool.build({"paths": []}, ctx)
