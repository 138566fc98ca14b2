"""Approvals in the running workbench: the modal opens from the agent, answers reach it."""

from __future__ import annotations

from agent_tui.core import paths
from agent_tui.core.config import read_toml
from agent_tui.tui.screens.approval import ApprovalScreen
from agent_tui.tui.screens.inbox import InboxScreen
from agent_tui.tui.widgets.conversation import ToolBlock
from agent_tui.tui.widgets.panels import StatusBar
from agent_tui.tui.widgets.prompt import PromptInput
from agent_tui.tui.widgets.tool_log import ToolLog
from tests.fakes.providers import Reply, ToolCall
from tests.tui.test_app import SIZE, app_for, type_prompt, until


def modal(app):
    screen = app.screen
    return screen if isinstance(screen, ApprovalScreen) else None


async def test_y_allows_the_write_and_n_denies_the_command(fake_provider, tmp_path):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("write_file", {"file_path": "a.txt", "content": "A\n"})]),
        Reply(tool_calls=[ToolCall("shell", {"command": "touch b.txt"})]),
        Reply(text="done"),
    )
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "go")
        await until(pilot, lambda: modal(app) is not None)
        assert modal(app).request.tool == "write_file"
        await pilot.press("y")
        await until(pilot, lambda: modal(app) is not None
                    and modal(app).request.tool == "shell")
        await pilot.press("n")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 3)
        assert (tmp_path / "a.txt").read_text() == "A\n"
        assert not (tmp_path / "b.txt").exists()
        statuses = [b.status for b in app.query(ToolBlock)]
        assert statuses == ["ok", "denied"]
        assert "denied by the user" in fake_provider.requests[2].tool_results()[-1]["content"]


async def test_deny_with_a_reason_reaches_the_model(fake_provider, tmp_path):
    fake_provider.script(Reply(tool_calls=[ToolCall("shell", {"command": "make deploy"})]),
                         Reply(text="ok"))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "deploy")
        await until(pilot, lambda: modal(app) is not None)
        await pilot.press("d")
        await pilot.press(*"not on a friday")
        await pilot.press("enter")
        await until(pilot, lambda: len(fake_provider.requests) == 2 and not app.busy)
        told = fake_provider.requests[1].tool_results()[0]["content"]
        assert "not on a friday" in told


async def test_allow_always_saves_the_rule_and_stops_asking(fake_provider, tmp_path):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "touch first.txt"})]),
        Reply(text="Once more.", tool_calls=[ToolCall("shell", {"command": "touch first.txt"})]),
        Reply(text="done"),
    )
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "touch twice")
        await until(pilot, lambda: modal(app) is not None)
        await pilot.press("a", "u")  # always allow, in every project
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 3)
        assert read_toml(paths.user_config_file())["allow_rules"] == ["shell(touch first.txt)"]
        decisions = [r["content"] for r in fake_provider.requests[2].tool_results()]
        assert all("Exit code: 0" in d for d in decisions)


async def test_a_switch_of_model_keeps_the_conversation_and_the_session_rules(
        fake_provider, tmp_path):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "touch first.txt"})]),
        Reply(text="touched"),
        Reply(tool_calls=[ToolCall("shell", {"command": "touch first.txt"})]),
        Reply(text="touched again"),
    )
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "touch it")
        await until(pilot, lambda: modal(app) is not None)
        await pilot.press("a", "s")  # always allow, for this session
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2)
        await type_prompt(pilot, "/model openai/other-model")
        await type_prompt(pilot, "touch it again")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 4)
        assert modal(app) is None  # the session's rule still holds under the new model
    again = fake_provider.requests[2]
    assert again.body["model"] == "other-model"
    sent = [m.get("content") for m in again.messages]
    assert "touch it" in sent and "touched" in sent and "touch it again" in sent
    assert "Exit code: 0" in fake_provider.requests[3].tool_results()[0]["content"]


async def test_edit_the_command_before_it_runs_and_see_it_as_it_ran(fake_provider, tmp_path):
    fake_provider.script(Reply(tool_calls=[ToolCall("shell", {"command": "touch wrong.txt"})]),
                         Reply(text="ok"))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "make a file")
        await until(pilot, lambda: modal(app) is not None)
        await pilot.press("e")
        await pilot.pause()
        editor = app.screen.focused
        editor.value = "touch right.txt"
        await pilot.press("enter")
        await until(pilot, lambda: len(fake_provider.requests) == 2 and not app.busy)
        assert (tmp_path / "right.txt").exists() and not (tmp_path / "wrong.txt").exists()
        told = fake_provider.requests[1].tool_results()[0]["content"]
        assert "edited this call" in told and "touch right.txt" in told
        (block,) = app.query(ToolBlock)
        assert (block.status, block.summary) == ("ok", "shell: touch right.txt")
        assert str(block.render()).startswith("▸ ✓ edited: shell: touch right.txt")
        block.action_toggle()
        shown = str(block.render())
        assert "the model proposed: shell: touch wrong.txt" in shown
        assert '"command": "touch right.txt"' in shown
        log = app.query_one(ToolLog)
        (record,) = log.records.values()
        assert record.args["command"] == "touch right.txt"
        cells = [str(cell) for cell in log.table.get_row(record.call_id)]
        assert cells[2:4] == ["edited: touch right.txt", "ok"]


async def test_parallel_approvals_queue_and_show_the_count(fake_provider, tmp_path):
    (tmp_path.parent / "outside-1.txt").write_text("1")
    (tmp_path.parent / "outside-2.txt").write_text("2")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"file_path": str(tmp_path.parent / n)})
                          for n in ("outside-1.txt", "outside-2.txt")]),
        Reply(text="read both"),
    )
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "read the files outside")
        await until(pilot, lambda: modal(app) is not None and modal(app).waiting == 1)
        first = modal(app)
        await pilot.press("y")
        await until(pilot, lambda: modal(app) not in (None, first))
        assert modal(app).waiting == 0
        await pilot.press("y")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2)
        contents = [r["content"] for r in fake_provider.requests[1].tool_results()]
        assert "1" in contents[0] and "2" in contents[1]


async def test_a_cancel_ends_every_call_of_the_response_as_cancelled(fake_provider, tmp_path):
    marker = tmp_path / "started"
    fake_provider.script(Reply(tool_calls=[
        ToolCall("shell", {"command": f"touch {marker}; sleep 30"}),
        ToolCall("shell", {"command": "touch never.txt"}),
    ]))
    app = app_for(fake_provider, tmp_path, approval_mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "run them")
        await until(pilot, lambda: marker.exists())
        await pilot.press("escape")
        await until(pilot, lambda: not app.busy)
        await until(pilot, lambda: all(b.status == "cancelled" for b in app.query(ToolBlock)))
        blocks = list(app.query(ToolBlock))
        assert len(blocks) == 2 and all(b.has_class("failed") for b in blocks)
        assert "⊗" in str(blocks[0].render())
        statuses = [r.status for r in app.query_one(ToolLog).records.values()]
        assert statuses == ["cancelled", "cancelled"]


async def test_keys_typed_as_the_modal_opens_do_not_answer_it(fake_provider, tmp_path):
    fake_provider.script(Reply(tool_calls=[ToolCall("shell", {"command": "touch made.txt"})]),
                         Reply(text="made"))
    # A guard far longer than the workbench's half second: the keys below come inside it
    # however long a loaded machine takes to show the modal.
    app = app_for(fake_provider, tmp_path, approval_key_guard=30.0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "make a file")
        await until(pilot, lambda: modal(app) is not None)
        screen = modal(app)
        assert screen.has_class("-guarded")
        assert "i: answer later, in the approval inbox  (keys work in 30 s)" in str(
            screen.query_one("#keys").render())
        await pilot.press("n", "o", "y", "e", "s", "escape", "i", "a", "u", "d")
        await pilot.pause(0.3)
        assert modal(app) is screen and screen.mode == "menu"
        (waiting,) = app.approver.pending
        assert not waiting.answer.done() and not waiting.later and app.busy
        assert len(fake_provider.requests) == 1 and not (tmp_path / "made.txt").exists()


async def test_i_leaves_the_call_in_the_inbox_and_the_prompt_gets_the_keys(
        fake_provider, tmp_path):
    fake_provider.script(Reply(tool_calls=[ToolCall("shell", {"command": "touch made.txt"})]),
                         Reply(text="made"))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "make a file")
        await until(pilot, lambda: modal(app) is not None)
        keys = str(modal(app).query_one("#keys").render())
        assert "i: answer later, in the approval inbox" in keys
        await pilot.press("i")
        await until(pilot, lambda: modal(app) is None)
        await pilot.press("n", "o")
        await pilot.pause(0.3)
        prompt = app.query_one(PromptInput)
        assert app.focused is prompt and prompt.text == "no"
        assert modal(app) is None and not isinstance(app.screen, InboxScreen)
        (waiting,) = app.approver.pending
        assert waiting.request.tool == "shell" and app.busy
        assert app.query_one(StatusBar).inbox == 1
        assert "1 awaiting approval (F8)" in str(app.query_one(StatusBar).render())
        assert [b.status for b in app.query(ToolBlock)] == ["approval"]
        await pilot.press("f8")
        await until(pilot, lambda: isinstance(app.screen, InboxScreen))
        await pilot.press("y")
        await until(pilot, lambda: not app.busy and len(fake_provider.requests) == 2)
        assert (tmp_path / "made.txt").exists()
        assert prompt.text == "no"
