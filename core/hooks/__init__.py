"""Hooks: commands the person configures to run at points of the agent's work, as Claude
Code users know them.

Configured in the user's ``config.toml`` and, once the folder is trusted, a project's
``.agent-tui/config.toml`` (see :mod:`.config` for both shapes)::

    [[hooks.PreToolUse]]
    matcher = "shell|write_file"   # regex, full match on the tool name; absent/"*": all
    command = "python3 .agent-tui/hooks/check.py"
    timeout = 30                   # seconds, default 60

Events (:data:`HOOK_EVENTS`), what a hook reads on stdin besides ``session_id``, ``cwd`` and
``hook_event_name``, and what the :class:`HookRunner` method returns:

==================  ==========================================  ===========================
Event               Input                                       Method -> result
==================  ==========================================  ===========================
PreToolUse          tool_name, tool_input, tool_use_id          pre_tool_use -> ToolHookVerdict
PostToolUse         ... + tool_response {ok, output}            post_tool_use -> HookOutcome
UserPromptSubmit    prompt                                      user_prompt_submit -> PromptVerdict
Stop                last_answer, stop_hook_active               stop -> HookOutcome
SessionStart        source: startup, resume or clear            session_start -> HookOutcome
==================  ==========================================  ===========================

Each hook runs as ``bash -c command`` in the project folder, in its own process group
(killed on timeout or cancellation), with ``$AGENT_TUI_PROJECT_DIR`` and
``$CLAUDE_PROJECT_DIR`` set. The matching hooks of an event run concurrently.

Answers: exit 0 succeeds (a JSON object on stdout may decide, add context or stop; plain
stdout is context on UserPromptSubmit and SessionStart); exit 2 blocks with stderr as the
reason (denies a call, is feedback after one, blocks a prompt, keeps the agent going at
Stop). Anything else is a failure, reported in ``failures`` and otherwise ignored. For
PreToolUse, deny beats ask beats allow. ``"continue": false`` from any hook sets ``stop``.

Use::

    hooks = load_hooks(workdir)            # warnings in hooks.warnings
    runner = HookRunner(hooks, workdir, session_id, env)
    verdict = await runner.pre_tool_use("shell", {"command": "ls"}, call_id)
"""

from __future__ import annotations

from .config import load_hooks
from .hook_set import DEFAULT_TIMEOUT_S, HOOK_EVENTS, TOOL_EVENTS, Hook, HookSet
from .outcomes import HookOutcome, PromptVerdict, ToolHookVerdict
from .runner import SESSION_START_SOURCES, HookRunner

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "HOOK_EVENTS",
    "SESSION_START_SOURCES",
    "TOOL_EVENTS",
    "Hook",
    "HookOutcome",
    "HookRunner",
    "HookSet",
    "PromptVerdict",
    "ToolHookVerdict",
    "load_hooks",
]
