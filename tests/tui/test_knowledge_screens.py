"""Snapshots of /skills and /memory, from fixed data (no temporary paths in the picture)."""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from agent_tui.core.memory import InstructionFile, Instructions, Memory
from agent_tui.core.memory.store import Found, SearchResults
from agent_tui.core.skills import Skill, SkillCatalog
from agent_tui.tui.screens.memory import MemoryScreen
from agent_tui.tui.screens.skills import SkillsScreen

SIZE = (120, 34)
HOME = Path("/home/you/.config/agent-tui")
PROJECT = Path("/home/you/shop")


def _skill(name: str, source: str, folder: Path, description: str,
           allowed: tuple[str, ...] = (), may_grant: bool = True) -> Skill:
    return Skill(name, description, f"# {name}\n\nStep one.\nStep two.\n",
                 folder / name / "SKILL.md", source, allowed, may_grant)


class ScreenHost(App[None]):
    def __init__(self, screen) -> None:
        super().__init__()
        self.shown = screen

    def on_mount(self) -> None:
        self.push_screen(self.shown)


def catalog() -> SkillCatalog:
    bundled = Path("/usr/lib/python3/site-packages/agent_tui/skills")
    ours = _skill("review-diff", "repository", PROJECT / "skills",
                  "Review the shop's diff against its [b]style guide[/b].",
                  ("shell(npm run lint *)",), may_grant=False)
    theirs = _skill("review-diff", "bundled", bundled, "Review the working tree's changes.")
    return SkillCatalog(
        skills=[
            _skill("commit-message", "bundled", bundled,
                   "Write a commit message for the staged changes.",
                   ("shell(git diff *)", "shell(git log *)")),
            _skill("deploy", "user", HOME / "skills", "Deploy to staging, then production."),
            ours,
        ],
        shadowed=[(theirs, ours)],
        problems=[f"{PROJECT}/.agent-tui/skills/broken/SKILL.md:1: the front matter opened "
                  "with --- is never closed; add a line --- after it; the skill was skipped."],
    )


def test_snapshot_skills(snap_compare) -> None:
    """Three skills in name order with their source, description and allowed tools; long
    cells end in "…" (the repository's review-diff: "[b]style gui…", its tools "(no…" for
    "not granted: untrusted project"), its "[b]" shown as typed, not bold. Below them the
    bundled review-diff, "shadowed by the repository skill of the same name", then a red
    "problem" row naming broken/SKILL.m…. The pane under the table shows the highlighted
    commit-message in full: its file, description, allowed tools and instructions."""
    assert snap_compare(ScreenHost(SkillsScreen(catalog())), terminal_size=SIZE)


class FixedMemory:
    """Two memories, as ProjectMemory offers them to the screen."""

    memories = [Memory(str(PROJECT), "deploy_steps", "./deploy.sh staging, then prod", 2.0),
                Memory("user", "editor", "prefers [bold]neovim[/bold]", 1.0)]

    def list(self, limit: int) -> list[Memory]:
        return self.memories

    def search(self, query: str, limit: int) -> SearchResults:
        return SearchResults([Found(self.memories[0], 0.91, 1.0, 0.87)])

    def label(self, memory: Memory) -> str:
        return "user" if memory.scope == "user" else "project"


def test_snapshot_memory(snap_compare) -> None:
    """The memory screen: "Loaded into the system prompt" lists your AGENTS.md, the
    project's AGENTS.md and the project memory with their token counts (about a quarter of
    their characters); below, "Memories" with an empty search box and two rows — project
    deploy_steps and user editor, whose "[bold]" shows as typed — and the status line
    "2 memories · Enter edit · n new · d delete · Esc close"."""
    instructions = Instructions((
        InstructionFile(HOME / "AGENTS.md", "user", "Answer in British English.\n" * 4),
        InstructionFile(PROJECT / "AGENTS.md", "project", "Run `npm test` before a commit.\n" * 30),
        InstructionFile(PROJECT / ".agent-tui" / "memory.md", "memory", "### Entry\n- a\n" * 10),
    ))
    assert snap_compare(ScreenHost(MemoryScreen(instructions, FixedMemory())),
                        terminal_size=SIZE)


class OneMemory(FixedMemory):
    memories = FixedMemory.memories[:1]


async def test_one_memory_is_counted_in_the_singular() -> None:
    app = ScreenHost(MemoryScreen(Instructions(()), OneMemory()))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.3)
        status = str(app.screen.query_one("#memory-status").render())
    assert status.startswith("1 memory · ")
