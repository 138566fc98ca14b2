"""The SQLite index over real session logs: listing, search, files touched, self-healing."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agent_tui.core import paths
from agent_tui.core.events import (
    AssistantMessage,
    ToolCallStarted,
    ToolResultEvent,
    TurnUsage,
    Usage,
)
from agent_tui.core.sessions.index import SessionIndex
from agent_tui.core.sessions.log import SessionLocked, SessionNotFound, SessionStore, fork


def write_session(
    session_id: str,
    project: Path,
    prompt: str,
    *,
    answer: str = "Done.",
    edits: tuple[str, ...] = (),
    failed_edits: tuple[str, ...] = (),
    ts: float = 1000.0,
) -> None:
    with SessionStore.create(session_id, project=project, model="openai/gpt-4.1") as store:
        store.append({"type": "user_message", "text": prompt, "ts": ts})
        calls = [(p, True) for p in edits] + [(p, False) for p in failed_edits]
        for n, (path, ok) in enumerate(calls):
            call_id = f"c{n}"
            store.append(
                AssistantMessage(
                    "", [{"id": call_id, "name": "edit_file", "arguments": "{}"}]
                ).to_dict()
                | {"ts": ts}
            )
            store.append(
                ToolCallStarted(
                    call_id, "edit_file", {"file_path": path, "old": "a", "new": "b"}
                ).to_dict()
                | {"ts": ts}
            )
            store.append(
                ToolResultEvent(call_id, "edit_file", ok, "ok" if ok else "denied").to_dict()
                | {"ts": ts}
            )
        store.append(TurnUsage(Usage(10, 5, 0.01), Usage(100, 50, 0.25)).to_dict() | {"ts": ts})
        store.append(AssistantMessage(answer).to_dict() | {"ts": ts + 1})


@pytest.fixture
def projects(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "alpha", tmp_path / "beta"
    a.mkdir()
    b.mkdir()
    return a, b


def test_index_lists_sessions_with_their_summary(projects):
    a, b = projects
    write_session(
        "one", a, "Fix the flaky parser test\nit fails on CI", edits=("src/foo.py",), ts=1000
    )
    write_session("two", a, "x" * 200, ts=3000)
    write_session("three", b, "Add a README", ts=2000)

    with SessionIndex() as index:
        assert [s.id for s in index.list()] == ["two", "three", "one"]
        assert [s.id for s in index.list(a)] == ["two", "one"]
        assert [s.id for s in index.list(order="title")][0] == "three"
        one = index.get("one")
        assert one is not None
        assert one.title == "Fix the flaky parser test"
        assert one.project == str(a.resolve()) and one.model == "openai/gpt-4.1"
        assert one.model_calls == 2  # two assistant_message records
        assert (one.prompt_tokens, one.completion_tokens, one.cost) == (100, 50, 0.25)
        assert one.updated == 1001 and one.parent is None
        assert one.size == (paths.session_dir("one") / "events.jsonl").stat().st_size
        title = index.get("two").title
        assert len(title) == 80 and title.endswith("…")
        assert index.latest(b).id == "three"
        assert index.latest(b / "nowhere") is None
        assert index.get("missing") is None
        assert index.list(order="tokens")[0].to_dict()["total_tokens"] == 150
        with pytest.raises(ValueError, match="cannot sort sessions by 'size'"):
            index.list(order="size")  # type: ignore[arg-type]


def test_search_by_message_text(projects):
    a, _ = projects
    write_session("one", a, "Why does the tokenizer crash on emoji?", answer="Unicode width.")
    write_session("two", a, "Rename the config loader", answer="Renamed load_config.")
    write_session("three", a, "Tokenizer speed", answer="It is fast now.")

    with SessionIndex() as index:
        assert {s.id for s in index.search("tokenizer")} == {"one", "three"}
        hits = index.search("tokenizer crash")
        assert [s.id for s in hits] == ["one"]
        assert "[crash]" in hits[0].match
        assert [s.id for s in index.search("load_config")] == ["two"]  # assistant text
        assert [s.id for s in index.search("renam")] == ["two"]  # prefix as you type
        assert index.search("edit_file") == []  # no tool calls in these
        assert index.search("'\"*(") == []  # FTS syntax in the box is not an error
        assert index.search("nothing-like-this") == []


def test_search_finds_tool_names_and_args(projects):
    a, _ = projects
    write_session("one", a, "go", edits=("pkg/widget.py",))
    with SessionIndex() as index:
        assert [s.id for s in index.search("edit_file widget")] == ["one"]


def test_sessions_touching_a_file(projects):
    a, b = projects
    write_session("one", a, "p1", edits=("src/foo.py", "src/bar.py"))
    write_session("two", b, "p2", edits=(str(b / "lib" / "foo.py"),))
    write_session("three", a, "p3", failed_edits=("src/foo.py",))  # denied: not touched
    write_session("four", a, "p4", edits=("src/food.txt",))

    with SessionIndex() as index:
        assert {s.id for s in index.sessions_touching("foo.py")} == {"one", "two"}
        assert [s.id for s in index.sessions_touching("src/bar")] == ["one"]
        assert index.sessions_touching("%") == []  # LIKE wildcards are literal
        assert index.files_touched("one") == [
            str(a.resolve() / "src" / "bar.py"),
            str(a.resolve() / "src" / "foo.py"),
        ]


def test_refresh_picks_up_a_changed_log(projects):
    a, _ = projects
    write_session("one", a, "first prompt")
    index = SessionIndex()
    assert index.get("one").model_calls == 1

    with SessionStore.open("one") as store:
        store.append({"type": "user_message", "text": "now about giraffes"})
        store.append(AssistantMessage("Giraffes are tall.").to_dict())
    write_session("new", a, "a new session")
    assert index.get("one").model_calls == 1  # not yet
    report = index.refresh()
    assert (report.added, report.updated, report.removed) == (1, 1, 0)
    assert index.get("one").model_calls == 2
    assert [s.id for s in index.search("giraffes")] == ["one"]
    assert index.refresh().updated == 0  # nothing changed since

    shutil.rmtree(paths.session_dir("new"))
    assert index.refresh().removed == 1
    assert index.get("new") is None

    shutil.rmtree(paths.session_dir("one"))  # the same id, a different log
    write_session("one", a, "about zebras now")
    assert index.refresh().updated == 1
    assert index.search("giraffes") == []  # the old messages went with the old log
    assert [s.id for s in index.search("zebras")] == ["one"]
    index.close()


def test_update_from_log_and_a_fork(projects):
    a, _ = projects
    write_session("one", a, "base")
    child = fork("one", 0)
    with SessionIndex(refresh=False) as index:
        assert index.list() == []
        summary = index.update_from_log(child)
        assert summary is not None and summary.parent == ("one", 0)
        assert index.get(child).parent == ("one", 0)
        assert index.get(child).title == "base"


def test_a_missing_or_damaged_index_is_rebuilt(projects):
    a, _ = projects
    write_session("one", a, "alpha prompt", edits=("x.py",))
    write_session("two", a, "beta prompt")
    db = paths.sessions_dir() / "index.sqlite"
    SessionIndex().close()

    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    with SessionIndex() as index:
        assert {s.id for s in index.list()} == {"one", "two"}
        assert [s.id for s in index.sessions_touching("x.py")] == ["one"]

    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    db.write_bytes(b"this is not a database" * 100)
    with SessionIndex() as index:
        assert {s.id for s in index.list()} == {"one", "two"}
        index.rebuild()
        assert [s.id for s in index.search("beta")] == ["two"]


def test_delete_removes_the_folder_and_the_rows(projects):
    a, _ = projects
    write_session("one", a, "keep me")
    write_session("two", a, "delete me", edits=("gone.py",))
    with SessionIndex() as index:
        index.delete("two")
        assert not paths.session_dir("two").exists()
        assert [s.id for s in index.list()] == ["one"]
        assert index.search("delete") == [] and index.sessions_touching("gone.py") == []
        with pytest.raises(SessionNotFound):
            index.delete("two")

        with SessionStore.open("one"):
            with pytest.raises(SessionLocked):
                index.delete("one")
        assert paths.session_dir("one").exists() and index.get("one") is not None


def test_two_index_objects_share_one_file(projects):
    a, _ = projects
    write_session("one", a, "shared")
    first, second = SessionIndex(), SessionIndex()
    write_session("two", a, "later")
    first.update_from_log("two")
    assert {s.id for s in second.list()} == {"one", "two"}
    first.close()
    second.close()
    assert os.path.exists(paths.sessions_dir() / "index.sqlite")


def test_prompts_of_a_project_newest_first_each_once(projects):
    a, b = projects
    with SessionStore.create("old", project=a, model="m") as store:
        for n, text in enumerate(["run the tests", "fix the parser", "run the tests"]):
            store.append({"type": "user_message", "text": text, "ts": 1000 + n})
        store.append(AssistantMessage("an answer, not a prompt").to_dict() | {"ts": 1010})
    write_session("new", a, "ship it", ts=2000)
    write_session("elsewhere", b, "another project's prompt", ts=3000)
    with SessionIndex() as index:
        assert index.prompts(a) == ["ship it", "run the tests", "fix the parser"]
        assert index.prompts(a, limit=2) == ["ship it", "run the tests"]
        assert index.prompts(b) == ["another project's prompt"]
