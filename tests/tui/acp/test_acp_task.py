"""A task's sub-agent over ACP: its calls are tool calls of their own, asked about by the
ids their updates carry."""

from __future__ import annotations

from acp import text_block
from acp.schema import ToolCallProgress, ToolCallStart

from tests.fakes.providers import Reply, ToolCall
from tests.tui.acp.test_acp import RecordingClient, project, start

__all__ = ["project"]  # the fixture, used by name


async def test_a_childs_calls_are_tool_calls_and_its_edit_asks_the_client(
        fake_provider, tmp_path, project):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("task", {"description": "Change the notes",
                                            "prompt": "Replace the first line of notes.txt."})]),
        Reply(tool_calls=[ToolCall("read_file", {"file_path": "notes.txt"})]),
        Reply(tool_calls=[ToolCall("edit_file", {"file_path": "notes.txt",
                                                 "old_string": "first line",
                                                 "new_string": "changed line"})]),
        Reply(text="Replaced it."),
        Reply(text="The sub-agent replaced it."))
    client = RecordingClient(answers=["allow_once"])
    context, conn, _ = await start(client, fake_provider, tmp_path)
    try:
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        reply = await conn.prompt(session_id=new.session_id, prompt=[text_block("change it")])
    finally:
        await context.__aexit__(None, None, None)

    assert reply.stop_reason == "end_turn"
    assert (project / "notes.txt").read_text() == "changed line\n"
    task, read, edit = client.of(ToolCallStart)
    assert task.title == "task: Change the notes"
    assert read.tool_call_id.startswith(f"{task.tool_call_id}/")
    assert edit.kind == "edit" and edit.tool_call_id.startswith(f"{task.tool_call_id}/")
    [(asked, _options)] = client.asked
    assert asked.tool_call_id == edit.tool_call_id
    ended = {u.tool_call_id for u in client.of(ToolCallProgress) if u.status == "completed"}
    assert ended == {task.tool_call_id, read.tool_call_id, edit.tool_call_id}
