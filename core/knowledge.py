"""What a session knows beyond its conversation, read from files: the project's
instructions (AGENTS.md), the skills on offer, the person's custom commands, the hooks and
the personas (with the one the session has taken on).

All of it is read at start and read again, between turns, when one of its files changes
(:func:`watched_places` names what to watch). Reading is cheap (a few milliseconds for dozens
of files) but touches the disk: callers run :func:`load_knowledge` in a thread.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from . import paths
from .config import is_trusted
from .custom_commands import CustomCommands, command_folders, load_custom_commands
from .hooks import HookSet, load_hooks
from .memory.instructions import (
    INSTRUCTION_NAMES,
    Instructions,
    instruction_candidates,
    load_instructions,
)
from .personas import Persona, PersonaCatalog, load_personas, persona_sources
from .skills import SkillCatalog, discover_skills, skill_folders

if TYPE_CHECKING:
    from .settings import Settings


@dataclass(slots=True)
class Knowledge:
    """The files a session is steered by.

    Attributes:
        workdir: The working folder.
        instructions: The AGENTS.md files (and the project's memory) loaded.
        skills: The skills on offer.
        commands: The custom slash commands.
        hooks: The hooks that run around prompts and tool calls.
        trusted: Whether the project is trusted (its files may grant tools and run hooks).
        personas: The personas on offer (``--agent``, ``/agent``).
        persona: The persona the session has taken on (the ``agent`` setting), or None.
    """

    workdir: Path
    instructions: Instructions = field(default_factory=Instructions)
    skills: SkillCatalog = field(default_factory=lambda: SkillCatalog())
    commands: CustomCommands = field(default_factory=CustomCommands)
    hooks: HookSet = field(default_factory=lambda: HookSet((), []))
    trusted: bool = False
    personas: PersonaCatalog = field(default_factory=PersonaCatalog)
    persona: Persona | None = None

    @property
    def problems(self) -> list[str]:
        """What could not be loaded or was skipped, one message each (file and line)."""
        return [*self.instructions.problems, *self.skills.problems, *self.commands.problems,
                *self.hooks.warnings, *self.personas.problems]

    def prompt_sections(self, *, skills: bool = True) -> str:
        """The system prompt's part of it: the persona taken on, the instructions, then the
        skills on offer (unless ``skills`` is false: the lean tool set cannot activate them)."""
        persona = self.persona.prompt_section() if self.persona is not None else ""
        offered = self.skills.prompt_block() if skills else ""
        return persona + self.instructions.prompt_section() + offered


def load_knowledge(workdir: Path, settings: Settings | None = None,
                   builtin_commands: Iterable[str] = (), secrets: Iterable[str] = ()) -> Knowledge:
    """Read everything a session at ``workdir`` is steered by.

    Args:
        workdir: The working folder.
        settings: The settings (``skill_paths`` adds folders of skills, ``agent`` names the
            persona taken on), or None.
        builtin_commands: The built-in slash commands, which no custom one may shadow.
        secrets: Exact values redacted from instruction files.
    """
    trusted = is_trusted(paths.project_root(workdir))
    extra = [Path(p).expanduser() for p in getattr(settings, "skill_paths", None) or ()]
    personas = load_personas(workdir, trusted=trusted)
    persona = None
    if name := getattr(settings, "agent", None):
        persona = personas.get(name)
        if persona is None:
            personas.problems.append(personas.unknown(name))
    return Knowledge(
        workdir=workdir,
        instructions=load_instructions(workdir, secrets),
        skills=discover_skills(workdir, extra),
        commands=load_custom_commands(workdir, builtin_commands, trusted=trusted),
        hooks=load_hooks(workdir),
        trusted=trusted,
        personas=personas,
        persona=persona,
    )


@dataclass(frozen=True, slots=True)
class WatchedPlaces:
    """Where a change calls for :func:`load_knowledge` again.

    Attributes:
        folders: Folders whose own files matter (watched without their subfolders): where
            instruction files, the config files and the project's memory are.
        trees: Folders where any file matters, however deep (skills, commands, personas).
    """

    folders: tuple[Path, ...]
    trees: tuple[Path, ...]

    def matters(self, path: Path) -> bool:
        """Whether a change to ``path`` calls for a reload."""
        if any(path.is_relative_to(tree) for tree in self.trees):
            return True
        return path.parent in self.folders and (
            path.name in INSTRUCTION_NAMES or path.name in ("config.toml", "memory.md")
            or path.name in ("skills", "commands", "agents"))  # a folder of them appeared


def watched_places(workdir: Path, settings: Settings | None = None) -> WatchedPlaces:
    """The places to watch for ``workdir`` (only those that exist: a folder made later is
    seen by its parent's watch, and the places are computed again after each reload)."""
    extra = [Path(p).expanduser() for p in getattr(settings, "skill_paths", None) or ()]
    folders = {path.parent for path, _source in instruction_candidates(workdir)}
    folders |= {paths.user_config_file().parent, paths.project_config_file(workdir).parent}
    trees = set(skill_folders(workdir, extra))
    trees |= {folder for folder, _source in command_folders(workdir)}
    trees |= {folder for folder, source in persona_sources(workdir) if source != "bundled"}
    return WatchedPlaces(tuple(sorted(f for f in folders if f.is_dir())),
                         tuple(sorted(t for t in trees if t.is_dir())))
