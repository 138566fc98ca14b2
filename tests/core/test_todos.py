"""The session's todo list: markdown checkboxes counted as items and done."""

from __future__ import annotations

from agent_tui.core.todos import summarize


def test_summarize_counts_nested_items():
    assert summarize("- [x] a\n  * [ ] b\n- [X] c\nnot an item\n") == (3, 2)
