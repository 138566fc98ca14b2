"""The diff review screen, driven with Textual's pilot on real files (and real checkpoints)."""

from __future__ import annotations

import asyncio
import codecs
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual import work
from textual.app import App
from textual.widgets import Input, OptionList, Static

from agent_tui.core.changes.checkpoints import Checkpoints, FileChange
from agent_tui.core.changes.shadow_git import git_executable
from agent_tui.tui.screens.diff_review import DiffReviewScreen
from agent_tui.tui.widgets.diff_view import DiffView
from tests.core.changes.change_pairs import Side, change_of, change_pair, read_side, write_side
from tests.fakes.repo_map import last_message

SIZE = (110, 36)
SOURCE = "".join(f"def step_{i}(x):\n    return x + {i}\n" for i in range(30))
EDITED = (SOURCE.replace("    return x + 3\n", "    return x + 3  # three\n")
          .replace("def step_25(x):\n", "def step_25(x, z=0):\n"))
UNSET = object()


class ReviewHost(App[None]):
    """A bare app that opens the review screen and keeps what it returns."""

    def __init__(self, screen: DiffReviewScreen) -> None:
        super().__init__()
        self.review = screen
        self.result: Any = UNSET

    def on_mount(self) -> None:
        self.open()

    @work
    async def open(self) -> None:
        self.result = await self.push_screen_wait(self.review)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project where app.py was edited in two places, notes.md created, logo.png changed."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text(EDITED)
    (root / "notes.md").write_text("# Notes\n\nbuy milk\n")
    (root / "logo.png").write_bytes(b"\x89PNG\0\0\x02")
    return root


def changes() -> list[FileChange]:
    return [
        FileChange("app.py", SOURCE.encode(), EDITED.encode(), 0o100644, 0o100644),
        FileChange("logo.png", b"\x89PNG\0\0\x01", b"\x89PNG\0\0\x02", 0o100644, 0o100644),
        FileChange("notes.md", None, b"# Notes\n\nbuy milk\n", None, 0o100644),
    ]


def screen_for(project: Path, found: list[FileChange] | None = None) -> DiffReviewScreen:
    return DiffReviewScreen(project, changes() if found is None else found,
                            "Changes in this session")


def title_of(screen: DiffReviewScreen) -> str:
    return str(screen.query_one("#review-title", Static).content)


def hunk_titles(screen: DiffReviewScreen) -> list[str]:
    view = screen.query_one(DiffView)
    return [line.rstrip("─ ") for line in view.plain_lines(100) if " hunk " in line]


# --------------------------------------------------------------------------- moving


async def test_the_first_file_opens_at_its_first_hunk(project: Path) -> None:
    screen = screen_for(project)
    app = ReviewHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert title_of(screen) == ("Changes in this session · 3 files · file 1 of 3 · "
                                    "4 to review")
        files = screen.query_one("#files", OptionList)
        assert files.option_count == 3 and files.highlighted == 0
        assert "app.py  +2 -2" in str(files.get_option_at_index(0).prompt)
        assert hunk_titles(screen) == ["▶ hunk 1 of 2 · line 8 → line 8",
                                       "─ hunk 2 of 2 · line 51 → line 51"]
        assert "j/k hunk" in str(screen.query_one("#review-keys", Static).content)


async def test_j_and_k_move_between_hunks_and_on_into_the_next_file(project: Path) -> None:
    screen = screen_for(project)
    app = ReviewHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("j")
        assert (screen.file_index, screen.unit) == (0, 1)
        assert screen.query_one(DiffView).current_hunk == 1
        await pilot.press("j")  # past the last hunk: the next file
        await pilot.pause()
        assert (screen.file_index, screen.unit) == (1, 0)
        whole = str(screen.query_one("#whole-file", Static).content)
        assert "logo.png: binary, 7 → 7 bytes" in whole and "accepted or rejected whole" in whole
        await pilot.press("k")
        await pilot.pause()
        assert (screen.file_index, screen.unit) == (0, 1)


async def test_n_p_and_tab_switch_files_wrapping_around(project: Path) -> None:
    screen = screen_for(project)
    app = ReviewHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        seen = []
        for key in ("n", "tab", "tab", "p", "shift+tab"):
            await pilot.press(key)
            await pilot.pause()
            seen.append(screen.file_index)
        assert seen == [1, 2, 0, 2, 1]
        assert screen.query_one("#files", OptionList).highlighted == 1


# --------------------------------------------------------------------------- verdicts


async def test_reject_with_a_reason_reverts_that_hunk_only_and_tells_the_model(
    project: Path,
) -> None:
    screen = screen_for(project)
    app = ReviewHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("j", "r")
        await pilot.pause()
        reason = screen.query_one("#reason", Input)
        assert reason.display and app.focused is reason
        assert "enter reject" in str(screen.query_one("#review-keys", Static).content)
        await pilot.press(*"keep the signature", "enter")
        await pilot.pause()
        assert (project / "app.py").read_text() == SOURCE.replace(
            "    return x + 3\n", "    return x + 3  # three\n")
        assert not reason.display
        assert "1 rejected (reverted)" in title_of(screen)
        # The file has no hunk left to review: on to the next file with one.
        assert screen.file_index == 1
        await pilot.press("p")
        await pilot.pause()
        assert hunk_titles(screen)[1] == ("─ ✗ hunk 2 of 2 · line 51 → line 51 · rejected and "
                                          "reverted: keep the signature")
        await pilot.press("q")
        await pilot.pause()
    assert app.result.splitlines() == [
        "The person reviewed your changes and rejected these; they were reverted on disk, so "
        "read each file again before you edit it and do not redo them unless asked:",
        "- app.py, hunk 2 of 2 (your line 51, line 51 before your change); reason: keep the "
        "signature",
        "    - def step_25(x):",
        "    + def step_25(x, z=0):",
    ]


async def test_escape_in_the_reason_cancels_the_rejection(project: Path) -> None:
    screen = screen_for(project)
    app = ReviewHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("r", *"no", "escape")
        await pilot.pause()
        assert not screen.query_one("#reason", Input).display
        assert app.screen is screen and screen.review.verdicts == ["pending", "pending"]
        assert (project / "app.py").read_text() == EDITED
        await pilot.press("escape")  # now it closes: nothing was rejected
        await pilot.pause()
    assert app.result is None


async def test_accepting_a_rejected_hunk_puts_it_back(project: Path) -> None:
    screen = screen_for(project)
    app = ReviewHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("r", "enter")  # no reason
        await pilot.pause()
        assert (project / "app.py").read_text() != EDITED
        await pilot.press("k", "a")
        await pilot.pause()
        assert (project / "app.py").read_text() == EDITED
        assert screen.review.verdicts == ["accepted", "pending"]
        await pilot.press("q")
        await pilot.pause()
    assert app.result is None


async def test_whole_files_rejected_come_back_as_they_were(project: Path) -> None:
    screen = screen_for(project)
    app = ReviewHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("R", *"all of it", "enter")
        await pilot.pause()
        assert (project / "app.py").read_text() == SOURCE
        assert screen.file_index == 1  # on to the binary file
        await pilot.press("R", "enter")
        await pilot.pause()
        assert (project / "logo.png").read_bytes() == b"\x89PNG\0\0\x01"
        assert screen.file_index == 2
        await pilot.press("A")
        await pilot.pause()
        assert (project / "notes.md").exists()
        assert title_of(screen).endswith("3 rejected (reverted) · all reviewed")
        await pilot.press("q")
        await pilot.pause()
    note = app.result.splitlines()
    assert note[1] == "- app.py, hunk 1 of 2 (your line 8, line 8 before your change); " \
                      "reason: all of it"
    assert note[-1] == "- logo.png: your change to this binary file was undone"


async def test_rejecting_a_created_file_deletes_it(project: Path) -> None:
    screen = screen_for(project)
    app = ReviewHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("n", "n", "r", "enter")
        await pilot.pause()
        assert not (project / "notes.md").exists()
        await pilot.press("q")
        await pilot.pause()
    assert app.result.splitlines()[-1] == "- notes.md: the file you created was deleted"


async def test_a_hunk_changed_since_is_refused_with_a_message(project: Path) -> None:
    screen = screen_for(project)
    app = ReviewHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        by_hand = EDITED.replace("  # three", "  # 3, by hand")
        (project / "app.py").write_text(by_hand)
        await pilot.press("r", "enter")
        await pilot.pause()
        assert (project / "app.py").read_text() == by_hand
        assert screen.review.verdicts == ["pending", "pending"]
        (message,) = [n.message for n in app._notifications]
        assert message.startswith("app.py: the lines of hunk 1 (line 8) or the lines around "
                                  "them changed since")


async def test_an_empty_session_says_no_changes_yet(project: Path) -> None:
    screen = screen_for(project, [])
    app = ReviewHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert str(screen.query_one("#empty", Static).content).startswith("No changes yet")
        assert str(screen.query_one("#review-keys", Static).content) == "q close"
        await pilot.press("j", "r", "a")
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("q")
        await pilot.pause()
    assert app.result is None


@pytest.mark.skipif(git_executable() is None, reason="checkpoints need git")
async def test_a_real_checkpoint_reviewed_and_rejected(tmp_path: Path) -> None:
    """Changes read from the shadow git checkpoints: a CRLF file with a BOM keeps both."""
    root = tmp_path / "repo"
    root.mkdir()
    crlf = SOURCE.replace("\n", "\r\n")
    (root / "win.py").write_bytes(codecs.BOM_UTF8 + crlf.encode())
    (root / "gone.txt").write_text("bye\n")
    checkpoints = Checkpoints(root, "review-test")
    assert checkpoints.available()
    checkpoints.snapshot(0, "before")
    edited = EDITED.replace("\n", "\r\n")
    (root / "win.py").write_bytes(codecs.BOM_UTF8 + edited.encode())
    (root / "gone.txt").unlink()
    checkpoints.snapshot(0, "after")
    found = checkpoints.changes(0)
    assert [c.path for c in found] == ["gone.txt", "win.py"]

    screen = DiffReviewScreen(root, found, "Changes in turn 0")
    app = ReviewHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert screen.review.kind == "deleted"
        assert "gone.txt (deleted)" in screen.query_one(DiffView).plain_lines(100)[0]
        await pilot.press("r", "enter")  # bring gone.txt back
        await pilot.pause()
        await pilot.press("j", "r", "enter")  # win.py's second hunk only
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    assert (root / "gone.txt").read_text() == "bye\n"
    expected = crlf.replace("    return x + 3\r\n", "    return x + 3  # three\r\n")
    assert (root / "win.py").read_bytes() == codecs.BOM_UTF8 + expected.encode()
    assert "- gone.txt: the file you deleted was restored" in app.result


# --------------------------------------------------------------------------- in the workbench


async def _wait_for_review(pilot: Any) -> DiffReviewScreen:
    from tests.tui.test_app import until

    await until(pilot, lambda: isinstance(pilot.app.screen, DiffReviewScreen))
    screen = pilot.app.screen
    assert isinstance(screen, DiffReviewScreen)
    await pilot.pause()
    return screen


@pytest.mark.skipif(git_executable() is None, reason="checkpoints need git")
async def test_f7_rejects_a_hunk_and_the_model_reads_why_with_the_next_prompt(
    fake_provider: Any, tmp_path: Path,
) -> None:
    from tests.fakes.providers import Reply, ToolCall
    from tests.tui.test_app import app_for, type_prompt, until

    (tmp_path / "app.py").write_text(SOURCE)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "app.py"})]),
        Reply(tool_calls=[ToolCall("write_file", {"file_path": "app.py", "content": EDITED})]),
        Reply(text="Done: two changes."),
        Reply(text="Understood."),
    )
    app = app_for(fake_provider, tmp_path, approval_mode="auto-edit")
    async with app.run_test(size=(120, 40)) as pilot:
        await type_prompt(pilot, "tidy app.py")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 3)
        assert (tmp_path / "app.py").read_text() == EDITED
        await pilot.press("f7")
        screen = await _wait_for_review(pilot)
        assert title_of(screen).startswith("Changes in this session · 1 file")
        await pilot.press("j", "r", *"no new parameters", "enter", "q")
        await until(pilot, lambda: not isinstance(app.screen, DiffReviewScreen))
        assert (tmp_path / "app.py").read_text() == SOURCE.replace(
            "    return x + 3\n", "    return x + 3  # three\n")
        await type_prompt(pilot, "carry on")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 4)
    sent = last_message(fake_provider.requests[3])["content"]
    assert sent.startswith("[Note from agent-tui: The person reviewed your changes and "
                           "rejected these")
    assert ("- app.py, hunk 2 of 2 (your line 51, line 51 before your change); reason: no new "
            "parameters\n    - def step_25(x):\n    + def step_25(x, z=0):]") in sent
    assert sent.endswith("carry on")


@pytest.mark.skipif(git_executable() is None, reason="checkpoints need git")
async def test_diff_in_a_fresh_session_says_no_changes_yet_and_a_bad_turn_is_explained(
    fake_provider: Any, tmp_path: Path,
) -> None:
    from agent_tui.tui.widgets.conversation import NoticeBlock
    from tests.tui.test_app import app_for, type_prompt, until

    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await type_prompt(pilot, "/diff")
        screen = await _wait_for_review(pilot)
        assert str(screen.query_one("#empty", Static).content).startswith("No changes yet")
        await pilot.press("q")
        await until(pilot, lambda: not isinstance(app.screen, DiffReviewScreen))
        for command in ("/diff 3", "/diff three"):
            await type_prompt(pilot, command)
        await until(pilot, lambda: len(app.query(NoticeBlock)) == 2)
        notices = [str(block.content) for block in app.query(NoticeBlock)]
    assert notices == ["Turn 3 changed no files. Turns that did: none yet.",
                       "Usage: /diff [TURN]: TURN is a turn number, 0 for the first prompt."]


# --------------------------------------------------------------------------- every kind


@settings(max_examples=8, derandomize=True, database=None, deadline=None,
          suppress_health_check=(HealthCheck.function_scoped_fixture, HealthCheck.too_slow))
@given(pairs=st.lists(change_pair(), min_size=1, max_size=4),
       outside=st.lists(st.booleans(), min_size=4, max_size=4))
def test_the_review_opens_moves_through_and_reverts_every_kind_of_change(
    tmp_path_factory: pytest.TempPathFactory, pairs: list[tuple[Side, Side]],
    outside: list[bool],
) -> None:
    """Whatever the files' changes (empty, binary, symlinks, modes, @@ lines, no final
    newline), every file is drawn, j/k/n/p move through all of them, and rejecting each
    file whole puts it back exactly as before (after a y for one changed outside the
    turns)."""
    root = tmp_path_factory.mktemp("kinds")
    found = []
    for number, (before, after) in enumerate(pairs):
        write_side(root / f"f{number}", after)
        found.append(change_of(f"f{number}", before, after, outside[number]))
    screen = DiffReviewScreen(root, found, "Changes in this session")

    async def review_all() -> Any:
        app = ReviewHost(screen)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            units = sum(review.units for review in screen.reviews)
            for _ in range(units + 1):
                await pilot.press("j")
            await pilot.pause()
            assert screen.file_index == len(found) - 1
            for _ in range(units + 1):
                await pilot.press("k")
            await pilot.pause()
            assert (screen.file_index, screen.unit) == (0, 0)
            for index in range(len(found)):
                while screen.file_index != index:  # n wraps around
                    await pilot.press("n")
                    await pilot.pause()
                review = screen.review
                for view in screen.query(DiffView):
                    assert view.plain_lines(80)
                for static in screen.query("#whole-file").results(Static):
                    assert review.summary() in str(static.content)
                await pilot.press("R", "enter")
                if review.outside:
                    await pilot.pause()
                    assert review.path in str(screen.query_one("#confirm", Static).content)
                    await pilot.press("y")
                await pilot.pause()
                assert review.verdicts == ["rejected"] * review.units
            await pilot.press("q")
            await pilot.pause()
        return app.result

    note = asyncio.run(review_all())
    for number, (before, _after) in enumerate(pairs):
        assert read_side(root / f"f{number}") == before
    assert all(f"\n- f{number}" in note for number in range(len(pairs)))


# --------------------------------------------------------------------------- what F7 lists


@pytest.mark.skipif(git_executable() is None, reason="checkpoints need git")
async def test_f7_after_a_turn_that_made_an_empty_file(fake_provider: Any, tmp_path: Path) -> None:
    """`touch empty.txt`, then F7: the review shows the new empty file and rejecting it
    removes it (it ended the workbench with a ValueError)."""
    from tests.fakes.providers import Reply, ToolCall
    from tests.tui.test_app import app_for, type_prompt, until

    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "touch empty.txt"})]),
        Reply(text="Made it."),
    )
    app = app_for(fake_provider, tmp_path, approval_mode="yolo")
    async with app.run_test(size=(120, 40)) as pilot:
        await type_prompt(pilot, "make an empty file")
        # The first call waits for the model's stream worker to start (litellm's import).
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2,
                    timeout=120)
        assert (tmp_path / "empty.txt").read_bytes() == b""
        await pilot.press("f7")
        screen = await _wait_for_review(pilot)
        whole = str(screen.query_one("#whole-file", Static).content)
        assert whole.startswith("empty.txt: new empty file")
        await pilot.press("j", "k", "n", "p", "r", "enter")
        await until(pilot, lambda: not (tmp_path / "empty.txt").exists())
        await pilot.press("q")
        await until(pilot, lambda: not isinstance(app.screen, DiffReviewScreen))
        assert app.is_running


@pytest.mark.skipif(git_executable() is None, reason="checkpoints need git")
async def test_f7_lists_only_what_the_turns_changed_and_asks_before_reverting_a_file_changed_outside(
    fake_provider: Any, tmp_path: Path,
) -> None:
    """A file the person made by hand after the turn is not listed (r used to delete it); a
    file the turn changed and the person edited afterwards is marked, rejecting in it asks
    first naming it, and the revert keeps the person's edit."""
    from tests.fakes.providers import Reply, ToolCall
    from tests.tui.test_app import app_for, type_prompt, until

    notes = "".join(f"note {n}\n" for n in range(20))
    (tmp_path / "notes.txt").write_text(notes)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "notes.txt"})]),
        Reply(tool_calls=[ToolCall("write_file", {"file_path": "notes.txt",
                                                  "content": notes.replace("note 1\n", "NOTE 1\n")}),
                          ToolCall("write_file", {"file_path": "app.py", "content": "x = 1\n"})]),
        Reply(text="Done."),
        Reply(text="Understood."),
    )
    app = app_for(fake_provider, tmp_path, approval_mode="auto-edit")
    async with app.run_test(size=(120, 40)) as pilot:
        await type_prompt(pilot, "edit")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 3,
                    timeout=120)
        assert (tmp_path / "notes.txt").read_text() != notes
        (tmp_path / "hand.txt").write_text("made by hand\n")
        (tmp_path / "__pycache__").mkdir()
        (tmp_path / "__pycache__" / "other.cpython-311.pyc").write_bytes(b"\0pyc")
        by_hand = notes.replace("note 1\n", "NOTE 1\n") + "added by hand\n"
        (tmp_path / "notes.txt").write_text(by_hand)
        await pilot.press("f7")
        screen = await _wait_for_review(pilot)
        assert [review.path for review in screen.reviews] == ["app.py", "notes.txt"]
        files = screen.query_one("#files", OptionList)
        assert "changed outside" not in str(files.get_option_at_index(0).prompt)
        assert "changed outside this session's turns" in str(files.get_option_at_index(1).prompt)
        await pilot.press("n", "R", "enter")
        await pilot.pause()
        confirm = str(screen.query_one("#confirm", Static).content)
        assert confirm.startswith("notes.txt was also changed outside this session's turns")
        assert screen.query_one("#confirm").display
        await pilot.press("r", "a", "q")  # keys for something else change nothing
        await pilot.pause()
        assert app.screen is screen and (tmp_path / "notes.txt").read_text() == by_hand
        await pilot.press("escape")  # keeps it
        await pilot.pause()
        assert screen.review.verdicts == ["pending"]
        assert (tmp_path / "notes.txt").read_text() == by_hand
        await pilot.press("R", "enter", "y")
        await until(pilot, lambda: screen.review.verdicts == ["rejected"])
        assert (tmp_path / "notes.txt").read_text() == notes + "added by hand\n"
        await pilot.press("q")
        await until(pilot, lambda: not isinstance(app.screen, DiffReviewScreen))
        await type_prompt(pilot, "go on")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 4)
    assert (tmp_path / "hand.txt").exists()
    assert (tmp_path / "__pycache__" / "other.cpython-311.pyc").exists()
    sent = last_message(fake_provider.requests[3])["content"]
    assert "hand.txt" not in sent and "pyc" not in sent
    assert ("- notes.txt, hunk 1 of 1 (line 2 after, line 2 before); no reason given\n"
            "    - note 1\n    + NOTE 1\n    (notes.txt was also changed outside your turns: "
            "not all that was reverted there was your change)") in sent
