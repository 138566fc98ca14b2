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

MAX_COUNTS = 5
"""Texts :func:`fit` counts at most (the rest of its bisection estimates)."""

TokenCounter = Callable[[str], int]
"""Tokens of a text, as the model counts them."""


def render(files: Mapping[str, FileTags], chosen: Sequence[tuple[str, str]],
           bare: Sequence[str] = ()) -> str:
    """The map's text (without the intro): the files of ``chosen`` definitions in path
    order, each with those definitions' lines, then the ``bare`` files' names alone."""
    return _Renderer(files).render(chosen, bare)


class _Renderer:
    """Renders maps of ``files`` again and again (the bisection of :func:`fit`), each
    file's rows by name looked up once."""

    def __init__(self, files: Mapping[str, FileTags]) -> None:
        self.files = files
        self._rows: dict[str, dict[str, set[int]]] = {}

    def rows(self, rel: str) -> dict[str, set[int]]:
        found = self._rows.get(rel)
        if found is None:
            found = self._rows[rel] = {}
            for name, line, scopes in self.files[rel].definitions:
                rows = found.get(name)
                if rows is None:
                    rows = found[name] = set()
                rows.add(line)
                if scopes:
                    rows.update(scopes)
        return found

    def render(self, chosen: Sequence[tuple[str, str]], bare: Sequence[str]) -> str:
        names: dict[str, set[str]] = defaultdict(set)
        for rel, name in chosen:
            names[rel].add(name)
        parts: list[str] = []
        for rel in sorted(names):
            by_name = self.rows(rel)
            rows = set().union(*(by_name.get(name, ()) for name in names[rel]))
            lines = self.files[rel].lines
            parts.append(f"{rel}:")
            previous = -1
            for row in sorted(rows):
                if row != previous + 1:
                    parts.append("⋮")
                parts.append(f"│{lines.get(row, '')}")
                previous = row
            parts.append("⋮")
        parts.extend(sorted(bare))
        return "\n".join(parts)


def fit(files: Mapping[str, FileTags], ranked: Sequence[tuple[str, str]],
        other_files: Sequence[str], budget: int, count: TokenCounter) -> str:
    """The longest map that ``count`` says fits in ``budget`` tokens: the best ranked
    definitions, then the names of files that gave none, found by bisection ("" when not
    even one definition fits).

    The bisection estimates a text's tokens from its length at the ratio of the last text
    counted and counts only its answer (a count of a long text can take a tenth of a
    second); an answer over the budget shrinks the search, one under it grows it, with the
    ratio that count gave, a few times at most."""
    items: list[tuple[str, str] | str] = [*ranked, *other_files]
    renderer = _Renderer(files)

    def text_of(size: int) -> str:
        head = items[:size]
        return renderer.render([i for i in head if isinstance(i, tuple)],
                               [i for i in head if isinstance(i, str)])

    ratio: float | None = None
    low, high = 1, len(items)
    best = ""
    for _ in range(MAX_COUNTS):
        if low > high:
            break
        size, found = _bisect(text_of, low, high, budget, ratio)
        if size == 0:
            break
        tokens = count(found)
        ratio = tokens / max(len(found), 1)
        if tokens <= budget:
            best, low = found, size + 1  # the ratio is known better now: try for more
        else:
            high = size - 1
    return best


def _bisect(text_of: Callable[[int], str], low: int, high: int, budget: int,
            ratio: float | None) -> tuple[int, str]:
    """The largest size in ``low..high`` whose text is estimated to fit (0, "" if none)."""
    estimate = ratio or 0.3
    size, best = 0, ""
    while low <= high:
        middle = (low + high) // 2
        text = text_of(middle)
        if len(text) * estimate <= budget:
            size, best, low = middle, text, middle + 1
        else:
            high = middle - 1
    return size, best
