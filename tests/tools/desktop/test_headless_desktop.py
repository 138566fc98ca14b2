"""A headless run of the real agent-tui process whose model operates a desktop program."""

from __future__ import annotations

import json
import os

from tests.fakes.providers import Reply, ToolCall
from tests.tui.cli.test_cli import agent_tui, fake_flags

from .conftest import needs_xvfb

pytestmark = needs_xvfb


def test_the_model_finds_and_presses_a_button(fake_provider, tmp_path, tk_app):
    x, y = tk_app.centre("button")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("list_windows", {}, id="list")]),
        Reply(tool_calls=[ToolCall("take_screenshot", {"window_id": "agent-tui test app",
                                                       "path": str(tmp_path / "app.png")},
                                   id="shot")]),
        Reply(tool_calls=[ToolCall("mouse_click", {"x": x, "y": y}, id="click")]),
        Reply(text="Pressed it."),
    )
    env = {"DISPLAY": os.environ["DISPLAY"], "XAUTHORITY": os.environ["XAUTHORITY"]}
    done = agent_tui("-p", "press the button", "--computer-control", "--approval-mode", "yolo",
                     "--output-format", "stream-json", *fake_flags(fake_provider),
                     cwd=tmp_path, env_extra=env)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]  # nothing but JSON
    got = {e["id"]: e for e in events if e["type"] == "tool_result"}
    assert "agent-tui test app" in got["list"]["output"]
    assert got["shot"]["ok"] and got["shot"]["image_files"] == [str(tmp_path / "app.png")]
    assert got["click"]["ok"], got["click"]["output"]
    assert tk_app.expect("clicked") == "clicked"
    offered = {tool["function"]["name"] for tool in fake_provider.requests[0].tools}
    assert {"list_windows", "find_element", "mouse_click", "type_text"} <= offered


def test_in_default_mode_every_desktop_action_is_refused_without_a_person(fake_provider,
                                                                          tmp_path, tk_app):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("mouse_click", {"x": 5, "y": 5}, id="click"),
                          ToolCall("type_text", {"text": "hi"}, id="type"),
                          ToolCall("take_screenshot", {}, id="shot")]),
        Reply(text="I need your approval."),
    )
    env = {"DISPLAY": os.environ["DISPLAY"], "XAUTHORITY": os.environ["XAUTHORITY"]}
    done = agent_tui("-p", "go", "--computer-control", "--output-format", "stream-json",
                     *fake_flags(fake_provider), cwd=tmp_path, env_extra=env)
    events = [json.loads(line) for line in done.stdout.splitlines()]
    got = {e["id"]: e for e in events if e["type"] == "tool_result"}
    assert not any(got[i]["ok"] for i in ("click", "type", "shot"))
    assert "clicks on the screen" in got["click"]["output"]
    assert "types on the keyboard" in got["type"]["output"]
    assert "looks at the screen" in got["shot"]["output"]
