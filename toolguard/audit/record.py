"""One audit record: the whole story of a check as a closed, bounded JSON object.

The shape is `schemas/audit-record.schema.json`. Every string from a response, a command or
a schema is escaped and truncated before it is recorded, and the encoded record never passes
`MAX_RECORD_BYTES`: when it would, detail is dropped in a fixed order and `truncated` is set.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import cache
from typing import TYPE_CHECKING, Any

from toolguard import envelope
from toolguard.audit import Source
from toolguard.audit.log import MAX_RECORD_BYTES
from toolguard.audit.raw import Kept
from toolguard.errors import Rejection
from toolguard.limits import Limits
from toolguard.parse import parse
from toolguard.redaction import Secrets
from toolguard.result import AttemptRecord, Outcome, redacted
from toolguard.schema import Validator, compile_schema
from toolguard.schema.refs import read_schema
from toolguard.shipped import shipped_schema
from toolguard.text import clean, clean_message
from toolguard.version import __version__

if TYPE_CHECKING:
    from toolguard.audit import Command
    from toolguard.contract import Contract
    from toolguard.request import Request

FORMAT = 1
_PATH = 1024
_MESSAGE = 512
_STDERR = 256
_VALUE = 256
RECORD_LIMITS = Limits(max_bytes=MAX_RECORD_BYTES, max_depth=8, max_string_length=MAX_RECORD_BYTES)
_DIAGNOSTIC_FIELDS = ("layer", "reason", "rule", "schema_path", "instance_path", "offset")
_INT64 = range(-(2**63), 2**63)  # the integers `decode` (yajl) reads back


def build(  # noqa: PLR0913 - the record's parts, all keyword-only
    outcome: Outcome,
    contract: Contract,
    request: Request,
    *,
    command: Command,
    source: Source,
    kept: Sequence[Kept] = (),
    hash_secret: Callable[[object], str] | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """The record for one outcome, before bounding (see `encode`)."""
    # NOTE: the record is written for the operator: no secret context value in clear, whatever
    # quotes it (a rule's message, the command's argv or stderr, a projected value).
    outcome = redacted(outcome, request, contract.audit.secret_context)
    secrets = Secrets.of(contract.audit.secret_context, request.context)
    diagnostics = outcome.diagnostics
    record: dict[str, Any] = {
        "format": FORMAT,
        "timestamp": timestamp(now or datetime.now(UTC)),
        "request_id": request.request_id,
        "toolguard": __version__,
        "command": command,
        "contract": {
            # explain runs from anywhere; a folder may be named after the secret
            "path": _text(str(contract.path.absolute()), _PATH, secrets),
            "tool": contract.tool,
            "version": contract.version,
            "sha256": contract.digest,
        },
        "adapter": {
            key: clean(value, _VALUE) for key, value in contract.adapter.describe().items()
        },
        "context": _context(request, contract.audit.secret_context, hash_secret, secrets),
        "upstream": _upstream(source, diagnostics.upstream, diagnostics.attempts, secrets),
        "outcome": diagnostics.outcome,
        "duration_ms": diagnostics.duration_ms,
        "envelope_sha256": envelope_digest(outcome.envelope),
    }
    if diagnostics.size is not None and diagnostics.sha256 is not None:
        record["input"] = {"size": diagnostics.size, "sha256": diagnostics.sha256}
    if kept:
        record["raw"] = [_kept(entry) for entry in kept]
    error = outcome.envelope.get("error")
    if error is not None:
        record["error_code"] = error["code"]
        record["retryable"] = error["retryable"]
    for name in _DIAGNOSTIC_FIELDS:
        value = getattr(diagnostics, name)
        if value is not None:
            record[name] = clean(value, _PATH) if isinstance(value, str) else value
    if diagnostics.message is not None:
        record["message"] = clean_message(diagnostics.message, _MESSAGE)
    data = outcome.envelope.get("data")
    if isinstance(data, dict):
        if secrets is not None:
            data = secrets.value(data)
        record["projected_fields"] = sorted(data)
        if contract.audit.record_values:
            record["projected_values"] = data
    return record


def timestamp(instant: datetime) -> str:
    """A record's timestamp: fixed-width UTC, so timestamps compare correctly as strings."""
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def envelope_digest(answer: dict[str, Any]) -> str:
    """SHA-256 of the exact line the envelope is written as on stdout."""
    return hashlib.sha256(envelope.dumps(answer).encode()).hexdigest()


def encode(record: dict[str, Any]) -> bytes:
    """One line of ASCII JSON, at most `MAX_RECORD_BYTES`, shedding detail until it fits."""
    line = _line(record)
    for shed in _SHEDDING:
        if len(line) <= MAX_RECORD_BYTES and _depth(record) <= RECORD_LIMITS.max_depth:
            return line
        record = shed({**record, "truncated": True})
        line = _line(record)
    return line  # the essentials alone always fit: every string in them is bounded


def decode(line: bytes) -> dict[str, Any] | None:
    """A record read back from a log, or None if the line is not a valid record.

    Logs can be edited by anyone who can write them: each line is parsed strictly and
    validated against the shipped record schema before anything is shown from it.
    """
    try:
        value = parse(line, RECORD_LIMITS)
        _schema().validate(value)
    except Rejection:
        return None
    result: dict[str, Any] = value
    return result


@cache
def _schema() -> Validator:
    return compile_schema(read_schema(shipped_schema("audit-record.schema.json")))


def _line(record: dict[str, Any]) -> bytes:
    text = json.dumps(record, ensure_ascii=True, separators=(",", ":"))
    # NOTE: ensure_ascii leaves DEL raw; it can only sit inside a string, where this is its escape.
    return (text.replace("\x7f", "\\u007f") + "\n").encode()


def _depth(value: object) -> int:
    """Containers nested in `value`, as `parse` counts them against `max_depth`."""
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def _context(
    request: Request,
    secret: frozenset[str],
    hash_secret: Callable[[object], str] | None,
    secrets: Secrets | None,
) -> dict[str, Any]:
    context: dict[str, Any] = {}
    for key, value in request.context.items():
        if key in secret:
            if hash_secret is None:
                raise ValueError("a secret context value needs a key to hash it")
            context[key] = {"hmac_sha256": hash_secret(value)}
            continue
        if secrets is not None:  # another value may hold a secret (a URL with the token)
            value = secrets.value(value)  # noqa: PLW2901
        if isinstance(value, list):
            context[key] = [_scalar(item) for item in value[:64]]
        else:
            context[key] = _scalar(value)
    return context


def _scalar(value: object) -> object:
    # NOTE: library callers may pass NaN, infinities or huge integers, which JSON (or yajl)
    # cannot carry: they are recorded as text so the record still reads back.
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool) and value not in _INT64:
        bits = value.bit_length()  # str() refuses integers of more than 4300 digits
        return clean(str(value), _VALUE) if bits <= 4096 else f"[integer of {bits} bits]"
    return clean(value, _VALUE) if isinstance(value, str) else value


def _text(value: str, limit: int, secrets: Secrets | None) -> str:
    """A string the record takes from outside the outcome: secrets redacted, then escaped."""
    return clean(value if secrets is None else secrets.text(value), limit)


def _upstream(
    source: Source,
    argv: tuple[str, ...] | None,
    attempts: tuple[AttemptRecord, ...],
    secrets: Secrets | None,
) -> dict[str, Any]:
    upstream: dict[str, Any] = {"kind": source.kind}
    if source.file is not None:
        upstream["file"] = _text(source.file, _PATH, secrets)
    if source.tool is not None:
        upstream["tool"] = _text(source.tool, _VALUE, secrets)
    if source.jsonrpc_id is not None:
        given = source.jsonrpc_id
        upstream["jsonrpc_id"] = _text(given, _VALUE, secrets) if isinstance(given, str) else given
    if argv is not None:
        upstream["argv"] = [clean(arg, _VALUE) for arg in argv[:64]]
    if attempts:
        last = attempts[-1]
        for name in ("exit_status", "signal"):
            if getattr(last, name) is not None:
                upstream[name] = getattr(last, name)
        upstream["duration_ms"] = round(sum(item.duration_ms for item in attempts), 3)
        upstream["attempts"] = [_attempt(item) for item in attempts]
    return upstream


def _attempt(attempt: AttemptRecord) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "number": attempt.number,
        "outcome": attempt.outcome,
        "duration_ms": attempt.duration_ms,
        "stdout_size": attempt.stdout_size,
        "stderr_size": attempt.stderr_size,
    }
    optional = {
        "exit_status": attempt.exit_status,
        "signal": attempt.signal,
        "timed_out": attempt.timed_out or None,
        "over_limit": attempt.over_limit or None,
        "spawn_error": attempt.spawn_error and clean(attempt.spawn_error, _VALUE),
        "stdout_sha256": attempt.stdout_sha256,
        "stderr": attempt.stderr and clean(attempt.stderr, _STDERR),
        "error_code": attempt.error_code,
        "layer": attempt.layer,
        "reason": attempt.reason,
    }
    fields.update((key, value) for key, value in optional.items() if value is not None)
    return fields


def _kept(entry: Kept) -> dict[str, Any]:
    fields: dict[str, Any] = {"sha256": entry.sha256, "kept": entry.kept}
    if entry.why is not None:
        fields["why"] = entry.why
    return fields


def _without_values(record: dict[str, Any]) -> dict[str, Any]:
    record.pop("projected_values", None)
    return record


def _without_stderr(record: dict[str, Any]) -> dict[str, Any]:
    upstream = dict(record["upstream"])
    if "attempts" in upstream:
        upstream["attempts"] = [
            {key: value for key, value in item.items() if key not in {"stderr", "spawn_error"}}
            for item in upstream["attempts"]
        ]
    record["upstream"] = upstream
    return record


def _shorter(record: dict[str, Any]) -> dict[str, Any]:
    """Short messages, context and argv; no per-attempt detail, no raw list."""
    if "message" in record:  # its reason kept, as everywhere (`clean_message`)
        record["message"] = clean(record["message"], 128, end=64)
    record["context"] = dict.fromkeys(record["context"], "[dropped]")
    upstream = {key: value for key, value in record["upstream"].items() if key != "attempts"}
    if "argv" in upstream:
        upstream["argv"] = [arg[:64] for arg in upstream["argv"][:8]]
    record["upstream"] = upstream
    record.pop("raw", None)
    return record


_ESSENTIAL = (
    "format",
    "timestamp",
    "request_id",
    "toolguard",
    "command",
    "contract",
    "adapter",
    "outcome",
    "duration_ms",
    "envelope_sha256",
    "input",
    "error_code",
    "retryable",
    "layer",
    "reason",
    "truncated",
)


def _essentials(record: dict[str, Any]) -> dict[str, Any]:
    essential = {key: record[key] for key in _ESSENTIAL if key in record}
    # NOTE: escaping can make one character ten bytes long; these cuts keep the worst case
    # (every character escaped) well under MAX_RECORD_BYTES.
    essential["contract"] = {**record["contract"], "path": record["contract"]["path"][:128]}
    essential["context"] = {}
    essential["upstream"] = {"kind": record["upstream"]["kind"]}
    if "projected_fields" in record:
        essential["projected_fields"] = record["projected_fields"][:16]
    return essential


_SHEDDING = (_without_values, _without_stderr, _shorter, _essentials)
