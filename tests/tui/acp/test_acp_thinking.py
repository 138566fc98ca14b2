"""ACP: the model's reasoning reaches the client as ``agent_thought_chunk`` updates, live
and when a session is loaded, through the real agent process and the fake provider."""

from __future__ import annotations

from acp import text_block
from acp.schema import AgentMessageChunk, AgentThoughtChunk

from tests.fakes.providers import Reply
from tests.tui.acp.test_acp import RecordingClient, project, start  # noqa: F401

THOUGHT = "The person says hi. A short greeting back is enough."


def _thoughts(client: RecordingClient, session_id: str) -> str:
    return "".join(u.content.text for u in client.of(AgentThoughtChunk, session_id))


async def test_reasoning_streams_as_thought_chunks_live_and_on_load(fake_provider, tmp_path,
                                                                    project):  # noqa: F811
    fake_provider.script(Reply(text="Hello!", thinking=THOUGHT, chunk_size=6))
    client = RecordingClient()
    context, conn, _ = await start(client, fake_provider, tmp_path)
    try:
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("say hi")])
    finally:
        await context.__aexit__(None, None, None)
    assert _thoughts(client, new.session_id) == THOUGHT  # streamed once, not again whole
    assert len(client.of(AgentThoughtChunk, new.session_id)) > 1
    kinds = [type(u) for _, u in client.updates
             if isinstance(u, AgentThoughtChunk | AgentMessageChunk)]
    assert kinds.index(AgentThoughtChunk) < kinds.index(AgentMessageChunk)

    later = RecordingClient()
    context, conn, _ = await start(later, fake_provider, tmp_path)
    try:
        await conn.load_session(cwd=str(project), session_id=new.session_id, mcp_servers=[])
    finally:
        await context.__aexit__(None, None, None)
    assert _thoughts(later, new.session_id) == THOUGHT
