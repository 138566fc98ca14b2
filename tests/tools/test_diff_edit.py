"""Tests of str_replace: unified diffs applied to real files."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from agent_tui.tools.base import ToolArgumentError, ToolContext, ToolKind
from agent_tui.tools.diff_edit import StrReplaceTool, apply_diff, parse_diff
from agent_tui.tools.read_file import ReadFileTool
from tests.core.loop_helpers import run
from tests.fakes.providers import Reply, ToolCall
from tests.tools.test_images import png

SOURCE = """\
import os


def f():
    return 1


def g():
    return 1
"""


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workdir=tmp_path, output_dir=tmp_path / "out")


@pytest.fixture
def source(ctx: ToolContext) -> Path:
    path = ctx.workdir / "m.py"
    path.write_text(SOURCE)
    return path


def seen(ctx: ToolContext, file_path: str) -> None:
    """Read a file with read_file, as the model must before it changes the file."""
    assert ReadFileTool().build({"file_path": file_path}, ctx).read().ok


async def str_replace(ctx: ToolContext, **args):
    """str_replace, after reading the file when it exists."""
    file_path = args.get("file_path", args.get("path"))
    if ctx.resolve(file_path).is_file():
        seen(ctx, file_path)
    return await StrReplaceTool().build(args, ctx).execute()


async def test_single_hunk_with_headers(ctx: ToolContext, source: Path) -> None:
    diff = ("--- a/m.py\n+++ b/m.py\n@@ -4,2 +4,3 @@\n def f():\n-    return 1\n"
            "+    x = 2\n+    return x\n")
    result = await str_replace(ctx, file_path="m.py", diff=diff)
    assert result.ok, result.error
    assert source.read_text() == SOURCE.replace("def f():\n    return 1",
                                                "def f():\n    x = 2\n    return x")
    assert result.llm_content.startswith("Applied 1 hunk to m.py: +2 -1 lines. The file now reads:")
    assert "     5:     x = 2" in result.llm_content
    assert "     6:     return x" in result.llm_content
    assert not [p for p in ctx.workdir.iterdir() if p.name.endswith(".tmp")]


async def test_multi_hunk(ctx: ToolContext, source: Path) -> None:
    diff = ("@@ -1,1 +1,2 @@\n import os\n+import sys\n"
            "@@ -8,2 +9,2 @@\n def g():\n-    return 1\n+    return 2\n")
    result = await str_replace(ctx, path="m.py", diff=diff)
    assert result.ok, result.error
    assert source.read_text() == ("import os\nimport sys\n\n\ndef f():\n    return 1\n\n\n"
                                  "def g():\n    return 2\n")
    assert "Applied 2 hunks to m.py: +2 -1 lines" in result.llm_content


async def test_headerless_diff(ctx: ToolContext, source: Path) -> None:
    result = await str_replace(ctx, file_path="m.py",
                               diff=" import os\n+import re\n \n")
    assert result.ok, result.error
    assert source.read_text().startswith("import os\nimport re\n\n")


async def test_whitespace_drift_tabs_in_file_spaces_in_diff(ctx: ToolContext) -> None:
    path = ctx.workdir / "t.go"
    path.write_text("func main() {\n\tif ok {\n\t\tcall()\n\t}\n}\n")
    diff = ("@@ -2,3 +2,4 @@\n     if ok {\n         call()\n+        other()\n"
            "+    } else {\n+        fallback()\n     }\n")
    result = await str_replace(ctx, file_path="t.go", diff=diff)
    assert result.ok, result.error
    assert path.read_text() == (
        "func main() {\n\tif ok {\n\t\tcall()\n\t\tother()\n\t} else {\n\t\tfallback()\n\t}\n}\n")
    assert "hunk 1 matched ignoring indentation" in result.llm_content


async def test_whitespace_drift_trailing_spaces_and_shifted_indent(ctx: ToolContext) -> None:
    path = ctx.workdir / "c.py"
    path.write_text("class C:\n    def m(self):   \n        pass\n")
    # Trailing spaces in the file but not in the diff; the diff is not indented at all.
    diff = "@@ -2,2 +2,2 @@\n def m(self):\n-    pass\n+    return 42\n"
    result = await str_replace(ctx, file_path="c.py", diff=diff)
    assert result.ok, result.error
    assert path.read_text() == "class C:\n    def m(self):   \n        return 42\n"


async def test_ambiguous_without_hint_is_an_error(ctx: ToolContext, source: Path) -> None:
    result = await str_replace(ctx, file_path="m.py", diff="-    return 1\n+    return 2\n")
    assert not result.ok
    assert "matches 2 places" in result.error and "lines 5, 9" in result.error
    assert "start/end" in result.error and "nothing was written" in result.error
    assert source.read_text() == SOURCE


async def test_line_hint_picks_the_nearest_match(ctx: ToolContext, source: Path) -> None:
    result = await str_replace(ctx, file_path="m.py",
                               diff="@@ -10,1 +10,1 @@\n-    return 1\n+    return 2\n")
    assert result.ok, result.error
    assert source.read_text() == SOURCE[::-1].replace("1", "2", 1)[::-1]


async def test_start_end_disambiguate(ctx: ToolContext, source: Path) -> None:
    start = SOURCE.index("def g")
    result = await str_replace(ctx, file_path="m.py", diff="-    return 1\n+    return 3\n",
                               start=start, end=len(SOURCE))
    assert result.ok, result.error
    assert source.read_text().endswith("def g():\n    return 3\n")
    assert "def f():\n    return 1\n" in source.read_text()


async def test_failing_hunk_is_named_and_nothing_is_written(ctx: ToolContext,
                                                            source: Path) -> None:
    diff = ("@@ -1,1 +1,2 @@\n import os\n+import sys\n"
            "@@ -4,2 +5,2 @@\n def f():\n-    return 7\n+    return 8\n")
    result = await str_replace(ctx, file_path="m.py", diff=diff)
    assert not result.ok
    assert result.error.startswith("hunk 2 (@@ -4,2 +5,2 @@) does not apply to m.py")
    assert "    def f():\n        return 7" in result.error
    assert "first line occurs at line(s) 4" in result.error
    assert "Nothing was written" in result.error
    assert source.read_text() == SOURCE


async def test_crlf_and_bom_are_kept(ctx: ToolContext) -> None:
    path = ctx.workdir / "win.txt"
    path.write_bytes(codecs.BOM_UTF8 + b"alpha\r\nbeta\r\ngamma\r\n")
    result = await str_replace(ctx, file_path="win.txt",
                               diff="@@ -2,1 +2,2 @@\n-beta\n+BETA\n+delta\n gamma\n")
    assert result.ok, result.error
    assert path.read_bytes() == codecs.BOM_UTF8 + b"alpha\r\nBETA\r\ndelta\r\ngamma\r\n"


async def test_file_without_final_newline(ctx: ToolContext) -> None:
    path = ctx.workdir / "a.txt"
    path.write_bytes(b"one\ntwo")
    result = await str_replace(ctx, file_path="a.txt", diff=" one\n-two\n+three\n")
    assert result.ok, result.error
    assert path.read_bytes() == b"one\nthree"


async def test_missing_file_points_to_write_file(ctx: ToolContext) -> None:
    result = await str_replace(ctx, file_path="nope.py", diff="-a\n+b\n")
    assert not result.ok and "write_file" in result.error


def test_confirmation_shows_before_and_after(ctx: ToolContext, source: Path) -> None:
    seen(ctx, "m.py")
    tool = StrReplaceTool()
    assert tool.kind is ToolKind.EDIT and not tool.read_only
    invocation = tool.build({"file_path": "m.py", "diff": " import os\n+import re\n"}, ctx)
    confirmation = invocation.confirmation()
    assert confirmation is not None and confirmation.kind == "edit"
    assert confirmation.path == source
    assert confirmation.before == SOURCE
    assert confirmation.after == SOURCE.replace("import os\n", "import os\nimport re\n")
    assert source.read_text() == SOURCE
    assert invocation.describe() == "str_replace m.py"
    failing = tool.build({"file_path": "m.py", "diff": "-nothing like this\n+x\n"}, ctx)
    assert failing.confirmation() is None


@pytest.mark.parametrize("args", [{"diff": "  \n"}, {"diff": "-a\n+b\n", "start": 5, "end": 2}])
def test_argument_errors(ctx: ToolContext, args: dict) -> None:
    with pytest.raises(ToolArgumentError):
        StrReplaceTool().build({"file_path": "m.py", **args}, ctx)


def test_parse_diff_hints_and_insertion() -> None:
    hunks = parse_diff("diff --git a/x b/x\nindex 1..2\n--- a/x\n+++ b/x\n"
                       "@@ -3,0 +4,1 @@ def f\n+new\n")
    assert len(hunks) == 1
    assert (hunks[0].hint, hunks[0].header, hunks[0].new) == (3, "@@ -3,0 +4,1 @@ def f", ["new"])
    outcome = apply_diff("a\nb\nc\nd\n", "@@ -3,0 +4,1 @@\n+new\n")
    assert outcome.text == "a\nb\nc\nnew\nd\n"
    assert (outcome.added, outcome.removed, outcome.changed) == (1, 0, [(4, 4)])


# --------------------------------------------------------------------------- headless loop


async def test_loop_str_replace_then_read_image_on_a_text_only_model(fake_provider,
                                                                     tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SOURCE)
    (tmp_path / "dot.png").write_bytes(png())
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "m.py"})]),
        Reply(tool_calls=[ToolCall("str_replace", {
            "file_path": "m.py", "diff": "@@ -9,1 +9,1 @@\n-    return 1\n+    return 9\n"})]),
        Reply(tool_calls=[ToolCall("read_image", {"file_paths": ["dot.png"]})]),
        Reply(text="Edited; the image could not be viewed."),
    )

    outcome = await run(fake_provider, tmp_path, approval_mode="auto-edit")

    assert outcome.code == 0, outcome.stderr
    edited = fake_provider.requests[2].tool_results()[-1]["content"]
    assert edited.startswith("Applied 1 hunk to m.py: +1 -1 lines.")
    assert "     9:     return 9" in edited
    assert (tmp_path / "m.py").read_text() == SOURCE[::-1].replace("1", "9", 1)[::-1]
    refused = fake_provider.requests[3].tool_results()[-1]["content"]
    assert "the model openai/fake-model cannot take images" in refused
    assert "switch to a multimodal model" in refused
    assert [r["ok"] for r in outcome.of_type("tool_result")] == [True, True, False]


# --------------------------------------------------------------------------- re-indentation


async def test_body_indented_by_two_in_the_diff_and_four_in_the_file(ctx: ToolContext) -> None:
    path = ctx.workdir / "f.py"
    path.write_text("def f():\n    x = 1\n    return x\n")
    result = await str_replace(ctx, file_path="f.py", diff=(
        "@@ -1,3 +1,3 @@\n def f():\n   x = 1\n-  return x\n+  return x + 1\n"))
    assert result.ok and result.edit_tier == "whitespace"
    assert path.read_text() == "def f():\n    x = 1\n    return x + 1\n"
    assert result.llm_content.startswith(
        "Applied 1 hunk to f.py: +1 -1 lines; hunk 1 matched ignoring indentation and "
        "trailing whitespace, its added lines re-indented the way the file indents. ")


async def test_indentation_that_cannot_be_mapped_is_refused_naming_the_lines(
        ctx: ToolContext) -> None:
    path = ctx.workdir / "f.py"
    original = "def f():\n    x = 1\n      y = 2\n"
    path.write_text(original)
    result = await str_replace(ctx, file_path="f.py", diff=(
        "@@ -1,3 +1,4 @@\n def f():\n   x = 1\n   y = 2\n+  z = 3\n"))
    assert not result.ok and result.suggest_escalation
    assert "hunk 1 (@@ -1,3 +1,4 @@)" in result.error
    assert "file line 2: '    x = 1'" in result.error
    assert "file line 3: '      y = 2'" in result.error
    assert path.read_text() == original


async def test_loop_reindented_diff_lands_and_inconsistent_one_is_refused(
        fake_provider, tmp_path: Path) -> None:
    (tmp_path / "f.py").write_text("def f():\n    x = 1\n    return x\n")
    (tmp_path / "g.py").write_text("def g():\n    x = 1\n      y = 2\n")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "f.py"}),
                          ToolCall("read_file", {"file_path": "g.py"})]),
        Reply(tool_calls=[ToolCall("str_replace", {"file_path": "f.py", "diff": (
            "@@ -1,3 +1,3 @@\n def f():\n   x = 1\n-  return x\n+  return x + 1\n")})]),
        Reply(tool_calls=[ToolCall("str_replace", {"file_path": "g.py", "diff": (
            "@@ -1,3 +1,4 @@\n def g():\n   x = 1\n   y = 2\n+  z = 3\n")})]),
        Reply(text="Done."),
    )
    outcome = await run(fake_provider, tmp_path, approval_mode="auto-edit")
    assert outcome.code == 0, outcome.stderr
    landed, refused = outcome.of_type("tool_result")[-2:]
    assert landed["ok"] and landed["edit_tier"] == "whitespace"
    assert not refused["ok"] and refused["suggest_escalation"]
    assert (tmp_path / "f.py").read_text() == "def f():\n    x = 1\n    return x + 1\n"
    assert (tmp_path / "g.py").read_text() == "def g():\n    x = 1\n      y = 2\n"
    assert "Applied 1 hunk to f.py: +1 -1 lines; hunk 1 matched ignoring indentation" in (
        fake_provider.requests[2].tool_results()[-1]["content"])
    told = fake_provider.requests[3].tool_results()[-1]["content"]
    assert "hunk 1 (@@ -1,3 +1,4 @@) matched g.py at line 1 only with its indentation " \
        "ignored" in told
    assert "diff: '  x = 1'  file line 2: '    x = 1'" in told
    assert "diff: '  y = 2'  file line 3: '      y = 2'" in told
    assert "Nothing was written" in told


async def test_a_refused_second_hunk_leaves_the_first_unapplied(ctx: ToolContext) -> None:
    path = ctx.workdir / "two.py"
    original = ("import os\n\n\ndef f():\n    x = 1\n    return x\n\n\n"
                "def g():\n    y = 1\n        z = 2\n")
    path.write_text(original)
    result = await str_replace(ctx, file_path="two.py", diff=(
        "@@ -1,1 +1,2 @@\n import os\n+import sys\n"
        "@@ -9,3 +10,4 @@\n def g():\n   y = 1\n   z = 2\n+  w = 3\n"))
    assert not result.ok and result.suggest_escalation
    assert result.escalation_reason == "the indentation of a diff did not fit two.py"
    assert result.error.startswith("hunk 2 (@@ -9,3 +10,4 @@) matched two.py at line 9 only "
                                   "with its indentation ignored")
    assert "2 spaces are indented in the file by 4 spaces and by 8 spaces" in result.error
    assert "diff: '  y = 1'  file line 10: '    y = 1'" in result.error
    assert "diff: '  z = 2'  file line 11: '        z = 2'" in result.error
    assert "Nothing was written" in result.error
    assert path.read_text() == original


async def test_a_new_level_one_level_of_context_cannot_fix_is_refused(ctx: ToolContext) -> None:
    path = ctx.workdir / "one.py"
    original = "def f():\n    a()\n    b()\n"
    path.write_text(original)
    result = await str_replace(ctx, file_path="one.py", diff=(
        "@@ -2,2 +2,4 @@\n   a()\n   b()\n+  if c:\n+    d()\n"))
    assert not result.ok and result.suggest_escalation
    assert "diff: +'    d()'" in result.error
    assert "include a context line at that indentation level" in result.error
    assert path.read_text() == original


async def test_reindentation_keeps_crlf_and_bom(ctx: ToolContext) -> None:
    path = ctx.workdir / "win.py"
    path.write_bytes(codecs.BOM_UTF8 + b"class C:\r\n\tdef m(self):\r\n\t\treturn 1\r\n")
    result = await str_replace(ctx, file_path="win.py", diff=(
        "@@ -1,3 +1,4 @@\n class C:\n     def m(self):\n-        return 1\n"
        "+        x = 'é'\n+        return x\n"))
    assert result.ok, result.error
    assert result.edit_tier == "whitespace"
    assert path.read_bytes() == codecs.BOM_UTF8 + (
        "class C:\r\n\tdef m(self):\r\n\t\tx = 'é'\r\n\t\treturn x\r\n").encode()


async def test_dropped_trailing_spaces_keep_the_added_lines_as_written(
        ctx: ToolContext) -> None:
    path = ctx.workdir / "t.py"
    path.write_text("def f():  \n    return 1\n")
    result = await str_replace(ctx, file_path="t.py", diff=(
        "@@ -1,2 +1,3 @@\n def f():\n+    '''Doc.'''\n     return 1\n"))
    assert result.ok and result.edit_tier == "whitespace"
    assert "hunk 1 matched ignoring trailing whitespace" in result.llm_content
    assert path.read_text() == "def f():  \n    '''Doc.'''\n    return 1\n"


async def test_a_context_line_without_its_prefix_space_still_lands(ctx: ToolContext) -> None:
    path = ctx.workdir / "p.py"
    path.write_text("def f():\n    a()\n    b()\n")
    # "    a()" lost its diff prefix, so the diff reads it indented by 3.
    result = await str_replace(ctx, file_path="p.py", diff=(
        "@@ -1,3 +1,4 @@\n def f():\n    a()\n     b()\n+    c()\n"))
    assert result.ok, result.error
    assert path.read_text() == "def f():\n    a()\n    b()\n    c()\n"


async def test_escalation_is_suggested_only_when_the_models_copy_is_wrong(
        ctx: ToolContext, source: Path) -> None:
    missing = await str_replace(ctx, file_path="m.py", diff="-    return 7\n+    return 8\n")
    assert not missing.ok and missing.suggest_escalation
    assert missing.escalation_reason == "a hunk of a diff was not found in m.py"
    ambiguous = await str_replace(ctx, file_path="m.py", diff="-    return 1\n+    return 2\n")
    assert not ambiguous.ok and not ambiguous.suggest_escalation
    unplaced = await str_replace(ctx, file_path="m.py", diff="+import sys\n")
    assert not unplaced.ok and not unplaced.suggest_escalation
    empty = await str_replace(ctx, file_path="m.py", diff="@@ -1,1 +1,1 @@\n")
    assert not empty.ok and not empty.suggest_escalation
    assert source.read_text() == SOURCE
