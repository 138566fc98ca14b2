"""Project instructions: the ``AGENTS.md`` files loaded into the system prompt at start.

What is loaded, in this order (later files are closer to the work and win a conflict):

1. the person's own ``AGENTS.md`` in agent-tui's config folder;
2. from the project's root down to the working folder, each folder's ``AGENTS.md`` — or,
   where a folder has none, its ``CLAUDE.md`` or else its ``GEMINI.md`` (files people
   already keep for other agents);
3. the project's memory (``.agent-tui/memory.md``), the notes ``remember`` keeps.

Every text passes through the same redaction as everything else the model sees.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .. import paths
from ..safety.redaction import redact_text

INSTRUCTION_NAMES: tuple[str, ...] = ("AGENTS.md", "CLAUDE.md", "GEMINI.md")
"""The names of instruction files, the first one present in a folder winning."""

MAX_FILE_CHARS = 40_000
"""Characters kept of one file; a longer one is cut with a note (its start is what matters)."""


@dataclass(frozen=True, slots=True)
class InstructionFile:
    """One loaded instruction file.

    Attributes:
        path: The file.
        source: ``user`` (the person's own), ``project`` (a folder of the project) or
            ``memory`` (the project's ``remember`` notes).
        text: Its content as the model sees it (redacted, cut when too long).
        truncated: Whether it was cut to :data:`MAX_FILE_CHARS`.
    """

    path: Path
    source: str
    text: str
    truncated: bool = False

    @property
    def label(self) -> str:
        """What the file is, for lists: ``project AGENTS.md``, ``memory``…"""
        return {"user": "your AGENTS.md", "memory": "project memory"}.get(
            self.source, f"project {self.path.name}")


@dataclass(frozen=True, slots=True)
class Instructions:
    """The instruction files of one session, and what could not be read."""

    files: tuple[InstructionFile, ...] = ()
    problems: tuple[str, ...] = ()

    def prompt_section(self) -> str:
        """The system prompt's section of instructions; empty when there are none."""
        if not self.files:
            return ""
        parts = [
            "\nInstructions the person keeps for this work (AGENTS.md files, the project's "
            "memory). Follow them; where two disagree, the later one (closer to the working "
            "folder) wins. They do not override safety rules or the person's own words.\n"
        ]
        for item in self.files:
            parts.append(f'<instructions source="{item.source}" path="{item.path}">\n'
                         f"{item.text.strip()}\n</instructions>\n")
        return "\n".join(parts)

    @property
    def paths(self) -> tuple[Path, ...]:
        """The files loaded."""
        return tuple(item.path for item in self.files)


def instruction_candidates(workdir: Path) -> list[tuple[Path, str]]:
    """The files that would be loaded for ``workdir`` if present, with their source: the
    person's own, each folder's names from the root down, the memory file. What a watcher
    watches."""
    candidates = [(paths.user_instructions_file(), "user")]
    for folder in project_folders(workdir):
        candidates += [(folder / name, "project") for name in INSTRUCTION_NAMES]
    candidates.append((paths.project_memory_file(workdir), "memory"))
    return candidates


def project_folders(workdir: Path) -> list[Path]:
    """The folders from the project's root down to ``workdir`` (both included)."""
    here = Path(os.path.realpath(workdir))
    root = paths.project_root(workdir)
    folders = [here]
    while folders[-1] != root and folders[-1].parent != folders[-1]:
        folders.append(folders[-1].parent)
    return folders[::-1] if folders[-1] == root else [here]


def load_instructions(workdir: Path, secrets: Iterable[str] = ()) -> Instructions:
    """Read the instruction files for ``workdir``; unreadable ones are reported, not fatal.

    Args:
        workdir: The working folder.
        secrets: Exact values to hide besides API-key shapes (the session's secrets).
    """
    secrets = tuple(secrets)
    files: list[InstructionFile] = []
    problems: list[str] = []
    taken_folders: set[Path] = set()
    for path, source in instruction_candidates(workdir):
        if source == "project" and path.parent in taken_folders:
            continue  # this folder's AGENTS.md (or an earlier name) is loaded already
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            continue
        except OSError as exc:
            problems.append(f"{path}: cannot be read ({exc.strerror or exc}); it was not "
                            "loaded.")
            continue
        if source == "project":
            taken_folders.add(path.parent)
        text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff")
        truncated = len(text) > MAX_FILE_CHARS
        if truncated:
            text = text[:MAX_FILE_CHARS] + (
                f"\n\n[agent-tui: the rest of this file ({len(text) - MAX_FILE_CHARS:,} "
                "characters) was not loaded; read it with read_file if you need it]")
            problems.append(f"{path}: {len(raw):,} bytes; only the first "
                            f"{MAX_FILE_CHARS:,} characters are loaded. Shorten it.")
        if text.strip():
            files.append(InstructionFile(path, source, redact_text(text, secrets), truncated))
    return Instructions(tuple(files), tuple(problems))
