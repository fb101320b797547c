"""The `[run]` table: how to run the command, and what an attempt without a usable answer means.

A command that could not start, ran out of time or was killed by a signal never gets its
output read (it may be half an answer): it becomes an `UpstreamError` with a finite code and a
retry hint. A command that exited with a non-zero status is read only for a declared error
document, which wins whatever the status; else the status decides. Defaults follow ssh: 255
is a connection failure (`UPSTREAM_UNAVAILABLE`, retryable), as are timeouts and signals; any
other non-zero status is `UPSTREAM_UNAVAILABLE`, not retryable (a failing command usually
fails again), unless the contract maps it.
"""

from __future__ import annotations

from types import MappingProxyType

from toolguard.error_documents import Mapped
from toolguard.errors import UpstreamError
from toolguard.frozen import field, frozen
from toolguard.run.environment import DEFAULT_NAMES, INHERIT, allowed, without_toolguard
from toolguard.signals import signal_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from toolguard.run.environment import Inherit
    from toolguard.run.spawn import Attempt

DEFAULT_TIMEOUT = 30.0
_SSH_CONNECTION_FAILED = 255
_UNMAPPED = Mapped("UPSTREAM_UNAVAILABLE", False)
_DEFAULT_EXITS = MappingProxyType({_SSH_CONNECTION_FAILED: Mapped("UPSTREAM_UNAVAILABLE", True)})


@frozen
class RunPolicy:
    """The contract's `[run]` table: how to run the command and read its failures."""

    timeout_seconds: float | None = None  # None: not set (DEFAULT_TIMEOUT, within the budget)
    # Names (or `PREFIX*`) passed through, or INHERIT for all; TOOLGUARD_* never passes.
    env: tuple[str, ...] | Inherit = DEFAULT_NAMES
    exit_statuses: Mapping[int, Mapped] = field(default_factory=lambda: _DEFAULT_EXITS)

    def environment(self, current: Mapping[str, str]) -> dict[str, str]:
        """The child's environment: what `env` allows of `current`, never `TOOLGUARD_*`."""
        if self.env == INHERIT:
            return without_toolguard(current)
        return allowed(current, self.env)

    def before_output(self, attempt: Attempt) -> UpstreamError | None:
        """The failure an unfinished attempt is, whatever it printed; None to read its output.

        Not started, timed out or killed: its output is never read, not even for an error
        document. Output over `max_bytes` is read, to be rejected by the limits layer.
        """
        if attempt.spawn_error is not None:
            return UpstreamError(
                "not_started",
                f"cannot run the command: {attempt.spawn_error}",
                code="UPSTREAM_UNAVAILABLE",
                retryable=False,
            )
        if attempt.timed_out:
            return UpstreamError(
                "timeout",
                f"no complete answer within {attempt.duration:.3f} s; process group killed",
                code="UPSTREAM_UNAVAILABLE",
                retryable=True,
            )
        if attempt.over_limit:
            return None  # the output is over max_bytes: the limits layer rejects it
        if attempt.signal is not None:
            return UpstreamError(
                "killed",
                f"the command was killed by {signal_name(attempt.signal)}",
                code="UPSTREAM_UNAVAILABLE",
                retryable=True,
            )
        return None

    def exit_failure(self, status: int) -> UpstreamError:
        """What a non-zero exit status means when the output is no declared error document."""
        return _exit_error(status, self.exit_statuses.get(status, _UNMAPPED))


def unmapped_exit(status: int) -> UpstreamError:
    """A non-zero exit status the contract does not map."""
    return _exit_error(status, _UNMAPPED)


def _exit_error(status: int, mapped: Mapped) -> UpstreamError:
    return UpstreamError(
        "exit_status",
        f"the command exited with status {status}",
        code=mapped.code,
        retryable=mapped.retryable,
    )
