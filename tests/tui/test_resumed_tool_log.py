"""A resumed session's tool log: each call keeps the time it was recorded at."""

from __future__ import annotations

import time
from pathlib import Path

from agent_tui.core.config import Settings
from agent_tui.core.sessions.log import SessionStore
from agent_tui.core.sessions.start import close_session, open_session
from agent_tui.tui.app import make_app
from agent_tui.tui.widgets.tool_log import ToolLog
from tests.tui.test_app import SIZE, until

T0 = 1_767_225_600.0  # 2026-01-01 00:00 UTC


async def test_a_resumed_calls_time_is_the_time_it_was_recorded(tmp_path: Path) -> None:
    with SessionStore.create("earlier", project=tmp_path, model="openai/fake-model") as store:
        for n, at in enumerate((T0 + 3_725.0, T0 + 7_384.0)):  # 01:02:05 and 02:03:04 UTC
            store.append({"type": "user_message", "text": f"prompt {n}", "ts": at - 1})
            store.append(
                {
                    "type": "tool_call",
                    "id": f"c{n}",
                    "name": "read_file",
                    "args": {"file_path": "m.py"},
                    "summary": "read_file m.py",
                    "ts": at,
                }
            )
            store.append(
                {
                    "type": "tool_result",
                    "id": f"c{n}",
                    "name": "read_file",
                    "ok": True,
                    "output": "x = 1",
                    "duration": 0.01,
                    "ts": at + 1,
                }
            )
            store.append(
                {"type": "assistant_message", "text": f"answer {n}", "tool_calls": [], "ts": at + 2}
            )

    opened = open_session(tmp_path, "openai/fake-model", resume="earlier")
    app = make_app(
        Settings(model="openai/fake-model"), tmp_path, load_litellm=False, session=opened
    )
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(ToolLog).table
        await until(pilot, lambda: table.row_count == 2)
        shown = [str(table.get_row_at(row)[0]) for row in range(2)]
        records = app.query_one(ToolLog).records
        started = [records["c0"].started, records["c1"].started]
    close_session(opened)
    assert started == [T0 + 3_725.0, T0 + 7_384.0]
    assert shown == [time.strftime("%H:%M:%S", time.localtime(at)) for at in started]
