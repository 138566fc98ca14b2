"""The session switcher (F9) counts the front session as it counts the background ones."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.core.sessions.start import close_session, open_session
from agent_tui.tui.app import make_app
from agent_tui.tui.screens.session_switcher import SessionSwitcher
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import Reply, ToolCall
from tests.tui.test_app import SIZE, type_prompt, until
from tests.tui.workbench.test_background_sessions import by_prompt, screen_of


def row(switcher: SessionSwitcher, session_id: str) -> list[str]:
    """The switcher's cells of ``session_id``: session, state, model calls, cost, files…"""
    table = switcher.query_one("#sessions")
    return [str(cell) for cell in table.get_row_at(switcher._ids.index(session_id))]


async def test_the_front_session_shows_its_model_calls_cost_and_files(
    fake_provider: Any, tmp_path: Path
) -> None:
    fake_provider.responder = by_prompt(
        {
            "write the notes": [
                Reply(
                    tool_calls=[
                        ToolCall("write_file", {"file_path": "notes.txt", "content": "notes\n"})
                    ],
                    usage=(1000, 10),
                ),
                Reply(text="Notes written.", usage=(1100, 20)),
            ],
            "other work": [Reply(text="Other work answered.", usage=(500, 5))],
        }
    )
    settings = settings_for(fake_provider, model="openai/gpt-4o", approval_mode="yolo")
    app = make_app(
        settings, tmp_path, load_litellm=False, session=open_session(tmp_path, settings.model)
    )
    async with app.run_test(size=SIZE) as pilot:
        front_id = app.session_id
        await type_prompt(pilot, "write the notes")
        # The first prompt loads litellm: slow on a loaded machine.
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2, 60)
        cost = app.agent.usage.cost
        assert cost  # litellm prices gpt-4o
        await pilot.press("f9")
        await until(pilot, lambda: screen_of(app, SessionSwitcher) is not None)
        front = row(screen_of(app, SessionSwitcher), front_id)
        assert front[2:5] == ["2", f"${cost:.4f}", "1"]
        await pilot.press("escape")

        # In the background it keeps its tally; the one in front counts its own.
        await type_prompt(pilot, "/bg other work")
        await until(
            pilot,
            lambda: (
                len(fake_provider.requests) == 3
                and not any(s.running for s in app.background.sessions.values())
            ),
        )
        back_id = next(iter(app.background.sessions))
        await type_prompt(pilot, f"/switch {back_id}")
        await until(pilot, lambda: app.session_id == back_id)
        await pilot.press("f9")
        await until(pilot, lambda: screen_of(app, SessionSwitcher) is not None)
        switcher = screen_of(app, SessionSwitcher)
        assert row(switcher, front_id)[2:5] == ["2", f"${cost:.4f}", "1"]
        assert row(switcher, back_id)[2] == "1"
        await pilot.press("escape")
    close_session(app.opened)
