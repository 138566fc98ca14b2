"""Every wait of a running prompt shows life: a spinner, what is awaited and for how long,
in the status bar and on a line at the end of the conversation where the answer will appear.

Real turns against the fake provider through litellm, a real shell command, a real 500.
"""

from __future__ import annotations

import asyncio
import re
import threading

import pytest

from agent_tui.core.events import StreamRestart
from agent_tui.core.providers import litellm as litellm_provider
from agent_tui.tui.screens.approval import ApprovalScreen
from agent_tui.tui.widgets.assistant_block import AssistantBlock
from agent_tui.tui.widgets.conversation import ConversationView, ToolBlock
from agent_tui.tui.widgets.panels import StatusBar
from agent_tui.tui.widgets.waiting import SPINNER, Awaited, WaitingLine, elapsed_text
from tests.fakes.providers import Fault, Reply, ToolCall
from tests.tui.test_app import SIZE, app_for, type_prompt, until
from tests.tui.test_snapshots import SIZE as SNAPSHOT_SIZE
from tests.tui.test_snapshots import _submit, _until, project, snapshot_app  # noqa: F401

WAIT_TEXT = re.compile(r"[" + SPINNER + r"] (.*)")


def main(app):
    """The main screen (a modal may be on top)."""
    return app.screen_stack[0]


def status_wait(app) -> str:
    """What the status bar says the prompt waits for, up to the model's name after it
    ("" when it says nothing of it)."""
    match = WAIT_TEXT.match(str(main(app).query_one(StatusBar).render()).strip())
    return match[1].split("  ")[0] if match else ""


def line_wait(app) -> str:
    """The waiting line at the end of the conversation ("" when none is shown)."""
    lines = list(main(app).query(WaitingLine))
    if not lines:
        return ""
    [line] = lines
    assert main(app).query_one(ConversationView).children[-1] is line  # the conversation's end
    match = WAIT_TEXT.match(str(line.render()))
    assert match is not None
    return match[1]


async def test_a_silent_model_is_waited_for_with_the_time_so_far_then_its_answer_replaces_the_line(
    fake_provider, tmp_path
):
    # Silent for 3 s, then the stream is cut and retried at once: the answer comes.
    fake_provider.script(Fault.stall(seconds=3), Reply(text="Here it is."))
    app = app_for(fake_provider, tmp_path, stream_idle_timeout=30)
    async with app.run_test(size=SIZE) as pilot:
        assert status_wait(app) == "" and line_wait(app) == ""
        await type_prompt(pilot, "hello")
        await until(pilot, lambda: len(fake_provider.requests) == 1, timeout=60)  # litellm loads
        await until(pilot, lambda: line_wait(app).startswith("waiting for openai/fake-model · "))
        assert status_wait(app).startswith("waiting for openai/fake-model · ")
        first = line_wait(app)
        await until(pilot, lambda: line_wait(app) not in ("", first))  # the time goes on
        assert re.fullmatch(r"waiting for openai/fake-model · \d+(\.\d)? s", line_wait(app))
        await until(pilot, lambda: not app.busy, timeout=30)
        await pilot.pause(0.2)
        # The answer took the line's place; idle, nothing is awaited.
        assert line_wait(app) == "" and status_wait(app) == ""
        assert "idle" in str(app.query_one(StatusBar).render())
        assert app.query(AssistantBlock)


async def test_a_running_command_is_named_and_timed_in_the_status_bar_line_and_its_block(
    fake_provider, tmp_path
):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "sleep 1.5"})]),
        Reply(text="Done."),
    )
    app = app_for(fake_provider, tmp_path, approval_mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "wait a bit")
        await until(pilot, lambda: line_wait(app).startswith("running `sleep 1.5` · "), timeout=60)
        assert status_wait(app).startswith("running `sleep 1.5` · ")
        block = app.query_one(ToolBlock)
        await until(pilot, lambda: re.search(r"sleep 1\.5  \d+\.\d s$", str(block.render())))
        await until(pilot, lambda: not app.busy, timeout=30)
        # Done: its final duration, and the wait is over.
        assert re.search(r"sleep 1\.5  \d+\.\ds$", str(block.render()).splitlines()[0])
        assert block.duration is not None and block.duration >= 1.4
        assert line_wait(app) == "" and status_wait(app) == ""


async def test_a_call_waiting_for_approval_says_so_then_runs(fake_provider, tmp_path):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "touch approved.txt"})]),
        Reply(text="Done."),
    )
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "say it")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), timeout=60)
        await until(pilot, lambda: status_wait(app).startswith("waiting for your approval · "))
        assert line_wait(app).startswith("waiting for your approval · ")
        await pilot.press("y")
        await until(pilot, lambda: not app.busy, timeout=30)
        assert line_wait(app) == "" and status_wait(app) == ""
        assert len(fake_provider.requests) == 2


async def test_a_retry_counts_down_with_its_number_of_the_allowed_and_the_reason(
    fake_provider, tmp_path
):
    fake_provider.script(
        Fault.server_error(500, "the fake server fell over"), Reply(text="Back again.")
    )
    app = app_for(fake_provider, tmp_path, retry_base_delay=6, retry_max_delay=6, max_retries=4)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "hello")
        await until(pilot, lambda: "retrying" in line_wait(app), timeout=60)
        counted = re.compile(r"retrying in ([1-6]) s \(1 of 4\): .*the fake server fell over.*")
        first = counted.fullmatch(line_wait(app))
        assert first is not None, line_wait(app)
        assert counted.fullmatch(status_wait(app))
        await until(
            pilot,
            lambda: (
                (now := counted.fullmatch(line_wait(app))) is not None
                and int(now[1]) < int(first[1])
            ),
        )  # it counts down
        await until(pilot, lambda: not app.busy, timeout=30)
        assert len(fake_provider.requests) == 2
        # The turn ends as its last events are posted; the answer shows them right after.
        await until(pilot, lambda: "Back again." in "".join(
            b.answer.text for b in app.query(AssistantBlock)), timeout=10)
        assert line_wait(app) == ""


async def test_the_first_prompt_says_it_loads_the_model_library(
    fake_provider, tmp_path, monkeypatch
):
    # The workbench waits for its stream worker's litellm (the model's facts), never its
    # own: litellm is imported in this process already, so it is taken as not, and the
    # worker's answer is held until released.
    from agent_tui.core.providers.stream_process import ProcessProvider

    monkeypatch.setattr(litellm_provider, "_litellm", None)
    release = threading.Event()
    ready = ProcessProvider.ready

    async def held_ready(self):
        await asyncio.to_thread(release.wait, 10)
        await ready(self)

    monkeypatch.setattr(ProcessProvider, "ready", held_ready)
    fake_provider.script(Reply(text="Hi."))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "hello")
        await until(pilot, lambda: line_wait(app).startswith("loading the model library · "))
        assert status_wait(app).startswith("loading the model library · ")
        release.set()
        await until(pilot, lambda: not app.busy, timeout=30)
        assert line_wait(app) == ""


def test_wait_words():
    assert elapsed_text(4.24) == "4.2 s"
    assert elapsed_text(12.7) == "12 s"
    assert elapsed_text(185) == "3 min 05 s"
    retry = StreamRestart(2, 3.0, "connection refused", 5)
    assert retry.describe() == "retrying in 3 s (2 of 5): connection refused"
    assert retry.describe(0.2) == "retrying in 1 s (2 of 5): connection refused"
    assert StreamRestart(1, 2.5, "HTTP 500").describe() == "retrying in 3 s (retry 1): HTTP 500"
    awaited = Awaited("waiting for openai/gpt-4o", 100.0, retry)
    assert awaited.text(98.5) == "retrying in 2 s (2 of 5): connection refused"
    assert awaited.text(104.2) == "waiting for openai/gpt-4o · 4.2 s"


@pytest.mark.usefixtures("project")
def test_snapshot_main_screen_while_the_model_is_silent(snap_compare, fake_provider):
    """The prompt sent, the model silent: under the prompt's block the line
    "⠋ waiting for openai/fake-model · 0.0 s" (the clock stopped for the snapshot), where the
    answer will appear, and the status bar starting with the same words in reverse."""
    fake_provider.script(Fault.stall(seconds=30))
    submit = _submit("map the project")

    async def run_before(pilot):
        await submit(pilot)
        await _until(pilot, lambda: len(fake_provider.requests) == 1, timeout=60)
        await _until(pilot, lambda: line_wait(pilot.app).startswith("waiting for"))
        await pilot.pause(0.3)

    assert snap_compare(
        snapshot_app(fake_provider, stream_idle_timeout=60),
        terminal_size=SNAPSHOT_SIZE,
        run_before=run_before,
    )


async def test_a_replay_loads_no_model_library(fake_provider, tmp_path, monkeypatch):
    import io

    from agent_tui.core.sessions.log import read_events
    from agent_tui.core.sessions.start import close_session, open_session
    from agent_tui.tui.app import make_app
    from agent_tui.tui.cli.headless import run_headless
    from tests.core.loop_helpers import settings_for

    fake_provider.script(Reply(text="Recorded."))
    settings = settings_for(fake_provider)
    opened = open_session(tmp_path, settings.model)
    await run_headless(
        settings, tmp_path, "record me", "json", io.StringIO(), io.StringIO(), session=opened
    )
    close_session(opened)
    monkeypatch.setattr(litellm_provider, "_litellm", None)  # as in a fresh agent-tui
    shown: list[str] = []  # every wait the status bar is given, however briefly
    show_waiting = StatusBar.show_waiting

    def recorded(self, awaited, moment):
        shown.append(awaited.text(moment) if awaited is not None else "")
        show_waiting(self, awaited, moment)

    monkeypatch.setattr(StatusBar, "show_waiting", recorded)
    log = read_events(opened.store.session_id)
    app = make_app(settings, tmp_path, load_litellm=False, replay=(log, 50.0))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: not app.busy and shown)
    assert shown and not any(text.startswith("loading the model library") for text in shown)
