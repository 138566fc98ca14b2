"""Notifications while the terminal is not focused: the bytes the workbench writes to the
terminal (the bell, OSC 9 / OSC 777), and a real ``notify-send`` on PATH."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual import events

from agent_tui.tui.screens.approval import ApprovalScreen
from agent_tui.tui.widgets.prompt import PromptInput
from agent_tui.tui.workbench.notifications import osc_sequence, terminal_protocol
from tests.fakes.providers import Reply, ToolCall
from tests.tui.test_app import SIZE, app_for, until

_TERMINAL_VARIABLES = (
    "TERM_PROGRAM",
    "LC_TERMINAL",
    "WEZTERM_PANE",
    "WT_SESSION",
    "KITTY_WINDOW_ID",
    "GHOSTTY_RESOURCES_DIR",
    "VTE_VERSION",
    "TMUX",
)

FIRST_CALL = 60.0
"""Seconds a first model call may take: it loads litellm, slow on a busy machine."""


@pytest.fixture
def notify_send(tmp_path, monkeypatch) -> Path:
    """A real ``notify-send`` first on PATH that writes its arguments, one a line, to the
    file returned; a desktop ($DISPLAY); a terminal no one knows."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "notify-send.calls"
    script = bin_dir / "notify-send"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" >> {calls}\necho --- >> {calls}\n')
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setenv("TERM", "xterm-256color")
    for name in _TERMINAL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return calls


def capture_writes(app) -> list[str]:
    """What the app writes to the terminal through its driver, from now on."""
    written: list[str] = []
    app._driver.write = written.append
    return written


def submit(app, text):
    """The prompt sent as Enter sends it, without a key (a key would focus the window)."""
    prompt = app.query_one(PromptInput)
    prompt.post_message(PromptInput.Submitted(text))


async def test_unfocused_approval_writes_bell_and_osc777_and_runs_notify_send(
    fake_provider, tmp_path, notify_send
):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "touch b.txt"})]), Reply(text="done")
    )
    project = tmp_path / "shop"
    project.mkdir()
    app = app_for(fake_provider, project, notify_terminal="osc777", notify_desktop=True)
    async with app.run_test(size=SIZE) as pilot:
        written = capture_writes(app)
        app.post_message(events.AppBlur())
        await until(pilot, lambda: not app.app_focus)
        submit(app, "make b")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), FIRST_CALL)
        await until(pilot, lambda: notify_send.exists() and "---" in notify_send.read_text())
        text = "".join(written)
        assert (
            "\x07\x1b]777;notify;agent-tui: shop;"
            "Waits for approval: shell: touch b.txt (“make b”)\x07"
        ) in text
        assert notify_send.read_text().splitlines() == [
            "--app-name=agent-tui",
            "agent-tui: shop",
            "Waits for approval: shell: touch b.txt (“make b”)",
            "---",
        ]

        # The person is back (a key focuses the window): the turn's end is only a toast.
        written.clear()
        await pilot.press("y")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2, FIRST_CALL)
        await pilot.pause(0.2)
        assert app.app_focus
        assert written == []
        assert notify_send.read_text().count("---") == 1


async def test_unfocused_turn_end_writes_osc9_through_tmux(
    fake_provider, tmp_path, notify_send, monkeypatch
):
    monkeypatch.setenv("TERM_PROGRAM", "tmux")
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
    monkeypatch.setenv("KITTY_WINDOW_ID", "3")  # kitty, outside tmux
    fake_provider.script(Reply(text="All done."))
    app = app_for(fake_provider, tmp_path, notify_bell=False)  # notify_terminal auto
    async with app.run_test(size=SIZE) as pilot:
        written = capture_writes(app)
        app.post_message(events.AppBlur())
        await until(pilot, lambda: not app.app_focus)
        submit(app, "say it")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1, FIRST_CALL)
        await until(pilot, lambda: written != [])
        osc = f"\x1b]9;agent-tui: {tmp_path.name}: Turn finished (“say it”)\x07"
        assert written == ["\x1bPtmux;" + osc.replace("\x1b", "\x1b\x1b") + "\x1b\\"]
        await pilot.pause(0.2)
    # auto picked a terminal notification: notify-send would show a second one.
    assert not notify_send.exists()


async def test_focused_window_gets_no_notification(fake_provider, tmp_path, notify_send):
    fake_provider.script(Reply(text="All done."))
    app = app_for(fake_provider, tmp_path, notify_terminal="osc9")
    async with app.run_test(size=SIZE) as pilot:
        written = capture_writes(app)
        submit(app, "say it")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1, FIRST_CALL)
        await pilot.pause(0.2)
        assert app.app_focus
        assert written == []
    assert not notify_send.exists()


async def test_every_channel_off(fake_provider, tmp_path, notify_send):
    fake_provider.script(Reply(text="All done."))
    app = app_for(
        fake_provider, tmp_path, notify_bell=False, notify_terminal="off", notify_desktop=False
    )
    async with app.run_test(size=SIZE) as pilot:
        written = capture_writes(app)
        app.post_message(events.AppBlur())
        await until(pilot, lambda: not app.app_focus)
        submit(app, "say it")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 1, FIRST_CALL)
        await pilot.pause(0.2)
        assert written == []
    assert not notify_send.exists()


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"TERM_PROGRAM": "iTerm.app"}, "osc9"),
        ({"TERM_PROGRAM": "WezTerm"}, "osc9"),
        ({"TERM": "xterm-kitty"}, "osc9"),
        ({"TERM_PROGRAM": "tmux", "LC_TERMINAL": "iTerm2"}, "osc9"),
        ({"TERM_PROGRAM": "ghostty"}, "osc777"),
        ({"TERM": "foot"}, "osc777"),
        ({"TERM": "rxvt-unicode-256color"}, "osc777"),
        ({"VTE_VERSION": "7600"}, "osc777"),
        ({"WT_SESSION": "x"}, "osc777"),
        ({"TERM_PROGRAM": "Apple_Terminal"}, None),
        ({"TERM": "xterm-256color"}, None),
    ],
)
def test_auto_picks_the_protocol_by_the_terminal(env, expected):
    assert terminal_protocol("auto", env) == expected
    assert terminal_protocol("off", env) is None
    assert terminal_protocol("osc777", env) == "osc777"


def test_outside_text_cannot_end_the_sequence():
    """A model's argument with BEL, ESC or a newline stays inside the notification."""
    sequence = osc_sequence("osc777", "a;b", "rm x\x07\x1b]52;c;ZXZpbA==\x07\nthen")
    assert sequence.count("\x07") == 1 and sequence.count("\x1b") == 1
    assert sequence.startswith("\x1b]777;notify;a,b;rm x")
    assert sequence.endswith("then\x07")
