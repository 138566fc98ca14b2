"""The fake Anthropic endpoint's prompt cache bills reads and writes as the real API does."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from tests.fakes.providers import FakeProvider, Reply

MARK = {"type": "ephemeral"}
LONG = "Rules of the house. " * 400  # about 2,000 tokens


def _post(fake: FakeProvider, body: dict[str, Any]) -> dict[str, Any]:
    fake.script(Reply("ok"))
    request = urllib.request.Request(
        fake.anthropic_base + "/v1/messages",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=5) as answer:
        usage: dict[str, Any] = json.loads(answer.read())["usage"]
        return usage


def _body(system: str, *turns: str, marks: int = 1) -> dict[str, Any]:
    messages = [{"role": "user", "content": [{"type": "text", "text": t}]} for t in turns]
    for message in messages[len(messages) - (marks - 1) :] if marks > 1 else []:
        message["content"][-1]["cache_control"] = MARK
    return {
        "model": "claude-x",
        "max_tokens": 10,
        "system": [{"type": "text", "text": system, "cache_control": MARK}],
        "messages": messages,
    }


def test_a_marked_prefix_is_written_then_read(fake_provider):
    first = _post(fake_provider, _body(LONG, "hello"))
    second = _post(fake_provider, _body(LONG, "hello again"))

    assert first["cache_creation_input_tokens"] > 1000
    assert first["cache_read_input_tokens"] == 0
    assert second["cache_read_input_tokens"] == first["cache_creation_input_tokens"]
    assert second["cache_creation_input_tokens"] == 0
    assert second["input_tokens"] > 0


def test_a_changed_prefix_is_written_anew(fake_provider):
    _post(fake_provider, _body(LONG, "hello"))
    changed = _post(fake_provider, _body(LONG + "Date: tomorrow", "hello"))

    assert changed["cache_read_input_tokens"] == 0
    assert changed["cache_creation_input_tokens"] > 1000


def test_a_short_prefix_is_not_cached(fake_provider):
    _post(fake_provider, _body("short", "hello"))
    again = _post(fake_provider, _body("short", "hello"))

    assert again["cache_read_input_tokens"] == again["cache_creation_input_tokens"] == 0


def test_a_later_breakpoint_reads_the_prefix_before_it(fake_provider):
    _post(fake_provider, _body(LONG, "one"))
    grown = _post(fake_provider, _body(LONG, "one", "two", marks=2))

    assert grown["cache_read_input_tokens"] > 1000
    assert grown["cache_creation_input_tokens"] > 0


def test_more_than_four_breakpoints_is_the_apis_400(fake_provider):
    with pytest.raises(urllib.error.HTTPError) as caught:
        _post(fake_provider, _body(LONG, "a", "b", "c", "d", marks=5))

    assert caught.value.code == 400
    assert "A maximum of 4 blocks with cache_control" in caught.value.read().decode()
