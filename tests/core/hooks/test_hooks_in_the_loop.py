"""Hooks around the real agent loop: litellm over HTTP to the fake provider, real hook
processes configured in the user's config.toml."""

from __future__ import annotations

import textwrap

from tests.core.loop_helpers import run
from tests.fakes.providers import Reply, ToolCall


def _hooks(home, toml: str) -> None:
    (home / "config.toml").write_text(textwrap.dedent(toml))


def _script(folder, name: str, body: str):
    path = folder / name
    path.write_text("#!/usr/bin/env bash\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return path


async def test_a_pre_tool_use_hook_denies_a_call_with_its_reason(
        fake_provider, tmp_path, agent_tui_home):
    hook = _script(tmp_path, "guard.sh", """\
        input=$(cat)
        case "$input" in *rm*) echo "no deleting files in this repo" >&2; exit 2;; esac
        exit 0
    """)
    _hooks(agent_tui_home, f"""\
        [[hooks.PreToolUse]]
        matcher = "shell"
        command = "{hook}"
    """)
    (tmp_path / "keep.txt").write_text("precious\n")
    fake_provider.script(Reply(tool_calls=[ToolCall("shell", {"command": "rm keep.txt"})]),
                         Reply(text="ok"))

    outcome = await run(fake_provider, tmp_path, approval_mode="yolo")

    assert (tmp_path / "keep.txt").exists()
    told = fake_provider.requests[1].tool_results()[0]["content"]
    assert "PreToolUse hook denied it" in told and "no deleting files" in told
    assert outcome.of_type("approval")[0]["by"] == "hook"


async def test_a_hook_s_allow_runs_what_would_ask_but_not_what_a_rule_denies(
        fake_provider, tmp_path, agent_tui_home):
    allow = ('{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
             '"permissionDecision": "allow", "permissionDecisionReason": "CI script"}}')
    hook = _script(tmp_path, "allow.sh", f"cat >/dev/null; echo '{allow}'\n")
    _hooks(agent_tui_home, f"""\
        [[hooks.PreToolUse]]
        command = "{hook}"
    """)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("shell", {"command": "touch allowed.txt"})]),
        Reply(tool_calls=[ToolCall("shell", {"command": "touch denied.txt"})]),
        Reply(text="ok"))

    # Default mode: headless would refuse both; a deny rule refuses the second.
    outcome = await run(fake_provider, tmp_path, deny_rules=["shell(touch denied.txt)"])

    assert (tmp_path / "allowed.txt").exists()
    assert not (tmp_path / "denied.txt").exists()
    reasons = [a["reason"] for a in outcome.of_type("approval")]
    assert "allowed by a PreToolUse hook: CI script" in reasons[0]
    assert "denied by the rule" in reasons[1]


async def test_post_tool_use_feedback_reaches_the_model_and_a_failure_is_shown(
        fake_provider, tmp_path, agent_tui_home):
    lint = _script(tmp_path, "lint.sh", "cat >/dev/null; echo 'line 3 is too long' >&2; exit 2\n")
    broken = _script(tmp_path, "broken.sh", "cat >/dev/null; echo 'boom' >&2; exit 1\n")
    _hooks(agent_tui_home, f"""\
        [[hooks.PostToolUse]]
        matcher = "write_file"
        command = "{lint}"
        [[hooks.PostToolUse]]
        command = "{broken}"
    """)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("write_file", {"file_path": "a.py", "content": "x = 1\n"})]),
        Reply(text="ok"))

    outcome = await run(fake_provider, tmp_path, approval_mode="auto-edit")

    told = fake_provider.requests[1].tool_results()[0]["content"]
    assert "PostToolUse hook: line 3 is too long" in told
    errors = [e["message"] for e in outcome.of_type("error")]
    assert any("exited 1" in e and "boom" in e for e in errors), errors
    assert outcome.code == 0


async def test_a_user_prompt_submit_hook_blocks_a_prompt_before_the_model_sees_it(
        fake_provider, tmp_path, agent_tui_home):
    hook = _script(tmp_path, "block.sh", """\
        grep -q password && { echo "prompts must not carry passwords" >&2; exit 2; }
        exit 0
    """)
    _hooks(agent_tui_home, f"""\
        [[hooks.UserPromptSubmit]]
        command = "{hook}"
    """)

    outcome = await run(fake_provider, tmp_path, "my password is hunter2, log in")

    assert outcome.code == 1
    assert fake_provider.requests == []
    errors = [e["message"] for e in outcome.of_type("error")]
    assert any("prompts must not carry passwords" in e for e in errors), errors


async def test_prompt_and_session_start_context_reach_the_model(
        fake_provider, tmp_path, agent_tui_home):
    started = _script(tmp_path, "start.sh", "cat >/dev/null; echo 'branch: feature/login'\n")
    submitted = _script(tmp_path, "submit.sh", "cat >/dev/null; echo 'today is release day'\n")
    _hooks(agent_tui_home, f"""\
        [[hooks.SessionStart]]
        command = "{started}"
        [[hooks.UserPromptSubmit]]
        command = "{submitted}"
    """)
    fake_provider.script(Reply(text="noted"))

    await run(fake_provider, tmp_path, "what now?")

    sent = fake_provider.requests[0].last_user_text()
    assert "what now?" in sent
    assert "branch: feature/login" in sent and "today is release day" in sent


async def test_a_stop_hook_sends_the_agent_back_once(fake_provider, tmp_path, agent_tui_home):
    hook = _script(tmp_path, "stop.sh", """\
        grep -q '"stop_hook_active": true' && exit 0
        echo "run the tests before you stop" >&2; exit 2
    """)
    _hooks(agent_tui_home, f"""\
        [[hooks.Stop]]
        command = "{hook}"
    """)
    fake_provider.script(Reply(text="done, I think"), Reply(text="tests pass, done"))

    outcome = await run(fake_provider, tmp_path)

    assert outcome.result["text"] == "tests pass, done"
    assert "run the tests before you stop" in fake_provider.requests[1].last_user_text()
    assert len(fake_provider.requests) == 2


async def test_an_untrusted_project_s_hooks_do_not_run(fake_provider, tmp_path):
    marker = tmp_path / "ran"
    (tmp_path / ".agent-tui").mkdir()
    (tmp_path / ".agent-tui" / "config.toml").write_text(
        f'[[hooks.UserPromptSubmit]]\ncommand = "touch {marker}"\n')
    fake_provider.script(Reply(text="hi"))

    outcome = await run(fake_provider, tmp_path)

    assert not marker.exists()
    assert "not trusted" in outcome.stderr
