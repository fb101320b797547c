"""Results: what one check produced, as values, and every way an outcome is built.

An `Outcome` pairs the agent's envelope with the operator's diagnostics. The builders below
are the only places that make one: accepted, rejected, a toolguard bug, an interrupt, a run's
attempts, an MCP call, and an answer whose audit record could not be written. `envelope.py` and
`report.py` render them.
"""

from __future__ import annotations

import time

from toolguard import envelope
from toolguard.digest import sha256_hex
from toolguard.errors import ExitStatus, broken_install
from toolguard.frozen import field, frozen, replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any, Literal, Protocol

    from toolguard.errors import AuditError, ErrorCode, Layer, Rejection
    from toolguard.redaction import Secrets
    from toolguard.request import Request

    class Answering(Protocol):
        """What an outcome needs of the contract that answered (a `Contract` is one)."""

        @property
        def tool(self) -> str:
            """The tool name every envelope carries."""

        @property
        def source(self) -> str:
            """The contract file, for the operator."""


@frozen
class AttemptRecord:
    """One run of the upstream command, as the operator needs it (`toolguard run`)."""

    number: int
    duration_ms: float
    outcome: Literal["success", "failure", "internal"]
    exit_status: int | None = None
    signal: int | None = None
    timed_out: bool = False
    over_limit: bool = False
    spawn_error: str | None = None
    stdout_size: int = 0
    stdout_sha256: str | None = None
    # The first bytes, decoded with replacement: hostile, escape on display; out of `repr`.
    stderr: str = field(default="", repr=False)
    stderr_size: int = 0
    layer: Layer | None = None
    reason: str | None = None
    error_code: ErrorCode | None = None


@frozen
class Diagnostics:
    """What the operator needs to know about one check; never shown to the agent.

    `message` and `instance_path` may quote the rejected response (a member name, a value):
    they are left out of `repr` and `str`, so a host that logs or formats the diagnostics
    whole passes on none of it; read them by name, for the operator only.
    """

    tool: str
    request_id: str
    contract: str
    outcome: Literal["success", "failure", "internal"]
    size: int | None = None
    sha256: str | None = None
    duration_ms: float = 0.0
    layer: Layer | None = None
    reason: str | None = None
    message: str | None = field(default=None, repr=False)
    offset: int | None = None
    schema_path: str | None = None
    instance_path: str | None = field(default=None, repr=False)
    rule: str | None = None
    error_code: ErrorCode | None = None
    upstream: tuple[str, ...] | None = None  # argv, for `toolguard run`
    attempts: tuple[AttemptRecord, ...] = ()

    @property
    def exit_status(self) -> ExitStatus:
        """The process exit status this outcome maps to."""
        if self.outcome == "success":
            return ExitStatus.SUCCESS
        return ExitStatus.INTERNAL if self.outcome == "internal" else ExitStatus.FAILURE


@frozen
class Outcome:
    """The agent's envelope and the operator's diagnostics, as two separate values.

    `responses` holds the raw bytes that were read (one per attempt), for the audit trail's
    raw copies; unpacking an outcome gives only `(envelope, diagnostics)`.
    """

    envelope: dict[str, Any]
    diagnostics: Diagnostics
    responses: tuple[bytes, ...] = field(default=(), repr=False)

    def __iter__(self) -> Iterator[Any]:
        return iter((self.envelope, self.diagnostics))


def accepted(
    contract: Answering, request: Request, data: dict[str, Any], raw: bytes, started: float
) -> Outcome:
    """The success envelope around the projected `data`."""
    result = envelope.success(contract.tool, request.request_id, data)
    diagnostics = _diagnostics(contract, request, raw, started, outcome="success")
    return Outcome(result, diagnostics, (raw,))


def rejected(
    contract: Answering,
    request: Request,
    rejection: Rejection,
    raw: bytes | None,
    started: float | None,
) -> Outcome:
    """A failure envelope with the rejection's code; the operator gets everything it said."""
    diagnostics = _diagnostics(
        contract,
        request,
        raw,
        started,
        outcome="failure",
        layer=rejection.layer,
        reason=rejection.reason,
        message=rejection.message,
        offset=rejection.offset,
        schema_path=rejection.schema_path,
        instance_path=rejection.instance_path,
        rule=rejection.rule,
        error_code=rejection.code,
    )
    result = envelope.failure(
        contract.tool, request.request_id, rejection.code, rejection.retryable
    )
    return Outcome(result, diagnostics, () if raw is None else (raw,))


def internal(  # noqa: PLR0913 - where it happened, all keyword-only
    contract: Answering,
    request: Request,
    why: str,
    *,
    raw: bytes | None = None,
    started: float | None = None,
    upstream: tuple[str, ...] | None = None,
) -> Outcome:
    """A toolguard bug: the agent still gets a failure envelope; the CLI exits 4."""
    diagnostics = _diagnostics(
        contract,
        request,
        raw,
        started,
        outcome="internal",
        reason="internal_error",
        message=why,
        error_code="UPSTREAM_UNAVAILABLE",
        upstream=upstream,
    )
    result = envelope.failure(contract.tool, request.request_id, "UPSTREAM_UNAVAILABLE", False)
    return Outcome(result, diagnostics, () if raw is None else (raw,))


def interrupted(  # noqa: PLR0913 - what was done before the interruption, keyword-only
    contract: Answering,
    request: Request,
    why: str,
    upstream: tuple[str, ...] | None = None,
    *,
    started: float | None = None,
    attempts: tuple[AttemptRecord, ...] = (),
    responses: tuple[bytes, ...] = (),
) -> Outcome:
    """SIGINT, SIGTERM or SIGHUP once the request exists: a retryable failure.

    The operator learns why, how long it had run (from `started`, a `time.perf_counter`) and,
    for `run`, every attempt that finished before it.
    """
    diagnostics = _diagnostics(
        contract,
        request,
        None,
        started,
        outcome="failure",
        layer="input",
        reason="interrupted",
        message=why,
        error_code="UPSTREAM_UNAVAILABLE",
        upstream=upstream,
        attempts=attempts,
    )
    result = envelope.failure(contract.tool, request.request_id, "UPSTREAM_UNAVAILABLE", True)
    return Outcome(result, diagnostics, responses)


def of_attempts(
    last: Outcome,
    argv: tuple[str, ...],
    attempts: tuple[AttemptRecord, ...],
    responses: tuple[bytes, ...],
) -> Outcome:
    """A run's outcome: the last attempt's answer, with every attempt for the operator."""
    diagnostics = replace(last.diagnostics, upstream=argv, attempts=attempts)
    return Outcome(last.envelope, diagnostics, responses)


def relayed(
    outcome: Outcome, line: bytes | None, server: tuple[str, ...], started: float
) -> Outcome:
    """An MCP call's outcome, with the server's whole line as its raw evidence.

    The payload was read from that line; the server's command is the upstream, and the time
    runs from the call.
    """
    duration = round((time.perf_counter() - started) * 1000, 3)
    diagnostics = replace(outcome.diagnostics, upstream=server, duration_ms=duration)
    return Outcome(outcome.envelope, diagnostics, () if line is None else (line,))


def unrecorded(outcome: Outcome, error: AuditError) -> Outcome:
    """The failure the agent gets when the trail cannot be written; the operator learns why.

    An outcome already turned by an earlier loss (the raw copy, then the record: a full disk
    fails both) keeps that loss's message, and with it the response's own verdict.
    """
    before = outcome.diagnostics
    if before.layer == error.layer:
        message = f"{error.message}; {before.message}"
    else:
        verdict = "accepted" if before.outcome == "success" else f"{before.layer}: {before.reason}"
        message = f"{error.message} (the response itself was {verdict})"
    diagnostics = replace(
        before,
        outcome="internal" if before.outcome == "internal" else "failure",
        layer=error.layer,
        reason=error.reason,
        message=message,
        error_code=error.code,
        schema_path=None,
        instance_path=None,
        rule=None,
        offset=None,
    )
    failure = envelope.failure(before.tool, before.request_id, error.code, error.retryable)
    return Outcome(failure, diagnostics, outcome.responses)


def redacted(outcome: Outcome, request: Request, secret: frozenset[str]) -> Outcome:
    """The outcome as the operator may see it: no secret context value in its diagnostics.

    Every free-text field (the message, paths, the command's argv, each attempt's stderr and
    spawn error) has each value of the `secret` keys replaced by `[secret:KEY]`. What the agent
    gets (the envelope) and the raw responses (the evidence, kept byte-exact) are untouched.
    Applied wherever an outcome is about to be reported or recorded.
    """
    if not secret or secret.isdisjoint(request.context):
        return outcome
    from toolguard.redaction import Secrets  # noqa: PLC0415 - only requests with secrets

    secrets = Secrets.of(secret, request.context)
    if secrets is None:
        return outcome
    return Outcome(outcome.envelope, _redacted(outcome.diagnostics, secrets), outcome.responses)


def _redacted(diagnostics: Diagnostics, secrets: Secrets) -> Diagnostics:
    def text(value: str | None) -> str | None:
        return None if value is None else secrets.text(value)

    attempts = tuple(
        replace(
            attempt,
            # NOTE: the excerpt is the first bytes of stderr: it may end inside a secret.
            stderr=secrets.text(attempt.stderr, cut=attempt.stderr_size > len(attempt.stderr)),
            spawn_error=text(attempt.spawn_error),
        )
        for attempt in diagnostics.attempts
    )
    return replace(
        diagnostics,
        contract=secrets.text(diagnostics.contract),
        message=text(diagnostics.message),
        schema_path=text(diagnostics.schema_path),
        instance_path=text(diagnostics.instance_path),
        rule=text(diagnostics.rule),
        upstream=None
        if diagnostics.upstream is None
        else tuple(secrets.text(arg) for arg in diagnostics.upstream),
        attempts=attempts,
    )


def trace() -> str:
    """The last frames of the exception being handled, for an internal error's message.

    A broken install (`broken_install`: a missing dependency, ijson without its C backend) is
    no bug: its message, which says what to install, is the whole story.
    """
    import sys  # noqa: PLC0415 - only a toolguard bug or a broken install gets here
    import traceback  # noqa: PLC0415

    if (broken := broken_install(sys.exc_info()[1])) is not None:
        return str(broken)
    return traceback.format_exc(limit=-3)


def _diagnostics(
    contract: Answering,
    request: Request,
    raw: bytes | None,
    started: float | None,
    outcome: Literal["success", "failure", "internal"],
    **fields: Any,
) -> Diagnostics:
    # NOTE: the first seven fields by position, in `Diagnostics`' order: a keyword call costs
    # a microsecond more, on every check.
    return Diagnostics(
        contract.tool,
        request.request_id,
        contract.source,
        outcome,
        None if raw is None else len(raw),
        None if raw is None else sha256_hex(raw),
        0.0 if started is None else round((time.perf_counter() - started) * 1000, 3),
        **fields,
    )
