"""What prompt caching saves: a scripted 30-call session against the fake Anthropic endpoint.

Run from the repository root (agent-tui installed, e.g. ``pip install -e .``)::

    python3 benchmarks/caching.py [--calls 30] [--file-lines 60]

The fake Anthropic endpoint (``tests/fakes/providers.py``, spoken to through real litellm
and HTTP) bills each request as the real API does (``tests/fakes/prompt_cache.py``): the
prefix up to a ``cache_control`` block it has seen before is read from the cache
(``cache_read_input_tokens``), a new one is written (``cache_creation_input_tokens``), the
rest is plain input. The session is a headless run (stream-json) of ``--calls`` model calls:
each but the last reads one of the project's files, the last answers. Its input cost
(litellm's prices for claude-sonnet-4-5: $3 a million input tokens, $3.75 written to the
cache, $0.30 read from it) is printed beside the baseline: the same session with no
``cache_control`` in the requests, as agent-tui sent them before, which the API bills as
plain input throughout.

Asserted: the bytes of each request up to its last breakpoint (tools, system prompt,
history) are the first bytes of the next request, and the tools and system prompt are the
same in every request. Goal: the input cost with caching at most 25 % of the cost without.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from agent_tui.core.config import Settings  # noqa: E402
from agent_tui.core.providers import litellm as litellm_provider  # noqa: E402
from agent_tui.tui.cli.headless import run_headless  # noqa: E402
from tests.fakes.prompt_cache import cached_prefix, request_bytes  # noqa: E402
from tests.fakes.providers import FakeProvider, RecordedRequest, Reply, ToolCall  # noqa: E402

MODEL = "anthropic/claude-sonnet-4-5"
GOAL = 0.25


def project(root: Path, files: int, lines: int) -> None:
    """``files`` Python files of ``lines`` lines each."""
    for i in range(files):
        body = "".join(
            f"def step_{i}_{n}(value):\n    return value + {n}\n" for n in range(lines // 2)
        )
        (root / f"module_{i}.py").write_text(body)


def script(calls: int) -> list[Reply]:
    """``calls - 1`` replies that read a file each, then the answer."""
    reads = [
        Reply(
            text=f"Reading module {i}.",
            tool_calls=[ToolCall("read_file", {"file_path": f"module_{i}.py"})],
        )
        for i in range(calls - 1)
    ]
    return [*reads, Reply(text="Every module adds its step number to the value.")]


async def session(
    calls: int, lines: int, caching: bool
) -> tuple[list[dict[str, Any]], list[RecordedRequest]]:
    """Run the scripted session; the per-call usage records and the requests sent."""
    marks = litellm_provider.takes_cache_marks
    if not caching:
        litellm_provider.takes_cache_marks = lambda model: False  # type: ignore[assignment]
    try:
        with FakeProvider() as fake, tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            project(root, calls - 1, lines)
            fake.script(*script(calls))
            settings = Settings(model=MODEL, api_base=fake.anthropic_base, api_key="sk-bench")
            out, err = io.StringIO(), io.StringIO()
            code = await run_headless(
                settings, root, "What does each module do?", "stream-json", out, err
            )
            if code != 0:
                raise SystemExit(f"the session failed ({code}): {err.getvalue()}")
            events = [json.loads(line) for line in out.getvalue().splitlines()]
            usages = [e["usage"] for e in events if e["type"] == "usage"]
            return usages, fake.requests
    finally:
        litellm_provider.takes_cache_marks = marks


def input_cost(usages: list[dict[str, Any]]) -> float:
    """Dollars for the input side of the calls: their cost less the output's."""
    litellm = litellm_provider.load_litellm()
    output_price = float(litellm.get_model_info(MODEL)["output_cost_per_token"])
    return sum(u["cost"] - u["completion_tokens"] * output_price for u in usages)


def check_prefix(requests: list[RecordedRequest]) -> int:
    """Assert that each request's cached prefix is where the next request starts; return
    the bytes of the tools and system prompt, the same in every request."""
    heads = {json.dumps([r.body.get("tools"), r.body.get("system")]) for r in requests}
    assert len(heads) == 1, "the tools or the system prompt changed between calls"
    for before, after in zip(requests, requests[1:], strict=False):
        prefix = cached_prefix(before.body)
        assert prefix, "a request to Anthropic carried no cache breakpoint"
        assert request_bytes(after.body).startswith(prefix), "the cached prefix changed"
    return len(heads.pop())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--file-lines", type=int, default=60)
    args = parser.parse_args()

    cached, requests = asyncio.run(session(args.calls, args.file_lines, caching=True))
    plain, _ = asyncio.run(session(args.calls, args.file_lines, caching=False))
    head_bytes = check_prefix(requests)
    assert not any(u["cache_read_tokens"] or u["cache_write_tokens"] for u in plain)
    with_cache, without = input_cost(cached), input_cost(plain)
    tokens = sum(u["prompt_tokens"] for u in cached)
    reads = sum(u["cache_read_tokens"] for u in cached)
    writes = sum(u["cache_write_tokens"] for u in cached)
    ratio = with_cache / without
    print(
        f"{args.calls} model calls, {tokens:,} input tokens in all; tools + system prompt "
        f"{head_bytes:,} bytes, identical in every request; each cached prefix is the "
        "start of the next request (asserted)"
    )
    print(f"  cache reads {reads:,} tokens, cache writes {writes:,} tokens")
    print(f"  input cost with caching:       ${with_cache:.4f}")
    print(f"  input cost without (baseline): ${without:.4f}")
    verdict = "PASS" if ratio <= GOAL else "MISS"
    print(f"  with / without: {ratio:.1%} (goal <= {GOAL:.0%}) {verdict}")


if __name__ == "__main__":
    main()
