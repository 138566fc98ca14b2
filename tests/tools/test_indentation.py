"""Carrying a model's lines over to the file's indentation, line by line or not at all."""

from __future__ import annotations

import pytest

from agent_tui.tools.indentation import IndentationMismatch, describe, map_indentation


def test_identical_indentation_keeps_the_lines_as_written() -> None:
    pairs = [("def f():", "def f():"), ("    x = 1", "    x = 1")]
    assert map_indentation(pairs, ["   odd = 3", "\tmixed"]) == ["   odd = 3", "\tmixed"]


def test_each_written_indentation_maps_to_the_files() -> None:
    pairs = [("def f():", "def f():"), ("  x = 1", "    x = 1")]
    assert map_indentation(pairs, ["  return x + 1", "", "y = 2"]) == [
        "    return x + 1", "", "y = 2"]


def test_unseen_widths_follow_the_map_two_widths_fix() -> None:
    pairs = [("  def f(self):", "    def f(self):"), ("    pass", "        pass")]
    assert map_indentation(pairs, ["      deeper", "  same", "shallow"]) == [
        "            deeper", "    same", "shallow"]


def test_spaces_map_onto_tabs() -> None:
    pairs = [("def f():", "def f():"), ("    if x:", "\tif x:")]
    assert map_indentation(pairs, ["        y()", "    z()"]) == ["\t\ty()", "\tz()"]


def test_one_indentation_matching_two_is_a_conflict() -> None:
    pairs = [("def f():", "def f():"), ("  x = 1", "    x = 1"), ("  y = 2", "      y = 2")]
    with pytest.raises(IndentationMismatch) as caught:
        map_indentation(pairs, ["  z = 3"])
    assert caught.value.conflicts == [1, 2]
    assert "2 spaces" in caught.value.reason and "6 spaces" in caught.value.reason


def test_a_width_one_level_of_context_cannot_fix_is_refused() -> None:
    pairs = [("  a()", "    a()"), ("  b()", "    b()")]
    with pytest.raises(IndentationMismatch) as caught:
        map_indentation(pairs, ["  c()", "    d()"])
    assert caught.value.unmappable == [1]


def test_widths_that_fit_no_map_are_a_conflict() -> None:
    pairs = [("a", "a"), ("  b", "    b"), ("    c", "     c")]
    with pytest.raises(IndentationMismatch):
        map_indentation(pairs, ["      d"])


def test_a_fractional_width_is_refused() -> None:
    pairs = [("a", "a"), ("    b", "\tb")]
    with pytest.raises(IndentationMismatch):
        map_indentation(pairs, ["  half"])


def test_describe() -> None:
    assert [describe(s) for s in ("", " ", "\t\t", "\t  ")] == [
        "no indentation", "1 space", "2 tabs", "a mix of 1 tab and 2 spaces"]
