"""Results: what one check produced, as values; `envelope.py` and `report.py` render them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from toolguard.errors import ErrorCode, ExitStatus, Layer


@dataclass(frozen=True, slots=True)
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
    stderr: str = ""  # the first bytes, decoded with replacement: hostile, escape on display
    stderr_size: int = 0
    layer: Layer | None = None
    reason: str | None = None
    error_code: ErrorCode | None = None


@dataclass(frozen=True, slots=True)
class Diagnostics:
    """What the operator needs to know about one check; never shown to the agent."""

    tool: str
    request_id: str
    contract: str
    outcome: Literal["success", "failure", "internal"]
    size: int | None = None
    sha256: str | None = None
    duration_ms: float = 0.0
    layer: Layer | None = None
    reason: str | None = None
    message: str | None = None
    offset: int | None = None
    schema_path: str | None = None
    instance_path: str | None = None
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


@dataclass(frozen=True, slots=True)
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
