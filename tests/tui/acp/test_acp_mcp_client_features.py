"""An ACP client's MCP server asks agent-tui for a form and for the model: the form is
refused (an ACP client has no place for one) and the person told at the next prompt; the
sampling request is put to the client like a tool call and, allowed, runs on the model."""

from __future__ import annotations

from acp import text_block
from acp.schema import McpServerStdio

from agent_tui.core.mcp.host import NO_PERSON_TO_ASK
from tests.core.mcp.everything import everything_entry
from tests.fakes.providers import Reply, ToolCall
from tests.tui.acp.test_acp import RecordingClient, start

TOOL = "mcp__everything__"


async def test_forms_are_refused_and_sampling_is_asked_of_the_client(fake_provider, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    server = McpServerStdio(name="everything", command="node",
                            args=[str(everything_entry()), "stdio"], env=[])
    fake_provider.script(
        Reply(tool_calls=[ToolCall(f"{TOOL}trigger-elicitation-request", {})]),
        Reply(tool_calls=[ToolCall(f"{TOOL}trigger-sampling-request", {"prompt": "a colour"})]),
        Reply(text="Teal."),  # the server's sampling request
        Reply(text="done"),
        Reply(text="noted"))
    # The form's tool call, the sampling tool call, then the sampling request itself.
    client = RecordingClient(answers=["allow_once", "allow_once", "allow_once"])
    context, conn, _ = await start(client, fake_provider, tmp_path)
    try:
        new = await conn.new_session(cwd=str(project), mcp_servers=[server])
        reply = await conn.prompt(session_id=new.session_id, prompt=[text_block("go")])
        assert reply.stop_reason == "end_turn"
        updates_before = len(client.updates)
        await conn.prompt(session_id=new.session_id, prompt=[text_block("and now?")])
    finally:
        await context.__aexit__(None, None, None)
    refused = fake_provider.requests[1].tool_results()[0]["content"]
    assert NO_PERSON_TO_ASK in refused
    assert fake_provider.requests[2].last_user_text() == \
        "Resource trigger-sampling-request context: a colour"
    assert '"text": "Teal."' in fake_provider.requests[3].tool_results()[-1]["content"]
    asked = [call for call, _options in client.asked]
    assert len(asked) == 3 and "MCP server everything asks the model" in str(asked[2])
    told = " ".join(str(update) for update in client.updates[updates_before:])
    assert "asked for information" in told
