"""The only place that runs the stages, in order: read -> parse -> schema -> rules -> project.

Every path ends in one `Outcome`: the envelope for the agent and the diagnostics for the
operator, kept apart. Rejections become failure envelopes; a toolguard bug becomes a failure
envelope too, flagged `internal` so the CLI exits with its own status.
"""

from __future__ import annotations

import hashlib
import time
import traceback
from typing import TYPE_CHECKING, Any, BinaryIO

from toolguard import envelope
from toolguard.errors import (
    ProjectionError,
    Rejection,
    RuleViolation,
    UsageError,
    ValidationError,
)
from toolguard.limits import read_at_most
from toolguard.parse import parse
from toolguard.request import Request
from toolguard.result import Diagnostics, Outcome

if TYPE_CHECKING:
    from toolguard.contract import Contract


def check_stream(contract: Contract, stream: BinaryIO, request: Request) -> Outcome:
    """Read a response from `stream` within the byte budget, then check it."""
    require_context(contract, request)
    started = time.perf_counter()
    try:
        # One byte over the budget is enough to reject: the parser's byte check does it, and
        # the diagnostics still get the size and SHA-256 of what was read.
        raw = read_at_most(stream, contract.limits.max_bytes + 1)
    except Rejection as rejection:
        return _rejected(contract, request, rejection, None, started)
    return _check(contract, raw, request, started)


def check_bytes(contract: Contract, raw: bytes, request: Request) -> Outcome:
    """Check a response already in memory (the library entry point)."""
    if not isinstance(raw, bytes | bytearray | memoryview):
        raise UsageError(f"the response must be bytes, not {type(raw).__name__}")
    require_context(contract, request)
    return _check(contract, bytes(raw), request, time.perf_counter())


def require_context(contract: Contract, request: Request) -> None:
    """Refuse a request whose context a rule cannot use, before any byte is read."""
    missing = sorted(
        {key for rule in contract.rules for key in rule.context_keys} - set(request.context)
    )
    if missing:
        raise UsageError(f"missing request context: {', '.join(missing)} (use --context K=V)")
    for rule in contract.rules:
        for key in rule.context_keys:
            if not isinstance(request.context[key], rule.context_shape):
                shape = "a list (use --context-file)" if rule.context_shape is list else "a scalar"
                raise UsageError(f"context {key!r} must be {shape} for rule {rule.name!r}")


def _check(contract: Contract, raw: bytes, request: Request, started: float) -> Outcome:
    try:
        payload = parse(raw, contract.limits)
        contract.validator.validate(payload)
        for rule in contract.rules:
            try:
                rule(payload, request)
            except RuleViolation as violation:
                violation.message = f"{violation.message} (rule {rule!r})"
                raise
        data = contract.projection(payload)
        result = envelope.success(contract.tool, request.request_id, data)
        try:
            contract.envelope_validator.validate(result)
        except ValidationError as exc:
            raise ProjectionError(
                "envelope_invalid", exc.message, schema_path=exc.schema_path
            ) from None
    except Rejection as rejection:
        return _rejected(contract, request, rejection, raw, started)
    except Exception:  # noqa: BLE001 - any bug must still end in a failure envelope
        return _internal(contract, request, raw, started)
    return Outcome(result, _diagnostics(contract, request, raw, started, outcome="success"))


def _rejected(
    contract: Contract, request: Request, rejection: Rejection, raw: bytes | None, started: float
) -> Outcome:
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
    return Outcome(result, diagnostics)


def _internal(contract: Contract, request: Request, raw: bytes | None, started: float) -> Outcome:
    summary = traceback.format_exc(limit=-3)
    diagnostics = _diagnostics(
        contract,
        request,
        raw,
        started,
        outcome="internal",
        reason="internal_error",
        message=summary,
        error_code="UPSTREAM_UNAVAILABLE",
    )
    result = envelope.failure(contract.tool, request.request_id, "UPSTREAM_UNAVAILABLE", False)
    return Outcome(result, diagnostics)


def _diagnostics(
    contract: Contract,
    request: Request,
    raw: bytes | None,
    started: float,
    **fields: Any,
) -> Diagnostics:
    return Diagnostics(
        tool=contract.tool,
        request_id=request.request_id,
        contract=str(contract.path),
        size=None if raw is None else len(raw),
        sha256=None if raw is None else hashlib.sha256(raw).hexdigest(),
        duration_ms=round((time.perf_counter() - started) * 1000, 3),
        **fields,
    )
