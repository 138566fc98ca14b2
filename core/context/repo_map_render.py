"""The repository map as the model reads it, cut to a token budget.

Each file is a heading followed by the lines that define its chosen names and the lines
of the definitions around them (a method's class), ``⋮`` standing for lines left out, as
aider shows its map::

    core/agent.py:
    ⋮
    │class Agent:
    ⋮
    │    async def run(self, prompt: str) -> RunResult:
    ⋮
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .repo_map_tags import FileTags

REPO_MAP_PREFIX = "[REPOSITORY MAP]"
"""How the map's message starts (prompt caching marks the history before it, not it)."""
REPO_MAP_INTRO = (
    f"{REPO_MAP_PREFIX} The files of this project most related to the conversation, with "
    "the lines that define their main names (⋮ marks lines left out). agent-tui rebuilds "
    "it between turns; it is context, not a request. Read a file before changing it.")

TokenCounter = Callable[[str], int]
"""Tokens of a text, as the model counts them."""


def render(files: Mapping[str, FileTags], chosen: Sequence[tuple[str, str]],
           bare: Sequence[str] = ()) -> str:
    """The map's text (without the intro): the files of ``chosen`` definitions in path
    order, each with those definitions' lines, then the ``bare`` files' names alone."""
    names: dict[str, set[str]] = defaultdict(set)
    for rel, name in chosen:
        names[rel].add(name)
    parts: list[str] = []
    for rel in sorted(names):
        tags = files[rel]
        rows: set[int] = set()
        for definition in tags.definitions:
            if definition.name in names[rel]:
                rows.add(definition.line)
                rows.update(definition.scopes)
        parts.append(f"{rel}:")
        previous = -1
        for row in sorted(rows):
            if row != previous + 1:
                parts.append("⋮")
            parts.append(f"│{tags.lines.get(row, '')}")
            previous = row
        parts.append("⋮")
    parts.extend(sorted(bare))
    return "\n".join(parts)


def fit(files: Mapping[str, FileTags], ranked: Sequence[tuple[str, str]],
        other_files: Sequence[str], budget: int, count: TokenCounter) -> str:
    """The longest map that ``count`` says fits in ``budget`` tokens: the best ranked
    definitions, then the names of files that gave none, found by bisection ("" when not
    even one definition fits)."""
    items: list[tuple[str, str] | str] = [*ranked, *other_files]
    best = ""
    low, high = 1, len(items)
    while low <= high:
        middle = (low + high) // 2
        head = items[:middle]
        text = render(files, [i for i in head if isinstance(i, tuple)],
                      [i for i in head if isinstance(i, str)])
        if count(text) <= budget:
            best, low = text, middle + 1
        else:
            high = middle - 1
    return best
