"""``/code`` in the workbench with the scripted ACP delegate (a real subprocess): the
delegate call's block is its lane (its name, its calls as lines, its answer), and Esc
reaches the delegate as ``session/cancel``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from agent_tui.core import paths
from agent_tui.core.delegates import agent_host
from agent_tui.tui.widgets.conversation import ToolBlock
from tests.core.delegates.test_code import SCRIPT
from tests.tui.test_snapshots import (
    PROJECT,
    SIZE,
    FrozenMonotonic,
    _submit,
    _until,
    project,
    snapshot_app,
)

__all__ = ["project"]  # the fixture, used by name

DELEGATE_WAIT_S = 60  # the delegate is a Python program: its start is slow on a loaded machine


def configure(**env: str) -> None:
    """The scripted delegate in the user's config.toml, working in the project itself."""
    variables = {"PYTHONPATH": os.pathsep.join(sys.path), **env}
    table = ", ".join(f"{key} = {value!r}" for key, value in variables.items())
    config = paths.user_config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"[delegates.scripted]\ncommand = {sys.executable!r}\n"
                      f"args = [{str(SCRIPT)!r}]\nenv = {{ {table} }}\nin_project = true\n")


def _ready(project: Path) -> None:
    (project / "input.txt").write_text("make me loud\n")
    for stale in ("out.txt", "direct.txt"):
        (project / stale).unlink(missing_ok=True)


def _lane(app) -> ToolBlock:
    return next(b for b in app.query(ToolBlock) if b.tool_name == "delegate")


async def test_the_lane_shows_the_delegate_its_calls_and_its_answer(fake_provider,
                                                                    project) -> None:
    configure()
    _ready(project)
    app = snapshot_app(fake_provider, approval_mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await _submit("/code shout the input")(pilot)
        await _until(pilot, lambda: app.query(ToolBlock) and not app.busy, DELEGATE_WAIT_S)
        await pilot.pause(0.2)
        block = _lane(app)
        assert block.status == "ok"
        assert block.summary == "scripted: shout the input"
        assert [(c.summary, c.status) for c in block.lane.calls] == [("Write out.txt", "ok")]
        assert "the check said 'checked'" in block.output
    assert (PROJECT / "out.txt").read_text() == "MAKE ME LOUD\n"
    assert fake_provider.requests == []


async def test_esc_reaches_the_delegate_as_session_cancel(fake_provider, project,
                                                          tmp_path) -> None:
    mark = tmp_path / "cancelled"
    configure(FAKE_DELEGATE_CANCEL_MARK=str(mark))
    _ready(project)
    app = snapshot_app(fake_provider, approval_mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await _submit("/code slow work")(pilot)
        # The scripted delegate reports its plan before it waits for the cancel.
        await _until(pilot, lambda: app.query(ToolBlock) and "read, write, check"
                     in _lane(app).output, DELEGATE_WAIT_S)
        assert "Plan:\n  ▸ read, write, check\n" in _lane(app).output
        await pilot.press("escape")
        await _until(pilot, lambda: not app.busy, DELEGATE_WAIT_S)
        await pilot.pause(0.2)
        assert _lane(app).status == "cancelled"
    assert mark.read_text() == "session/cancel scripted-1\n"


def test_the_ended_lane(snap_compare, fake_provider, project, monkeypatch):
    """After /code shout the input: the delegate call's block "✓ scripted: shout the input",
    expanded: its line "└ ✓ Write out.txt", its arguments (delegate, folder, prompt) and its
    answer "Wrote out.txt; the check said 'checked' (exit 0)."; below it the write_file and
    shell calls it had agent-tui make, as blocks of their own (and rows of the tool log)."""
    monkeypatch.setattr(agent_host, "time", FrozenMonotonic)  # every duration 0.0 s
    configure()
    _ready(project)
    submit = _submit("/code shout the input")

    async def run_before(pilot):
        await submit(pilot)
        await _until(pilot, lambda: pilot.app.query(ToolBlock) and not pilot.app.busy,
                     DELEGATE_WAIT_S)
        _lane(pilot.app).action_toggle()
        await pilot.pause(0.3)

    assert snap_compare(snapshot_app(fake_provider, approval_mode="yolo"), terminal_size=SIZE,
                        run_before=run_before)


async def test_a_resumed_session_and_its_replay_draw_the_lane_again(fake_provider,
                                                                    tmp_path) -> None:
    import io

    from agent_tui.core.sessions.log import read_events
    from agent_tui.core.sessions.start import close_session, open_session
    from agent_tui.tui.app import make_app
    from agent_tui.tui.cli.headless import run_headless
    from agent_tui.tui.widgets.conversation import NoticeBlock
    from tests.core.loop_helpers import settings_for

    configure()
    _ready(tmp_path)
    settings = settings_for(fake_provider, approval_mode="yolo")
    opened = open_session(tmp_path, settings.model)
    await run_headless(settings, tmp_path, "/code shout the input", "json", io.StringIO(),
                       io.StringIO(), session=opened)
    close_session(opened)
    session_id = opened.store.session_id

    def drawn(app) -> tuple[str, str, list[tuple[str, str]], str]:
        block = _lane(app)
        return (block.summary, block.status,
                [(c.summary, c.status) for c in block.lane.calls], block.output)

    expected = ("scripted: shout the input", "ok", [("Write out.txt", "ok")],
                "Wrote out.txt; the check said 'checked' (exit 0).")
    resumed = open_session(tmp_path, settings.model, resume=session_id)
    app = make_app(settings, tmp_path, load_litellm=False, session=resumed)
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: app.query(ToolBlock), DELEGATE_WAIT_S)
        await pilot.pause(0.2)
        assert drawn(app) == expected
        assert [b.tool_name for b in app.query(ToolBlock)] == ["delegate", "write_file", "shell"]
    close_session(resumed)

    replay = make_app(settings, tmp_path, load_litellm=False,
                      replay=(read_events(session_id), 50.0))
    async with replay.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: any("End of the replay" in str(n.render())
                                        for n in replay.query(NoticeBlock)), DELEGATE_WAIT_S)
        assert drawn(replay) == expected
    assert fake_provider.requests == []


async def test_the_models_delegate_call_asks_in_the_modal_then_runs_as_its_lane(
        fake_provider, tmp_path) -> None:
    from agent_tui.tui.screens.approval import ApprovalScreen
    from tests.fakes.providers import Reply, ToolCall
    from tests.tui.test_app import app_for, type_prompt, until

    configure()
    _ready(tmp_path)
    fake_provider.script(
        Reply(text="Handing it over.",
              tool_calls=[ToolCall("delegate", {"prompt": "shout the input"})]),
        Reply(text="The delegate shouted it."))
    app = app_for(fake_provider, tmp_path)

    def asking():
        return app.screen.request if isinstance(app.screen, ApprovalScreen) else None

    asked = []
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "have the delegate shout the input")
        # The call itself, then (while it runs) the delegate's own permission request and
        # the write it asks agent-tui for: each one the person's to allow.
        while len(asked) < 3:
            await until(pilot, lambda: asking() is not None and asking() not in asked,
                        DELEGATE_WAIT_S)
            asked.append(asking())
            await pilot.press("y")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2,
                    DELEGATE_WAIT_S)
        block = _lane(app)
        assert block.status == "ok"
        assert [(c.summary, c.status) for c in block.lane.calls] == [("Write out.txt", "ok")]
    first = asked[0]
    assert first.tool == "delegate" and first.summary == "delegate (scripted): shout the input"
    assert [r.tool for r in asked[1:]] == ["delegate", "write_file"]
    assert (tmp_path / "out.txt").read_text() == "MAKE ME LOUD\n"
    told = fake_provider.requests[1].tool_results()[-1]["content"]
    assert "scripted worked in the project" in told and "the check said 'checked'" in told
