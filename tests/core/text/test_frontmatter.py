"""Front matter of Markdown files: the split, the values, the errors' lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.text.frontmatter import FrontmatterError, parse_markdown

PATH = Path("skill/SKILL.md")


def test_a_file_without_front_matter_is_all_body():
    document = parse_markdown(PATH, "\ufeffJust text.\n")

    assert document.meta == {} and document.body == "Just text.\n" and document.body_line == 1


def test_front_matter_and_body_split_with_the_body_s_line():
    document = parse_markdown(PATH, "---\nname: x\ntags: [a, b]\n---\nBody\n")

    assert document.meta == {"name": "x", "tags": ["a", "b"]}
    assert document.body == "Body\n" and document.body_line == 5
    assert document.names("tags") == ("a", "b")


def test_names_split_at_commas_and_spaces_outside_parentheses():
    document = parse_markdown(
        PATH, "---\nallowed-tools: read_file, shell(git log:*)  grep\n---\n")

    assert document.names("allowed-tools") == ("read_file", "shell(git log:*)", "grep")


@pytest.mark.parametrize(("text", "line", "words"), [
    ("---\nname: x\n", 1, "never closed"),
    ("---\n- a\n- b\n---\n", 2, "key: value"),
    ("---\nname: x\ndescription: a: b\n---\n", 3, "not valid YAML"),
])
def test_errors_name_the_file_and_line(text, line, words):
    with pytest.raises(FrontmatterError) as caught:
        parse_markdown(PATH, text)

    assert caught.value.line == line
    assert str(caught.value).startswith(f"{PATH}:{line}: ")
    assert words in caught.value.problem


def test_required_and_typed_values_are_checked():
    document = parse_markdown(PATH, "---\ndescription: [1, 2]\n---\n")

    with pytest.raises(FrontmatterError, match="has no `name`"):
        document.text("name", required=True)
    with pytest.raises(FrontmatterError, match="must be text, not a list"):
        document.text("description")
