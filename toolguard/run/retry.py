"""Bounded retries, decided here and never by the model: attempts, a time budget, backoff.

The article's policy: retry only what may succeed next time (by default an unavailable
upstream), a few times, within a total time budget, with exponential backoff and full jitter
so that many callers do not retry in step. Each attempt is checked afresh; only the last
outcome reaches the agent.

Time limits say what they do (`time_limits`): a per-attempt timeout someone wrote down (the
`--timeout` flag or `[run] timeout_seconds`) is honoured in full. Where it is longer than the
default budget, the budget grows to it; where it is longer than a budget someone also wrote
down, that is refused with both named, never silently cut.
"""

from __future__ import annotations

import os
import stat
import time

from toolguard.errors import UsageError
from toolguard.frozen import field, frozen
from toolguard.run.policy import DEFAULT_TIMEOUT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Protocol

    from toolguard.errors import ErrorCode
    from toolguard.run.policy import RunPolicy

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


DEFAULT_BUDGET = 60.0


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
        import random  # noqa: PLC0415 - only a retry waits (`random` seeds itself on import)

        return random.uniform(low, high)  # noqa: S311


@frozen
class RetryPolicy:
    """The contract's `[retry]` table; the default is a single attempt."""

    max_attempts: int = 1
    budget_seconds: float | None = None  # None: DEFAULT_BUDGET, or one timeout if longer
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


def time_limits(
    run: RunPolicy, retry: RetryPolicy, timeout: float | None = None
) -> tuple[float, float]:
    """(each attempt's timeout, the total budget) for `timeout` (`--timeout`) or the contract's.

    Raises `UsageError` for a timeout that is not positive or is longer than an explicit budget.
    """
    if timeout is not None and not timeout > 0:
        raise UsageError(f"the timeout must be a positive number of seconds, not {timeout!r}")
    chosen = timeout if timeout is not None else run.timeout_seconds
    if chosen is None:  # nobody set one: the default, within whatever budget there is
        budget = DEFAULT_BUDGET if retry.budget_seconds is None else retry.budget_seconds
        return min(DEFAULT_TIMEOUT, budget), budget
    if retry.budget_seconds is None:
        return chosen, max(DEFAULT_BUDGET, chosen)
    conflict = budget_conflict(chosen, retry.budget_seconds, flag=timeout is not None)
    if conflict is not None:
        raise UsageError(conflict)
    return chosen, retry.budget_seconds


def budget_conflict(timeout: float, budget: float, *, flag: bool = False) -> str | None:
    """Why an explicit timeout cannot run within an explicit budget, or None if it can."""
    if timeout <= budget:
        return None
    given = f"--timeout {timeout:g}" if flag else f"[run] timeout_seconds = {timeout:g}"
    return (
        f"{given} is longer than the contract's [retry] budget_seconds = {budget:g}: the budget "
        "would cut every attempt short; lower the timeout or raise the budget"
    )


_READ_ONCE = {stat.S_IFIFO: "a pipe", stat.S_IFSOCK: "a socket"}


def require_replayable(stdin: Path | None, retry: RetryPolicy) -> None:
    """Refuse a stdin that a retry could not read again: a pipe or a socket, with retries.

    Each attempt opens the file afresh and reads it from the start, so a retried command gets
    the same input; a pipe (a named one, or `<(cmd)`) gives its bytes to the first reader
    only, and a retry would run the command on what is left (nothing). Raises `UsageError`.
    """
    if stdin is None or retry.max_attempts < 2:
        return
    try:
        mode = os.stat(stdin).st_mode  # noqa: PTH116 - a Path, or a library caller's str
        kind = _READ_ONCE.get(stat.S_IFMT(mode))
    except (OSError, ValueError):
        return  # the attempt reports it: a stdin that cannot be opened is a spawn error
    if kind is not None:
        raise UsageError(
            f"the command's stdin {os.fsdecode(stdin)} is {kind}: it can be read once, and "
            f"[retry] max_attempts = {retry.max_attempts} would read it again for a retry; "
            "give a regular file"
        )
