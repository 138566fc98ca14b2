"""Reviewing a changed file: rejected hunks are reverted on real files, bytes checked."""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path
from random import Random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.core.changes.file_review import FileReview, ReviewError, review_note
from tests.core.changes.change_pairs import Side, change_of, change_pair, read_side, write_side

BEFORE = "".join(f"line {n}\n" for n in range(1, 31))


@dataclass(frozen=True)
class Change:
    """A file's bytes before and after, as ``core.checkpoints.FileChange`` gives them."""

    path: str
    before: bytes | None
    after: bytes | None


def changed(tmp_path: Path, path: str, before: bytes | None, after: bytes | None) -> FileReview:
    """Put ``after`` on disk (or nothing) and review the change."""
    target = tmp_path / path
    if after is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(after)
    return FileReview(tmp_path, Change(path, before, after))


def two_hunks(text: str) -> str:
    return text.replace("line 5\n", "line five\n").replace("line 25\n", "line 25\nextra\n")


def test_rejecting_one_hunk_reverts_only_that_hunk(tmp_path: Path) -> None:
    review = changed(tmp_path, "a.txt", BEFORE.encode(), two_hunks(BEFORE).encode())
    assert review.kind == "modified" and review.units == 2 and review.summary() == "+2 -1"
    review.reject([1], "no extra lines")
    assert (tmp_path / "a.txt").read_text() == BEFORE.replace("line 5\n", "line five\n")
    assert review.verdicts == ["pending", "rejected"]
    review.accept([0])
    assert review.verdicts == ["accepted", "rejected"]
    rejection = review.rejection()
    assert rejection is not None and rejection.reasons == ("no extra lines",)


def test_accepting_a_rejected_hunk_puts_it_back(tmp_path: Path) -> None:
    after = two_hunks(BEFORE)
    review = changed(tmp_path, "a.txt", BEFORE.encode(), after.encode())
    review.reject([0])
    review.accept([0])
    assert (tmp_path / "a.txt").read_text() == after
    assert review.rejection() is None


def test_crlf_bom_and_latin1_survive_a_partial_revert(tmp_path: Path) -> None:
    before = BEFORE.replace("\n", "\r\n").replace("line 1\r\n", "línea 1\r\n")
    after = two_hunks(before.replace("\r\n", "\n")).replace("\n", "\r\n")
    review = changed(tmp_path, "crlf.txt", codecs.BOM_UTF8 + before.encode(),
                     codecs.BOM_UTF8 + after.encode())
    review.reject([0])
    data = (tmp_path / "crlf.txt").read_bytes()
    assert data == codecs.BOM_UTF8 + before.replace("line 25\r\n", "line 25\r\nextra\r\n").encode()

    latin = changed(tmp_path, "latin.txt", before.encode("latin-1"), after.encode("latin-1"))
    latin.reject([1])
    expected = before.replace("line 5\r\n", "line five\r\n").encode("latin-1")
    assert (tmp_path / "latin.txt").read_bytes() == expected


def test_a_hunk_is_reverted_after_the_file_changed_elsewhere(tmp_path: Path) -> None:
    after = two_hunks(BEFORE)
    review = changed(tmp_path, "a.txt", BEFORE.encode(), after.encode())
    (tmp_path / "a.txt").write_text("# header\n" + after)
    review.reject([1])
    assert (tmp_path / "a.txt").read_text() == "# header\n" + BEFORE.replace(
        "line 5\n", "line five\n")


def test_a_hunk_whose_region_changed_is_refused_and_the_file_left_alone(tmp_path: Path) -> None:
    after = two_hunks(BEFORE)
    review = changed(tmp_path, "a.txt", BEFORE.encode(), after.encode())
    edited = after.replace("line five\n", "line FIVE (by hand)\n")
    (tmp_path / "a.txt").write_text(edited)
    with pytest.raises(ReviewError, match=r"a\.txt: the lines of hunk 1 .* changed since"):
        review.reject([0, 1])
    assert (tmp_path / "a.txt").read_text() == edited
    assert review.verdicts == ["pending", "pending"]


def test_rejecting_a_created_file_deletes_it_and_accepting_brings_it_back(
    tmp_path: Path,
) -> None:
    review = changed(tmp_path, "new/file.py", None, b"print('hi')\n")
    assert review.kind == "created" and review.summary() == "new file, +1"
    review.reject([0], "not wanted")
    assert not (tmp_path / "new/file.py").exists()
    review.accept([0])
    assert (tmp_path / "new/file.py").read_bytes() == b"print('hi')\n"


def test_a_created_file_edited_since_is_not_deleted(tmp_path: Path) -> None:
    review = changed(tmp_path, "new.py", None, b"x = 1\n")
    (tmp_path / "new.py").write_bytes(b"x = 1\ny = 2\n")
    with pytest.raises(ReviewError, match="changed since it was created"):
        review.reject([0])
    assert (tmp_path / "new.py").read_bytes() == b"x = 1\ny = 2\n"


def test_rejecting_a_deletion_restores_the_exact_bytes(tmp_path: Path) -> None:
    original = codecs.BOM_UTF8 + b"keep\r\nme\r\n"
    review = changed(tmp_path, "gone/old.txt", original, None)
    assert review.kind == "deleted" and review.summary() == "deleted, -2"
    review.reject([0])
    assert (tmp_path / "gone/old.txt").read_bytes() == original


def test_binary_files_are_reviewed_whole(tmp_path: Path) -> None:
    before, after = b"\x89PNG\0\0\x01", b"\x89PNG\0\0\x02\x03"
    review = changed(tmp_path, "logo.png", before, after)
    assert review.kind == "binary" and review.units == 1 and review.hunks == []
    assert review.summary() == "binary, 7 → 8 bytes"
    review.reject([0])
    assert (tmp_path / "logo.png").read_bytes() == before
    (tmp_path / "logo.png").write_bytes(b"\0other")
    with pytest.raises(ReviewError, match="binary change was left alone"):
        review.accept([0])


def test_a_file_swapped_for_a_symlink_out_of_the_project_is_left_alone(
    tmp_path: Path,
) -> None:
    project, outside = tmp_path / "p", tmp_path / "outside.txt"
    project.mkdir()
    outside.write_text("x\n")
    (project / "link.txt").symlink_to(outside)
    review = FileReview(project, Change("link.txt", b"y\n", b"x\n"))
    with pytest.raises(ReviewError, match="is a symlink now"):
        review.reject([0])
    assert outside.read_text() == "x\n"


@dataclass(frozen=True)
class ModedChange(Change):
    """A change with git modes, as checkpoints report symlinks and executables."""

    before_mode: int | None = None
    after_mode: int | None = None


def test_a_symlink_change_is_reverted_whole(tmp_path: Path) -> None:
    (tmp_path / "current").symlink_to("v2")
    review = FileReview(tmp_path, ModedChange("current", b"v1", b"v2", 0o120000, 0o120000))
    assert review.kind == "symlink" and review.summary() == "symlink, -> v1 → -> v2"
    review.reject([0])
    assert (tmp_path / "current").is_symlink()
    assert str((tmp_path / "current").readlink()) == "v1"


def test_an_executable_bit_change_is_reverted(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_bytes(b"echo hi\n")
    script.chmod(0o755)
    review = FileReview(tmp_path, ModedChange("run.sh", b"echo hi\n", b"echo hi\n",
                                              0o100644, 0o100755))
    assert review.kind == "mode" and review.summary() == "mode 100644 → 100755"
    review.reject([0], "keep it plain")
    assert script.stat().st_mode & 0o111 == 0


def test_the_note_names_files_hunks_lines_reasons_and_what_was_rejected(
    tmp_path: Path,
) -> None:
    text = changed(tmp_path, "a.txt", BEFORE.encode(), two_hunks(BEFORE).encode())
    text.reject([1], "no extra lines")
    created = changed(tmp_path, "b.py", None, b"b = 1\n")
    created.reject([0])
    note = review_note([r for r in (text.rejection(), created.rejection()) if r])
    assert note is not None
    assert note.splitlines()[1:] == [
        "- a.txt, hunk 2 of 2 (your line 26, after line 25 before your change); "
        "reason: no extra lines",
        "    + extra",
        "- b.py: the file you created was deleted",
    ]
    assert "reverted on disk" in note.splitlines()[0]
    assert review_note([]) is None


def test_an_empty_file_created_or_deleted_is_reviewed_whole(tmp_path: Path) -> None:
    created = changed(tmp_path, "empty.txt", None, b"")
    assert (created.kind, created.whole, created.units) == ("created", True, 1)
    assert created.summary() == "new empty file"
    created.reject([0])
    assert not (tmp_path / "empty.txt").exists()
    created.accept([0])
    assert (tmp_path / "empty.txt").read_bytes() == b""
    (tmp_path / "gone.txt").unlink(missing_ok=True)
    deleted = changed(tmp_path, "gone.txt", b"", None)
    assert deleted.summary() == "deleted empty file"
    deleted.reject([0], "keep it")
    assert (tmp_path / "gone.txt").read_bytes() == b""
    note = review_note([r for r in (created.rejection(), deleted.rejection()) if r])
    assert note is not None and note.splitlines()[1:] == [
        "- gone.txt: the file you deleted was restored (reason: keep it)"]


def test_a_change_of_bytes_but_not_text_is_reviewed_whole(tmp_path: Path) -> None:
    review = changed(tmp_path, "bom.txt", b"same\n", codecs.BOM_UTF8 + b"same\n")
    assert review.whole and review.summary() == "same text, other bytes"
    review.reject([0])
    assert (tmp_path / "bom.txt").read_bytes() == b"same\n"
    (tmp_path / "bom.txt").write_bytes(b"other\n")
    with pytest.raises(ReviewError, match="changed since"):
        review.accept([0])


def test_a_file_changed_outside_the_turns_is_not_called_the_model_s_change(
    tmp_path: Path,
) -> None:
    @dataclass(frozen=True)
    class Outside(Change):
        outside: bool = True

    (tmp_path / "a.txt").write_bytes(two_hunks(BEFORE).encode())
    review = FileReview(tmp_path, Outside("a.txt", BEFORE.encode(), two_hunks(BEFORE).encode()))
    assert review.outside
    review.reject([1])
    whole = FileReview(tmp_path, Outside("b.txt", None, b""))
    (tmp_path / "b.txt").write_bytes(b"")
    whole.reject([0])
    note = review_note([r for r in (review.rejection(), whole.rejection()) if r])
    assert note is not None
    assert not any(claim in note for claim in ("your line", "your change to", "you created"))
    assert note.splitlines()[1:] == [
        "- a.txt, hunk 2 of 2 (line 26 after, after line 25 before); no reason given",
        "    + extra",
        "    (a.txt was also changed outside your turns: not all that was reverted there was "
        "your change)",
        "- b.txt: put back as it was before your turns changed it; it was also changed "
        "outside your turns, so not all that was undone was your change",
    ]


@settings(max_examples=150, derandomize=True, database=None, deadline=None,
          suppress_health_check=(HealthCheck.function_scoped_fixture,))
@given(pair=change_pair(), order=st.randoms(use_true_random=False))
def test_every_kind_of_change_is_reverted_and_put_back_hunk_by_hunk(
    tmp_path: Path, pair: tuple[Side, Side], order: Random,
) -> None:
    """Rejecting each unit of a change, one at a time in any order, leaves the file exactly
    as before it (bytes, kind and executable bit); accepting them all again, exactly as
    after it."""
    before, after = pair
    target = tmp_path / "f"
    write_side(target, after)
    review = FileReview(tmp_path, change_of("f", before, after))
    assert review.units == max(len(review.hunks), 1) and review.summary()
    units = list(range(review.units))
    order.shuffle(units)
    for unit in units:
        review.reject([unit], "no")
    assert read_side(target) == before
    rejection = review.rejection()
    assert rejection is not None and review_note([rejection])
    order.shuffle(units)
    for unit in units:
        review.accept([unit])
    assert read_side(target) == after
    assert review.rejection() is None
