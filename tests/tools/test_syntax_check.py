"""The syntax check after every edit, through the real edit tools on real files."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from agent_tui.tools.base import ToolContext
from agent_tui.tools.diff_edit import StrReplaceTool
from agent_tui.tools.edit_file import EditFileTool
from agent_tui.tools.read_file import ReadFileTool
from agent_tui.tools.syntax_check import SyntaxChecker, language_of, syntax_checker
from agent_tui.tools.write_file import WriteFileTool
from tests.core.loop_helpers import run
from tests.fakes.providers import Reply, ToolCall

SOURCE = """\
def area(width, height):
    return width * height


def perimeter(width, height):
    return 2 * (width + height)
"""


def context(tmp_path: Path, guard: str | None = None) -> ToolContext:
    settings = SimpleNamespace(edit_syntax_guard=guard) if guard else None
    return ToolContext(workdir=tmp_path, output_dir=tmp_path / "out", settings=settings)


def read(ctx: ToolContext, name: str) -> None:
    assert ReadFileTool().build({"file_path": name}, ctx).read().ok


async def edit(ctx: ToolContext, name: str, old: str, new: str):
    read(ctx, name)
    return await EditFileTool().build(
        {"file_path": name, "old_text": old, "new_text": new}, ctx).execute()


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "shapes.py"
    path.write_text(SOURCE)
    return path


async def test_an_edit_that_breaks_python_is_written_and_warned(tmp_path: Path,
                                                                source: Path) -> None:
    result = await edit(context(tmp_path), "shapes.py", "return 2 * (width + height)",
                        "return 2 * (width + height")
    assert result.ok
    assert source.read_text() == SOURCE.replace("(width + height)", "(width + height")
    assert len(result.warnings) == 1
    warning = result.warnings[0]
    assert warning.startswith("this edit adds a syntax error to shapes.py (python): line 6")
    assert "Warning: this edit adds a syntax error" in result.llm_content
    assert result.edit_tier == "exact"


async def test_refuse_leaves_the_file_as_it_was(tmp_path: Path, source: Path) -> None:
    result = await edit(context(tmp_path, "refuse"), "shapes.py", "def area(width, height):",
                        "def area(width, height)")
    assert not result.ok
    assert "nothing was written" in result.error and "line 1" in result.error
    assert 'edit_syntax_guard = "refuse"' in result.error
    assert 'line 1, column 24: syntax error in the file near "def area(width, height)"' \
        in result.error
    assert source.read_text() == SOURCE


async def test_off_checks_nothing(tmp_path: Path, source: Path) -> None:
    result = await edit(context(tmp_path, "off"), "shapes.py", "def area(width, height):",
                        "def area(width, height)")
    assert result.ok and result.warnings == []


async def test_an_error_the_file_already_had_is_not_blamed_on_the_edit(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text(SOURCE + "\ndef broken(:\n    pass\n")
    result = await edit(context(tmp_path, "refuse"), "broken.py", "return width * height",
                        "return height * width")
    assert result.ok and result.warnings == []
    assert result.llm_content.endswith(
        "\nNote: the file still has a syntax error it had before this edit; the edit added none.")
    on_the_line = await edit(context(tmp_path, "refuse"), "broken.py", "def broken(:",
                             "def broken(: # still broken")
    assert on_the_line.ok and on_the_line.warnings == []


async def test_a_fix_gives_no_warning(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def f(:\n    return 1\n")
    result = await edit(context(tmp_path, "refuse"), "broken.py", "def f(:", "def f():")
    assert result.ok and result.warnings == []
    assert result.llm_content.endswith("\nThe file has no syntax errors now.")


async def test_str_replace_and_write_file_are_checked(tmp_path: Path, source: Path) -> None:
    ctx = context(tmp_path)
    read(ctx, "shapes.py")
    result = await StrReplaceTool().build({"file_path": "shapes.py", "diff": (
        "@@ -1,2 +1,2 @@\n def area(width, height):\n-    return width * height\n"
        "+    return width * (height\n")}, ctx).execute()
    assert result.ok and "adds a syntax error" in result.warnings[0]

    created = await WriteFileTool().build(
        {"file_path": "new.js", "content": "function f() { return [1, 2;\n"}, ctx).execute()
    assert created.ok and "(javascript)" in created.warnings[0]
    refused = await WriteFileTool().build(
        {"file_path": "cfg.json", "content": '{"a": 1,, }\n'},
        context(tmp_path, "refuse")).execute()
    assert not refused.ok and not (tmp_path / "cfg.json").exists()


async def test_other_languages_and_unknown_files(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text('name = "x"\n')
    (tmp_path / "notes.xyz").write_text("free text (\n")
    broken = await edit(context(tmp_path), "c.toml", 'name = "x"', 'name = "x')
    assert broken.ok and "(toml)" in broken.warnings[0]
    unknown = await edit(context(tmp_path), "notes.xyz", "free text (", "free text ((")
    assert unknown.ok and unknown.warnings == []
    assert language_of(Path("a.h")) == "c" and language_of(Path("Makefile")) == "make"


def test_the_approval_shows_the_warning(tmp_path: Path, source: Path) -> None:
    ctx = context(tmp_path)
    read(ctx, "shapes.py")
    invocation = EditFileTool().build({"file_path": "shapes.py", "old_text": "height):",
                                       "new_text": "height)", "replace_all": True}, ctx)
    confirmation = invocation.confirmation()
    assert confirmation is not None
    assert confirmation.warnings[0].startswith("this edit adds a syntax error to shapes.py")
    assert "line 1, column 24" in confirmation.warnings[0]


async def test_a_read_warms_the_tree_and_the_edit_reparses_incrementally(tmp_path: Path,
                                                                        source: Path) -> None:
    ctx = context(tmp_path)
    read(ctx, "shapes.py")
    assert syntax_checker.has_tree(source, source.read_bytes(), timeout=10)
    before = syntax_checker.full_parses
    invocation = EditFileTool().build(
        {"file_path": "shapes.py", "old_text": "width * height", "new_text": "height * width"},
        ctx)
    invocation.confirmation()
    result = await invocation.execute()
    assert result.ok
    # The read parsed the file; the approval and the write share one incremental re-parse.
    assert syntax_checker.full_parses == before


def test_the_checker_finds_missing_and_error_nodes() -> None:
    checker = SyntaxChecker()
    path = Path("m.py")
    good = b"def f(a, b):\n    return a + b\n"
    report = checker.check(path, good, b"def f(a, b:\n    return a + b\n")
    assert report is not None and report.added and report.before == 0
    assert checker.check(path, good, good.replace(b"a + b", b"b + a")).added == ()
    new_file = checker.check(path, None, b"x = (1,\n")
    assert new_file is not None and new_file.added[0].line == 1
    missing = checker.check(path, good, b"def f((a, b):\n    return a + b\n")
    assert missing is not None and [e.sentence() for e in missing.added] == [
        'line 1, column 13: missing ")" in parameters; the line reads "def f((a, b):"']
    many = checker.check(path, None, b"".join(b"def f%d(:\n    pass\n" % n for n in range(5)))
    assert many is not None
    (sentence,) = many.sentences("m.py")
    assert sentence.startswith("this edit adds 5 syntax errors to m.py (python): line 1, ")
    assert sentence.count("missing") == 3 and sentence.endswith("; and 2 more")


# --------------------------------------------------------------------------- headless loop


async def test_loop_the_model_is_told_and_refuse_keeps_the_file(fake_provider,
                                                                tmp_path: Path) -> None:
    (tmp_path / "shapes.py").write_text(SOURCE)
    broken = {"file_path": "shapes.py", "old_text": "def area(width, height):",
              "new_text": "def area(width, height"}
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "shapes.py"})]),
        Reply(tool_calls=[ToolCall("edit_file", broken)]),
        Reply(text="Done."),
    )
    warned = await run(fake_provider, tmp_path, approval_mode="auto-edit")
    assert warned.code == 0, warned.stderr
    told = fake_provider.requests[2].tool_results()[-1]["content"]
    assert "\nWarning: this edit adds " in told
    assert "to shapes.py (python): line 1, column " in told
    event = warned.of_type("tool_result")[-1]
    assert event["ok"] and event["warnings"] and json.dumps(event["warnings"])

    (tmp_path / "shapes.py").write_text(SOURCE)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "shapes.py"})]),
        Reply(tool_calls=[ToolCall("edit_file", broken)]),
        Reply(text="Could not."),
    )
    refused = await run(fake_provider, tmp_path, approval_mode="auto-edit",
                        edit_syntax_guard="refuse")
    assert refused.of_type("tool_result")[-1]["ok"] is False
    assert (tmp_path / "shapes.py").read_text() == SOURCE
