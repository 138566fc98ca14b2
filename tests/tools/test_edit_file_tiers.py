"""edit_file's tiers through the real tool on real files: exact, whitespace, unescaped, the
nearest regions when nothing matches, and the model's correction through the fake provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.tools.base import ToolContext
from agent_tui.tools.edit_file import EditFileTool
from agent_tui.tools.read_file import ReadFileTool
from tests.core.loop_helpers import run
from tests.fakes.providers import Reply, ToolCall

SOURCE = """\
class Shape:
    def area(self):
        width  =  self.width
        return width * self.height{TRAILING}

    def describe(self):
        print("a shape\\nwith lines")
""".replace("{TRAILING}", "   ")  # trailing spaces


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workdir=tmp_path, output_dir=tmp_path / "out")


async def edit(ctx: ToolContext, content: str | bytes, **args):
    path = ctx.workdir / "shape.py"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    assert ReadFileTool().build({"file_path": "shape.py"}, ctx).read().ok
    return await EditFileTool().build({"file_path": "shape.py", **args}, ctx).execute(), path


async def test_exact(ctx: ToolContext) -> None:
    result, path = await edit(ctx, SOURCE, old_text="self.height", new_text="self.depth")
    assert result.ok and result.edit_tier == "exact" and "Note:" not in result.llm_content
    assert path.read_text() == SOURCE.replace("self.height", "self.depth")


async def test_runs_of_spaces_and_trailing_spaces_within_a_line(ctx: ToolContext) -> None:
    result, path = await edit(ctx, SOURCE, old_text="width = self.width",
                              new_text="width = self.w")
    assert result.ok and result.edit_tier == "whitespace"
    assert "ignoring differences in runs of spaces and tabs" in result.llm_content
    assert path.read_text() == SOURCE.replace("width  =  self.width", "width = self.w")


async def test_lines_indented_differently_are_reindented_to_the_file(ctx: ToolContext) -> None:
    result, path = await edit(
        ctx, SOURCE,
        old_text="def area(self):\n  width = self.width\n  return width * self.height\n",
        new_text="def area(self):\n  width = self.width\n  if width:\n    return width\n"
                 "  return 0\n")
    assert result.ok and result.edit_tier == "whitespace"
    assert "re-indented the way the file indents" in result.llm_content
    assert path.read_text() == SOURCE.replace(
        "    def area(self):\n        width  =  self.width\n"
        "        return width * self.height   \n",
        "    def area(self):\n        width = self.width\n        if width:\n"
        "            return width\n        return 0\n")


async def test_spaces_in_the_text_become_the_files_tabs(ctx: ToolContext) -> None:
    tabbed = "def f():\n\tif x:\n\t\treturn 1\n"
    result, path = await edit(ctx, tabbed, old_text="def f():\n    if x:\n        return 1",
                              new_text="def f():\n    if x:\n        return 2\n    return 3")
    assert result.ok and result.edit_tier == "whitespace"
    assert path.read_text() == "def f():\n\tif x:\n\t\treturn 2\n\treturn 3\n"


async def test_a_crlf_file_keeps_its_line_endings(ctx: ToolContext) -> None:
    crlf = SOURCE.replace("\n", "\r\n").encode()
    result, path = await edit(ctx, crlf, old_text="def area(self):\n  width = self.width",
                              new_text="def area(self):\n  width = 2")
    assert result.ok and result.edit_tier == "whitespace"
    assert path.read_bytes() == crlf.replace(b"width  =  self.width", b"width = 2")


async def test_over_escaped_text_is_read_once_more(ctx: ToolContext) -> None:
    result, path = await edit(ctx, SOURCE,
                              old_text='print(\\"a shape\\\\nwith lines\\")',
                              new_text='print(\\"a circle\\\\nwith lines\\")')
    assert result.ok and result.edit_tier == "unescaped"
    assert "escaped one level too many" in result.llm_content
    assert path.read_text() == SOURCE.replace("a shape", "a circle")


async def test_over_escaped_line_breaks(ctx: ToolContext) -> None:
    result, path = await edit(ctx, SOURCE, old_text="def describe(self):\\n        print(",
                              new_text="def describe(self):\\n        return None\\n        print(")
    assert result.ok and result.edit_tier == "unescaped"
    assert "    def describe(self):\n        return None\n        print(" in path.read_text()


async def test_a_literal_backslash_n_that_matches_exactly_is_left_alone(
        ctx: ToolContext) -> None:
    result, path = await edit(ctx, SOURCE, old_text='"a shape\\nwith lines"',
                              new_text='"a shape\\nwith more lines"')
    assert result.ok and result.edit_tier == "exact"
    assert 'print("a shape\\nwith more lines")' in path.read_text()


async def test_nothing_alike_fails_with_the_nearest_regions(ctx: ToolContext) -> None:
    result, path = await edit(ctx, SOURCE, old_text="def area(self):\n    w = self.width\n",
                              new_text="def area(self):\n    w = 1\n")
    assert not result.ok and result.suggest_escalation and result.escalation_reason
    assert "The nearest text in the file:" in result.error
    assert "lines 2-3 (" in result.error and "     3:         width  =  self.width" in result.error
    assert path.read_text() == SOURCE


async def test_an_ambiguous_match_names_the_places(ctx: ToolContext) -> None:
    result, path = await edit(ctx, SOURCE, old_text="self", new_text="this")
    assert not result.ok and result.suggest_escalation
    assert "matches 4 times" in result.error and "starting at lines 2, 3, 4, 6" in result.error
    assert path.read_text() == SOURCE


async def test_expected_replacements(ctx: ToolContext) -> None:
    wrong, path = await edit(ctx, SOURCE, old_text="self.", new_text="this.",
                             expected_replacements=3)
    assert not wrong.ok and "expected 3 occurrence(s)" in wrong.error and "found 2" in wrong.error
    assert path.read_text() == SOURCE
    right, path = await edit(ctx, SOURCE, old_text="self.", new_text="this.",
                             expected_replacements=2)
    assert right.ok and path.read_text() == SOURCE.replace("self.", "this.")


async def test_indentation_that_cannot_be_carried_over_is_refused(ctx: ToolContext) -> None:
    uneven = "def f():\n    a = 1\n      b = 2\n"
    result, path = await edit(ctx, uneven, old_text="def f():\n  a = 1\n  b = 2",
                              new_text="def f():\n  a = 1\n  b = 3")
    assert not result.ok and result.suggest_escalation
    assert "file line 2: '    a = 1'" in result.error
    assert "file line 3: '      b = 2'" in result.error
    assert path.read_text() == uneven


# --------------------------------------------------------------------------- headless loop


async def test_loop_whitespace_tier_and_candidates_reach_the_model(fake_provider,
                                                                   tmp_path: Path) -> None:
    (tmp_path / "shape.py").write_text(SOURCE)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "shape.py"})]),
        Reply(tool_calls=[ToolCall("edit_file", {
            "file_path": "shape.py", "old_text": "width = self.width",
            "new_text": "width = self.w"})]),
        Reply(tool_calls=[ToolCall("edit_file", {
            "file_path": "shape.py", "old_text": "def volume(self):\n    return 0\n",
            "new_text": "def volume(self):\n    return 1\n"})]),
        Reply(text="Done."),
    )
    outcome = await run(fake_provider, tmp_path, approval_mode="auto-edit")
    assert outcome.code == 0, outcome.stderr
    fuzzy, missing = outcome.of_type("tool_result")[-2:]
    assert fuzzy["ok"] and fuzzy["edit_tier"] == "whitespace"
    assert not missing["ok"] and missing["suggest_escalation"]
    told = fake_provider.requests[3].tool_results()[-1]["content"]
    assert "The nearest text in the file:" in told


async def test_loop_the_model_corrects_an_edit_found_nowhere(fake_provider,
                                                             tmp_path: Path) -> None:
    (tmp_path / "shape.py").write_text(SOURCE)
    correction = json.dumps({"old_text": "        width  =  self.width\n",
                             "new_text": "        width  =  self.w\n"})
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "shape.py"})]),
        Reply(tool_calls=[ToolCall("edit_file", {
            "file_path": "shape.py", "old_text": "wdth = self.wdth\n",
            "new_text": "wdth = self.w\n", "instruction": "use the short name"})]),
        Reply(text=f"```json\n{correction}\n```"),  # the correction request (no tools)
        Reply(text="Done."),
    )
    outcome = await run(fake_provider, tmp_path, approval_mode="auto-edit",
                        edit_correction="model")
    assert outcome.code == 0, outcome.stderr
    asked = fake_provider.requests[2]
    assert "use the short name" in json.dumps(asked.body)
    result = outcome.of_type("tool_result")[-1]
    assert result["ok"] and result["edit_tier"] == "model"
    assert (tmp_path / "shape.py").read_text() == SOURCE.replace("self.width", "self.w")


async def test_without_the_setting_no_correction_is_asked(fake_provider,
                                                          tmp_path: Path) -> None:
    (tmp_path / "shape.py").write_text(SOURCE)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "shape.py"})]),
        Reply(tool_calls=[ToolCall("edit_file", {
            "file_path": "shape.py", "old_text": "wdth = self.wdth\n",
            "new_text": "wdth = self.w\n"})]),
        Reply(text="Could not."),
    )
    outcome = await run(fake_provider, tmp_path, approval_mode="auto-edit")
    assert len(fake_provider.requests) == 3
    assert not outcome.of_type("tool_result")[-1]["ok"]
