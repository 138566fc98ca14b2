"""Backoff: exponential with jitter, bounded, Retry-After honoured, 4xx never retried."""

from __future__ import annotations

import pytest

from agent_tui.core.providers.base import ProviderError
from agent_tui.core.retry import LONGEST_RETRY_AFTER, RetryPolicy


def error(kind, retry_after=None):
    return ProviderError("boom", kind=kind, retry_after=retry_after)


def test_backoff_grows_with_jitter_and_is_capped():
    policy = RetryPolicy(max_retries=10, base_delay=1.0, max_delay=8.0)
    for retries_done, ceiling in [(0, 1), (1, 2), (2, 4), (3, 8), (6, 8)]:
        delays = {policy.next_delay(error("server"), retries_done) for _ in range(50)}
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(delays) > 1  # jittered


def test_retry_after_is_honoured():
    policy = RetryPolicy(max_retries=3, base_delay=1.0, max_delay=2.0)
    assert policy.next_delay(error("rate_limit", retry_after=7.5), 0) == 7.5


def test_absurd_retry_after_gives_up():
    policy = RetryPolicy()
    assert policy.next_delay(error("rate_limit", LONGEST_RETRY_AFTER + 1), 0) is None


def test_attempts_are_bounded():
    policy = RetryPolicy(max_retries=2)
    assert policy.next_delay(error("server"), 1) is not None
    assert policy.next_delay(error("server"), 2) is None


@pytest.mark.parametrize("kind", ["auth", "missing_key", "refused", "dns", "tls", "unknown_model",
                                  "bad_request", "not_found", "context_length"])
def test_client_errors_are_never_retried(kind):
    assert RetryPolicy().next_delay(error(kind), 0) is None
