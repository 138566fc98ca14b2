"""Tests of get_internal_docs on the docs bundled in agent_tui/tools/docs."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.tools.base import ToolContext, ToolKind
from agent_tui.tools.internal_docs import GetInternalDocsTool, doc_names

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workdir=tmp_path, output_dir=tmp_path / "out")


async def docs(ctx: ToolContext, **args: str):
    return await GetInternalDocsTool().build(args, ctx).execute()


async def test_lists_the_docs_with_their_first_lines(ctx: ToolContext) -> None:
    result = await docs(ctx)

    assert result.ok
    lines = result.llm_content.splitlines()
    assert "get_internal_docs path=NAME" in lines[0]
    entries = dict(line.removeprefix("- ").split(": ", 1) for line in lines[1:])
    for name in ("overview", "command-line", "configuration", "approvals", "tools", "keys"):
        assert name in entries
    assert entries["tools"] == "Tools: what the agent can call"
    assert list(entries) == sorted(entries)
    assert set(entries) == {p.stem for p in (REPO / "tools" / "docs").glob("*.md")}


async def test_reads_one_doc_by_name_or_file_name(ctx: ToolContext) -> None:
    by_name = await docs(ctx, path="configuration")
    by_file = await docs(ctx, path="docs/configuration.md")

    assert by_name.ok and by_name.llm_content == by_file.llm_content
    assert by_name.llm_content == (REPO / "tools/docs/configuration.md").read_text()
    assert "web_search_backend" in by_name.llm_content


async def test_unknown_doc_lists_the_names(ctx: ToolContext) -> None:
    result = await docs(ctx, path="../base.py")

    assert not result.ok
    assert "no doc named '../base.py'" in result.error
    assert ", ".join(doc_names()) in result.error


def test_is_a_read_tool() -> None:
    assert GetInternalDocsTool().read_only and GetInternalDocsTool.kind == ToolKind.READ


def test_the_docs_mention_what_the_readme_promises() -> None:
    tools = (REPO / "tools/docs/tools.md").read_text()
    keys = (REPO / "tools/docs/keys.md").read_text()
    for name in ("read_file", "shell", "web_fetch", "web_search", "research",
                 "background_process", "get_internal_docs"):
        assert f"`{name}`" in tools
    assert "/net on" in keys and "Shift+Tab" in keys
