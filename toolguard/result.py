"""Results: what one check produced, as values; `envelope.py` and `report.py` render them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from toolguard.errors import ErrorCode, ExitStatus, Layer


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

    @property
    def exit_status(self) -> ExitStatus:
        """The process exit status this outcome maps to."""
        if self.outcome == "success":
            return ExitStatus.SUCCESS
        return ExitStatus.INTERNAL if self.outcome == "internal" else ExitStatus.FAILURE


class Outcome(NamedTuple):
    """The agent's envelope and the operator's diagnostics, as two separate values."""

    envelope: dict[str, Any]
    diagnostics: Diagnostics
