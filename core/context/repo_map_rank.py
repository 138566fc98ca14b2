"""Ranking the repository map's definitions, aider's way.

Files are the nodes of a graph; a file that uses a name another file defines gets an edge
to it, weighted by how telling the name is and how often it is used. PageRank over that
graph, personalized toward the files the conversation touches or names, ranks the files;
each file's rank then flows along its edges to the definitions it uses, which ranks the
definitions themselves.
"""

from __future__ import annotations

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
    sources = np.fromiter((s for s, _ in edges), dtype=np.int64, count=len(edges))
    targets = np.fromiter((t for _, t in edges), dtype=np.int64, count=len(edges))
    weights = np.fromiter(edges.values(), dtype=np.float64, count=len(edges))
    return _pagerank(size, sources, targets, weights, personalization or {})


def _pagerank(size: int, sources: np.ndarray, targets: np.ndarray, weights: np.ndarray,
              personalization: Mapping[int, float]) -> np.ndarray:
    """:func:`pagerank` of edges given as arrays (repeated edges add up)."""
    if size == 0:
        return np.zeros(0)
    jump = np.zeros(size)
    for node, weight in personalization.items():
        jump[node] = weight
    jump = jump / jump.sum() if jump.sum() > 0 else np.full(size, 1.0 / size)
    out = np.bincount(sources, weights=weights, minlength=size)
    share = weights / out[sources] if len(weights) else weights
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
    paths = sorted(files)
    index = {rel: i for i, rel in enumerate(paths)}
    definers: dict[str, set[int]] = defaultdict(set)
    for rel, tags in files.items():
        for definition in tags.definitions:
            definers[definition.name].add(index[rel])
    names = sorted(definers)
    if not names:
        return []
    name_id = {name: i for i, name in enumerate(names)}
    weights = np.array([_name_weight(n, len(definers[n]), focus.mentioned_names) for n in names])
    # One row per (file, name it uses): which file, which name, how often.
    rows: list[tuple[int, int, int]] = []
    referenced: set[str] = set()
    for rel, tags in files.items():
        source = index[rel]
        referenced.update(tags.references)
        rows.extend((source, name_id[name], count)
                    for name, count in tags.references.items() if name in name_id)
    used = np.array(rows, dtype=np.int64).reshape(-1, 3)
    boost = np.array([50.0 if rel in focus.files else 1.0 for rel in paths])
    weight = weights[used[:, 1]] * boost[used[:, 0]] * np.sqrt(used[:, 2])
    # Each row leads to every file that defines the name: expand it once per definer.
    lead = [sorted(definers[name]) for name in names]
    counts = np.array([len(targets) for targets in lead], dtype=np.int64)
    flat = np.array([t for targets in lead for t in targets], dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    repeat = counts[used[:, 1]]
    starts = np.repeat(np.cumsum(repeat) - repeat, repeat)
    nth = np.arange(int(repeat.sum())) - starts
    sources = np.repeat(used[:, 0], repeat)
    ids = np.repeat(used[:, 1], repeat)
    targets = flat[offsets[ids] + nth]
    edge_weights = np.repeat(weight, repeat)
    # A name defined but used nowhere: a weak self-loop on each file that defines it.
    lonely = [(t, name_id[n]) for n in names if n not in referenced for t in definers[n]]
    if lonely:
        loops = np.array(lonely, dtype=np.int64)
        sources = np.concatenate((sources, loops[:, 0]))
        targets = np.concatenate((targets, loops[:, 0]))
        ids = np.concatenate((ids, loops[:, 1]))
        edge_weights = np.concatenate((edge_weights, np.full(len(loops), 0.1)))
    personal = {index[rel]: 1.0 for rel in focus.files | focus.mentioned_files if rel in index}
    rank = _pagerank(len(paths), sources, targets, edge_weights, personal)
    out = np.bincount(sources, weights=edge_weights, minlength=len(paths))
    flow = rank[sources] * edge_weights / np.where(out[sources] > 0, out[sources], 1.0)
    keys, inverse = np.unique(targets * len(names) + ids, return_inverse=True)
    scores = np.bincount(inverse, weights=flow)
    order = np.lexsort((keys, -scores))
    ranked = [(paths[int(k) // len(names)], names[int(k) % len(names)]) for k in keys[order]]
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
