"""`toolguard validate`: instance files -> strict parse -> one compiled schema -> one result each.

For schema authors and CI: the same bounded reader and strict parser as `check`, then the
Draft 2020-12 validator; no rules, no projection, no envelope.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolguard.errors import InputError, Rejection
from toolguard.files import open_data
from toolguard.limits import Limits, read_bounded
from toolguard.parse import parse
from toolguard.schema import Validator


@dataclass(frozen=True, slots=True)
class InstanceResult:
    """Whether one instance file is valid, and if not, where and why."""

    instance: str
    valid: bool
    layer: str | None = None
    reason: str | None = None
    message: str | None = None
    schema_path: str | None = None
    instance_path: str | None = None
    offset: int | None = None


_LIMITS = Limits()  # the defaults: no contract names others for an instance file


def validate_files(validator: Validator, paths: Iterable[Path]) -> Iterator[InstanceResult]:
    """Check each instance file in turn (`-`: stdin); one that cannot be read or parsed fails."""
    for path in paths:
        try:
            with open_data(path) as stream:
                instance: Any = parse(read_bounded(stream, _LIMITS.max_bytes), _LIMITS)
            validator.validate(instance)
        except OSError as exc:
            error = InputError("read_failed", f"cannot read: {exc.strerror}")
            yield _invalid(path, error)
        except Rejection as rejection:
            yield _invalid(path, rejection)
        else:
            yield InstanceResult(str(path), valid=True)


def _invalid(path: Path, rejection: Rejection) -> InstanceResult:
    return InstanceResult(
        str(path),
        valid=False,
        layer=rejection.layer,
        reason=rejection.reason,
        message=rejection.message,
        schema_path=rejection.schema_path,
        instance_path=rejection.instance_path,
        offset=rejection.offset,
    )
