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
from toolguard.file_encoding import encoding_problem
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
        raw = b""
        try:
            with open_data(path) as stream:
                raw = read_bounded(stream, _LIMITS.max_bytes)
            instance: Any = parse(raw, _LIMITS)
            validator.validate(instance)
        except OSError as exc:
            yield _invalid(path, _cannot_read(exc))
        except Rejection as rejection:
            yield _invalid(path, _of_an_instance(rejection, raw))
        else:
            yield InstanceResult(str(path), valid=True)


def _of_an_instance(rejection: Rejection, raw: bytes) -> Rejection:
    """`rejection` said of the instance file `raw`, not of a tool's response.

    The bounded reader and the strict parser are `check`'s, and name what they read "the
    response". A file saved with a byte-order mark or as UTF-16 is named as such
    (`file_encoding`), as a schema or a context file is; any other message that starts with
    the reader's subject is given the instance's, and a read that failed is said as an open
    that failed is.
    """
    if isinstance(rejection.__cause__, OSError):  # the reader's "reading the response failed"
        return _cannot_read(rejection.__cause__)
    if rejection.reason in {"bom", "invalid_utf8"} and (why := encoding_problem(raw)):
        rejection.message = f"instance {why}"
    elif rejection.message.startswith(_READER_SUBJECT):
        rejection.message = "instance" + rejection.message.removeprefix(_READER_SUBJECT)
    return rejection


_READER_SUBJECT = "response"  # how `limits` and `parse` begin a message about what they read


def _cannot_read(error: OSError) -> InputError:
    """An instance file that could not be opened or read: what the system said."""
    return InputError("read_failed", f"cannot read: {error.strerror or error}")


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
