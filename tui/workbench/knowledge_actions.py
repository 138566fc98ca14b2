"""The workbench's knowledge actions: loading AGENTS.md, skills, commands and hooks, reloading
them when their files change, running custom commands, ``/init``, ``/memory``, ``/skills``.

:class:`KnowledgeActions` works on the app it is given (``workdir``, ``settings``, ``agent``,
``busy``, ``notice``, ``notify``, ``start_turn``); the app hands the knowledge and the memory
to each agent it builds.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.text.counts import counted
from ..outside_text import visible

if TYPE_CHECKING:
    from ...core.custom_commands import CustomCommand
    from ...core.knowledge import Knowledge

WARM_MEMORY_AFTER_S = 5.0
"""Seconds after the first read before the embedding model and vectors are loaded."""

RELOAD_QUIET_S = 0.3
"""Changes within this long of each other are reloaded once (an editor saves in steps)."""


class KnowledgeActions:
    """What a session knows beyond its conversation, kept current while the workbench runs.

    Args:
        app: The workbench (:class:`~agent_tui.tui.app.AgentApp`).
        builtin_commands: The built-in slash commands' names to their help (what the
            prompt completes; no custom command may take one of these names).
    """

    def __init__(self, app: Any, builtin_commands: dict[str, str]) -> None:
        self.app = app
        self.builtin_commands = dict(builtin_commands)
        self.knowledge: Knowledge | None = None
        """The knowledge read last; None until the first read is done."""
        self.memory: Any = None
        """The project's memories (``core.memory.ProjectMemory``); None until opened."""
        self._loaded = asyncio.Event()
        self._pending: set[Path] = set()
        self._told_problems: set[str] = set()

    # -- loading -----------------------------------------------------------------------

    async def ready(self) -> Knowledge:
        """The knowledge, once the first read has finished (it starts after the first
        frame and takes milliseconds)."""
        if self.knowledge is None:
            await self.load()
        return self.knowledge  # type: ignore[return-value]

    async def load(self) -> Knowledge:
        """Read everything anew (in a thread); report what could not be loaded."""
        settings = self.app.settings
        knowledge = await asyncio.to_thread(_read_knowledge, self.app.workdir, settings,
                                            list(self.builtin_commands))
        if self.memory is None:
            self.memory = await asyncio.to_thread(_open_memory, self.app.workdir, settings)
            # Once start-up's imports are done: the first memory_search then answers at once.
            self.app.set_timer(WARM_MEMORY_AFTER_S, self._warm_memory)
        first = self.knowledge is None
        self.knowledge = knowledge
        self.offer_commands()
        if first and (persona := knowledge.persona) is not None:
            # Started with --agent (or the agent setting): say which role the session has.
            self.app.notify(visible(f"Persona: {persona.name} — {persona.description}"),
                            markup=False, timeout=4)
        for problem in knowledge.problems:
            if problem not in self._told_problems:
                self._told_problems.add(problem)
                self.app.notice(problem, error=True)
        self._loaded.set()
        return knowledge

    def _warm_memory(self) -> None:
        memory = self.memory
        if memory is not None:
            self.app.run_worker(asyncio.to_thread(_warm, memory), group="memory-warm",
                                exit_on_error=False)

    def offer_commands(self) -> None:
        """The custom commands and the MCP servers' prompts in the prompt's completion (the
        palette asks each time)."""
        offered = dict(self.builtin_commands)
        offered.update(self.app.outside_tools.prompt_commands())
        for command in self.knowledge.commands if self.knowledge else ():
            hint = f" {command.argument_hint}" if command.argument_hint else ""
            offered[command.name] = f"{command.description}{hint} ({command.source})"
        self.app.offer_commands(offered)

    # -- reloading ---------------------------------------------------------------------

    async def watch(self) -> None:
        """Reload when an instruction file, a skill, a command, a hook or a config file
        changes; while a turn runs, wait for its end (nothing reloads mid-turn)."""
        await self._loaded.wait()
        while True:
            places = await asyncio.to_thread(_watched_places, self.app.workdir,
                                             self.app.settings)
            changed = await _next_changes(places)
            if relevant := {p for p in changed if places.matters(p)}:
                self._pending |= relevant
                if not self.app.busy:
                    await self.reload_pending()

    async def reload_pending(self) -> None:
        """Apply the changes seen since the last reload (called again at a turn's end)."""
        if not self._pending or self.app.busy:
            return
        changed, self._pending = self._pending, set()
        if any(p.name == "config.toml" for p in changed):
            self.app.reload_settings()
        knowledge = await self.load()
        if self.app.agent is not None:
            self.app.agent.use_knowledge(knowledge)
        names = sorted({_what(p) for p in changed})
        self.app.notify(visible(f"Reloaded: {', '.join(names)}"), markup=False, timeout=3)

    # -- commands ----------------------------------------------------------------------

    def custom_command(self, name: str) -> CustomCommand | None:
        """The custom command called ``name`` (with its slash), if one is loaded."""
        return self.knowledge.commands.get(name) if self.knowledge else None

    async def show_memory(self) -> None:
        """``/memory``: what is loaded into the prompt, and the memories to browse."""
        from ..screens.memory import MemoryScreen

        knowledge = await self.ready()
        counter = self.app.agent.provider.count_tokens if self.app.agent else None
        self.app.push_screen(MemoryScreen(knowledge.instructions, self.memory, counter))

    async def show_skills(self) -> None:
        """``/skills``: every skill, its source, and what it shadows."""
        from ..screens.skills import SkillsScreen

        knowledge = await self.ready()
        self.app.push_screen(SkillsScreen(knowledge.skills))

    async def show_hooks(self) -> None:
        """``/hooks``: the hooks in force, and where they come from."""
        knowledge = await self.ready()
        hooks = knowledge.hooks.hooks
        if not hooks:
            self.app.notice("No hooks are configured. Add [[hooks.PreToolUse]] (or PostToolUse, "
                            "UserPromptSubmit, Stop, SessionStart) tables with a command to "
                            "config.toml; see the README's Hooks section.")
            return
        lines = [f"{counted(len(hooks), 'hook')}:"]
        lines += [f"  {hook.describe()}" for hook in hooks]
        self.app.notice("\n".join(lines))


# Each runs in a worker thread, imports included: the engine's modules (numpy among them)
# and watchfiles would otherwise be imported on the loop that draws the keys.


def _read_knowledge(workdir: Path, settings: Any, builtin: list[str]) -> Knowledge:
    from ...core.knowledge import load_knowledge
    from ...core.safety.redaction import settings_secrets

    return load_knowledge(workdir, settings, builtin, settings_secrets(settings))


def _watched_places(workdir: Path, settings: Any) -> Any:
    import watchfiles  # noqa: F401  (loaded here for _next_changes)

    from ...core.knowledge import watched_places

    return watched_places(workdir, settings)


def _warm(memory: Any) -> None:
    """Load the memory's embedder and vectors; a failure waits for the search that needs
    them, which reports it."""
    with contextlib.suppress(Exception):  # the first search says what fails
        memory.warm()


def _open_memory(workdir: Path, settings: Any) -> Any:
    """The project's memories, or None where the database cannot be opened (said once)."""
    from ...core.memory import open_project_memory

    return open_project_memory(workdir, settings)


async def _next_changes(places: Any) -> set[Path]:
    """The paths changed in ``places`` (``core.knowledge.WatchedPlaces``), once some are."""
    from watchfiles import awatch

    async def first(folders: tuple[Path, ...], recursive: bool) -> set[Path]:
        if not folders:
            await asyncio.Event().wait()  # nothing to watch: never
        async for changes in awatch(*folders, recursive=recursive,
                                    debounce=int(RELOAD_QUIET_S * 1000),
                                    ignore_permission_denied=True):
            return {Path(path) for _change, path in changes}
        return set()

    watches = [asyncio.ensure_future(first(places.folders, False)),
               asyncio.ensure_future(first(places.trees, True))]
    try:
        done, _pending = await asyncio.wait(watches, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for watch in watches:
            watch.cancel()
    return set().union(*(task.result() for task in done))


def _what(path: Path) -> str:
    """What a changed file is, in the reload toast."""
    if path.name == "config.toml":
        return "config.toml"
    if path.name == "memory.md":
        return "project memory"
    if "skills" in path.parts:
        return "skills"
    if "commands" in path.parts:
        return "commands"
    return path.name
