"""Budgets: `Limits` refuses nonsense, `read_bounded` stops at the byte budget."""

from __future__ import annotations

import contextlib
import io
import os
import threading
import time

import pytest

from toolguard.errors import ExitStatus, InputError, LimitExceeded
from toolguard.frozen import FrozenInstanceError
from toolguard.limits import DEPTH_CEILING, Limits, read_bounded

BUDGETS = ["max_bytes", "max_depth", "max_string_length", "max_container_items"]
MIB = 1024 * 1024


class LazyStream(io.RawIOBase):
    """A readable stream of `size` bytes made on demand, counting every byte it hands out."""

    def __init__(self, size: int, piece: int | None = None) -> None:
        self.size = size
        self.piece = piece  # the most one read returns, like a pipe; None: whatever is asked
        self.handed_out = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        left = self.size - self.handed_out
        wanted = left if size is None or size < 0 else min(size, left)
        if self.piece is not None:
            wanted = min(wanted, self.piece)
        self.handed_out += wanted
        return b"x" * wanted


class FailingStream(io.RawIOBase):
    """A stream that hands out `before` bytes, then fails with `error` on the next read."""

    def __init__(self, error: OSError, before: bytes = b"") -> None:
        self.error = error
        self.pending = before

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        if self.pending:
            chunk, self.pending = self.pending, b""
            return chunk
        raise self.error


# --- Limits ------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, -1, -(10**9)])
@pytest.mark.parametrize("name", BUDGETS)
def test_budget_below_one_is_refused(name: str, value: int) -> None:
    """A byte, depth, string or container budget under 1 raises ValueError naming it."""
    with pytest.raises(ValueError, match=name):
        Limits(**{name: value})


@pytest.mark.parametrize("name", [*BUDGETS, "max_integer_digits"])
def test_budget_of_one_is_accepted(name: str) -> None:
    """1 is the smallest valid value of every budget."""
    assert getattr(Limits(**{name: 1}), name) == 1


@pytest.mark.parametrize("value", [0, -1, 20, 10**6])
def test_max_integer_digits_outside_one_to_nineteen_is_refused(value: int) -> None:
    """max_integer_digits must lie in 1..19, the digits a signed 64-bit integer can hold."""
    with pytest.raises(ValueError, match="max_integer_digits"):
        Limits(max_integer_digits=value)


def test_max_integer_digits_of_nineteen_is_accepted() -> None:
    """19 digits, the 64-bit ceiling, is a valid max_integer_digits."""
    assert Limits(max_integer_digits=19).max_integer_digits == 19


@pytest.mark.parametrize("name", [*BUDGETS, "max_integer_digits"])
def test_nan_budget_is_refused(name: str) -> None:
    """NaN compares false with everything, so it would switch a check off: ValueError."""
    with pytest.raises(ValueError, match=name):
        Limits(**{name: float("nan")})


@pytest.mark.parametrize("value", [float("inf"), 2.5], ids=["infinite", "fractional"])
def test_non_integer_budget_is_refused(value: float) -> None:
    """A budget must be a whole number of levels, bytes or items: others raise ValueError."""
    with pytest.raises(ValueError, match="max_depth"):
        Limits(max_depth=value)


@pytest.mark.parametrize("name", [*BUDGETS, "max_integer_digits"])
def test_boolean_budget_is_refused(name: str) -> None:
    """`true` in a contract is 1 to Python, never a budget to JSON or TOML: ValueError."""
    with pytest.raises(ValueError, match=name):
        Limits(**{name: True})


def test_max_depth_is_accepted_up_to_its_ceiling_and_refused_beyond() -> None:
    """Validation and projection recurse once per level: 128 is the last depth allowed."""
    assert Limits(max_depth=DEPTH_CEILING).max_depth == DEPTH_CEILING == 128
    with pytest.raises(ValueError, match="max_depth"):
        Limits(max_depth=DEPTH_CEILING + 1)


def test_limits_are_frozen() -> None:
    """A Limits value cannot be changed after it is made."""
    limits = Limits()
    with pytest.raises(FrozenInstanceError):
        limits.max_depth = 10_000  # type: ignore[misc]


# --- read_bounded ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "max_bytes"),
    [
        pytest.param(b"", 1, id="empty"),
        pytest.param(b"{}", 10, id="under"),
        pytest.param(b"{}", 2, id="exactly-at-limit"),
        pytest.param(bytes(range(256)) * 4096, MIB, id="exactly-1MiB-binary"),
    ],
)
def test_stream_within_max_bytes_is_read_whole(data: bytes, max_bytes: int) -> None:
    """A stream of at most max_bytes bytes comes back byte for byte."""
    assert read_bounded(io.BytesIO(data), max_bytes) == data


def test_stream_read_in_small_pieces_is_read_whole() -> None:
    """Short reads (a pipe handing out 7 bytes at a time) are joined up to the limit."""
    stream = LazyStream(1000, piece=7)
    assert read_bounded(stream, 1000) == b"x" * 1000


@pytest.mark.parametrize("piece", [None, 7], ids=["whole-reads", "short-reads"])
def test_stream_one_byte_over_max_bytes_is_rejected_as_too_large(piece: int | None) -> None:
    """max_bytes + 1 bytes is a too_large limit (layer limits), however the bytes arrive."""
    with pytest.raises(LimitExceeded) as caught:
        read_bounded(LazyStream(1001, piece=piece), 1000)
    assert (caught.value.layer, caught.value.reason) == ("limits", "too_large")


def test_huge_stream_is_rejected_after_reading_at_most_one_byte_over_the_limit() -> None:
    """A 200 MB stream against a 1 MiB budget stops after max_bytes + 1 bytes."""
    stream = LazyStream(200 * 1000 * 1000)
    with pytest.raises(LimitExceeded) as caught:
        read_bounded(stream, MIB)
    assert caught.value.reason == "too_large"
    assert MIB < stream.handed_out <= MIB + 1


def test_too_large_rejection_reports_the_budget_as_offset() -> None:
    """The too_large offset is max_bytes: the first byte beyond the budget."""
    with pytest.raises(LimitExceeded) as caught:
        read_bounded(io.BytesIO(b"x" * 11), 10)
    assert caught.value.offset == 10


@pytest.mark.parametrize(
    "error",
    [
        pytest.param(OSError(5, "Input/output error"), id="EIO"),
        pytest.param(BrokenPipeError(), id="broken-pipe"),
        pytest.param(ConnectionResetError(), id="connection-reset"),
        pytest.param(TimeoutError(), id="timeout"),
        pytest.param(IsADirectoryError(21, "Is a directory"), id="is-a-directory"),
    ],
)
def test_io_error_becomes_a_retryable_input_error(error: OSError) -> None:
    """An OSError while reading is InputError: read_failed, UPSTREAM_UNAVAILABLE, retryable."""
    with pytest.raises(InputError) as caught:
        read_bounded(FailingStream(error), 100)
    rejection = caught.value
    assert (rejection.layer, rejection.reason, rejection.code) == (
        "input",
        "read_failed",
        "UPSTREAM_UNAVAILABLE",
    )
    assert rejection.retryable is True
    assert rejection.exit_status == ExitStatus.FAILURE
    assert rejection.__cause__ is error


def test_io_error_after_some_bytes_is_still_an_input_error() -> None:
    """Failing mid-stream discards the partial read and raises InputError, not a short value."""
    with pytest.raises(InputError) as caught:
        read_bounded(FailingStream(OSError("reset"), before=b'{"partial":'), 100)
    assert caught.value.reason == "read_failed"


def test_a_non_blocking_pipe_is_read_to_its_end_not_to_its_first_pause() -> None:
    """A caller may share a pipe set O_NONBLOCK: "nothing yet" is waited on, not the end."""
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)

    def feed() -> None:
        with os.fdopen(write_end, "wb", buffering=0) as out, contextlib.suppress(BrokenPipeError):
            for piece in (b'{"a":', b" 1}"):
                time.sleep(0.05)
                out.write(piece)

    writer = threading.Thread(target=feed)
    writer.start()
    with os.fdopen(read_end, "rb") as stream:
        assert read_bounded(stream, 100) == b'{"a": 1}'
    writer.join()
