"""Durable sessions end to end: the real binary records, lists, resumes and survives kill -9."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

from agent_tui.core.sessions.log import SessionStore
from tests.fakes.providers import Reply, ToolCall
from tests.tui.cli.test_cli import COMMAND, agent_tui, fake_flags


def sessions(tmp_path):
    done = agent_tui("sessions", "list", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_run_is_recorded_listed_shown_and_continued(fake_provider, tmp_path):
    fake_provider.script(Reply(text="The answer is 42."), Reply(text="You asked about 42."))
    first = agent_tui("-p", "what is the answer?", *fake_flags(fake_provider), cwd=tmp_path)
    assert first.returncode == 0, first.stderr

    listed = sessions(tmp_path)
    assert len(listed) == 1 and listed[0]["title"] == "what is the answer?"
    session_id = listed[0]["id"]
    shown = agent_tui("sessions", "show", session_id, cwd=tmp_path)
    assert "what is the answer?" in shown.stdout and "The answer is 42." in shown.stdout

    again = agent_tui("-p", "what did I ask?", "--continue", *fake_flags(fake_provider),
                      cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    sent = [m.get("content") for m in fake_provider.requests[1].messages]
    assert "what is the answer?" in sent and "The answer is 42." in sent
    assert [s["id"] for s in sessions(tmp_path)] == [session_id]
    assert sessions(tmp_path)[0]["model_calls"] == 2


def test_resume_without_an_id_lists_the_sessions(fake_provider, tmp_path):
    fake_provider.script(Reply(text="ok"))
    agent_tui("-p", "first prompt", *fake_flags(fake_provider), cwd=tmp_path)
    done = agent_tui("-p", "again", "--resume", *fake_flags(fake_provider), cwd=tmp_path)
    assert done.returncode == 2
    assert "first prompt" in done.stderr and "--resume ID" in done.stderr


def test_continue_without_a_session_is_one_line_and_a_usage_error(fake_provider, tmp_path):
    """As --resume with an unknown id: one line saying how to start one, exit code 2."""
    done = agent_tui("-p", "x", "--continue", *fake_flags(fake_provider), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"agent-tui: error: no session to continue in {tmp_path.resolve()}; start one with "
        "`agent-tui` (without --continue)"]
    assert done.stdout == "" and not fake_provider.requests
    workbench = agent_tui("--continue", cwd=tmp_path, timeout=30)  # it ends before drawing
    assert (workbench.returncode, workbench.stderr) == (2, done.stderr)


def test_a_session_open_elsewhere_is_refused_and_can_be_forked(fake_provider, tmp_path,
                                                                monkeypatch):
    fake_provider.script(Reply(text="one"), Reply(text="forked answer"))
    agent_tui("-p", "original", *fake_flags(fake_provider), cwd=tmp_path)
    session_id = sessions(tmp_path)[0]["id"]
    monkeypatch.setenv("AGENT_TUI_HOME", str(tmp_path / ".home"))
    with SessionStore.open(session_id):
        locked = agent_tui("-p", "x", "--resume", session_id, *fake_flags(fake_provider),
                           cwd=tmp_path)
        assert locked.returncode == 1
        assert "open in another agent-tui" in locked.stderr
        forked = agent_tui("-p", "in the fork", "--resume", session_id, "--fork",
                           *fake_flags(fake_provider), cwd=tmp_path)
        assert forked.returncode == 0, forked.stderr
    ids = {s["id"] for s in sessions(tmp_path)}
    assert session_id in ids and len(ids) == 2


def test_kill_9_mid_turn_then_resume(fake_provider, tmp_path):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "sleep 30"})]),
        Reply(text="resumed fine"),
    )
    env = {k: v for k, v in os.environ.items()
           if not k.endswith("_API_KEY") and not k.startswith("AGENT_TUI_")}
    env["AGENT_TUI_HOME"] = str(tmp_path / ".home")
    proc = subprocess.Popen([*COMMAND, "-p", "run a long command", "--approval-mode", "yolo",
                             *fake_flags(fake_provider)], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    logs = tmp_path / ".home" / "sessions"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = list(logs.glob("*/events.jsonl")) if logs.exists() else []
        if found and '"approval"' in found[0].read_text():
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the run never reached its tool call")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()

    again = agent_tui("-p", "go on", "--continue", *fake_flags(fake_provider), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    request = fake_provider.requests[-1]
    sent = [m.get("content") for m in request.messages]
    assert "run a long command" in sent and "go on" in sent
    assert "cancelled" in request.tool_results()[0]["content"]


def test_a_torn_last_line_is_skipped_with_a_warning(fake_provider, tmp_path):
    fake_provider.script(Reply(text="before the crash"), Reply(text="after the crash"))
    agent_tui("-p", "first", *fake_flags(fake_provider), cwd=tmp_path)
    log = next((tmp_path / ".home" / "sessions").glob("*/events.jsonl"))
    with log.open("ab") as fh:
        fh.write(b'{"type": "assistant_message", "text": "half wri')
    again = agent_tui("-p", "second", "--continue", *fake_flags(fake_provider), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "cut off" in again.stderr
    sent = [m.get("content") for m in fake_provider.requests[-1].messages]
    assert "before the crash" in sent


async def test_the_workbench_redraws_a_resumed_session(fake_provider, tmp_path):
    import io

    from agent_tui.core.sessions.start import close_session, open_session
    from agent_tui.tui.app import make_app
    from agent_tui.tui.cli.headless import run_headless
    from agent_tui.tui.widgets.conversation import ToolBlock, UserBlock
    from agent_tui.tui.widgets.tool_log import ToolLog
    from tests.core.loop_helpers import settings_for
    from tests.tui.test_app import SIZE, type_prompt, until

    (tmp_path / "a.txt").write_text("alpha\n")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("todo_write", {"content": "- [ ] check a.txt\n"})]),
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "a.txt"})]),
        Reply(text="a.txt says alpha."),
        Reply(text="still here"),
    )
    settings = settings_for(fake_provider)
    opened = open_session(tmp_path, settings.model)
    await run_headless(settings, tmp_path, "read a.txt", "json", io.StringIO(), io.StringIO(),
                       session=opened)
    close_session(opened)

    resumed = open_session(tmp_path, settings.model, resume=opened.store.session_id)
    app = make_app(settings, tmp_path, load_litellm=False, session=resumed)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: len(app.query(ToolBlock)) == 2)
        assert [u.text for u in app.query(UserBlock)] == ["read a.txt"]
        assert app.query_one(ToolLog).table.row_count == 2
        assert "check a.txt" in str(app.query_one("#todos").render())
        assert app.session_id == opened.store.session_id
        await type_prompt(pilot, "are you there?")
        await until(pilot, lambda: len(fake_provider.requests) == 4 and not app.busy)
    close_session(resumed)
    sent = [m.get("content") for m in fake_provider.requests[3].messages]
    assert "read a.txt" in sent and "a.txt says alpha." in sent


async def test_fork_goes_on_in_a_copy_at_a_chosen_turn(fake_provider, tmp_path):
    from agent_tui.core.sessions.index import SessionIndex
    from agent_tui.core.sessions.start import close_session, open_session
    from agent_tui.tui.app import make_app
    from agent_tui.tui.widgets.conversation import UserBlock
    from tests.core.loop_helpers import settings_for
    from tests.tui.test_app import SIZE, type_prompt, until

    fake_provider.script(Reply(text="one"), Reply(text="two"), Reply(text="after the fork"))
    settings = settings_for(fake_provider)
    opened = open_session(tmp_path, settings.model)
    app = make_app(settings, tmp_path, load_litellm=False, session=opened)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "first")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1)
        await type_prompt(pilot, "second")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2)
        original = app.session_id
        await type_prompt(pilot, "/fork 1")
        await until(pilot, lambda: app.session_id != original)
        await until(pilot, lambda: [u.text for u in app.query(UserBlock)] == ["first"])
        await type_prompt(pilot, "instead")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 3)
        close_session(app.opened)
    sent = [m.get("content") for m in fake_provider.requests[2].messages]
    assert "first" in sent and "second" not in sent and "instead" in sent
    with SessionIndex() as index:
        assert {s.id for s in index.list()} >= {original, app.session_id}


async def test_replay_plays_a_recorded_session_without_re_running_it(fake_provider, tmp_path):
    import io

    from agent_tui.core.sessions.log import read_events
    from agent_tui.core.sessions.start import close_session, open_session
    from agent_tui.tui.app import make_app
    from agent_tui.tui.cli.headless import run_headless
    from agent_tui.tui.widgets.assistant_block import AssistantBlock
    from agent_tui.tui.widgets.conversation import NoticeBlock, ToolBlock, UserBlock
    from tests.core.loop_helpers import settings_for
    from tests.tui.test_app import SIZE, until

    fake_provider.script(
        Reply(text="Writing it.", tool_calls=[ToolCall("write_file", {
            "file_path": "demo.txt", "content": "demo\n"})]),
        Reply(text="Wrote **demo.txt**."),
    )
    settings = settings_for(fake_provider, approval_mode="auto-edit")
    opened = open_session(tmp_path, settings.model)
    await run_headless(settings, tmp_path, "write the demo", "json", io.StringIO(),
                       io.StringIO(), session=opened)
    close_session(opened)
    (tmp_path / "demo.txt").unlink()
    requests_before = len(fake_provider.requests)

    log = read_events(opened.store.session_id)
    app = make_app(settings, tmp_path, load_litellm=False, replay=(log, 50.0))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: any("End of the replay" in str(n.render())
                                       for n in app.query(NoticeBlock)))
        assert [u.text for u in app.query(UserBlock)] == ["write the demo"]
        assert [(t.tool_name, t.status) for t in app.query(ToolBlock)] == [("write_file", "ok")]
        assert [a.text for a in app.query(AssistantBlock)] == ["Writing it.",
                                                               "Wrote **demo.txt**."]
    assert len(fake_provider.requests) == requests_before  # the model was not asked again
    assert not (tmp_path / "demo.txt").exists()  # and the tools did not run again


def test_replay_of_an_unknown_session_is_a_clear_error(tmp_path):
    done = agent_tui("replay", "nosuchsession", cwd=tmp_path)
    assert done.returncode == 1
    assert "nosuchsession" in done.stderr and "Traceback" not in done.stderr


async def test_ctrl_r_browser_resumes_another_session(fake_provider, tmp_path):
    from agent_tui.core.sessions.start import close_session, open_session
    from agent_tui.tui.app import make_app
    from agent_tui.tui.screens.session_browser import SessionBrowser
    from agent_tui.tui.widgets.conversation import UserBlock
    from tests.core.loop_helpers import settings_for
    from tests.tui.test_app import SIZE, type_prompt, until

    fake_provider.script(Reply(text="old answer"), Reply(text="new answer"))
    settings = settings_for(fake_provider)
    older = open_session(tmp_path, settings.model)
    app = make_app(settings, tmp_path, load_litellm=False, session=older)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "the older session")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1)
        await type_prompt(pilot, "/new")
        await until(pilot, lambda: app.session_id != older.store.session_id)
        await type_prompt(pilot, "the newer session")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, SessionBrowser))
        await until(pilot, lambda: app.screen.query_one("DataTable").row_count == 2)
        table = app.screen.query_one("DataTable")
        titles = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        table.move_cursor(row=titles.index("the older session"))
        table.focus()
        await pilot.press("enter")
        await until(pilot, lambda: app.session_id == older.store.session_id)
        await until(pilot, lambda: [u.text for u in app.query(UserBlock)]
                    == ["the older session"])
        close_session(app.opened)


async def test_a_long_resumed_session_builds_earlier_blocks_only_when_shown(tmp_path):
    from agent_tui.core.config import Settings
    from agent_tui.core.sessions.start import close_session, open_session
    from agent_tui.tui.app import make_app
    from agent_tui.tui.widgets.conversation import BlockRecord, ConversationView, UserBlock
    from agent_tui.tui.widgets.tool_log import ToolLog
    from agent_tui.tui.workbench.restore_batch import RESTORED_TOOL_ROWS
    from tests.tui.test_app import SIZE, until

    turns = 400
    store = SessionStore.create("long", project=tmp_path, model="openai/fake-model")
    for turn in range(turns):
        store.append({"type": "user_message", "text": f"prompt {turn}"})
        store.append({"type": "tool_call", "id": f"c{turn}", "name": "read_file",
                      "args": {"file_path": "m.py"}, "summary": "read_file m.py"})
        store.append({"type": "tool_result", "id": f"c{turn}", "name": "read_file", "ok": True,
                      "output": "x = 1", "duration": 0.01})
        store.append({"type": "assistant_message", "text": f"answer {turn}", "tool_calls": []})
    store.close()

    opened = open_session(tmp_path, "openai/fake-model", resume="long")
    app = make_app(Settings(model="openai/fake-model"), tmp_path, load_litellm=False,
                   session=opened)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: bool(app.query(UserBlock)))
        view = app.query_one(ConversationView)
        await pilot.pause()
        mounted = len(view._blocks())
        assert mounted <= ConversationView.MAX_MOUNTED
        # The newest fill the screen at once and two screens soon after; every block is
        # there, the earlier ones as records that are not widgets yet.
        await until(pilot, lambda: len(view._blocks()) > ConversationView.RESTORE_MOUNTED)
        mounted = len(view._blocks())
        assert view.earlier_count + mounted >= turns * 3
        assert sum(isinstance(b, BlockRecord) for b in view._earlier) >= turns * 3 - 60
        texts = [u.text for u in app.query(UserBlock)]
        assert texts[-1] == f"prompt {turns - 1}"
        tool_log = app.query_one(ToolLog)
        assert tool_log.table.row_count == RESTORED_TOOL_ROWS
        assert f"{turns - RESTORED_TOOL_ROWS:,} earlier calls" in str(
            app.query_one("#tool-earlier").render())

        # Scrolling back to the top builds the earlier blocks, oldest included.
        while view.earlier_count:
            assert await view.show_earlier(500)
        await pilot.pause()
        assert [u.text for u in app.query(UserBlock)][0] == "prompt 0"
    close_session(opened)


def test_sessions_list_counts_prompts_and_model_calls_apart(fake_provider, tmp_path):
    """Three prompts, each answered after a tool call (two model calls a prompt): the list
    says 3 prompts and 6 model calls, never "turns" for either."""
    (tmp_path / "notes.txt").write_text("hello\n")
    read = Reply(tool_calls=[ToolCall("read_file", {"file_path": "notes.txt"})])
    fake_provider.script(read, Reply(text="one"), read, Reply(text="two"), read,
                         Reply(text="three"))
    for n, prompt in enumerate(("first", "second", "third")):
        more = ("--continue",) if n else ()
        done = agent_tui("-p", prompt, *more, *fake_flags(fake_provider), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    [listed] = sessions(tmp_path)
    assert (listed["prompts"], listed["model_calls"]) == (3, 6)
    assert "turns" not in listed
    done = agent_tui("sessions", "list", cwd=tmp_path)
    assert "  3 prompts · 6 model calls  " in done.stdout
    assert "turn" not in done.stdout
