"""Ranking the repository map's definitions, aider's way.

Files are the nodes of a graph; a file that uses a name another file defines gets an edge
to it, weighted by how telling the name is and how often it is used. PageRank over that
graph, personalized toward the files the conversation touches or names, ranks the files;
each file's rank then flows along its edges to the definitions it uses, which ranks the
definitions themselves.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Mapping
from dataclasses import dataclass

import numpy as np

from .repo_map_tags import FileTags

DAMPING = 0.85
"""PageRank's damping factor (networkx's default, which aider uses)."""
MAX_ITERATIONS = 100
TOLERANCE = 1e-6


@dataclass(frozen=True, slots=True)
class Focus:
    """What the conversation touches, which the ranking leans toward.

    Attributes:
        files: Files the conversation read or changed (their neighbours rank higher; they
            themselves are left out of the map: the conversation holds them).
        mentioned_files: Files the person named.
        mentioned_names: Identifiers the person named.
    """

    files: frozenset[str] = frozenset()
    mentioned_files: frozenset[str] = frozenset()
    mentioned_names: frozenset[str] = frozenset()


def pagerank(size: int, edges: Mapping[tuple[int, int], float],
             personalization: Mapping[int, float] | None = None) -> np.ndarray:
    """PageRank of a weighted directed graph of ``size`` nodes, as networkx computes it.

    Args:
        edges: ``(source, target) -> weight``.
        personalization: Where a random jump lands (and dangling nodes lead), by node;
            None or empty: anywhere alike.
    """
    if size == 0:
        return np.zeros(0)
    jump = np.zeros(size)
    for node, weight in (personalization or {}).items():
        jump[node] = weight
    jump = jump / jump.sum() if jump.sum() > 0 else np.full(size, 1.0 / size)
    sources = np.fromiter((s for s, _ in edges), dtype=np.int64, count=len(edges))
    targets = np.fromiter((t for _, t in edges), dtype=np.int64, count=len(edges))
    weights = np.fromiter(edges.values(), dtype=np.float64, count=len(edges))
    out = np.bincount(sources, weights=weights, minlength=size)
    share = weights / out[sources] if len(edges) else weights
    dangling = out == 0
    rank = np.full(size, 1.0 / size)
    for _ in range(MAX_ITERATIONS):
        previous = rank
        flow = np.bincount(targets, weights=previous[sources] * share, minlength=size)
        rank = DAMPING * (flow + previous[dangling].sum() * jump) + (1 - DAMPING) * jump
        if np.abs(rank - previous).sum() < size * TOLERANCE:
            break
    return rank


def rank_definitions(files: Mapping[str, FileTags], focus: Focus) -> list[tuple[str, str]]:
    """``(file, name)`` of every definition that other files use, best first, then the
    definitions nobody uses; files in ``focus.files`` are left out."""
    defined: dict[str, set[str]] = defaultdict(set)
    for rel, tags in files.items():
        for definition in tags.definitions:
            defined[definition.name].add(rel)
    index = {rel: i for i, rel in enumerate(sorted(files))}
    targets = {name: tuple(sorted(index[rel] for rel in definers))
               for name, definers in defined.items()}
    weights = {name: _name_weight(name, len(definers), focus.mentioned_names)
               for name, definers in defined.items()}
    # Each file's edges: (name, weight, the files it leads to)
    uses: dict[int, list[tuple[str, float, tuple[int, ...]]]] = {}
    for rel, tags in files.items():
        boost = 50.0 if rel in focus.files else 1.0
        uses[index[rel]] = [(name, weights[name] * boost * math.sqrt(count), targets[name])
                            for name, count in tags.references.items() if name in weights]
    referenced = {name for tags in files.values() for name in tags.references}
    for name, definers in targets.items():  # defined but used nowhere: a weak self-loop
        if name not in referenced:
            for definer in definers:
                uses[definer].append((name, 0.1, (definer,)))
    edges: dict[tuple[int, int], float] = defaultdict(float)
    for source, named in uses.items():
        for _, weight, leads_to in named:
            for target in leads_to:
                edges[(source, target)] += weight
    personal = {index[rel]: 1.0 for rel in focus.files | focus.mentioned_files if rel in index}
    rank = pagerank(len(index), edges, personal)
    names = sorted(index, key=index.__getitem__)
    scores: dict[tuple[str, str], float] = defaultdict(float)
    for source, named in uses.items():
        out = sum(weight * len(leads_to) for _, weight, leads_to in named)
        if not out:
            continue
        flow = rank[source] / out
        for name, weight, leads_to in named:
            for target in leads_to:
                scores[(names[target], name)] += flow * weight
    ranked = sorted(scores, key=lambda key: (-scores[key], key))
    return [key for key in ranked if key[0] not in focus.files]


def _name_weight(name: str, definers: int, mentioned: Collection[str]) -> float:
    """How much a use of ``name`` says about the files: named by the person, long and
    specific names count more; private names and names many files define count less."""
    weight = 1.0
    if name in mentioned:
        weight *= 10
    specific = (("_" in name or "-" in name) or any(c.isupper() for c in name[1:]))
    if specific and len(name) >= 8:
        weight *= 10
    if name.startswith("_"):
        weight *= 0.1
    if definers > 5:
        weight *= 0.1
    return weight


def file_ranks(files: Mapping[str, FileTags], ranked: list[tuple[str, str]]) -> list[str]:
    """The files in the order their first definition ranks, then the rest by name."""
    order = list(dict.fromkeys(rel for rel, _ in ranked))
    seen = set(order)
    return order + sorted(rel for rel in files if rel not in seen)
