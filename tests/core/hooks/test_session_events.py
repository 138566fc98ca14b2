"""UserPromptSubmit, Stop and SessionStart hooks, run as real processes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.core.hooks.conftest import hook_entry

Script = Callable[[str], str]


@pytest.mark.parametrize(("event", "call", "fields"), [
    ("UserPromptSubmit", lambda r: r.user_prompt_submit("fix the bug"),
     {"prompt": "fix the bug"}),
    ("Stop", lambda r: r.stop("All done."),
     {"last_answer": "All done.", "stop_hook_active": False}),
    ("SessionStart", lambda r: r.session_start("resume"), {"source": "resume"}),
])
async def test_each_event_reads_its_input_as_json(runner, script: Script, project: Path,
                                                  tmp_path: Path, event: str, call, fields):
    dump = tmp_path / "stdin.json"
    outcome = await call(runner(hook_entry(event, script(f"cat > {dump}"))))
    assert outcome.failures == []
    assert json.loads(dump.read_text()) == {
        "session_id": "session-1", "cwd": str(project), "hook_event_name": event, **fields}


async def test_user_prompt_submit_plain_stdout_and_json_add_context(runner, script: Script):
    hooks = runner(hook_entry("UserPromptSubmit", script("echo 'Branch: main'")),
                   hook_entry("UserPromptSubmit", script(
                       "echo '{\"hookSpecificOutput\": {\"additionalContext\": \"Ticket 42\"}}'")))
    verdict = await hooks.user_prompt_submit("go")
    assert (verdict.blocked, verdict.context, verdict.failures) == (
        False, "Branch: main\nTicket 42", [])


@pytest.mark.parametrize("body", [
    "echo 'that prompt names a secret' >&2; exit 2",
    "echo '{\"decision\": \"block\", \"reason\": \"that prompt names a secret\"}'",
])
async def test_user_prompt_submit_can_block_the_prompt(runner, script: Script, body: str):
    verdict = await runner(hook_entry("UserPromptSubmit", script(body))).user_prompt_submit("x")
    assert (verdict.blocked, verdict.reason) == (True, "that prompt names a secret")


@pytest.mark.parametrize("body", [
    "echo 'tests still fail; fix them' >&2; exit 2",
    "echo '{\"decision\": \"block\", \"reason\": \"tests still fail; fix them\"}'",
])
async def test_a_stop_hook_can_make_the_agent_go_on(runner, script: Script, body: str):
    outcome = await runner(hook_entry("Stop", script(body))).stop("Done.")
    assert (outcome.go_on_reason, outcome.failures) == ("tests still fail; fix them", [])


async def test_a_stop_hook_that_exits_0_lets_the_agent_stop(runner, script: Script):
    outcome = await runner(hook_entry("Stop", script("echo ok"))).stop("Done.")
    assert (outcome.go_on_reason, outcome.stop, outcome.failures) == (None, None, [])


async def test_session_start_adds_plain_or_json_context(runner, script: Script):
    hooks = runner(hook_entry("SessionStart", script("echo 'Read TODO.md first.'")),
                   hook_entry("SessionStart", script(
                       "echo '{\"hookSpecificOutput\": {\"additionalContext\": \"CI is red\"}}'")))
    outcome = await hooks.session_start("startup")
    assert (outcome.context, outcome.failures) == ("Read TODO.md first.\nCI is red", [])


async def test_a_session_start_hook_exiting_2_is_reported_not_obeyed(runner, script: Script):
    outcome = await runner(hook_entry("SessionStart", script("echo nope >&2; exit 2"))
                           ).session_start("clear")
    [failure] = outcome.failures
    assert "exited 2: nope; the session starts without it" in failure
    assert outcome.context == ""
