"""The contract's `[audit]` table: where the trail goes by default, and what is sensitive."""

from __future__ import annotations

from toolguard.frozen import frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Literal, TypeAlias

    RawKeep: TypeAlias = Literal["all", "rejected"]

DEFAULT_MAX_TOTAL_BYTES = 1 << 30
DEFAULT_MAX_AGE_SECONDS = 30 * 86_400


@frozen
class AuditPolicy:
    """Defaults the operator's flags and environment override; the secrets they cannot."""

    log: Path | None = None
    raw_dir: Path | None = None
    raw_keep: RawKeep = "rejected"
    raw_max_file_bytes: int | None = None  # None: the contract's limits.max_bytes
    raw_max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES
    raw_max_age_seconds: int = DEFAULT_MAX_AGE_SECONDS
    secret_context: frozenset[str] = frozenset()
    record_values: bool = False

    @classmethod
    def from_table(cls, table: dict[str, Any], folder: Path | str) -> AuditPolicy:
        """Build from a contract's (already schema-checked) table; paths are contract-relative."""
        options = dict(table)
        for key in ("log", "raw_dir"):
            if key in options:
                from pathlib import Path  # noqa: PLC0415 - only a contract naming a trail

                options[key] = Path(folder, options[key])
        if "secret_context" in options:
            options["secret_context"] = frozenset(options["secret_context"])
        return cls(**options)
