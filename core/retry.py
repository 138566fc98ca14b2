"""When and how long to wait before retrying a failed model call."""

from __future__ import annotations

import random
from dataclasses import dataclass

from .providers.base import ProviderError

# A Retry-After beyond this is not waited for: the run fails with the provider's message.
LONGEST_RETRY_AFTER = 300.0


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Exponential backoff with jitter, bounded attempts, Retry-After honoured.

    Attributes:
        max_retries: Retries after the first attempt.
        base_delay: Delay before the first retry (before jitter).
        max_delay: Ceiling of the exponential delay.
    """

    max_retries: int = 5
    base_delay: float = 1.0
    max_delay: float = 60.0

    def next_delay(self, error: ProviderError, retries_done: int) -> float | None:
        """Seconds to wait before the next attempt, or None when not to retry."""
        if not error.retryable or retries_done >= self.max_retries:
            return None
        if error.retry_after is not None:
            if error.retry_after > LONGEST_RETRY_AFTER:
                return None
            return max(0.0, error.retry_after)
        ceiling = min(self.max_delay, self.base_delay * 2.0**retries_done)
        # "Equal jitter": at least half the backoff, so retries never bunch at zero.
        return ceiling / 2 + random.uniform(0, ceiling / 2)
