"""Token accounting per turn on a 200K-token context, with the ledger's cache and without.

Run from the repository root (agent-tui installed, e.g. ``pip install -e .``)::

    python3 benchmarks/context.py [--messages N] [--tokens-per-message T] [--runs R]

A transcript of ``--messages`` (default 400) messages of about ``--tokens-per-message``
(default 500) tokens is made: a system prompt, then user prompts, assistant messages with a
tool call, and tool results in turn. Counted with litellm's real counter for
``openai/gpt-4o`` (``LitellmProvider.count_tokens``, one message at a time), it times:

* **cold**: ``TokenLedger.count`` on a fresh ledger (every message counted once);
* **warm, +1 message**: one new message appended to the counted transcript, then
  ``count`` (the per-turn cost; median of ``--runs``);
* **warm, unchanged**: ``count`` again with nothing new (the cache lookups alone);
* **after_turn, +1 message**: ``ContextManager.after_turn`` under its first threshold
  (ledger plus the threshold check);
* **baseline**: ``litellm.token_counter`` on the whole transcript, what counting without
  a cache costs every turn (median of a few runs).

The ledger's total is checked against the baseline's (they should agree to the token).
Goal: warm, +1 message under 5 ms. Exits 1 when it misses.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from agent_tui.core.config import Settings
from agent_tui.core.context.window import ContextManager, TokenLedger
from agent_tui.core.providers.litellm import LitellmProvider, load_litellm

T = TypeVar("T")
GOAL_MS = 5.0
MODEL = "openai/gpt-4o"
WORDS = ("the agent reads files runs tests and edits code def class return import self value "
         "result error path config session token window context summary fragment").split()


WORDS_PER_TOKEN = 0.78
"""Measured for this vocabulary with gpt-4o's tokenizer (numbers take two tokens)."""


def text(rng: random.Random, tokens: int) -> str:
    """About ``tokens`` tokens of words and numbers."""
    return " ".join(rng.choice(WORDS) if i % 7 else str(rng.randrange(10_000))
                    for i in range(int(tokens * WORDS_PER_TOKEN)))


def message(rng: random.Random, n: int, tokens: int) -> dict[str, Any]:
    """The ``n``-th message of the transcript: user, assistant with a call, tool result."""
    kind = n % 3
    if kind == 0:
        return {"role": "user", "content": text(rng, tokens)}
    if kind == 1:
        return {"role": "assistant", "content": text(rng, tokens - 20), "tool_calls": [
            {"id": f"call_{n}", "type": "function", "function": {
                "name": "read_file", "arguments": json.dumps({"file_path": f"src/m{n}.py"})}}]}
    return {"role": "tool", "tool_call_id": f"call_{n - 1}", "content": text(rng, tokens)}


def transcript(count: int, tokens: int) -> list[dict[str, Any]]:
    """A system prompt and ``count - 1`` messages."""
    rng = random.Random(7)
    return [{"role": "system", "content": text(rng, tokens)},
            *(message(rng, n, tokens) for n in range(count - 1))]


def ms(fn: Callable[[], T]) -> tuple[float, T]:
    """Milliseconds one call of ``fn`` takes, and what it returned."""
    started = time.perf_counter()
    value = fn()
    return (time.perf_counter() - started) * 1000, value


def main() -> int:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=400)
    parser.add_argument("--tokens-per-message", type=int, default=500)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--baseline-runs", type=int, default=5)
    args = parser.parse_args()

    litellm = load_litellm()
    provider = LitellmProvider(Settings(model=MODEL))
    messages = transcript(args.messages, args.tokens_per_message)
    rng = random.Random(11)

    def baseline() -> int:
        return int(litellm.token_counter(model=MODEL, messages=messages))

    baseline()  # the tokenizer's first load is not a turn's cost
    whole_times, whole = zip(*(ms(baseline) for _ in range(args.baseline_runs)), strict=True)

    ledger = TokenLedger(provider.count_tokens)
    cold, total = ms(lambda: ledger.count(messages))

    added: list[float] = []
    for n in range(args.runs):
        messages.append(message(rng, len(messages) + n, args.tokens_per_message))
        elapsed, total = ms(lambda: ledger.count(messages))
        added.append(elapsed)
    unchanged = [ms(lambda: ledger.count(messages))[0] for _ in range(args.runs)]
    check = baseline()

    with tempfile.TemporaryDirectory() as tmp:
        manager = ContextManager(10 * check, provider.count_tokens, Path(tmp))
        manager.after_turn(messages)
        turns: list[float] = []
        for n in range(args.runs):
            messages.append(message(rng, len(messages) + n, args.tokens_per_message))
            turns.append(ms(lambda: manager.after_turn(messages))[0])

    warm = statistics.median(added)
    rows = [
        ("ledger, cold (first count)", f"{cold:,.0f} ms", "1 count per message"),
        ("ledger, warm, +1 message (median)", f"{warm:.2f} ms",
         f"max {max(added):.2f} ms"),
        ("ledger, warm, unchanged (median)", f"{statistics.median(unchanged):.2f} ms", ""),
        ("after_turn, +1 message (median)", f"{statistics.median(turns):.2f} ms",
         "below the first threshold"),
        ("baseline: token_counter, whole transcript", f"{statistics.median(whole_times):,.0f} ms",
         f"median of {args.baseline_runs}"),
    ]
    print(f"{args.messages} messages of ~{args.tokens_per_message} tokens: "
          f"{whole[0]:,} tokens by litellm.token_counter ({MODEL})\n")
    print("| measure | time | note |\n|---|---:|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(f"\nledger total {total:,} vs whole-transcript count {check:,} "
          f"(difference {total - check:+,})")
    passed = warm < GOAL_MS
    print(f"warm, +1 message: {warm:.2f} ms, goal < {GOAL_MS:g} ms: {'PASS' if passed else 'MISS'}"
          f"; {statistics.median(whole_times) / warm:,.0f}x faster than the baseline")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
