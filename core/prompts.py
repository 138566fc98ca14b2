"""The system prompt."""

from __future__ import annotations

import datetime as _dt
import platform
from pathlib import Path
from typing import Any

from .text_protocol import tools_prompt

BASE_PROMPT = """\
You are agent-tui, an AI coding agent working in a person's project through tools.
Act, don't just advise: read the code you need, make the change, run what proves it works.

Working rules:
- Read a file before you edit it; keep edits small and exact, in the file's own style.
- Prefer edit_file for changes to existing files and write_file for new ones.
- Run the project's tests or the program after a change when you can.
- Tool calls that only read may be made together in one reply; they run concurrently.
- If a tool call is denied, do not repeat it; explain what you would have done.
- When the task is done, reply with a short summary of what you changed and how you checked it.
"""

LEAN_PROMPT = """\
You are agent-tui, a coding agent working in a person's project through tools.
Read a file before you edit it; keep edits small and exact. Run the tests after a change.
When done, reply with a short summary of what you changed.
"""
"""The instructions of the lean tool set (``tools/lean.py``), for small context windows."""


INIT_PROMPT = """\
Explore this project and write an AGENTS.md at its root: the instructions a coding agent \
(you, next time) needs to work here well. Read the README, the build and test configuration, \
the layout of the source tree and a few central modules before you write.

Include, briefly and concretely:
- what the project is, and its main folders and entry points;
- how to install, build, run, test and lint it (exact commands you have checked exist);
- the code style and conventions the code actually follows;
- anything surprising a newcomer would trip on.

Keep it under 120 lines. If an AGENTS.md (or CLAUDE.md) exists, improve it rather than \
replace what is still true. Write the file with write_file (or edit_file for an existing one)."""
"""What ``/init`` asks the agent to do."""


NETWORK_OFF = "off (the user can turn them on with /net on or --net)"


def _environment(workdir: Path, model: str, approval_mode: str, network: bool) -> str:
    """The full prompt's environment section."""
    return (
        f"\nEnvironment:\n- Project folder (working directory): {workdir}\n"
        f"- Platform: {platform.system()} {platform.release()}\n"
        f"- Date: {_dt.date.today().isoformat()}\n- Model: {model}\n"
        f"- Approval mode: {approval_mode}\n"
        f"- Network tools: {'on' if network else NETWORK_OFF}\n"
    )


def system_prompt(
    workdir: Path,
    model: str,
    tool_schemas: list[dict[str, Any]] | None,
    approval_mode: str,
    network: bool = False,
    knowledge: str = "",
    *,
    lean: bool = False,
) -> str:
    """The system prompt; ``tool_schemas`` is given only for the text tool-call protocol.

    Args:
        knowledge: The project's instructions and the skills on offer, as
            :meth:`~agent_tui.core.knowledge.Knowledge.prompt_sections` writes them.
        lean: The short instructions of the lean tool set, without the network line
            (it offers no network tools).
    """
    if lean:
        env = (
            f"\nProject folder: {workdir}\nDate: {_dt.date.today().isoformat()}\n"
            f"Approval mode: {approval_mode}\n"
        )
        prompt = LEAN_PROMPT + env
    else:
        prompt = BASE_PROMPT + _environment(workdir, model, approval_mode, network)
    if approval_mode == "plan":
        prompt += (
            "\nYou are in plan mode: only read-only tools run. Investigate, then reply "
            "with a numbered plan of the changes you propose; do not make them.\n"
        )
    if knowledge:
        prompt += knowledge
    if tool_schemas:
        prompt += "\n" + tools_prompt(tool_schemas)
    return prompt
