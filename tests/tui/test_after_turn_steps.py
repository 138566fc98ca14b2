"""lint_command in the workbench: each run a block of its own (command, status, exit code,
the output's end), a failure marked as sent to the model; a resumed session shows them again."""

from __future__ import annotations

from agent_tui.core.sessions.start import close_session, open_session
from agent_tui.tui.app import make_app
from agent_tui.tui.widgets.tool_block import ToolBlock
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import Reply, ToolCall
from tests.tui.test_app import SIZE, type_prompt, until


def write(content: str) -> Reply:
    return Reply(tool_calls=[ToolCall("write_file", {"file_path": "a.py", "content": content})])


def check_blocks(app) -> list[ToolBlock]:
    return [b for b in app.query(ToolBlock) if b.summary.startswith("lint: ")]


async def test_each_lint_run_is_a_block_and_a_resumed_session_shows_them(fake_provider,
                                                                         tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    marker = tmp_path / "linted-once"
    lint = f"[ -e {marker} ] || {{ touch {marker}; echo 'a.py:1: E225 rude'; exit 1; }}; true"
    settings = settings_for(fake_provider, approval_mode="yolo", lint_command=lint)
    opened = open_session(project, settings.model)
    app = make_app(settings, project, load_litellm=False, session=opened)
    fake_provider.script(write("x=1\n"), Reply(text="Done."), write("x = 1\n"),
                         Reply(text="Fixed."))
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "write a")
        # Generous: the session's first turn also starts the model library.
        await until(pilot, lambda: len(fake_provider.requests) == 4 and not app.busy,
                    timeout=90)
        await until(pilot, lambda: len(check_blocks(app)) == 2)
        failed, passed = check_blocks(app)
        assert failed.summary == f"lint: {lint}" and failed.status == "error"
        assert failed.note == "exit 1 · sent to the model to fix"
        assert "E225 rude" in failed.output
        assert passed.status == "ok" and passed.note == ""
    session_id = app.session_id
    close_session(app.opened)

    resumed = make_app(settings, project, load_litellm=False,
                       session=open_session(project, settings.model, resume=session_id))
    async with resumed.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: len(check_blocks(resumed)) == 2)
        assert [b.status for b in check_blocks(resumed)] == ["error", "ok"]
        assert "E225 rude" in check_blocks(resumed)[0].output
    close_session(resumed.opened)
