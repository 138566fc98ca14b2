"""PreToolUse and PostToolUse hooks, run as real processes: input, answers, failures."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.core.hooks.conftest import hook_entry

Script = Callable[[str], str]


async def test_pre_tool_use_hooks_read_the_call_as_json_with_the_project_env(
        runner, script: Script, project: Path, tmp_path: Path):
    dump, env_dump = tmp_path / "stdin.json", tmp_path / "env.txt"
    command = script(f'cat > {dump}\n'
                     f'printf "%s\\n" "$AGENT_TUI_PROJECT_DIR" "$CLAUDE_PROJECT_DIR" "$PWD" '
                     f'"$FROM_CALLER" > {env_dump}\n')
    hooks = runner(hook_entry("PreToolUse", command), env={"FROM_CALLER": "yes",
                                                           "PATH": "/usr/bin:/bin"})
    verdict = await hooks.pre_tool_use("shell", {"command": "ls -la"}, "call-7")
    assert (verdict.decision, verdict.failures, verdict.stop) == (None, [], None)
    assert json.loads(dump.read_text()) == {
        "session_id": "session-1", "cwd": str(project), "hook_event_name": "PreToolUse",
        "tool_name": "shell", "tool_input": {"command": "ls -la"}, "tool_use_id": "call-7"}
    assert env_dump.read_text().split("\n")[:4] == [str(project)] * 2 + [str(project), "yes"]


async def test_post_tool_use_hooks_also_read_the_tools_response(runner, script: Script,
                                                                 project: Path, tmp_path: Path):
    dump = tmp_path / "stdin.json"
    hooks = runner(hook_entry("PostToolUse", script(f"cat > {dump}"), matcher="write_file"))
    outcome = await hooks.post_tool_use("write_file", {"path": "a.py"}, "call-1", False, "boom")
    assert (outcome.feedback, outcome.failures) == (None, [])
    assert json.loads(dump.read_text()) == {
        "session_id": "session-1", "cwd": str(project), "hook_event_name": "PostToolUse",
        "tool_name": "write_file", "tool_input": {"path": "a.py"}, "tool_use_id": "call-1",
        "tool_response": {"ok": False, "output": "boom"}}


@pytest.mark.parametrize(("answer", "decision"), [
    ({"hookSpecificOutput": {"permissionDecision": "allow",
                             "permissionDecisionReason": "safe"}}, "allow"),
    ({"hookSpecificOutput": {"permissionDecision": "deny",
                             "permissionDecisionReason": "safe"}}, "deny"),
    ({"hookSpecificOutput": {"permissionDecision": "ask",
                             "permissionDecisionReason": "safe"}}, "ask"),
    ({"decision": "approve", "reason": "safe"}, "allow"),
    ({"decision": "block", "reason": "safe"}, "deny"),
])
async def test_exit_0_with_json_decides_in_either_shape(runner, script: Script,
                                                         answer: dict, decision: str):
    hooks = runner(hook_entry("PreToolUse", script(f"echo '{json.dumps(answer)}'")))
    verdict = await hooks.pre_tool_use("shell", {}, "c")
    assert (verdict.decision, verdict.reason, verdict.failures) == (decision, "safe", [])


async def test_exit_0_with_plain_text_or_nothing_decides_nothing(runner, script: Script):
    hooks = runner(hook_entry("PreToolUse", script("echo looks fine")),
                   hook_entry("PreToolUse", script("true")))
    verdict = await hooks.pre_tool_use("shell", {}, "c")
    assert (verdict.decision, verdict.reason, verdict.failures) == (None, "", [])


async def test_exit_2_denies_with_stderr_as_the_reason(runner, script: Script):
    hooks = runner(hook_entry("PreToolUse", script("echo 'no rm -rf here' >&2; exit 2")))
    verdict = await hooks.pre_tool_use("shell", {"command": "rm -rf /"}, "c")
    assert (verdict.decision, verdict.reason, verdict.failures) == (
        "deny", "no rm -rf here", [])


async def test_deny_beats_ask_beats_allow_and_the_winners_reasons_are_joined(
        runner, script: Script):
    def answer(decision: str, reason: str) -> str:
        return hook_entry("PreToolUse", script(
            "echo '" + json.dumps({"hookSpecificOutput": {
                "permissionDecision": decision, "permissionDecisionReason": reason}}) + "'"))

    hooks = runner(answer("allow", "fine"), answer("ask", "hmm"), answer("deny", "no"),
                   hook_entry("PreToolUse", script("echo never >&2; exit 2")))
    verdict = await hooks.pre_tool_use("shell", {}, "c")
    assert (verdict.decision, verdict.reason) == ("deny", "no\nnever")
    hooks = runner(answer("allow", "fine"), answer("ask", "hmm"))
    assert (await hooks.pre_tool_use("shell", {}, "c")).decision == "ask"


async def test_exit_1_is_a_failure_reported_that_does_not_change_the_decision(
        runner, script: Script, user_config: Path):
    failing = "echo 'Traceback: KeyError tool_name' >&2; exit 1"
    allow = json.dumps({"hookSpecificOutput": {"permissionDecision": "allow"}})
    hooks = runner(hook_entry("PreToolUse", script(f"echo '{allow}'")),
                   hook_entry("PreToolUse", failing))
    verdict = await hooks.pre_tool_use("shell", {}, "c")
    assert verdict.decision == "allow"
    [failure] = verdict.failures
    assert failure.startswith(f"hook `{failing}` (PreToolUse, from {user_config}) exited 1: "
                              "Traceback: KeyError tool_name; the call goes on")
    assert "[[hooks.PreToolUse]] #2" in failure


async def test_json_that_is_broken_or_says_nonsense_is_a_failure(runner, script: Script):
    hooks = runner(hook_entry("PreToolUse", script("echo '{\"decision\": '")),
                   hook_entry("PreToolUse", script(
                       "echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"maybe\"}}'")))
    verdict = await hooks.pre_tool_use("shell", {}, "c")
    assert verdict.decision is None
    assert len(verdict.failures) == 2
    assert "printed invalid JSON" in verdict.failures[0]
    assert "'maybe'; use one of allow, deny, ask" in verdict.failures[1]


async def test_continue_false_asks_the_agent_to_stop(runner, script: Script):
    hooks = runner(hook_entry("PreToolUse", script(
        "echo '{\"continue\": false, \"stopReason\": \"budget spent\"}'")))
    verdict = await hooks.pre_tool_use("shell", {}, "c")
    assert (verdict.stop, verdict.failures) == ("budget spent", [])


async def test_only_hooks_whose_matcher_takes_the_tool_run(runner, script: Script,
                                                          tmp_path: Path):
    hooks = runner(hook_entry("PreToolUse", script(f"touch {tmp_path}/shell-ran"),
                              matcher="shell|write_file"),
                   hook_entry("PreToolUse", script(f"touch {tmp_path}/read-ran"),
                              matcher="read_.*"))
    await hooks.pre_tool_use("shell", {}, "c")
    assert (tmp_path / "shell-ran").exists() and not (tmp_path / "read-ran").exists()
    await hooks.pre_tool_use("shell_background", {}, "c")
    await hooks.pre_tool_use("read_file", {}, "c")
    assert (tmp_path / "read-ran").exists()


async def test_post_tool_use_exit_2_and_block_become_feedback_for_the_model(
        runner, script: Script):
    hooks = runner(hook_entry("PostToolUse", script("echo 'lint: unused import' >&2; exit 2")),
                   hook_entry("PostToolUse", script(
                       "echo '{\"decision\": \"block\", \"reason\": \"tests fail\"}'")))
    outcome = await hooks.post_tool_use("write_file", {}, "c", True, "written")
    assert (outcome.feedback, outcome.failures) == ("lint: unused import\ntests fail", [])
