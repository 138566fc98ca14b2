"""What one hook answered, read the way Claude Code reads it.

Exit 0 is success: stdout that is a JSON object is read for a decision, context or a stop;
plain stdout is context for the model on UserPromptSubmit and SessionStart and ignored
elsewhere. Exit 2 blocks, with stderr as the reason. Anything else (another exit code, a
timeout, a command that cannot start, broken JSON) is a failure: reported, never obeyed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .hook_set import Hook
from .process import HookRun

CONSEQUENCE: dict[str, str] = {
    "PreToolUse": "the call goes on as if it had not run",
    "PostToolUse": "the tool's result stands",
    "UserPromptSubmit": "the prompt goes on as if it had not run",
    "Stop": "the agent stops as usual",
    "SessionStart": "the session starts without it",
}
"""What happens when a hook of each event fails, as failure messages say it."""

_CONTEXT_EVENTS = frozenset({"UserPromptSubmit", "SessionStart", "PostToolUse"})
_STDERR_TAIL = 500
_PRE_TOOL_DECISIONS = {"allow": "allow", "deny": "deny", "ask": "ask",
                       "approve": "allow", "block": "deny"}


@dataclass(frozen=True, slots=True)
class Answer:
    """One hook's answer.

    Attributes:
        hook: The hook that answered.
        decision: ``"allow"``, ``"deny"`` or ``"ask"`` for PreToolUse; ``"block"`` for the
            other events; None when it did not decide.
        reason: Why, for the model (or, when a prompt is blocked, for the person).
        context: Text to add for the model.
        stop: Set when the hook asked the agent to stop (``"continue": false``): the message
            for the person.
        failure: Set when the hook failed: the message for the person; nothing else is set.
    """

    hook: Hook
    decision: str | None = None
    reason: str = ""
    context: str = ""
    stop: str | None = None
    failure: str | None = None


class _BadAnswer(Exception):
    """The hook's JSON does not say anything we can obey; the message says what is wrong."""


def read_answer(run: HookRun) -> Answer:
    """Turn how a hook's process ended into its :class:`Answer`."""
    hook = run.hook
    if run.timed_out:
        return _failed(hook, f"did not finish within {hook.timeout:g} s and was killed",
                       "Make it faster or raise its `timeout`.")
    if run.exit_code is None:
        return _failed(hook, run.problem or "did not run",
                       "Check that bash and the project folder exist.")
    if run.exit_code == 2:
        return _blocking(hook, run.stderr.strip())
    if run.exit_code != 0:
        return _failed(hook, f"exited {run.exit_code}: {_tail(run.stderr)}",
                       "Fix the command, or remove it")
    stdout = run.stdout.strip()
    if not stdout.startswith("{"):
        context = stdout if hook.event in ("UserPromptSubmit", "SessionStart") else ""
        return Answer(hook, context=context)
    try:
        data = json.loads(stdout)
    except json.JSONDecodeError as exc:
        return _failed(hook, f"printed invalid JSON ({exc})",
                       "Print one JSON object, or plain text")
    try:
        return _read_json(hook, data)
    except _BadAnswer as exc:
        return _failed(hook, f"answered {exc}", "Fix its output, or remove it")


def _blocking(hook: Hook, stderr: str) -> Answer:
    if hook.event == "SessionStart":
        return _failed(hook, f"exited 2: {_tail(stderr)}",
                       "SessionStart hooks cannot block; exit 0 to add context")
    reason = stderr or f"{hook.describe()} blocked this without saying why."
    return Answer(hook, decision="deny" if hook.event == "PreToolUse" else "block",
                  reason=reason)


def _read_json(hook: Hook, data: dict[str, Any]) -> Answer:
    specific = data.get("hookSpecificOutput") or {}
    if not isinstance(specific, dict):
        raise _BadAnswer("a `hookSpecificOutput` that is not an object")
    stop = None
    if data.get("continue") is False:
        stop = _string(data, "stopReason") or f"{hook.describe()} stopped the agent."
    decision, reason = (_pre_tool_decision(data, specific) if hook.event == "PreToolUse"
                        else _block_decision(hook, data))
    context = _string(specific, "additionalContext") if hook.event in _CONTEXT_EVENTS else ""
    return Answer(hook, decision=decision, reason=reason, context=context, stop=stop)


def _pre_tool_decision(data: dict[str, Any],
                       specific: dict[str, Any]) -> tuple[str | None, str]:
    if "permissionDecision" in specific:
        value, reason = specific["permissionDecision"], _string(
            specific, "permissionDecisionReason")
        allowed: tuple[str, ...] = ("allow", "deny", "ask")
    elif "decision" in data:
        value, reason = data["decision"], _string(data, "reason")
        allowed = ("approve", "block")
    else:
        return None, ""
    if value not in allowed:
        raise _BadAnswer(f"decision {value!r}; use one of {', '.join(allowed)}")
    return _PRE_TOOL_DECISIONS[value], reason


def _block_decision(hook: Hook, data: dict[str, Any]) -> tuple[str | None, str]:
    value = data.get("decision")
    if value is None or value == "approve":
        return None, ""
    if value != "block":
        raise _BadAnswer(f'decision {value!r}; use "block" or leave it out')
    return "block", _string(data, "reason") or f"{hook.describe()} blocked this."


def _string(table: dict[str, Any], key: str) -> str:
    value = table.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _BadAnswer(f"a `{key}` that is not a string")
    return value


def _failed(hook: Hook, what: str, fix: str) -> Answer:
    fix = fix if fix.endswith(".") else f"{fix} ({hook.entry} in that file)."
    return Answer(hook, failure=f"{hook.describe()} {what}; {CONSEQUENCE[hook.event]}. {fix}")


def _tail(stderr: str) -> str:
    text = " ".join(stderr.split())
    if not text:
        return "(no error output)"
    return text if len(text) <= _STDERR_TAIL else "…" + text[-_STDERR_TAIL:]
