"""When and how long to wait before retrying a call that failed with UNAVAILABLE.

Only UNAVAILABLE is retried: it means the request never reached a healthy server or
the server shed it, so sending it again is safe for a read or for a write the server
can recognise by its request_id. Every other code is final.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import grpc


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter between attempts."""

    max_attempts: int = 3
    initial_backoff: float = 0.1
    max_backoff: float = 2.0
    multiplier: float = 2.0

    def should_retry(self, code: grpc.StatusCode, retryable: bool, attempt: int) -> bool:
        """Whether to try again after `attempt` (0-based) failed with `code`."""
        return retryable and code == grpc.StatusCode.UNAVAILABLE and attempt + 1 < self.max_attempts

    def delay(self, attempt: int) -> float:
        """Seconds to wait after the 0-based `attempt` failed."""
        ceiling = min(self.max_backoff, self.initial_backoff * self.multiplier**attempt)
        # Half fixed, half random: spreads retries of many clients without ever
        # retrying immediately.
        return ceiling / 2 + random.uniform(0, ceiling / 2)
