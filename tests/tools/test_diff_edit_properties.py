"""Property tests: str_replace either leaves exactly the intended bytes or nothing changed.

Random files (indentation by 2 or 4 spaces or tabs, Unicode, blank lines, LF or CRLF, with
or without a BOM and a final newline) get a random intended change of one to three hunks; the
diff a model would send is built from it and then distorted as models distort diffs
(indentation re-scaled, tabs written as spaces, the base shifted, trailing spaces dropped).
Every diff goes through the real tool on a real file.
"""

from __future__ import annotations

import asyncio
import codecs
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.tools.base import ToolContext
from agent_tui.tools.diff_edit import StrReplaceTool
from agent_tui.tools.indentation import IndentationMismatch, indent_of, map_indentation
from agent_tui.tools.read_file import ReadFileTool

WORDS = ["alpha", "beta", "gamma", "δelta", "ε", "zeta", "η=1", "θ(x)", "日本", "return x",
         "if y:", "pass", "x = [1, 2]", "# note", "émoji 🙂"]


@dataclass
class Case:
    """A file, the change intended, and how the model's diff is distorted."""

    levels: list[int | None]  # indentation level of each line; None: a blank line
    unit: str  # "  ", "    " or "\t"
    newline: str
    bom: bool
    final_newline: bool
    hunks: list[tuple[int, int, list[int]]]  # (first, count removed, levels of added lines)
    diff_unit: str  # the unit the model writes its diff in
    diff_base: int  # levels the model shifts the whole diff by
    strip_trailing: bool


TRAILING = ["", "", "", "  ", "", "\t", "", " "]


def line_text(index: int, level: int | None, unit: str, tag: str = "") -> str:
    if level is None:
        return ""
    word = WORDS[index % len(WORDS)]
    trailing = TRAILING[index % len(TRAILING)]
    return f"{unit * level}{word} {tag}{index}{trailing}"  # unique: found once


@st.composite
def cases(draw: st.DrawFn) -> Case:
    size = draw(st.integers(6, 40))
    levels: list[int | None] = []
    level = 0
    for _ in range(size):
        if draw(st.integers(0, 9)) == 0:
            levels.append(None)
            continue
        level = max(0, min(level + draw(st.sampled_from([-1, 0, 0, 1])), 4))
        levels.append(level)
    hunks: list[tuple[int, int, list[int]]] = []
    cursor = 0
    for _ in range(draw(st.integers(1, 3))):
        first = draw(st.integers(cursor, size - 1))
        removed = draw(st.integers(0, min(3, size - first)))
        added = draw(st.lists(st.integers(0, 4), min_size=0 if removed else 1, max_size=4))
        hunks.append((first, removed, added))
        cursor = first + removed + 4  # leave room for context between hunks
        if cursor >= size:
            break
    if levels[-1] is None:  # without a final newline, a blank last line is no line at all
        levels[-1] = 0
    for first, removed, _ in hunks:  # a hunk of only blank lines matches anywhere
        lo, hi = max(0, first - 2), min(size, first + removed + 2)
        if all(levels[i] is None for i in range(lo, hi)):
            levels[lo] = 0
    unit = draw(st.sampled_from(["  ", "    ", "\t"]))
    return Case(levels, unit, draw(st.sampled_from(["\n", "\r\n"])), draw(st.booleans()),
                draw(st.booleans()), hunks, draw(st.sampled_from(["  ", "    ", "\t", unit])),
                draw(st.sampled_from([0, 0, 1])), draw(st.booleans()))


def file_lines(case: Case) -> list[str]:
    return [line_text(i, level, case.unit) for i, level in enumerate(case.levels)]


def intended_lines(case: Case, *, distort: bool = False) -> list[str]:
    """The file after the change. A distorted hunk whose matched lines all read exactly as
    in the file shows no distortion to undo: its added lines land as the diff writes them."""
    lines = file_lines(case)
    out: list[str] = []
    cursor = 0
    for number, (first, removed, added) in enumerate(case.hunks):
        out += lines[cursor:first]
        unit, base = case.unit, 0
        if distort and invisible(case, first, removed):
            unit, base = case.diff_unit, case.diff_base
        new = [line_text(900 + 10 * number + k, level + base, unit, "new ")
               for k, level in enumerate(added)]
        out += [line.rstrip() for line in new] if distort and case.strip_trailing else new
        cursor = first + removed
    return out + lines[cursor:]


def invisible(case: Case, first: int, removed: int) -> bool:
    """The distortion changes none of the lines this hunk matches."""
    lo, hi = max(0, first - 2), min(len(case.levels), first + removed + 2)
    return all(
        line_text(i, level, case.unit) == line_text(i, level + case.diff_base, case.diff_unit)
        for i, level in enumerate(case.levels[lo:hi], start=lo) if level is not None)


def joined(lines: list[str], case: Case) -> bytes:
    text = case.newline.join(lines) + (case.newline if case.final_newline else "")
    return (codecs.BOM_UTF8 if case.bom else b"") + text.encode()


def model_diff(case: Case, *, distort: bool, misplaced: dict[int, int] | None = None) -> str:
    """The diff of the intended change, as a model writes it (distorted or not); lines of
    the file in ``misplaced`` are written at the level it gives instead of their own."""
    misplaced = misplaced or {}

    def written(index: int, level: int | None, tag: str = "") -> str:
        if level is None:
            return ""
        if not distort:
            return line_text(index, level, case.unit, tag)
        text = line_text(index, level + case.diff_base, case.diff_unit, tag)
        return text.rstrip() if case.strip_trailing else text

    out: list[str] = []
    for number, (first, removed, added) in enumerate(case.hunks):
        lo = max(0, first - 2)
        hi = min(len(case.levels), first + removed + 2)
        out.append(f"@@ -{lo + 1},{hi - lo} +{lo + 1},{hi - lo - removed + len(added)} @@")
        level_of = [misplaced.get(i, level) for i, level in enumerate(case.levels)]
        out += [" " + written(i, level_of[i]) for i in range(lo, first)]
        out += ["-" + written(i, level_of[i]) for i in range(first, first + removed)]
        out += ["+" + written(900 + 10 * number + k, level, "new ")
                for k, level in enumerate(added)]
        out += [" " + written(i, level_of[i]) for i in range(first + removed, hi)]
    return "\n".join(out) + "\n"


def run_str_replace(data: bytes, diff: str) -> tuple[bool, bytes, str]:
    """Apply ``diff`` to a file holding ``data`` through the real tool."""
    with tempfile.TemporaryDirectory() as folder:
        ctx = ToolContext(workdir=Path(folder), output_dir=Path(folder) / "out")
        path = Path(folder) / "f.py"
        path.write_bytes(data)
        assert ReadFileTool().build({"file_path": "f.py"}, ctx).read().ok
        result = asyncio.run(StrReplaceTool().build({"file_path": "f.py", "diff": diff},
                                                    ctx).execute())
        return result.ok, path.read_bytes(), result.llm_content


def has_two_levels(case: Case) -> bool:
    """Every hunk's matched lines show two indentation levels or more."""
    for first, removed, _ in case.hunks:
        lo, hi = max(0, first - 2), min(len(case.levels), first + removed + 2)
        if len({lv for lv in case.levels[lo:hi] if lv is not None}) < 2:
            return False
    return True


SETTINGS = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(cases())
def test_an_undistorted_diff_always_lands_exactly(case: Case) -> None:
    ok, after, told = run_str_replace(joined(file_lines(case), case),
                                      model_diff(case, distort=False))
    assert ok, told
    assert after == joined(intended_lines(case), case)


@SETTINGS
@given(cases())
def test_a_distorted_diff_lands_exactly_or_changes_nothing(case: Case) -> None:
    before = joined(file_lines(case), case)
    ok, after, told = run_str_replace(before, model_diff(case, distort=True))
    if ok:
        assert after == joined(intended_lines(case, distort=True), case), told
    else:
        assert after == before
        assert "Nothing was written" in told or "nothing was written" in told


@SETTINGS
@given(cases().filter(has_two_levels))
def test_a_consistently_reindented_diff_with_two_levels_of_context_lands(case: Case) -> None:
    ok, after, told = run_str_replace(joined(file_lines(case), case),
                                      model_diff(case, distort=True))
    assert ok, told
    assert after == joined(intended_lines(case, distort=True), case)


@st.composite
def misplaced_cases(draw: st.DrawFn) -> tuple[Case, int, dict[int, int]]:
    """A case, one of its hunks, and a line of that hunk written at another level the hunk
    shows (so one written indentation stands for two of the file's)."""
    case = draw(cases().filter(has_two_levels))
    number = draw(st.integers(0, len(case.hunks) - 1))
    first, removed, _ = case.hunks[number]
    lo, hi = max(0, first - 2), min(len(case.levels), first + removed + 2)
    indexes = [i for i in range(lo, hi) if case.levels[i] is not None]
    index = draw(st.sampled_from(indexes))
    others = sorted({case.levels[i] for i in indexes} - {case.levels[index]})
    return case, number, {index: draw(st.sampled_from(others))}


@settings(SETTINGS, max_examples=80)
@given(misplaced_cases())
def test_a_hunk_indented_inconsistently_is_refused_naming_it_and_nothing_changes(
        drawn: tuple[Case, int, dict[int, int]]) -> None:
    case, number, misplaced = drawn
    before = joined(file_lines(case), case)
    ok, after, told = run_str_replace(before, model_diff(case, distort=True,
                                                         misplaced=misplaced))
    assert not ok
    assert after == before
    assert told.removeprefix("Error: ").startswith(f"hunk {number + 1} (@@ -"), told
    assert "indentation cannot be carried over line by line" in told
    assert f"file line {next(iter(misplaced)) + 1}:" in told
    assert "Nothing was written" in told


UNITS = ["  ", "    ", "\t"]


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.sampled_from(UNITS), st.sampled_from(UNITS), st.integers(0, 2),
       st.lists(st.integers(0, 5), min_size=2, max_size=8).filter(lambda ls: len(set(ls)) > 1),
       st.lists(st.one_of(st.none(), st.integers(0, 6)), max_size=8))
def test_a_consistent_reindentation_maps_every_line(
        file_unit: str, written_unit: str, shift: int, seen: list[int],
        new: list[int | None]) -> None:
    pairs = [(f"{written_unit * (level + shift)}s{k}", f"{file_unit * level}s{k}")
             for k, level in enumerate(seen)]
    lines = ["" if level is None else f"{written_unit * (level + shift)}n{k}"
             for k, level in enumerate(new)]
    assert map_indentation(pairs, lines) == [
        "" if level is None else f"{file_unit * level}n{k}" for k, level in enumerate(new)]


INDENTS = ["", " ", "  ", "    ", "\t", "\t\t", "\t  ", "  \t"]


@settings(max_examples=500, deadline=None, derandomize=True, database=None)
@given(st.lists(st.tuples(st.sampled_from(INDENTS), st.sampled_from(INDENTS)), max_size=6),
       st.lists(st.sampled_from([*INDENTS, None]), max_size=6))
def test_any_map_either_carries_each_line_by_its_pairs_or_refuses(
        pairs: list[tuple[str, str]], new: list[str | None]) -> None:
    written = [(f"{w}p{k}", f"{f}p{k}") for k, (w, f) in enumerate(pairs)]
    lines = ["" if indent is None else f"{indent}n{k}" for k, indent in enumerate(new)]
    try:
        out = map_indentation(written, lines)
    except IndentationMismatch as refusal:
        assert refusal.reason and (refusal.conflicts or refusal.unmappable)
        return
    mapping = dict(pairs)
    assert len(mapping) == len(set(pairs)), "one written indentation, two in the file"
    assert len(out) == len(lines)
    for line, carried in zip(lines, out, strict=True):
        assert carried.lstrip(" \t") == line.lstrip(" \t")
        indent = indent_of(line)
        if line and all(w == f for w, f in pairs):
            assert carried == line
        elif line and indent in mapping:
            assert indent_of(carried) == mapping[indent]
