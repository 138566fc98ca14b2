"""The workbench's first frame comes before pydantic, the engine and litellm: it is drawn
from settings a cheap check vouched for, which pydantic builds right after it."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

import pytest

from agent_tui.core.config import (
    CheckedSettings,
    ConfigError,
    SettingsSources,
    load_settings,
    read_settings,
)
from agent_tui.tui.app import AgentApp, make_app
from agent_tui.tui.cli import main as cli
from agent_tui.tui.widgets.panels import StatusBar
from tests.tui.cli.test_cli import agent_tui
from tests.tui.test_app import until

SIZE = (120, 40)


@pytest.fixture(autouse=True)
def no_agent_tui_variables(monkeypatch):
    for name in list(os.environ):
        if name.upper().startswith("AGENT_TUI_") and name.upper() != "AGENT_TUI_HOME":
            monkeypatch.delenv(name)


async def test_first_frame_from_checked_settings_then_pydantic_builds_them(tmp_path,
                                                                          monkeypatch):
    monkeypatch.setenv("AGENT_TUI_APPROVAL_MODE", "auto-edit")
    checked = read_settings(tmp_path, {"model": "openai/flag", "network": True}).checked()
    assert isinstance(checked, CheckedSettings)
    app = make_app(checked, tmp_path, load_litellm=False)
    assert app._settings is None  # nothing built before the first frame
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        status = app.query_one(StatusBar)
        assert (status.model, status.mode, status.network) == ("openai/flag", "auto-edit", True)
        # Built right after the first frame, in start-up's thread (not on the loop).
        await until(pilot, lambda: app._settings is not None)
        expected = load_settings(tmp_path, {"model": "openai/flag", "network": True}).settings
        assert app.settings.model_dump() == expected.model_dump()
        app.update_settings(approval_mode="plan")
        assert app.settings.approval_mode == "plan"
    assert app.config_error is None


async def test_settings_pydantic_refuses_after_the_first_frame_end_the_app(tmp_path,
                                                                           monkeypatch):
    checked = read_settings(tmp_path, {"model": "openai/flag"}).checked()

    def refuse(self):
        raise ConfigError("invalid setting (max_turns: too many). Check the flags.")

    monkeypatch.setattr(SettingsSources, "validate", refuse)
    app = make_app(checked, tmp_path, load_litellm=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.config_error is not None)
    assert app.config_error == "invalid setting (max_turns: too many). Check the flags."
    assert app.return_code == 2


def test_the_command_line_reports_what_pydantic_refused_after_the_first_frame(
        tmp_path, monkeypatch, capsys):
    def run(self):
        self.config_error = "invalid setting (max_turns: too many). Check the flags."

    monkeypatch.setattr(AgentApp, "run", run)
    try:
        assert cli.main([str(tmp_path), "--model", "openai/x"]) == cli.EXIT_USAGE
    finally:
        gc.enable()  # the command line turns collections off for the workbench's start-up
    err = capsys.readouterr().err
    assert err == "agent-tui: error: invalid setting (max_turns: too many). Check the flags.\n"


@pytest.mark.parametrize(("config", "env", "message"), [
    ("model = = 1\n", {}, "config.toml is not valid TOML"),
    ("", {"AGENT_TUI_APPROVAL_MODE": "reckless"}, "invalid setting (approval_mode"),
    ('max_turns = 0\n', {}, "invalid setting (max_turns"),
    ('allow_rules = ["shell(git status"]\n', {}, "invalid setting (allow_rules"),
])
def test_a_bad_config_stops_the_workbench_before_its_first_frame(tmp_path, config, env,
                                                                 message):
    (tmp_path / ".home").mkdir()
    (tmp_path / ".home" / "config.toml").write_text(config)
    done = agent_tui("--model", "openai/x", cwd=tmp_path, env_extra=env)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()  # the one line, no usage banner before it
    assert line.startswith("agent-tui: error: ") and message in line
    assert done.stdout == ""


FIRST_FRAME_PROBE = """
import sys
from textual.app import App
from agent_tui.tui.cli import main as cli
from agent_tui.tui.app import AgentApp

run = App.run
App.run = lambda self, **kwargs: run(self, headless=True, size=(120, 40), **kwargs)
after = AgentApp._after_first_frame

def probe(self):
    loaded = sorted({m.split(".")[0] if not m.startswith("agent_tui") else m
                     for m in sys.modules})
    status = self.query_one("#status")
    print("STATUS", status.model, status.mode, status.network)
    print("LOADED", " ".join(loaded))
    after(self)
    print("BUILT", type(self.settings).__name__, self.settings.approval_mode)
    self.exit()

AgentApp._after_first_frame = probe
sys.exit(cli.main(sys.argv[1:]))
"""


def test_the_first_frame_loads_neither_pydantic_nor_the_engine_nor_litellm(tmp_path):
    env = {k: v for k, v in os.environ.items()
           if not k.endswith("_API_KEY") and not k.startswith("AGENT_TUI_")}
    env.update(AGENT_TUI_HOME=str(tmp_path / ".home"), AGENT_TUI_APPROVAL_MODE="plan")
    done = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME_PROBE, str(tmp_path), "--model", "openai/probe",
         "--net"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
    assert lines["STATUS"] == "openai/probe plan True"
    loaded = set(lines["LOADED"].split())
    assert "textual" in loaded
    unwanted = {"pydantic", "pydantic_settings", "litellm", "openai", "markdown_it",
                "tree_sitter_language_pack", "agent_tui.core.agent", "agent_tui.core.events",
                "agent_tui.core.approval", "agent_tui.tools.base", "agent_tui.tools.builtin",
                "agent_tui.tools.registry", "agent_tui.tui.workbench.event_view",
                "agent_tui.tui.workbench.approver", "agent_tui.tui.workbench.bridge"}
    assert loaded & unwanted == set()
    assert lines["BUILT"] == "Settings plan"


async def test_start_up_builds_the_settings_and_imports_in_its_thread_then_loads_knowledge(
        tmp_path, monkeypatch):
    import threading

    from agent_tui.tui.workbench import start_up as start_up_module

    (tmp_path / "AGENTS.md").write_text("Answer in haiku.\n")
    where: dict[str, threading.Thread] = {}
    build = CheckedSettings.build
    preload = start_up_module.preload_start_up

    def building(self):
        where["settings"] = threading.current_thread()
        return build(self)

    def preloading():
        where["imports"] = threading.current_thread()
        preload()

    monkeypatch.setattr(CheckedSettings, "build", building)
    monkeypatch.setattr(start_up_module, "preload_start_up", preloading)
    checked = read_settings(tmp_path, {"model": "openai/flag"}).checked()
    app = make_app(checked, tmp_path, load_litellm=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.knowledge.knowledge is not None)
        assert "Answer in haiku." in app.knowledge.knowledge.instructions.prompt_section()
    assert where["settings"] is where["imports"] is not threading.main_thread()
