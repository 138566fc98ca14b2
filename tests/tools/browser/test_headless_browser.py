"""Headless runs of the real agent-tui process whose model (the fake provider) drives the
browser: the tools are offered with --webdriver, clicks ask first, secrets stay hidden and
no browser outlives the run."""

from __future__ import annotations

import json
import subprocess

from tests.fakes.providers import Reply, ToolCall
from tests.tui.cli.test_cli import agent_tui, fake_flags

from .conftest import needs_browser

pytestmark = needs_browser
SECRET_KEY = "sk-live-0123456789abcdefghijklmnop"


def events_of(done) -> list[dict]:
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def results(events: list[dict]) -> dict[str, dict]:
    return {e["name"] + ":" + e["id"]: e for e in events if e["type"] == "tool_result"}


def chromium_processes() -> list[str]:
    out = subprocess.run(["pgrep", "-a", "-f", "agent-tui-chromium-"], capture_output=True,
                         text=True)
    return out.stdout.splitlines()


def test_the_model_browses_a_local_site_and_a_click_asks_first(fake_provider, tmp_path, site):
    before = chromium_processes()
    fake_provider.script(
        Reply(tool_calls=[ToolCall("webdriver_navigate", {"url": site.base}, id="nav")]),
        Reply(tool_calls=[ToolCall("webdriver_find_element", {"selector": "#heading"},
                                   id="find")]),
        Reply(tool_calls=[ToolCall("webdriver_click", {"selector": "#send"}, id="click")]),
        Reply(text="The page is a sign-up form."),
    )
    done = agent_tui("-p", "what is on the page?", "--webdriver", "--output-format",
                     "stream-json", *fake_flags(fake_provider), cwd=tmp_path)
    events = events_of(done)
    got = results(events)
    assert got["webdriver_navigate:nav"]["ok"]
    assert "Page: Sign up" in got["webdriver_navigate:nav"]["output"]
    assert got["webdriver_find_element:find"]["output"].startswith('<h1 id="heading"> "Sign up"')
    # headless default mode refuses what would need a person's approval
    assert not got["webdriver_click:click"]["ok"]
    assert "clicks in the browser" in got["webdriver_click:click"]["output"]
    assert site.submissions == []
    assert events[-1]["type"] == "result" and "sign-up form" in events[-1]["text"]
    offered = {tool["function"]["name"] for tool in fake_provider.requests[0].tools}
    assert {"webdriver_start", "webdriver_navigate", "webdriver_quit"} <= offered
    assert chromium_processes() == before  # the run closed its browser


def test_without_webdriver_the_browser_tools_are_not_offered(fake_provider, tmp_path):
    fake_provider.script(Reply(text="ok"))
    events_of(agent_tui("-p", "q", "--output-format", "stream-json",
                        *fake_flags(fake_provider), cwd=tmp_path))
    offered = {tool["function"]["name"] for tool in fake_provider.requests[0].tools}
    assert not any(name.startswith("webdriver_") for name in offered)
    assert "take_screenshot" in offered and "mouse_click" not in offered


def test_a_secret_typed_into_a_page_is_redacted_in_output_and_session(fake_provider, tmp_path,
                                                                      site):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("webdriver_navigate", {"url": site.base})]),
        Reply(tool_calls=[ToolCall("webdriver_send_keys", {"selector": "input[name=email]",
                                                           "text": SECRET_KEY})]),
        Reply(tool_calls=[ToolCall("webdriver_execute_script", {
            "script": "return document.querySelector('input[name=email]').value"})]),
        Reply(text="typed"),
    )
    home = tmp_path / ".home"
    done = agent_tui("-p", "log in", "--webdriver", "--approval-mode", "yolo",
                     "--output-format", "stream-json", "--model", "openai/fake-model",
                     "--api-base", fake_provider.openai_base, "--api-key", SECRET_KEY,
                     cwd=tmp_path)
    events = events_of(done)
    typed = [e for e in events if e["type"] == "tool_result"]
    assert all(e["ok"] for e in typed), typed
    assert SECRET_KEY not in done.stdout and SECRET_KEY not in done.stderr
    logs = list(home.rglob("*.jsonl"))
    assert logs and all(SECRET_KEY not in log.read_text() for log in logs)
