"""Anthropic's prompt cache, as the real Messages API keeps it, for the fake provider.

The API reads a request as one sequence of blocks: the tools, then the system prompt's
blocks, then each message's content blocks. A block marked ``cache_control`` is a
breakpoint (at most four; a fifth is a 400). At each breakpoint the API looks for the
longest cached prefix ending at that block or at one of the 20 blocks before it; what it
finds is billed as ``cache_read_input_tokens``. The prefix up to the last breakpoint, beyond
what was read, is written to the cache and billed as ``cache_creation_input_tokens``
(prefixes shorter than the model's minimum, 1,024 tokens, are never cached). The rest is
``input_tokens``. The marks themselves are not part of what is cached: moving a
breakpoint does not change a prefix.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from typing import Any

MAX_BREAKPOINTS = 4
LOOKBACK_BLOCKS = 20
MIN_CACHEABLE_TOKENS = 1024
TOO_MANY_BREAKPOINTS = "A maximum of 4 blocks with cache_control may be provided. Found {}."


@dataclass(frozen=True)
class CacheUsage:
    """How one request's input tokens were billed."""

    input_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int

    def fields(self) -> dict[str, int]:
        """The usage fields as the API sends them."""
        return {
            "input_tokens": self.input_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
        }


def request_blocks(body: dict[str, Any]) -> list[tuple[bytes, bool]]:
    """The request's blocks in the order the API caches them, each as its canonical bytes
    (without its mark) and whether it is a breakpoint."""
    blocks: list[tuple[bytes, bool]] = []

    def add(kind: str, block: Any) -> None:
        marked = isinstance(block, dict) and block.get("cache_control") is not None
        if isinstance(block, dict):
            block = {k: v for k, v in block.items() if k != "cache_control"}
        blocks.append((json.dumps([kind, block], sort_keys=True).encode(), marked))

    for tool in body.get("tools") or []:
        add("tool", tool)
    system = body.get("system")
    for block in [{"type": "text", "text": system}] if isinstance(system, str) else system or []:
        add("system", block)
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for block in content or []:
            add(str(message.get("role")), block)
    return blocks


def cached_prefix(body: dict[str, Any]) -> bytes:
    """The bytes of the request up to its last breakpoint (b"" without one): what the
    next call must send again, unchanged, to read it from the cache."""
    blocks = request_blocks(body)
    last = max((i for i, (_, marked) in enumerate(blocks) if marked), default=-1)
    return b"".join(data for data, _ in blocks[: last + 1])


def request_bytes(body: dict[str, Any]) -> bytes:
    """The bytes of every block of the request, in cache order."""
    return b"".join(data for data, _ in request_blocks(body))


class PromptCache:
    """The prefixes one fake server has cached, per model (no expiry: a test is shorter
    than the API's five minutes)."""

    def __init__(self, min_tokens: int = MIN_CACHEABLE_TOKENS) -> None:
        self.min_tokens = min_tokens
        self._lock = threading.Lock()
        self._cached: set[tuple[str, str]] = set()

    def breakpoint_count(self, body: dict[str, Any]) -> int:
        """How many blocks of the request carry ``cache_control``."""
        return sum(marked for _, marked in request_blocks(body))

    def bill(self, body: dict[str, Any], total_tokens: int) -> CacheUsage:
        """Bill a request of ``total_tokens`` input tokens, reading and writing the cache."""
        model = str(body.get("model"))
        blocks = request_blocks(body)
        digest = hashlib.sha256()
        hashes: list[str] = []
        tokens: list[int] = []
        size = 0
        for data, _ in blocks:
            digest.update(data)
            hashes.append(digest.hexdigest())
            size += len(data)
            tokens.append(min(total_tokens, size // 4))
        points = [i for i, (_, marked) in enumerate(blocks) if marked]
        with self._lock:
            read = 0
            for point in points:
                for index in range(point, max(-1, point - LOOKBACK_BLOCKS), -1):
                    if (model, hashes[index]) in self._cached:
                        read = max(read, tokens[index])
                        break
            written = 0
            for point in points:
                if tokens[point] >= self.min_tokens:
                    self._cached.add((model, hashes[point]))
                    written = max(written, tokens[point])
        creation = max(0, written - read)
        return CacheUsage(total_tokens - read - creation, creation, read)
