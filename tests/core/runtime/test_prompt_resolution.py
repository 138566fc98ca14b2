"""One path for a prompt, whatever the front end: an MCP server's ``@server:uri`` resource
attaches, and a custom command's ``model:`` is honoured, in ``-p`` (the real command), in
an ACP session (the ACP package's own client over stdio) and in the workbench (pilot); each
against the fake provider through litellm and real HTTP, with a real MCP stdio server."""

from __future__ import annotations

import io
import sys
import textwrap
from pathlib import Path

from acp import text_block

from agent_tui.core.context.repo_map_render import REPO_MAP_PREFIX
from agent_tui.core.custom_commands import load_custom_commands
from agent_tui.core.runtime.prompt_resolution import resolve_prompt
from agent_tui.tui.cli.headless import run_headless
from tests.core.loop_helpers import settings_for
from tests.fakes.providers import Reply
from tests.tui.acp.test_acp import RecordingClient, start
from tests.tui.cli.test_cli import agent_tui, fake_flags
from tests.tui.test_app import SIZE, app_for, type_prompt, until
from tests.tui.test_mcp_workbench import PROMPTS_SERVER
from tests.tui.test_prompt_images import VISION, _image_parts, _png

BRIEF = textwrap.dedent("""\
    ---
    description: A brief answer from another model
    model: openai/other-model
    ---
    Answer briefly: $ARGUMENTS
""")


def _docs_server(home: Path, folder: Path) -> None:
    """The ``docs`` server (a resource ``notes://today``) in the user's config.toml."""
    script = folder / "docs_server.py"
    script.write_text(PROMPTS_SERVER)
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'[mcp_servers.docs]\ncommand = "{sys.executable}"\nargs = ["{script}"]\n')


def _brief_command(project: Path) -> None:
    commands = project / ".agent-tui" / "commands"
    commands.mkdir(parents=True)
    (commands / "brief.md").write_text(BRIEF)


def _posts(fake) -> list:
    return [r for r in fake.requests if r.method == "POST"]


def _prompt_of(request) -> str:
    """The text of the request's last user message that is the person's prompt (the
    repository map of the project's docs_server.py follows it)."""
    texts = [m["content"] for m in request.messages
             if m.get("role") == "user" and isinstance(m.get("content"), str)]
    return next(t for t in reversed(texts) if not t.startswith(REPO_MAP_PREFIX))


def test_dash_p_attaches_an_mcp_resource(fake_provider, tmp_path):
    _docs_server(tmp_path / ".home", tmp_path)
    fake_provider.script(Reply(text="At noon."))
    done = agent_tui("-p", "what is planned? @docs:notes://today", *fake_flags(fake_provider),
                     cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    sent = _prompt_of(_posts(fake_provider)[0])
    assert sent.startswith("what is planned? @docs:notes://today")
    assert 'uri="notes://today"' in sent and "ship the release at noon" in sent


def test_dash_p_says_what_it_could_not_attach(fake_provider, tmp_path):
    _docs_server(tmp_path / ".home", tmp_path)
    fake_provider.script(Reply(text="Nothing there."))
    done = agent_tui("-p", "read @docs:notes://missing", *fake_flags(fake_provider),
                     cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "agent-tui: warning: Not attached: @docs:notes://missing" in done.stderr
    assert "<resource" not in _prompt_of(_posts(fake_provider)[0])


async def test_dash_p_attaches_the_images_its_text_names(fake_provider, tmp_path):
    _png(tmp_path / "shot.png")
    fake_provider.script(Reply(text="A red rectangle."))
    out, err = io.StringIO(), io.StringIO()
    code = await run_headless(settings_for(fake_provider, model=VISION), tmp_path,
                              "what is in @shot.png and @gone.png?", "text", out, err)
    assert code == 0, err.getvalue()
    assert len(_image_parts(fake_provider.requests[0])) == 1
    assert "agent-tui: warning: Not attached: " in err.getvalue() and "gone.png" in err.getvalue()


def test_dash_p_runs_a_custom_command_on_its_model(fake_provider, tmp_path):
    _brief_command(tmp_path)
    fake_provider.script(Reply(text="Short."))
    done = agent_tui("-p", "/brief why is the sky blue", *fake_flags(fake_provider),
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [request] = _posts(fake_provider)
    assert request.body["model"] == "other-model"
    assert request.last_user_text() == "Answer briefly: why is the sky blue"


async def test_an_acp_prompt_attaches_a_resource_and_runs_a_command_on_its_model(
        fake_provider, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    _brief_command(project)
    _docs_server(tmp_path / ".home", tmp_path)
    fake_provider.script(Reply(text="At noon."), Reply(text="Short."), Reply(text="Back."))
    client = RecordingClient()
    context, conn, _ = await start(client, fake_provider, tmp_path)
    try:
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        replies = [await conn.prompt(session_id=new.session_id, prompt=[text_block(typed)])
                   for typed in ("what is planned? @docs:notes://today", "/brief and why",
                                 "thanks")]
    finally:
        await context.__aexit__(None, None, None)
    assert [r.stop_reason for r in replies] == ["end_turn"] * 3
    first, brief, after = _posts(fake_provider)
    assert "ship the release at noon" in first.last_user_text()
    assert brief.body["model"] == "other-model"
    assert brief.last_user_text() == "Answer briefly: and why"
    # The command's model hands the conversation back: the session's model goes on with it.
    assert after.body["model"] == "fake-model"
    assert "Short." in str(after.messages)


async def test_the_workbench_attaches_resources_and_runs_a_command_on_its_model(
        fake_provider, tmp_path, agent_tui_home):
    _docs_server(agent_tui_home, tmp_path)
    _brief_command(tmp_path)
    (tmp_path / ".agent-tui" / "commands" / "plan.md").write_text(
        "What is planned today? @docs:notes://today\n")
    fake_provider.script(Reply(text="At noon."), Reply(text="Short."), Reply(text="Back."))
    app = app_for(fake_provider, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.knowledge.knowledge is not None
                    and app.outside_tools.manager is not None
                    and app.outside_tools.manager.servers["docs"].state == "ready", timeout=30)
        for number, typed in enumerate(("/plan", "/brief and why", "thanks"), 1):
            await type_prompt(pilot, typed)
            await until(pilot, lambda n=number: not app.busy
                        and len(_posts(fake_provider)) == n, timeout=30)
    plan, brief, after = _posts(fake_provider)
    assert "ship the release at noon" in _prompt_of(plan)
    assert brief.body["model"] == "other-model"
    assert after.body["model"] == "fake-model" and "Short." in str(after.messages)


async def test_resolution_without_servers_or_commands_is_the_prompt_as_typed(tmp_path):
    commands = load_custom_commands(tmp_path)
    resolved = await resolve_prompt("/unknown @docs:notes://today", tmp_path, commands)
    assert resolved.text == "/unknown @docs:notes://today"
    assert (resolved.images, resolved.model, resolved.warnings) == ((), None, ())
