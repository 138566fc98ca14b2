"""A snapshot of /config."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from agent_tui.core import paths
from agent_tui.tui.app import make_app
from agent_tui.tui.screens.config import ConfigScreen
from agent_tui.tui.widgets.prompt import PromptInput
from tests.core.loop_helpers import settings_for

SIZE = (120, 30)
PROJECT = Path("/tmp/agent-tui-snapshots/config-project")


def test_config_screen_filtered(snap_compare, fake_provider):
    """/config filtered to "checkpoint": the title "Settings: 3 match the filter", the filter
    field, three rows (checkpoint_max_files, checkpoint_max_file_mb, checkpoint_timeout)
    with value, source and notes; checkpoint_timeout = 8.0 from "project", the others from
    "default", each "next start"; the highlighted row's help below, and the keys line."""
    project_file = paths.project_config_file(PROJECT)
    project_file.parent.mkdir(parents=True, exist_ok=True)
    project_file.write_text("checkpoint_timeout = 8.0\n")
    app = make_app(
        settings_for(fake_provider, checkpoint_timeout=8.0),
        PROJECT,
        load_litellm=False,
        session_id="0123456789ab",
    )

    async def run_before(pilot):
        pilot.app.query_one(PromptInput).cursor_blink = False
        prompt = pilot.app.query_one(PromptInput)
        prompt.text = "/config"
        await pilot.press("enter")
        while not isinstance(pilot.app.screen, ConfigScreen):
            await pilot.pause(0.05)
        screen = pilot.app.screen
        screen.query_one("#config-filter", Input).value = "checkpoint"
        screen.query_one("#config-filter", Input).cursor_blink = False
        await pilot.pause(0.3)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
