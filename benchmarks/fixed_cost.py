"""The fixed cost of a model call: agent-tui's system prompt and tool schemas, in tokens.

Run from the repository root (agent-tui installed, e.g. ``pip install -e .``)::

    python3 benchmarks/fixed_cost.py [--model openai/gpt-4o] [--per-tool]

Every call sends the system prompt and the tool schemas before any of the conversation; on a
small context window they decide how much work fits. Counted with litellm's real counter
(``litellm.token_counter``, as :class:`~agent_tui.core.context.window.TokenLedger` counts
them: the prompt as a system message, the schemas as their JSON), in an empty project with
the default settings (no network, browser or desktop tools; the skills that ship with
agent-tui listed), for:

* **full**: every tool, the full instructions (``tool_set = "full"``, and ``auto`` above
  16,384 tokens);
* **lean**: the lean tool set and its short instructions (``tool_set = "lean"``, and
  ``auto`` up to 16,384 tokens).

The figures at the start of this work are printed beside them (``BEFORE``, measured by this
script on commit 03c7858). Goals: the lean set under 1,000 tokens (an eighth of an 8K
window) and the full set below its figure before. Exits 1 when one is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

BEFORE = {"full": (28, 560, 6897)}
"""tools, prompt tokens and schema tokens of the full set on commit 03c7858 (2026-11-27),
before the lean set existed, counted for ``openai/gpt-4o``."""
LEAN_GOAL = 1000
PROJECT = Path("/home/you/project")


def measure(model: str, lean: bool, workdir: Path) -> tuple[int, int, int, list[tuple[str, int]]]:
    """Tools, prompt tokens, schema tokens and each tool's tokens of one set."""
    from agent_tui.core.knowledge import load_knowledge
    from agent_tui.core.prompts import system_prompt
    from agent_tui.core.providers.litellm import load_litellm
    from agent_tui.core.settings import Settings
    from agent_tui.tools.builtin import builtin_tools
    from agent_tui.tools.registry import ToolRegistry

    litellm = load_litellm()

    def tokens(text: str) -> int:
        base = litellm.token_counter(model=model, messages=[{"role": "system", "content": ""}])
        counted = litellm.token_counter(model=model, messages=[{"role": "system", "content": text}])
        return int(counted - base)

    registry = ToolRegistry(builtin_tools(Settings()))
    knowledge = load_knowledge(workdir)
    extra: dict[str, Any] = {}
    if lean:
        registry.use_lean(True)
        extra = {"lean": True}
        sections = knowledge.prompt_sections(skills=False)
    else:
        sections = knowledge.prompt_sections()
    # The same folder name every run: a temporary folder's random name varies the count.
    prompt = system_prompt(PROJECT, model, None, "default", False, sections, **extra)
    schemas = registry.schemas()
    per_tool = [(s["function"]["name"], tokens(json.dumps(s))) for s in schemas]
    return len(schemas), tokens(prompt), tokens(json.dumps(schemas)), per_tool


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="openai/gpt-4o", help="whose tokenizer counts")
    parser.add_argument("--per-tool", action="store_true", help="each tool's schema tokens")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        os.environ["AGENT_TUI_HOME"] = str(Path(home) / "home")
        workdir = Path(home) / "project"
        workdir.mkdir()
        from agent_tui.tools.registry import ToolRegistry

        # A tree from before the lean set (the figures before): the full set only.
        sets = ["full", "lean"] if hasattr(ToolRegistry, "use_lean") else ["full"]
        figures = {name: measure(args.model, name == "lean", workdir) for name in sets}

    print(f"fixed cost per model call, tokens by litellm's counter for {args.model}\n")
    print("| set | tools | system prompt | tool schemas | total | before (03c7858) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, (tools, prompt, schemas, _) in figures.items():
        before = BEFORE.get(name)
        was = f"{before[1] + before[2]:,} ({before[0]} tools)" if before else "—"
        print(f"| {name} | {tools} | {prompt:,} | {schemas:,} | {prompt + schemas:,} | {was} |")
    if args.per_tool:
        for name, (*_, per_tool) in figures.items():
            print(f"\n{name}: " + ", ".join(f"{tool} {n}" for tool, n in per_tool))

    ok = True
    full = figures["full"]
    if full[1] + full[2] >= sum(BEFORE["full"][1:]):
        print("\nMISS: the full set costs no less than before")
        ok = False
    if "lean" in figures:
        lean = figures["lean"][1] + figures["lean"][2]
        verdict = "PASS" if lean < LEAN_GOAL else "MISS"
        ok = ok and lean < LEAN_GOAL
        print(
            f"\nlean set: {lean:,} tokens, {lean / 8000:.0%} of an 8K window "
            f"(goal < {LEAN_GOAL:,}: {verdict}); full set: "
            f"{(full[1] + full[2]) / 8000:.0%} of it"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
