"""Bounded retries, decided here and never by the model: attempts, a time budget, backoff.

The article's policy: retry only what may succeed next time (by default an unavailable
upstream), a few times, within a total time budget, with exponential backoff and full jitter
so that many callers do not retry in step. Each attempt is checked afresh; only the last
outcome reaches the agent.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Protocol

from toolguard.errors import ErrorCode


class Clock(Protocol):
    """Time as the retry loop sees it (a fake one in tests)."""

    def monotonic(self) -> float:
        """Seconds since an arbitrary, fixed start."""
        ...

    def sleep(self, seconds: float) -> None:
        """Wait."""
        ...

    def uniform(self, low: float, high: float) -> float:
        """A random number in [low, high]."""
        ...


class RealClock:
    """The process's monotonic clock, `time.sleep` and a non-cryptographic jitter source."""

    def monotonic(self) -> float:
        """Seconds on the monotonic clock."""
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        """Block for `seconds`."""
        time.sleep(seconds)

    def uniform(self, low: float, high: float) -> float:
        """A random delay: jitter needs spread, not secrecy."""
        return random.uniform(low, high)  # noqa: S311


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """The contract's `[retry]` table; the default is a single attempt."""

    max_attempts: int = 1
    budget_seconds: float = 60.0
    retry_on: frozenset[ErrorCode] = field(
        default_factory=lambda: frozenset({"UPSTREAM_UNAVAILABLE"})
    )
    initial_backoff_seconds: float = 0.5
    max_backoff_seconds: float = 8.0

    def backoff(self, attempt: int, clock: Clock) -> float:
        """Full jitter: uniform in [0, min(max, initial * 2**(attempt - 1))]."""
        ceiling = min(self.max_backoff_seconds, self.initial_backoff_seconds * 2 ** (attempt - 1))
        return clock.uniform(0.0, ceiling)

    def may_retry(self, code: ErrorCode, retryable: bool, attempt: int) -> bool:
        """Whether a failed attempt number `attempt` may be followed by another."""
        return retryable and code in self.retry_on and attempt < self.max_attempts
