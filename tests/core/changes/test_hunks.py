"""Hunks between two texts: computed, applied in part, and reverted from a changed text."""

from __future__ import annotations

import random

import pytest

from agent_tui.core.changes.hunks import (
    HunkConflict,
    apply_hunks,
    compute_hunks,
    reapply_hunks,
    revert_hunks,
    split_keepends,
)
from agent_tui.tools.fileio import split_lines

BASE = "".join(f"line {n}\n" for n in range(1, 41))


def _edit(text: str, rng: random.Random) -> str:
    """A random edit of ``text``: lines replaced, inserted and deleted here and there."""
    lines = split_keepends(text)
    newline = rng.choice(["\n", "\r\n"])
    for _ in range(rng.randint(1, 6)):
        action = rng.choice(["replace", "insert", "delete"])
        at = rng.randint(0, len(lines))
        if action == "insert" or not lines or at == len(lines):
            lines[at:at] = [f"new {rng.randint(0, 99)}{newline}"
                            for _ in range(rng.randint(1, 3))]
        elif action == "replace":
            lines[at] = f"changed {rng.randint(0, 99)}{newline}"
        else:
            del lines[at : at + rng.randint(1, 3)]
    if rng.random() < 0.3 and lines:  # drop or add the final newline
        last = lines[-1]
        lines[-1] = last.rstrip("\r\n") if last.endswith("\n") else last + "\n"
    return "".join(lines)


def _random_pair(seed: int) -> tuple[str, str]:
    rng = random.Random(seed)
    newline = rng.choice(["\n", "\r\n", "\r"])
    before = "".join(f"row {rng.randint(0, 30)}{newline}" for _ in range(rng.randint(0, 60)))
    if rng.random() < 0.2:
        before = before.rstrip("\r\n")
    return before, _edit(before, rng)


# --------------------------------------------------------------------------- properties


@pytest.mark.parametrize("seed", range(200))
def test_all_hunks_give_the_after_text_and_none_the_before_text(seed: int) -> None:
    before, after = _random_pair(seed)
    hunks = compute_hunks(before, after)
    assert apply_hunks(before, hunks) == after
    assert apply_hunks(before, []) == before
    assert (hunks == []) == (before == after)


@pytest.mark.parametrize("seed", range(200))
def test_reverting_every_hunk_gives_the_before_text(seed: int) -> None:
    before, after = _random_pair(seed)
    hunks = compute_hunks(before, after)
    assert revert_hunks(after, hunks) == before
    assert reapply_hunks(before, hunks) == after


@pytest.mark.parametrize("seed", range(100))
def test_any_subset_applied_then_reverted_is_the_before_text(seed: int) -> None:
    before, after = _random_pair(seed)
    hunks = compute_hunks(before, after)
    rng = random.Random(seed)
    chosen = [h for h in hunks if rng.random() < 0.5]
    partial = apply_hunks(before, chosen)
    assert revert_hunks(partial, chosen) == before
    # The rest, reverted from the after-text, leaves exactly the chosen ones.
    rest = [h for h in hunks if h not in chosen]
    assert revert_hunks(after, rest) == partial


# --------------------------------------------------------------------------- shape


def test_a_hunk_knows_its_ranges_context_and_counts() -> None:
    after = BASE.replace("line 10\n", "line ten\nline ten and a half\n")
    (hunk,) = compute_hunks(BASE, after)
    assert (hunk.old_start, hunk.old_end, hunk.new_start, hunk.new_end) == (9, 10, 9, 11)
    assert hunk.old_lines == ("line 10\n",)
    assert hunk.new_lines == ("line ten\n", "line ten and a half\n")
    assert hunk.leading == ("line 7\n", "line 8\n", "line 9\n")
    assert hunk.trailing == ("line 11\n", "line 12\n", "line 13\n")
    assert (hunk.removed, hunk.added) == (1, 2)
    assert (hunk.old_range, hunk.new_range) == ("line 10", "lines 10-11")
    assert hunk.excerpt() == ["- line 10", "+ line ten", "+ line ten and a half"]


def test_nearby_changes_are_one_hunk_and_distant_ones_two() -> None:
    near = BASE.replace("line 10\n", "X\n").replace("line 15\n", "Y\n")
    far = BASE.replace("line 10\n", "X\n").replace("line 30\n", "Y\n")
    (one,) = compute_hunks(BASE, near)
    assert one.old_range == "lines 10-15" and (one.removed, one.added) == (2, 2)
    assert [h.old_range for h in compute_hunks(BASE, far)] == ["line 10", "line 30"]


def test_pure_insertions_and_deletions_name_where_they_are() -> None:
    inserted = compute_hunks("a\nb\n", "new\na\nb\n")[0]
    assert (inserted.old_range, inserted.new_range) == ("at the start", "line 1")
    deleted = compute_hunks(BASE, BASE.replace("line 20\n", ""))[0]
    assert (deleted.old_range, deleted.new_range) == ("line 20", "after line 19")


def test_line_breaks_split_as_the_file_tools_count_lines() -> None:
    text = "a\r\nb\rc\nd"
    assert split_keepends(text) == ["a\r\n", "b\r", "c\n", "d"]
    assert [line.rstrip("\r\n") for line in split_keepends(text)] == split_lines(text)
    assert split_keepends("") == [] and "".join(split_keepends(text)) == text


def test_a_long_excerpt_is_cut_with_a_count() -> None:
    hunk = compute_hunks("", "".join(f"{n}\n" for n in range(10)))[0]
    assert hunk.excerpt(4) == ["+ 0", "+ 1", "+ 2", "… 7 more changed lines"]


# --------------------------------------------------------------------------- ticking


def test_only_the_ticked_hunk_is_applied_keeping_crlf_and_no_final_newline() -> None:
    before = "one\r\ntwo\r\nthree\r\n" + "".join(f"pad {n}\r\n" for n in range(10)) + "end"
    after = before.replace("two\r\n", "TWO\r\n").replace("end", "END")
    first, last = compute_hunks(before, after)
    assert apply_hunks(before, [last]) == before.replace("end", "END")
    assert apply_hunks(before, [first]) == before.replace("two\r\n", "TWO\r\n")


def test_applying_a_hunk_of_another_text_is_refused() -> None:
    (hunk,) = compute_hunks(BASE, BASE.replace("line 5\n", "five\n"))
    with pytest.raises(ValueError, match="does not belong to this text"):
        apply_hunks(BASE.replace("line 5\n", "other\n"), [hunk])


# --------------------------------------------------------------------------- reverting later


def test_a_hunk_is_reverted_after_lines_were_added_above_it() -> None:
    after = BASE.replace("line 30\n", "line thirty\n")
    (hunk,) = compute_hunks(BASE, after)
    later = after.replace("line 5\n", "line 5\nextra a\nextra b\n")
    assert revert_hunks(later, [hunk]) == BASE.replace("line 5\n", "line 5\nextra a\nextra b\n")


def test_reverting_picks_the_copy_nearest_to_where_the_hunk_was() -> None:
    block = "start\nsame\nsame\nsame\n"
    before = block + "x\n" + "same\n" * 3 + "gap\n" * 10 + block + "x\n" + "same\n" * 3
    after_lines = split_keepends(before)
    after_lines[-4] = "y\n"  # the second "x" only
    after = "".join(after_lines)
    (hunk,) = compute_hunks(before, after)
    # Make a decoy of the changed region higher up, further from where the hunk was.
    later = after.replace("start\nsame\nsame\nsame\nx\n", "start\nsame\nsame\nsame\ny\n", 1)
    assert later.count("y\n") == 2
    reverted = revert_hunks(later, [hunk])
    assert split_keepends(reverted)[-4] == "x\n" and reverted.count("y\n") == 1


def test_a_hunk_whose_lines_changed_since_is_refused_and_nothing_changes() -> None:
    after = BASE.replace("line 20\n", "line twenty\n").replace("line 35\n", "line 35!\n")
    first, second = compute_hunks(BASE, after)
    later = after.replace("line twenty\n", "line twenty (edited by hand)\n")
    with pytest.raises(HunkConflict, match="hunk 1 .* changed since") as caught:
        revert_hunks(later, [first, second])
    assert caught.value.hunk == first
    assert revert_hunks(later, [second]) == later.replace("line 35!\n", "line 35\n")


def test_changed_context_is_refused_too() -> None:
    after = BASE.replace("line 20\n", "line twenty\n")
    (hunk,) = compute_hunks(BASE, after)
    with pytest.raises(HunkConflict):
        revert_hunks(after.replace("line 19\n", "line 19 changed\n"), [hunk])


def test_a_hunk_at_the_start_of_the_file_stays_anchored_there() -> None:
    before, after = "a\nb\nc\nd\ne\n", "A\nb\nc\nd\ne\n"
    (hunk,) = compute_hunks(before, after)
    assert hunk.at_start and not hunk.at_end
    assert revert_hunks(after + "more\n", [hunk]) == before + "more\n"
    with pytest.raises(HunkConflict):
        revert_hunks("header\n" + after, [hunk])


def test_a_created_text_reverts_only_when_untouched() -> None:
    (hunk,) = compute_hunks("", "new\nfile\n")
    assert revert_hunks("new\nfile\n", [hunk]) == ""
    with pytest.raises(HunkConflict):
        revert_hunks("new\nfile\nplus\n", [hunk])


def test_reapplying_puts_a_rejected_hunk_back_where_it_was() -> None:
    after = BASE.replace("line 12\n", "line twelve\n").replace("line 33\n", "")
    first, second = compute_hunks(BASE, after)
    reverted = revert_hunks(after, [first])
    assert reapply_hunks(reverted, [first]) == after
    assert reapply_hunks(revert_hunks(after, [second]), [second]) == after
