"""Tests of the read_file, write_file and edit_file tools."""

from __future__ import annotations

import codecs
import stat
import struct
import time
from pathlib import Path

import pytest

from agent_tui.tools.base import ToolArgumentError, ToolContext, ToolKind
from agent_tui.tools.edit_file import EditFileTool, apply_edit
from agent_tui.tools.read_file import ReadFileTool
from agent_tui.tools.write_file import WriteFileTool

BOM = codecs.BOM_UTF8


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workdir=tmp_path, output_dir=tmp_path / "out")


def lines_file(path: Path, count: int) -> Path:
    path.write_text("".join(f"line {n}\n" for n in range(1, count + 1)))
    return path


async def read(ctx: ToolContext, **args):
    return await ReadFileTool().build(args, ctx).execute()


def seen(ctx: ToolContext, file_path: str) -> None:
    """Read a file with read_file, as the model must before it changes the file."""
    assert ReadFileTool().build({"file_path": file_path}, ctx).read().ok


def seen_if_present(ctx: ToolContext, args: dict) -> None:
    file_path = args.get("file_path", args.get("path"))
    if ctx.resolve(file_path).is_file():
        seen(ctx, file_path)


async def write(ctx: ToolContext, **args):
    """write_file, after reading the file when it exists (edit_safety tests skip the read)."""
    seen_if_present(ctx, args)
    return await WriteFileTool().build(args, ctx).execute()


async def edit(ctx: ToolContext, **args):
    """edit_file, after reading the file when it exists (edit_safety tests skip the read)."""
    seen_if_present(ctx, args)
    return await EditFileTool().build(args, ctx).execute()


def leftovers(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.endswith(".tmp")]


# --------------------------------------------------------------------------- read_file


async def test_read_whole_file_is_numbered_with_header(ctx: ToolContext) -> None:
    (ctx.workdir / "a.py").write_text("import os\nprint(os.sep)\n")
    result = await read(ctx, file_path="a.py")
    assert result.ok
    assert result.llm_content == (
        "[a.py: 24 bytes, 2 lines]\n     1: import os\n     2: print(os.sep)")


async def test_read_line_range(ctx: ToolContext) -> None:
    lines_file(ctx.workdir / "a.txt", 30)
    result = await read(ctx, file_path="a.txt", start_line=10, end_line=12)
    assert result.llm_content.splitlines() == [
        "[a.txt: 231 bytes, 30 lines; showing lines 10-12]",
        "    10: line 10", "    11: line 11", "    12: line 12"]


async def test_read_end_line_past_eof_is_clamped(ctx: ToolContext) -> None:
    lines_file(ctx.workdir / "a.txt", 3)
    result = await read(ctx, file_path="a.txt", start_line=2, end_line=99)
    assert result.llm_content.splitlines()[0].endswith("showing lines 2-3]")
    assert result.llm_content.splitlines()[-1] == "     3: line 3"


async def test_read_start_line_past_eof_is_an_error_with_line_count(ctx: ToolContext) -> None:
    lines_file(ctx.workdir / "a.txt", 3)
    result = await read(ctx, file_path="a.txt", start_line=4)
    assert not result.ok
    assert "past the end" in result.error and "3 lines" in result.error


async def test_read_char_range(ctx: ToolContext) -> None:
    (ctx.workdir / "a.txt").write_text("0123456789\nabc\n")
    result = await read(ctx, file_path="a.txt", start=2, end=13)
    assert result.llm_content == (
        "[a.txt: 15 bytes, 2 lines; showing characters 2-13 of 15]\n23456789\nab")


async def test_read_char_start_past_eof(ctx: ToolContext) -> None:
    (ctx.workdir / "a.txt").write_text("short")
    result = await read(ctx, file_path="a.txt", start=5)
    assert not result.ok
    assert "5 characters" in result.error


@pytest.mark.parametrize("args", [
    {"start_line": 1, "start": 0}, {"end_line": 3, "end": 10},
    {"start_line": 5, "end_line": 4}, {"start": 5, "end": 4},
])
def test_read_rejects_mixed_or_reversed_ranges(ctx: ToolContext, args: dict) -> None:
    with pytest.raises(ToolArgumentError):
        ReadFileTool().build({"file_path": "a.txt", **args}, ctx)


async def test_read_caps_at_2000_lines_with_partial_view_marker(ctx: ToolContext) -> None:
    lines_file(ctx.workdir / "big.txt", 3000)
    result = await read(ctx, file_path="big.txt")
    out = result.llm_content.splitlines()
    assert out[0] == "[big.txt: 28,893 bytes, 3,000 lines; showing lines 1-2000 (partial view)]"
    assert out[1] == "     1: line 1"
    assert out[2000] == "  2000: line 2000"
    assert "partial view" in out[-1] and "start_line=2001" in out[-1]
    assert len(out) == 2002

    rest = await read(ctx, file_path="big.txt", start_line=2001)
    out = rest.llm_content.splitlines()
    assert out[0].endswith("showing lines 2001-3000]")
    assert out[-1] == "  3000: line 3000"
    assert "partial" not in rest.llm_content


async def test_read_truncates_long_lines(ctx: ToolContext) -> None:
    (ctx.workdir / "wide.txt").write_text("x" * 5000 + "\nshort\n")
    result = await read(ctx, file_path="wide.txt")
    first = result.llm_content.splitlines()[1]
    assert first.startswith("     1: " + "x" * 2000 + " [... line truncated: 5,000 characters")
    assert "x" * 2001 not in first
    assert result.llm_content.splitlines()[2] == "     2: short"


async def test_read_crlf_lines_have_no_carriage_returns(ctx: ToolContext) -> None:
    (ctx.workdir / "win.txt").write_bytes(b"a\r\nb\r\n")
    result = await read(ctx, file_path="win.txt")
    assert "\r" not in result.llm_content
    assert result.llm_content.endswith("     1: a\n     2: b")


async def test_read_empty_file(ctx: ToolContext) -> None:
    (ctx.workdir / "empty.txt").write_text("")
    result = await read(ctx, file_path="empty.txt")
    assert result.ok
    assert "0 bytes, 0 lines" in result.llm_content and "empty" in result.llm_content


async def test_read_expands_tilde(ctx: ToolContext, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "notes.txt").write_text("remember\n")
    monkeypatch.setenv("HOME", str(home))
    result = await read(ctx, file_path="~/notes.txt")
    assert "     1: remember" in result.llm_content


async def test_read_accepts_path_alias(ctx: ToolContext) -> None:
    (ctx.workdir / "a.txt").write_text("hi\n")
    result = await read(ctx, path="a.txt")
    assert "     1: hi" in result.llm_content


async def test_read_missing_file(ctx: ToolContext) -> None:
    result = await read(ctx, file_path="nope.txt")
    assert not result.ok
    assert result.error.startswith("file not found: nope.txt")
    assert result.llm_content.startswith("Error: file not found")


async def test_read_directory_suggests_ls(ctx: ToolContext) -> None:
    (ctx.workdir / "src").mkdir()
    result = await read(ctx, file_path="src")
    assert not result.ok
    assert "directory" in result.error and "ls" in result.error


async def test_read_binary_file(ctx: ToolContext) -> None:
    (ctx.workdir / "data.bin").write_bytes(b"\x7fELF\2\1\1" + bytes(109))
    result = await read(ctx, file_path="data.bin")
    assert not result.ok
    assert "binary" in result.error and "116 bytes" in result.error


async def test_read_image_is_handed_to_read_image(tmp_path: Path) -> None:
    png = (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + struct.pack(">II", 2, 3) + bytes(100))
    (tmp_path / "shot.png").write_bytes(png)
    seeing = ToolContext(workdir=tmp_path, output_dir=tmp_path, supports_images=True)
    result = await read(seeing, file_path="shot.png")
    assert result.ok, result.error
    assert result.llm_content.startswith(
        "[shot.png is an image, so read_file handed it to read_image]")
    assert "shot.png: PNG, 124 bytes, 2x3 pixels" in result.llm_content
    assert [image.media_type for image in result.images] == ["image/png"]

    blind = ToolContext(workdir=tmp_path, output_dir=tmp_path, supports_images=False)
    refused = await read(blind, file_path="shot.png")
    assert not refused.ok and refused.images == []
    assert "cannot take images" in refused.error and "binary" not in refused.llm_content


async def test_read_counts_bare_cr_and_unterminated_lines(ctx: ToolContext) -> None:
    (ctx.workdir / "mac.txt").write_bytes(b"a\rb\r\nc\nd")
    result = await read(ctx, file_path="mac.txt", start_line=2)
    assert result.llm_content.splitlines() == [
        "[mac.txt: 8 bytes, 4 lines; showing lines 2-4]", "     2: b", "     3: c", "     4: d"]
    past = await read(ctx, file_path="mac.txt", start_line=6)
    assert not past.ok and "has 4 lines" in past.error


async def test_read_bom_is_not_shown(ctx: ToolContext) -> None:
    (ctx.workdir / "bom.txt").write_bytes(BOM + b"first\nsecond\n")
    result = await read(ctx, file_path="bom.txt")
    assert result.llm_content.splitlines()[1] == "     1: first"
    chars = await read(ctx, file_path="bom.txt", start=0, end=5)
    assert chars.llm_content.endswith("]\nfirst")


async def test_read_latin1_char_range_and_lines(ctx: ToolContext) -> None:
    (ctx.workdir / "old.txt").write_bytes("café\ndéjà vu\n".encode("latin-1"))
    chars = await read(ctx, file_path="old.txt", start=5, end=9)
    assert chars.llm_content.endswith("of 13]\ndéjà")
    lines = await read(ctx, file_path="old.txt")
    assert lines.llm_content.splitlines()[1:] == ["     1: café", "     2: déjà vu"]


async def test_read_char_range_of_utf8_counts_characters(ctx: ToolContext) -> None:
    (ctx.workdir / "u.txt").write_text("héllo wörld\n")
    result = await read(ctx, file_path="u.txt", start=6, end=11)
    assert result.llm_content == (
        "[u.txt: 14 bytes, 1 lines; showing characters 6-11 of 12]\nwörld")


@pytest.fixture(scope="module")
def huge_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 50 MB text file of numbered lines."""
    path = tmp_path_factory.mktemp("huge") / "huge.log"
    block = "".join(f"{n:08d} the quick brown fox jumps over the lazy dog\n"
                    for n in range(10_000)).encode()
    with path.open("wb") as handle:
        for _ in range(50 * 1024 * 1024 // len(block) + 1):
            handle.write(block)
    return path


def test_read_first_page_of_a_50mb_file_streams(huge_file: Path) -> None:
    ctx = ToolContext(workdir=huge_file.parent, output_dir=huge_file.parent)
    invocation = ReadFileTool().build({"file_path": "huge.log"}, ctx)
    started = time.perf_counter()
    result = invocation.read()
    elapsed = time.perf_counter() - started
    out = result.llm_content.splitlines()
    size = huge_file.stat().st_size
    assert out[0].startswith(f"[huge.log: {size:,} bytes, at least ")
    assert "lines (about " in out[0] and out[0].endswith("showing lines 1-2000 (partial view)]")
    assert out[1] == "     1: 00000000 the quick brown fox jumps over the lazy dog"
    assert out[2000].startswith("  2000: 00001999 ")
    assert out[-1].startswith("[partial view: showing lines 1-2000 of at least ")
    assert out[-1].endswith("To read on, call read_file with start_line=2001]")
    assert len(out) == 2002
    assert elapsed < 1.0  # the goal is 50 ms (benchmarks/read_file.py); CI machines vary


def test_read_deep_page_and_char_range_of_a_50mb_file(huge_file: Path) -> None:
    ctx = ToolContext(workdir=huge_file.parent, output_dir=huge_file.parent)
    deep = ReadFileTool().build({"file_path": "huge.log", "start_line": 900_001,
                                 "end_line": 900_002}, ctx).read()
    assert deep.llm_content.splitlines()[1:] == [
        "900001: 00000000 the quick brown fox jumps over the lazy dog",
        "900002: 00000001 the quick brown fox jumps over the lazy dog"]
    chars = ReadFileTool().build({"file_path": "huge.log", "start": 53, "end": 61},
                                 ctx).read()
    assert chars.llm_content.splitlines()[-1] == "00000001"
    assert "showing characters 53-61 of at least " in chars.llm_content


def test_read_invocation_metadata(ctx: ToolContext) -> None:
    tool = ReadFileTool()
    assert tool.kind is ToolKind.READ and tool.read_only
    invocation = tool.build({"file_path": "src/a.py", "start_line": 10, "end_line": 20}, ctx)
    assert invocation.describe() == "read_file src/a.py:10-20"
    assert invocation.locations() == [ctx.workdir / "src" / "a.py"]
    assert invocation.confirmation() is None
    assert tool.build({"file_path": "a.py"}, ctx).describe() == "read_file a.py"


# --------------------------------------------------------------------------- write_file


async def test_write_creates_file_and_parent_dirs(ctx: ToolContext) -> None:
    result = await write(ctx, file_path="deep/er/notes.md", content="hello\n")
    assert result.ok
    assert result.llm_content == "Wrote 6 bytes to deep/er/notes.md (created)"
    assert (ctx.workdir / "deep/er/notes.md").read_text() == "hello\n"


async def test_write_overwrites(ctx: ToolContext) -> None:
    (ctx.workdir / "a.txt").write_text("old\n")
    result = await write(ctx, path="a.txt", content="new!\n")
    assert result.llm_content == "Wrote 5 bytes to a.txt (overwritten)"
    assert (ctx.workdir / "a.txt").read_text() == "new!\n"
    assert leftovers(ctx.workdir) == []


async def test_write_without_create_directories_fails_on_missing_parent(
        ctx: ToolContext) -> None:
    result = await write(ctx, file_path="missing/a.txt", content="x", create_directories=False)
    assert not result.ok
    assert "does not exist" in result.error and "create_directories=true" in result.error
    assert not (ctx.workdir / "missing").exists()


async def test_write_to_directory_fails(ctx: ToolContext) -> None:
    (ctx.workdir / "d").mkdir()
    result = await write(ctx, file_path="d", content="x")
    assert not result.ok and "directory" in result.error


async def test_write_keeps_mode_bits(ctx: ToolContext) -> None:
    script = ctx.workdir / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    await write(ctx, file_path="run.sh", content="#!/bin/sh\necho hi\n")
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert script.read_text() == "#!/bin/sh\necho hi\n"


async def test_write_keeps_crlf_and_bom(ctx: ToolContext) -> None:
    path = ctx.workdir / "win.txt"
    path.write_bytes(BOM + b"one\r\ntwo\r\n")
    result = await write(ctx, file_path="win.txt", content="uno\ndos\ntres\n")
    assert path.read_bytes() == BOM + b"uno\r\ndos\r\ntres\r\n"
    assert result.llm_content == "Wrote 19 bytes to win.txt (overwritten)"


async def test_write_content_with_crlf_is_not_converted_again(ctx: ToolContext) -> None:
    path = ctx.workdir / "win.txt"
    path.write_bytes(b"one\r\ntwo\r\n")
    await write(ctx, file_path="win.txt", content="a\r\nb\n")
    assert path.read_bytes() == b"a\r\nb\n"


async def test_write_keeps_latin1_and_falls_back_to_utf8(ctx: ToolContext) -> None:
    path = ctx.workdir / "old.txt"
    path.write_bytes("café\n".encode("latin-1"))
    await write(ctx, file_path="old.txt", content="déjà\n")
    assert path.read_bytes() == "déjà\n".encode("latin-1")
    result = await write(ctx, file_path="old.txt", content="smile 🙂\n")
    assert path.read_text(encoding="utf-8") == "smile 🙂\n"
    assert "re-encoded" in result.llm_content


def test_write_confirmation_shows_before_and_after(ctx: ToolContext) -> None:
    (ctx.workdir / "a.txt").write_bytes(b"old\r\n")
    seen(ctx, "a.txt")
    tool = WriteFileTool()
    assert tool.kind is ToolKind.EDIT and not tool.read_only
    invocation = tool.build({"file_path": "a.txt", "content": "new\n"}, ctx)
    confirmation = invocation.confirmation()
    assert confirmation.kind == "edit"
    assert confirmation.title == "Write a.txt"
    assert confirmation.path == ctx.workdir / "a.txt"
    assert (confirmation.before, confirmation.after) == ("old\r\n", "new\r\n")
    assert invocation.describe() == "write_file a.txt"
    assert invocation.locations() == [ctx.workdir / "a.txt"]

    fresh = tool.build({"file_path": "new.txt", "content": "x"}, ctx).confirmation()
    assert (fresh.before, fresh.after) == ("", "x")


# --------------------------------------------------------------------------- edit_file


SOURCE = "def f():\n    return 1\n\n\ndef g():\n    return 1\n"


async def test_edit_replaces_and_shows_the_result(ctx: ToolContext) -> None:
    path = ctx.workdir / "m.py"
    path.write_text(SOURCE)
    result = await edit(ctx, file_path="m.py", old_text="def g():\n    return 1",
                        new_text="def g():\n    return 2")
    assert result.ok
    assert path.read_text() == SOURCE.replace("return 1\n", "return 2\n").replace(
        "return 2", "return 1", 1)
    assert result.llm_content.startswith(
        "Edited m.py: replaced 1 occurrence, changing lines 5-6.")
    assert "     6:     return 2" in result.llm_content
    assert "     2:     return 1" in result.llm_content  # context before the edit
    assert leftovers(ctx.workdir) == []


async def test_edit_not_found_suggests_escalation(ctx: ToolContext) -> None:
    path = ctx.workdir / "m.py"
    path.write_text(SOURCE)
    result = await edit(ctx, file_path="m.py", old_text="return 3", new_text="return 4")
    assert not result.ok
    assert result.suggest_escalation
    assert "old_text not found in m.py" in result.error and "read the file again" in result.error
    assert path.read_text() == SOURCE


async def test_edit_ambiguous_lists_lines(ctx: ToolContext) -> None:
    path = ctx.workdir / "m.py"
    path.write_text(SOURCE)
    result = await edit(ctx, file_path="m.py", old_text="return 1", new_text="return 2")
    assert not result.ok
    assert "2 times" in result.error and "lines 2, 6" in result.error
    assert "replace_all=true" in result.error
    assert path.read_text() == SOURCE


async def test_edit_replace_all(ctx: ToolContext) -> None:
    path = ctx.workdir / "m.py"
    path.write_text(SOURCE)
    result = await edit(ctx, file_path="m.py", old_text="return 1", new_text="return 2",
                        replace_all=True)
    assert result.ok
    assert path.read_text() == SOURCE.replace("return 1", "return 2")
    assert "replaced 2 occurrences, changing lines 2-6" in result.llm_content


async def test_edit_crlf_file_with_lf_old_text(ctx: ToolContext) -> None:
    path = ctx.workdir / "win.txt"
    path.write_bytes(BOM + b"alpha\r\nbeta\r\ngamma\r\n")
    result = await edit(ctx, file_path="win.txt", old_text="alpha\nbeta\n",
                        new_text="ALPHA\nBETA\nextra\n")
    assert result.ok, result.error
    assert path.read_bytes() == BOM + b"ALPHA\r\nBETA\r\nextra\r\ngamma\r\n"
    assert "\r" not in result.llm_content


async def test_edit_identical_texts_fail(ctx: ToolContext) -> None:
    (ctx.workdir / "a.txt").write_text("same\n")
    result = await edit(ctx, file_path="a.txt", old_text="same", new_text="same")
    assert not result.ok and "identical" in result.error


def test_edit_empty_old_text_is_an_argument_error(ctx: ToolContext) -> None:
    with pytest.raises(ToolArgumentError, match="old_text is empty"):
        EditFileTool().build({"file_path": "a.txt", "old_text": "", "new_text": "x"}, ctx)


async def test_edit_missing_file_points_to_write_file(ctx: ToolContext) -> None:
    result = await edit(ctx, file_path="nope.py", old_text="a", new_text="b")
    assert not result.ok
    assert "file not found: nope.py" in result.error and "write_file" in result.error


async def test_edit_keeps_mode_and_accepts_aliases(ctx: ToolContext) -> None:
    path = ctx.workdir / "run.sh"
    path.write_text("echo one\n")
    path.chmod(0o755)
    result = await edit(ctx, path="run.sh", old_string="one", new_string="two")
    assert result.ok
    assert path.read_text() == "echo two\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o755


def test_edit_confirmation_shows_full_before_and_after(ctx: ToolContext) -> None:
    path = ctx.workdir / "m.py"
    path.write_text(SOURCE)
    seen(ctx, "m.py")
    tool = EditFileTool()
    invocation = tool.build(
        {"file_path": "m.py", "old_text": "def f", "new_text": "def h"}, ctx)
    confirmation = invocation.confirmation()
    assert confirmation.kind == "edit" and confirmation.title == "Edit m.py"
    assert confirmation.path == path
    assert confirmation.before == SOURCE
    assert confirmation.after == SOURCE.replace("def f", "def h")
    assert path.read_text() == SOURCE  # confirming changes nothing
    assert invocation.describe() == "edit_file m.py"
    assert invocation.locations() == [path]

    failing = tool.build({"file_path": "m.py", "old_text": "zzz", "new_text": "y"}, ctx)
    assert failing.confirmation() is None


def test_apply_edit_reports_changed_lines() -> None:
    outcome = apply_edit("a\nb\nc\n", "b\n", "x\ny\nz\n")
    assert outcome.text == "a\nx\ny\nz\nc\n"
    assert (outcome.count, outcome.changed) == (1, [(2, 4)])
    deleted = apply_edit("a\nb\nc\n", "c\n", "")
    assert deleted.text == "a\nb\n" and deleted.changed == [(2, 2)]
