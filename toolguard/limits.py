"""Budgets for one response, and the bounded readers that enforce the byte budget.

Bytes are counted while reading, so an endless or oversized stream costs at most
`max_bytes + 1` bytes of memory before it is rejected. The other budgets are enforced by the
parser as it builds the value (see `parse.py`), never after the fact. (The newline-delimited
modes cut their lines within a byte cap in `framing.py`.)
"""

from __future__ import annotations

from toolguard.errors import InputError, LimitExceeded
from toolguard.frozen import frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO


READ_CHUNK = 65_536
_BUDGETS = ("max_bytes", "max_depth", "max_string_length", "max_container_items")
# NOTE: integers are parsed by yajl as signed 64-bit values (no Python big-int conversion
# ever happens), so 19 digits is both the default and the ceiling.
INTEGER_DIGITS_CEILING = 19
# Validation and projection recurse once per level; 128 keeps far from Python's stack limit.
DEPTH_CEILING = 128


@frozen
class Limits:
    """Per-response budgets; every one is enforced while reading or parsing."""

    max_bytes: int = 1_048_576
    max_depth: int = 32
    max_string_length: int = 65_536
    max_container_items: int = 10_000
    max_integer_digits: int = INTEGER_DIGITS_CEILING

    def __post_init__(self) -> None:
        for name in (*_BUDGETS, "max_integer_digits"):
            value = getattr(self, name)
            if type(value) is not int:
                raise ValueError(f"{name} must be an int, not {type(value).__name__}")
        for name in _BUDGETS:
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if self.max_depth > DEPTH_CEILING:
            raise ValueError(f"max_depth must be at most {DEPTH_CEILING}")
        if not 1 <= self.max_integer_digits <= INTEGER_DIGITS_CEILING:
            raise ValueError(f"max_integer_digits must be between 1 and {INTEGER_DIGITS_CEILING}")


def read_at_most(stream: BinaryIO, limit: int) -> bytes:
    """Read until end of stream or until `limit` bytes, whichever comes first.

    A stream whose descriptor does not block (`O_NONBLOCK`, set by whoever shares the pipe)
    is waited on when it has nothing yet: only its end ends the read. On a terminal, the end
    is the one read that returns nothing (Ctrl-D, as for `cat`): each call reads the device
    once (`read1`), where a buffered `read` would take that end for a pause and wait again.
    """
    read = getattr(stream, "read1", stream.read) if stream.isatty() else stream.read
    chunks: list[bytes] = []
    total = 0
    while total < limit:
        try:
            chunk = read(min(READ_CHUNK, limit - total))
        except BlockingIOError:
            chunk = None
        except OSError as exc:
            raise InputError("read_failed", f"reading the response failed: {exc}") from exc
        if chunk is None:  # nothing yet, from a descriptor that does not block
            _wait_readable(stream)
            continue
        if not chunk:
            break
        total += len(chunk)
        chunks.append(chunk)
    return b"".join(chunks)


def _wait_readable(stream: BinaryIO) -> None:
    # NOTE: imported here: `select` is not loaded for a one-shot check that never needs it.
    from toolguard.polled_input import wait_readable  # noqa: PLC0415

    try:
        wait_readable(stream.fileno())
    except OSError as exc:
        raise InputError("read_failed", f"reading the response failed: {exc}") from exc


def read_bounded(stream: BinaryIO, max_bytes: int) -> bytes:
    """Read the whole stream, or reject it as soon as it holds more than `max_bytes` bytes."""
    raw = read_at_most(stream, max_bytes + 1)
    if len(raw) > max_bytes:
        raise LimitExceeded(
            "too_large",
            f"response is larger than max_bytes={max_bytes}; stopped reading",
            offset=max_bytes,
        )
    return raw
