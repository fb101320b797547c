"""The only place that runs the stages, in order.

read -> error documents -> schema -> rules -> projection -> envelope check. Every path ends in
one `Outcome`: the envelope for the agent and the diagnostics for the operator, kept apart.
Rejections become failure envelopes; a toolguard bug becomes a failure envelope too, flagged
`internal` so the CLI exits with its own status.
"""

from __future__ import annotations

import os
import time

from toolguard import error_documents, result, signals
from toolguard.digest import sha256_hex
from toolguard.errors import (
    ContextError,
    ProjectionError,
    Rejection,
    RuleViolation,
    UpstreamError,
    UsageError,
    ValidationError,
)
from toolguard.limits import read_at_most
from toolguard.request import Request, make_request
from toolguard.result import AttemptRecord
from toolguard.rules import context_problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from datetime import datetime
    from pathlib import Path
    from typing import Any, BinaryIO

    from toolguard.contract import Contract
    from toolguard.result import Diagnostics, Outcome
    from toolguard.run.retry import Clock
    from toolguard.run.spawn import Attempt


def check(
    contract: Contract,
    raw: bytes,
    *,
    request_id: str | None = None,
    context: Mapping[str, Any] | None = None,
    now: datetime | str | None = None,
) -> Outcome:
    """Check one response against `contract`; unpack the outcome as `(envelope, diagnostics)`.

    Raises `UsageError` only for a bad request id, context or `now`, or if `raw` is not
    bytes; never because of anything in the response.
    """
    return check_bytes(contract, raw, make_request(request_id, context, now))


def check_stream(contract: Contract, stream: BinaryIO, request: Request) -> Outcome:
    """Read a response from `stream` within the byte budget, then check it."""
    require_context(contract, request)
    started = time.perf_counter()
    try:
        # One byte over the budget is enough to reject: the parser's byte check does it, and
        # the diagnostics still get the size and SHA-256 of what was read.
        raw = read_at_most(stream, contract.limits.max_bytes + 1)
    except Rejection as rejection:
        return result.rejected(contract, request, rejection, None, started)
    return _check(contract, raw, request, started)


def check_bytes(contract: Contract, raw: bytes, request: Request) -> Outcome:
    """Check a response already in memory."""
    if not isinstance(raw, bytes | bytearray | memoryview):
        raise UsageError(f"the response must be bytes, not {type(raw).__name__}")
    require_context(contract, request)
    return _check(contract, bytes(raw), request, time.perf_counter())


def run_upstream(  # noqa: PLR0913 - the run's knobs, all keyword-only
    contract: Contract,
    argv: Sequence[str],
    request: Request,
    *,
    timeout: float | None = None,
    stdin: Path | None = None,
    clock: Clock | None = None,
    runner: Callable[..., Attempt] | None = None,
) -> Outcome:
    """Run the upstream command, with the contract's retries, and check its final answer.

    Each attempt is checked afresh and only the last outcome is returned; its diagnostics list
    every attempt. The first attempt gets its whole timeout (`retry.time_limits`: the budget is
    never shorter); a later one at most what is left of the budget. Raises `UsageError` for a
    `timeout` longer than the contract's explicit `[retry] budget_seconds` or a `stdin` a
    retry could not read again (a pipe), and
    `RunInterrupted` (a `KeyboardInterrupt`, with the attempts done so far) when interrupted.
    """
    # NOTE: imported here, not at the top: `check` never starts a process (start-up budget).
    from toolguard.run.retry import RealClock, require_replayable, time_limits  # noqa: PLC0415
    from toolguard.run.spawn import run_command  # noqa: PLC0415

    require_context(contract, request)
    per_attempt, budget = time_limits(contract.run, contract.retry, timeout)
    require_replayable(stdin, contract.retry)
    clock = clock or RealClock()
    runner = runner or run_command
    policy = contract.retry
    started = clock.monotonic()
    records: list[AttemptRecord] = []
    responses: list[bytes] = []
    environment = contract.run.environment(os.environ)
    running = False
    interrupted = RunInterrupted(records, responses, time.perf_counter())
    try:
        while True:
            # NOTE: a stop whose interrupt was lost (in an import: `signals.still_running`)
            # ends the run here, before, after and between attempts, not one attempt later.
            signals.still_running()
            left = budget - (clock.monotonic() - started)
            running = True
            attempt = runner(
                argv,
                max_bytes=contract.limits.max_bytes,
                timeout=max(min(per_attempt, left), 0.001) if records else per_attempt,
                env=environment,
                stdin=stdin,
            )
            running = False
            outcome = _attempt(contract, attempt, request)
            records.append(_record(len(records) + 1, attempt, outcome.diagnostics))
            responses.append(attempt.stdout)
            signals.still_running()
            code = outcome.diagnostics.error_code
            retryable = bool((outcome.envelope.get("error") or {}).get("retryable"))
            if code is None or not policy.may_retry(code, retryable, len(records)):
                break
            delay = policy.backoff(len(records), clock)
            if clock.monotonic() - started + delay >= budget:
                break  # no time left for another attempt
            signals.still_running()
            clock.sleep(delay)
    except KeyboardInterrupt:
        interrupted.running = running
        raise interrupted from None
    return result.of_attempts(outcome, tuple(argv), tuple(records), tuple(responses))


class RunInterrupted(KeyboardInterrupt):
    """SIGINT, SIGTERM or SIGHUP (raised as `KeyboardInterrupt`) during `run_upstream`.

    Carries what the operator must still learn: the attempts that finished, their output, when
    the run started (`time.perf_counter`), and whether a command was running (its process
    group was then killed by the runner on the way out).
    """

    def __init__(
        self, attempts: list[AttemptRecord], responses: list[bytes], started: float
    ) -> None:
        super().__init__()
        self.attempts = attempts
        self.responses = responses
        self.started = started
        self.running = False

    @property
    def why(self) -> str:
        """What was going on when the interruption came, for the diagnostics' message."""
        done = len(self.attempts)
        if self.running:
            return f"interrupted during attempt {done + 1}: the command's process group was killed"
        if not done:
            return "interrupted before the command was started"
        return f"interrupted after attempt {done}, while no command was running"


def check_failure_report(
    contract: Contract, raw: bytes | None, request: Request, failure: UpstreamError
) -> Outcome:
    """An upstream's own report that it failed (`mcp`: `isError`, or a JSON-RPC error).

    `raw` (what it reported, if readable) is matched against the contract's error documents:
    the code of the one that matches, else `failure`'s. Its text stays with the operator.
    """
    require_context(contract, request)
    started = time.perf_counter()
    reported = _reported_error(contract, raw) if raw is not None else None
    if reported is not None:
        reported.message = f"{failure.message}; {reported.message}"
    return result.rejected(contract, request, reported or failure, raw, started)


def require_context(contract: Contract, request: Request) -> None:
    """Refuse a request whose context a rule cannot use, before any byte is read.

    A secret context value too short to redact from diagnostics is refused too.
    """
    context = request.context
    secret = contract.audit.secret_context
    if secret and not secret.isdisjoint(context):
        from toolguard.redaction import require_redactable  # noqa: PLC0415 - secrets only

        require_redactable(secret, context)
    # NOTE: loops, not sets: `serve` and `mcp` ask twice per request, and nothing is missing.
    for rule in contract.rules:
        for key in rule.context_keys:
            if key not in context:
                needed = {name for each in contract.rules for name in each.context_keys}
                missing = ", ".join(sorted(needed - context.keys()))
                raise ContextError(f"missing request context: {missing}")
    for rule in contract.rules:
        for key in rule.context_keys:
            why = context_problem(rule, context[key])
            if why is not None:
                raise ContextError(f"context {key!r} {why} for rule {rule.name!r}")


def check_attempt(contract: Contract, attempt: Attempt, request: Request) -> Outcome:
    """Check what one run of the command produced (`explain --recheck` replays a record)."""
    require_context(contract, request)
    return _attempt(contract, attempt, request)


def _attempt(contract: Contract, attempt: Attempt, request: Request) -> Outcome:
    """One attempt's outcome: a failed command's output is read only for an error document.

    A declared error document wins whatever the exit status (mapped ones included); an
    unfinished attempt's output (not started, timed out, killed) is never read at all.
    """
    started = time.perf_counter()
    failure = contract.run.before_output(attempt)
    if failure is None and attempt.exit_status and not attempt.over_limit:
        failure = _reported_error(contract, attempt.stdout) or contract.run.exit_failure(
            attempt.exit_status
        )
    if failure is not None:
        return result.rejected(contract, request, failure, attempt.stdout, started)
    return _check(contract, attempt.stdout, request, started)


def _reported_error(contract: Contract, raw: bytes) -> UpstreamError | None:
    """The error document a failed command printed, if its output is one."""
    try:
        payload = contract.adapter(raw, contract.limits)
    except Rejection:
        return None  # its output was never the answer
    return error_documents.match(contract.error_documents, payload)


def _record(number: int, attempt: Attempt, diagnostics: Diagnostics) -> AttemptRecord:
    return AttemptRecord(
        number=number,
        duration_ms=round(attempt.duration * 1000, 3),
        outcome=diagnostics.outcome,
        exit_status=attempt.exit_status,
        signal=attempt.signal,
        timed_out=attempt.timed_out,
        over_limit=attempt.over_limit,
        spawn_error=attempt.spawn_error,
        stdout_size=len(attempt.stdout),
        stdout_sha256=sha256_hex(attempt.stdout),
        stderr=attempt.stderr.decode("utf-8", "replace"),
        stderr_size=attempt.stderr_size,
        layer=diagnostics.layer,
        reason=diagnostics.reason,
        error_code=diagnostics.error_code,
    )


def _check(contract: Contract, raw: bytes, request: Request, started: float) -> Outcome:
    try:
        payload = contract.adapter(raw, contract.limits)
        reported = error_documents.match(contract.error_documents, payload)
        if reported is not None:
            raise reported
        contract.validator.validate(payload)
        for rule in contract.rules:
            try:
                rule(payload, request)
            except RuleViolation as violation:
                violation.message = f"{violation.message} (rule {rule!r})"
                raise
        data = contract.projection(payload)
        answer = result.accepted(contract, request, data, raw, started)
        try:
            contract.success_validator.validate(answer.envelope)
        except ValidationError as exc:
            raise ProjectionError(
                "envelope_invalid", exc.message, schema_path=exc.schema_path
            ) from None
    except Rejection as rejection:
        return result.rejected(contract, request, rejection, raw, started)
    except Exception:  # noqa: BLE001 - any bug must still end in a failure envelope
        return result.internal(contract, request, result.trace(), raw=raw, started=started)
    return answer
