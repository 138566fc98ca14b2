"""``agent-tui sessions list`` tells a fork from its parent: the real binary over real logs."""

from __future__ import annotations

import os
from pathlib import Path

from agent_tui.core.sessions.log import SessionStore, fork_before_turn
from tests.tui.cli.test_cli import agent_tui


def test_a_fork_is_listed_with_its_parent_and_the_prompt_it_was_forked_after(
    tmp_path: Path,
) -> None:
    with SessionStore.create("s-parent", project=tmp_path, model="openai/gpt-4.1") as store:
        for n in range(3):
            store.append({"type": "user_message", "text": f"prompt {n}"})
            store.append({"type": "assistant_message", "text": f"answer {n}", "tool_calls": []})
    fork_id = fork_before_turn("s-parent", 2)  # keeps prompts 0 and 1

    home = {"AGENT_TUI_HOME": os.environ["AGENT_TUI_HOME"]}  # where the logs were written
    done = agent_tui("sessions", "list", cwd=tmp_path, env_extra=home)

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    fork_line = next(i for i, line in enumerate(lines) if line.startswith(fork_id))
    assert lines[fork_line + 2] == "    forked from s-parent, after its prompt 2"
    parent_line = next(i for i, line in enumerate(lines) if line.startswith("s-parent"))
    assert "forked from" not in "".join(lines[parent_line : parent_line + 3])
