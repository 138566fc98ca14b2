"""g3's ``remember``: Markdown notes merged into the project's memory file.

The file (``.agent-tui/memory.md``) is loaded into every later session's system prompt, so
what one session learns about the project (entry points, conventions, where things live)
the next one knows. Notes under a ``### Heading`` the file already has join that section
(lines it already holds are not repeated); new headings are added at the end; notes without
a heading go under ``### Notes``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .. import paths
from ..text.durable import write_atomically

HEADING = re.compile(r"^#{1,6}\s+\S")
DEFAULT_HEADING = "### Notes"
TITLE = "# Project memory\n\nNotes agent-tui's `remember` keeps; loaded into every session.\n"
SIZE_WARNING = 40_000
"""Characters past which the file is worth consolidating (it is loaded into every prompt)."""


@dataclass(frozen=True, slots=True)
class Remembered:
    """What ``remember`` did: the file, lines added, and its size afterwards."""

    path: Path
    added: int
    size: int


def read_project_notes(workdir: Path) -> str:
    """The project's memory file's text ("" when there is none)."""
    try:
        return paths.project_memory_file(workdir).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def merge_notes(existing: str, notes: str) -> tuple[str, int]:
    """``existing`` with ``notes`` merged in; returns the text and how many lines were added."""
    sections = _sections(existing)
    added = 0
    for heading, lines in _sections(notes if HEADING.match(notes.lstrip()) else
                                    f"{DEFAULT_HEADING}\n{notes}"):
        if not any(line.strip() for line in lines):
            continue
        if heading is None:
            heading = DEFAULT_HEADING
        target = next((body for head, body in sections
                       if head is not None and _same(head, heading)), None)
        if target is None:
            target = []
            sections.append((heading, target))
        have = {line.strip() for line in target if line.strip()}
        for line in lines:
            if line.strip() and line.strip() not in have:
                if target and not target[-1].strip():
                    target.pop()  # keep a section's lines together
                target.append(line)
                have.add(line.strip())
                added += 1
    return _joined(sections), added


def remember(workdir: Path, notes: str) -> Remembered:
    """Merge ``notes`` into the project's memory file, atomically.

    Raises:
        ValueError: ``notes`` is empty.
        OSError: the file cannot be written.
    """
    if not notes.strip():
        raise ValueError("the notes are empty; give the Markdown to remember")
    path = paths.project_memory_file(workdir)
    existing = read_project_notes(workdir) or TITLE
    text, added = merge_notes(existing, notes.strip("\n"))
    if added:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, text.encode("utf-8"))
    return Remembered(path, added, len(text))


def _sections(text: str) -> list[tuple[str | None, list[str]]]:
    sections: list[tuple[str | None, list[str]]] = [(None, [])]
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("#") and HEADING.match(line):
            sections.append((line.rstrip(), []))
        else:
            sections[-1][1].append(line)
    return sections


def _same(a: str, b: str) -> bool:
    return a.lstrip("#").strip().lower() == b.lstrip("#").strip().lower()


def _joined(sections: list[tuple[str | None, list[str]]]) -> str:
    parts = []
    for heading, lines in sections:
        while lines and not lines[-1].strip():
            lines.pop()
        block = "\n".join(([heading] if heading else []) + lines).strip("\n")
        if block:
            parts.append(block)
    return "\n\n".join(parts) + "\n"
