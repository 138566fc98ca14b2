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


def test_blank_pairs_do_not_count() -> None:
    pairs = [("", "    "), ("  a()", "  a()"), ("   ", "")]
    assert map_indentation(pairs, ["  b()", ""]) == ["  b()", ""]


def test_a_shifted_base_extrapolates_by_the_shift() -> None:
    pairs = [("    def f(self):", "def f(self):"), ("        x = 1", "    x = 1")]
    assert map_indentation(pairs, ["            deeper", "    same", "        body"]) == [
        "        deeper", "same", "    body"]


def test_tabs_in_the_text_map_onto_spaces() -> None:
    pairs = [("if x:", "if x:"), ("\ty()", "    y()")]
    assert map_indentation(pairs, ["\t\tz()", "w()"]) == ["        z()", "w()"]


def test_a_width_that_would_be_negative_is_refused() -> None:
    pairs = [("    a()", "a()"), ("      b()", "  b()")]
    with pytest.raises(IndentationMismatch) as caught:
        map_indentation(pairs, ["b()", "  c()"])
    assert caught.value.unmappable == [0, 1]
    assert "include a context line" in caught.value.reason


def test_mixed_indentation_is_mapped_only_when_seen() -> None:
    pairs = [("a", "a"), ("\t  b", "\t    b"), ("\t", "\t")]
    assert map_indentation(pairs, ["\t  c"]) == ["\t    c"]
    with pytest.raises(IndentationMismatch) as caught:
        map_indentation(pairs, ["\t  c", "\t    d"])
    assert caught.value.unmappable == [1]


def test_a_line_in_the_other_kind_than_the_map_is_refused() -> None:
    pairs = [("a", "a"), ("  b", "    b")]
    with pytest.raises(IndentationMismatch) as caught:
        map_indentation(pairs, ["\tc"])
    assert caught.value.unmappable == [0]


def test_lines_go_beside_the_matched_lines_written_like_them_whatever_the_nesting() -> None:
    # The text nests b under a; the file keeps them level (a context line whose diff prefix
    # was dropped reads like this). Each new line goes beside the lines written like it.
    pairs = [("if x:", "if x:"), ("   a()", "    a()"), ("    b()", "    b()")]
    assert map_indentation(pairs, ["   c()", "    d()"]) == ["    c()", "    d()"]
    with pytest.raises(IndentationMismatch) as caught:
        map_indentation(pairs, ["        e()"])
    assert caught.value.conflicts == [0, 1, 2]
    inverted = [("  a()", "        a()"), ("    b()", "    b()")]
    assert map_indentation(inverted, ["    c()", "  d()"]) == ["    c()", "        d()"]
    with pytest.raises(IndentationMismatch) as caught:
        map_indentation(inverted, ["      e()"])
    assert caught.value.unmappable == [0]


def test_seen_widths_that_fit_no_line_map_still_carry_their_own_lines() -> None:
    # A continuation line the model aligned differently: each seen width keeps its lines.
    pairs = [("def f(a,", "def f(a,"), ("      b):", "      b):"), ("  return a", "    return a")]
    assert map_indentation(pairs, ["  x = b", "      y)"]) == ["    x = b", "      y)"]
    with pytest.raises(IndentationMismatch) as caught:
        map_indentation(pairs, ["    deeper"])
    assert caught.value.conflicts


def test_a_file_mixing_tabs_and_spaces_is_compared_by_lookup_only() -> None:
    pairs = [("a", "a"), ("  b", "\tb"), ("    c", "        c")]
    assert map_indentation(pairs, ["    d", "  e"]) == ["        d", "\te"]
