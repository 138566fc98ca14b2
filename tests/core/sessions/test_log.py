"""The session log on real files: round trips, torn lines, the lock across processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.core import paths
from agent_tui.core.events import (
    ApprovalDecided,
    AssistantMessage,
    TodoUpdated,
    ToolCallStarted,
    ToolResultEvent,
)
from agent_tui.core.safety.redaction import REDACTED, redact
from agent_tui.core.sessions.export import to_markdown
from agent_tui.core.sessions.log import (
    SessionError,
    SessionLocked,
    SessionNotFound,
    SessionStore,
    fork,
    read_events,
)


def new_store(tmp_path: Path, session_id: str = "s1") -> SessionStore:
    return SessionStore.create(session_id, project=tmp_path, model="openai/gpt-4.1")


def log_file(session_id: str) -> Path:
    return paths.session_dir(session_id) / "events.jsonl"


def test_append_and_read_round_trip(tmp_path):
    events = [
        {"type": "user_message", "text": "fix the bug in naïve.py ✓"},
        AssistantMessage(
            "Looking.", [{"id": "c1", "name": "read_file", "arguments": '{"file_path": "a.py"}'}]
        ).to_dict(),
        ToolCallStarted("c1", "read_file", {"file_path": "a.py"}, "read a.py").to_dict(),
        ToolResultEvent("c1", "read_file", True, "1 print('hi')\n", None, 0.01).to_dict(),
    ]
    with new_store(tmp_path) as store:
        for event in events:
            store.append(event)

    log = read_events("s1")
    assert log.warnings == []
    assert log.header["type"] == "session" and log.header["id"] == "s1"
    assert log.header["project"] == str(tmp_path.resolve())
    assert log.header["model"] == "openai/gpt-4.1" and log.header["parent"] is None
    assert [{k: v for k, v in e.items() if k != "ts"} for e in log.events] == events
    assert all(isinstance(e["ts"], float) for e in log.events)
    raw = log_file("s1").read_text(encoding="utf-8")
    assert "naïve.py ✓" in raw  # not \\u-escaped
    assert ", " not in raw.splitlines()[1]  # compact separators


def test_each_append_is_on_disk_when_it_returns(tmp_path):
    record = {"type": "todo", "content": "- [ ] one", "ts": 12.5}
    with new_store(tmp_path) as store:
        store.append(record)
        assert record == {"type": "todo", "content": "- [ ] one", "ts": 12.5}
        # a reader that shares nothing with the writer sees it before close
        fresh = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from agent_tui.core.sessions.log import read_events; "
                "print(read_events(sys.argv[1]).events[-1]['content'])",
                "s1",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        assert fresh.stdout.strip() == "- [ ] one"
        assert store.read().events == [record]


def test_missing_session_raises_not_found():
    with pytest.raises(SessionNotFound, match="no session 'nope'"):
        read_events("nope")
    with pytest.raises(SessionNotFound):
        SessionStore.open("nope")


def test_create_refuses_an_existing_session(tmp_path):
    new_store(tmp_path).close()
    with pytest.raises(SessionError, match="already exists"):
        new_store(tmp_path)


def test_torn_last_line_is_skipped_with_a_warning(tmp_path):
    with new_store(tmp_path) as store:
        for i in range(5):
            store.append({"type": "todo", "content": f"item {i}"})
    with log_file("s1").open("ab") as f:
        f.write(b'{"type":"todo","content":"it')

    log = read_events("s1")
    assert [e["content"] for e in log.events] == [f"item {i}" for i in range(5)]
    assert log.warnings == [
        "the last event was cut off by a crash; 28 bytes skipped; everything before it is intact"
    ]


def test_reopen_cuts_the_torn_tail_and_keeps_it(tmp_path):
    with new_store(tmp_path) as store:
        store.append({"type": "todo", "content": "kept"})
    torn = b'{"type":"assistant_message","text":"half'
    with log_file("s1").open("ab") as f:
        f.write(torn)

    with SessionStore.open("s1") as store:
        assert len(store.warnings) == 1 and "kept in torn-" in store.warnings[0]
        store.append({"type": "todo", "content": "after"})

    log = read_events("s1")
    assert log.warnings == []
    assert [e["content"] for e in log.events] == ["kept", "after"]
    kept = list(paths.session_dir("s1").glob("torn-*.bin"))
    assert len(kept) == 1 and kept[0].read_bytes() == torn


def test_reopen_of_a_clean_log_changes_nothing(tmp_path):
    with new_store(tmp_path) as store:
        store.append({"type": "todo", "content": "a"})
    before = log_file("s1").read_bytes()
    with SessionStore.open("s1") as store:
        assert store.warnings == []
    assert log_file("s1").read_bytes() == before
    assert not list(paths.session_dir("s1").glob("torn-*"))


def test_invalid_middle_line_is_skipped_and_named(tmp_path):
    with new_store(tmp_path) as store:
        store.append({"type": "todo", "content": "one"})
    with log_file("s1").open("ab") as f:
        f.write(b"\x00\x00garbage{\n")
    with SessionStore.open("s1") as store:
        store.append({"type": "todo", "content": "three"})

    log = read_events("s1")
    assert [e["content"] for e in log.events] == ["one", "three"]
    assert len(log.warnings) == 1 and log.warnings[0].startswith("line 3 ")


def test_non_object_lines_and_blank_lines_are_skipped(tmp_path):
    with new_store(tmp_path) as store:
        store.append({"type": "todo", "content": "one"})
    with log_file("s1").open("ab") as f:
        f.write(b'[1, 2]\n\n{"type":"todo","content":"two"}\n')
    log = read_events("s1")
    assert [e["content"] for e in log.events] == ["one", "two"]
    assert [w.split(" of ")[0] for w in log.warnings] == ["line 3", "line 4"]


def test_undecodable_text_round_trips(tmp_path):
    text = b"caf\xe9 output".decode("utf-8", "surrogateescape")
    with new_store(tmp_path) as store:
        store.append({"type": "tool_result", "output": text})
    log = read_events("s1")
    assert log.warnings == [] and log.events[0]["output"] == text


LOCK_PROBE = """
import sys
from agent_tui.core.sessions.log import SessionLocked, SessionStore
try:
    SessionStore.open(sys.argv[1]).close()
except SessionLocked as error:
    print("LOCKED", error.pid, error)
else:
    print("OPENED")
"""


def probe_lock(session_id: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", LOCK_PROBE, session_id],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return done.stdout.strip()


def test_a_second_process_cannot_open_a_locked_session(tmp_path):
    store = new_store(tmp_path)
    try:
        answer = probe_lock("s1")
        assert answer.startswith(f"LOCKED {os.getpid()} ")
        assert (
            f"session s1 is open in another agent-tui (pid {os.getpid()}); "
            "resume a fork with --fork or close the other one"
        ) in answer
    finally:
        store.close()
    assert probe_lock("s1") == "OPENED"


def test_the_lock_holds_within_one_process_too(tmp_path):
    with new_store(tmp_path):
        with pytest.raises(SessionLocked):
            SessionStore.open("s1")
    SessionStore.open("s1").close()


def test_append_after_close_says_what_to_do(tmp_path):
    store = new_store(tmp_path)
    store.close()
    store.close()
    with pytest.raises(SessionError, match="closed; open it again"):
        store.append({"type": "todo", "content": "x"})


def test_fork_copies_events_up_to_an_index(tmp_path):
    with new_store(tmp_path, "src") as store:
        for i in range(6):
            store.append({"type": "todo", "content": f"e{i}", "ts": float(i)})

    child = fork("src", 3)
    log = read_events(child)
    assert child != "src"
    assert log.parent == ("src", 3)
    assert log.header["project"] == str(tmp_path.resolve())
    assert [e["content"] for e in log.events] == ["e0", "e1", "e2", "e3"]
    assert log.events[0]["ts"] == 0.0  # the original times stay
    with SessionStore.open(child) as store:  # a fork is a session like any other
        store.append({"type": "todo", "content": "new"})
    assert len(read_events("src").events) == 6


def test_fork_works_while_the_source_is_open_and_checks_the_index(tmp_path):
    with new_store(tmp_path, "src") as store:
        store.append({"type": "todo", "content": "only"})
        assert read_events(fork("src", -1, new_id="empty")).events == []
        with pytest.raises(SessionError, match="has 1 events"):
            fork("src", 1)


def test_redact_hides_key_shapes_in_nested_values():
    openai = "sk-proj-Ab3dEfGh1jKlMnOpQrStUv"
    anthropic = "sk-ant-api03-xY9_zAbCdEfGhIjKlMnOp"
    google = "AIza" + "Sy1234567890abcdefghijklmnopqrstuvw"
    github = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    slack = "xoxb-1234567890-abcdefghij"
    value = {
        "args": {"command": f"curl -H 'Authorization: Bearer abc.def-123456' -d {openai}"},
        "list": [anthropic, {"deep": (google, github)}, slack, 42, None],
        "key_stays": 1,
    }
    out = redact(value, secrets=())
    assert out["args"]["command"] == ("curl -H 'Authorization: Bearer [REDACTED]' -d [REDACTED]")
    assert out["list"] == [REDACTED, {"deep": [REDACTED, REDACTED]}, REDACTED, 42, None]
    assert out["key_stays"] == 1
    assert value["list"][0] == anthropic  # the input is not changed


def test_redact_leaves_prose_that_only_looks_like_a_key():
    text = "see scikit-learn's sk-learn-is-a-library-name and disk-usage-monitor-script-v2"
    assert redact(text, secrets=()) == text


def test_redact_hides_secret_environment_values(monkeypatch):
    monkeypatch.setenv("MY_SERVICE_API_KEY", "plainvalue99")
    monkeypatch.setenv("DEPLOY_TOKEN", "tok-live-5555")
    monkeypatch.setenv("SHORT_SECRET", "abc")  # too short to hide
    monkeypatch.setenv("HOME_DIRECTORY", "not-a-secret-name")
    out = redact({"a": "key=plainvalue99 token=tok-live-5555 abc not-a-secret-name"})
    assert out == {"a": "key=[REDACTED] token=[REDACTED] abc not-a-secret-name"}


def test_append_redacts_before_writing(tmp_path, monkeypatch):
    monkeypatch.setenv("ACME_SECRET", "hunter2hunter2")
    with new_store(tmp_path) as store:
        store.append(
            {
                "type": "tool_call",
                "name": "shell",
                "args": {"command": "export X=hunter2hunter2 K=sk-abcdefgh12345678ijkl"},
            }
        )
    raw = log_file("s1").read_text()
    assert "hunter2hunter2" not in raw and "sk-abcdefgh" not in raw
    assert json.loads(raw.splitlines()[1])["args"]["command"] == (
        "export X=[REDACTED] K=[REDACTED]"
    )


def test_to_markdown_is_a_readable_transcript(tmp_path):
    with SessionStore.create("md", project=tmp_path, model="m", title="Fix the parser") as store:
        store.append({"type": "user_message", "text": "Please fix parse()"})
        store.append(AssistantMessage("I'll read it first.").to_dict())
        store.append(ToolCallStarted("c1", "read_file", {"file_path": "p.py"}).to_dict())
        store.append(ToolResultEvent("c1", "read_file", True, "```\ndef parse(): ...").to_dict())
        store.append(TodoUpdated("- [x] read parse.py\n- [ ] fix it").to_dict())
        store.append({"type": "text_delta", "text": "noise"})
        store.append(AssistantMessage("Fixed.").to_dict())

    md = to_markdown(read_events("md"))
    assert md.startswith("# Fix the parser\n")
    assert "- **Model:** m" in md
    assert "## User\n\nPlease fix parse()" in md
    assert "## Assistant\n\nI'll read it first." in md
    assert '### Tool call: `read_file`\n\n```json\n{\n  "file_path": "p.py"\n}\n```' in md
    # the output holds a fence, so its own fence is longer
    assert "**Result of `read_file`** (ok)\n\n````text\n```\ndef parse(): ...\n````" in md
    assert "### Todos\n\n- [x] read parse.py\n- [ ] fix it" in md
    assert "noise" not in md
    assert md.index("I'll read it first.") < md.index("Fixed.")


def test_to_markdown_shows_what_ran_and_how_each_call_ended(tmp_path):
    with SessionStore.create("ran", project=tmp_path, model="m") as store:
        store.append(ToolCallStarted("c1", "shell", {"command": "rm -r build"},
                                     "shell: rm -r build").to_dict())
        store.append(ApprovalDecided("c1", "allow", "approved after the user edited it", "user",
                                     edited_summary="shell: rm -r build/tmp",
                                     edited_args={"command": "rm -r build/tmp"}).to_dict())
        store.append(ToolResultEvent("c1", "shell", False, "Error: the person cancelled this "
                                     "call before it finished.", cancelled=True).to_dict())

    md = to_markdown(read_events("ran"))
    assert ("### Edited by the person before it ran — shell: rm -r build/tmp\n\n```json\n"
            '{\n  "command": "rm -r build/tmp"\n}\n```') in md
    assert "**Result of `shell`** (cancelled)" in md


def test_a_forks_transcript_names_its_parent_and_prompt_not_an_event_index(tmp_path):
    with new_store(tmp_path, "parent") as store:
        for prompt in ("first", "second", "third"):
            store.append({"type": "user_message", "text": prompt})
            store.append(AssistantMessage(f"answer to {prompt}").to_dict())

    child = fork("parent", 3)  # after the second prompt's answer
    md = to_markdown(read_events(child))
    assert "- **Forked from:** parent, after its prompt 2" in md
    assert "event" not in md
    whole = to_markdown(read_events(fork("parent", -1)))
    assert "- **Forked from:** parent, before its first prompt" in whole
