"""``/compact [FOCUS]`` and ``!COMMAND`` through the real ``agent-tui -p`` (a recorded session
compacted and continued) and an ACP session (the ACP package's own client over stdio), against
the fake provider through litellm and real HTTP."""

from __future__ import annotations

import json

from acp import text_block
from acp.schema import AgentMessageChunk, AvailableCommandsUpdate, ToolCallStart

from agent_tui.core.sessions.history import SUMMARY_PREFIX
from tests.fakes.providers import Reply
from tests.tui.acp.test_acp import RecordingClient, start
from tests.tui.cli.test_cli import agent_tui, fake_flags


def _posts(fake) -> list:
    return [r for r in fake.requests if r.method == "POST"]


def test_dash_p_compact_compacts_the_continued_session_and_it_stays_compacted(
    fake_provider, tmp_path
):
    fake_provider.script(
        Reply(text="The parser lives in parse.py."),
        Reply(text="Task: fix the parser in parse.py."),
        Reply(text="Going on from the summary."),
    )
    first = agent_tui("-p", "where is the parser?", *fake_flags(fake_provider), cwd=tmp_path)
    assert first.returncode == 0, first.stderr

    done = agent_tui(
        "-p", "/compact the parser", "--continue", *fake_flags(fake_provider), cwd=tmp_path
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Compacted the conversation: ")
    assert "Task: fix the parser in parse.py." in done.stdout
    asked = _posts(fake_provider)[1]
    assert "condense" in asked.messages[0]["content"]
    assert "focus on: the parser" in asked.last_user_text()
    assert "where is the parser?" in asked.last_user_text()

    again = agent_tui("-p", "go on", "--continue", *fake_flags(fake_provider), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    sent = [m.get("content") for m in _posts(fake_provider)[2].messages]
    assert f"{SUMMARY_PREFIX}\n\nTask: fix the parser in parse.py." in sent
    assert "where is the parser?" not in sent and sent[-1] == "go on"


def test_dash_p_bang_prints_the_output_records_it_and_the_next_prompt_carries_it(
    fake_provider, tmp_path
):
    (tmp_path / "notes.txt").write_text("ship at noon\n")
    fake_provider.script(Reply(text="At noon."))

    done = agent_tui("-p", "!cat notes.txt", *fake_flags(fake_provider), cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert done.stdout == "ship at noon\nExit code: 0\n"
    assert _posts(fake_provider) == []
    again = agent_tui("-p", "when?", "--continue", *fake_flags(fake_provider), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    asked = _posts(fake_provider)[0].last_user_text()
    assert "$ cat notes.txt\nship at noon\nExit code: 0" in asked and asked.endswith("when?")


def test_dash_p_bang_is_refused_as_the_shell_tool_is(fake_provider, tmp_path):
    (tmp_path / "keep.txt").write_text("x")
    done = agent_tui("-p", "!rm keep.txt", *fake_flags(fake_provider), cwd=tmp_path)
    assert done.returncode == 1
    assert (tmp_path / "keep.txt").exists()
    assert "rm keep.txt" in done.stderr


async def test_acp_offers_compact_and_runs_it_and_bang_commands(fake_provider, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    fake_provider.script(
        Reply(text="Hello."), Reply(text="Task: greet."), Reply(text="Still here.")
    )
    client = RecordingClient()
    context, conn, _ = await start(client, fake_provider, tmp_path)
    try:
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("hi")])
        compacted = await conn.prompt(
            session_id=new.session_id, prompt=[text_block("/compact the greeting")]
        )
        ran = await conn.prompt(session_id=new.session_id, prompt=[text_block("!echo acp-bang")])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("and?")])
    finally:
        await context.__aexit__(None, None, None)
    offered = client.of(AvailableCommandsUpdate)[0].available_commands
    assert "compact" in [command.name for command in offered]
    assert compacted.stop_reason == "end_turn" and ran.stop_reason == "end_turn"
    posts = _posts(fake_provider)
    assert "focus on: the greeting" in posts[1].last_user_text()
    assert "context compacted" in client.text()
    assert any(isinstance(u, ToolCallStart) and u.kind == "execute" for _, u in client.updates)
    last = json.dumps(posts[2].messages)
    assert "acp-bang" in last and "Task: greet." in last
    assert isinstance(client.of(AgentMessageChunk)[-1], AgentMessageChunk)
