"""`PolledInput`: the lines a buffered reader would give, read after polling, never lost."""

from __future__ import annotations

import io
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolguard import polled_input
from toolguard.limits import discard_rest, read_line
from toolguard.polled_input import PolledInput, polled


@contextmanager
def pipe_fed(pieces: list[bytes], pause: float = 0.0) -> Iterator[int]:
    """The read end of a pipe a thread writes `pieces` into (pausing before each), then closes."""
    read_end, write_end = os.pipe()

    def feed() -> None:
        with os.fdopen(write_end, "wb", buffering=0) as out:
            for piece in pieces:
                time.sleep(pause)
                out.write(piece)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        yield read_end
    finally:
        writer.join()
        os.close(read_end)


def lines_of(stream: object, sizes: list[int]) -> list[bytes]:
    """`readline(size)` with each size in turn (then -1) until the end of the input."""
    got = []
    for size in [*sizes, *[-1] * 64]:
        line = stream.readline(size)  # type: ignore[attr-defined]
        if not line:
            break
        got.append(line)
    return got


@settings(max_examples=60, deadline=None)
@given(
    pieces=st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\0", b"\n")), max_size=8),
    sizes=st.lists(st.integers(min_value=-1, max_value=30), max_size=12),
)
def test_readline_gives_what_a_buffered_reader_gives(pieces: list[bytes], sizes: list[int]) -> None:
    with pipe_fed(pieces) as fd:
        polled_lines = lines_of(PolledInput(fd, window_us=50), sizes)
    expected = lines_of(io.BytesIO(b"".join(pieces)), sizes)
    assert polled_lines == expected


def test_the_bounded_line_reader_reads_through_it() -> None:
    long_line = b"x" * 100_000 + b"\n"
    with pipe_fed([b"first\n", long_line, b"next"]) as fd:
        source = PolledInput(fd, window_us=100)
        assert read_line(source, 10) == (b"first\n", False)
        assert read_line(source, 10) == (b"x" * 11, True)
        discard_rest(source)
        assert read_line(source, 10) == (b"next", False)
        assert read_line(source, 10) == (b"", False)


class CountingPoller:
    """select.poll's stand-in: counts the zero-timeout polls, answers as the real one."""

    def __init__(self, real: object) -> None:
        self.real = real
        self.polls = 0

    def register(self, fd: int, events: int) -> None:
        self.real.register(fd, events)  # type: ignore[attr-defined]

    def poll(self, timeout: int | None = None) -> list[tuple[int, int]]:
        if timeout == 0:
            self.polls += 1
        return self.real.poll(timeout)  # type: ignore[attr-defined, no-any-return]


def counted(fd: int, window_us: int) -> tuple[PolledInput, CountingPoller]:
    """A reader whose look-without-waiting polls are counted."""
    source = PolledInput(fd, window_us)
    poller = CountingPoller(source._ready)
    source._ready = poller  # type: ignore[assignment]
    return source, poller


def test_a_line_that_comes_within_the_window_is_polled_for_not_slept_on() -> None:
    with pipe_fed([b"late\n"], pause=0.02) as fd:
        source, poller = counted(fd, window_us=5_000_000)
        assert source.readline(-1) == b"late\n"
    assert poller.polls > 1  # it kept polling until the line was there


def test_a_line_that_comes_after_the_window_is_waited_for() -> None:
    with pipe_fed([b"later\n"], pause=0.05) as fd:
        source, poller = counted(fd, window_us=1)
        started = time.monotonic()
        assert source.readline(-1) == b"later\n"
    assert time.monotonic() - started >= 0.04  # it blocked in read until the line came
    assert poller.polls >= 1


def test_a_window_of_zero_never_polls() -> None:
    with pipe_fed([b"one\n", b"two\n"], pause=0.01) as fd:
        source, poller = counted(fd, window_us=0)
        assert lines_of(source, []) == [b"one\n", b"two\n"]
    assert poller.polls == 0


def test_only_an_unread_pipe_or_socket_is_wrapped(tmp_path: object) -> None:
    assert polled(io.BytesIO(b"x\n"), 100).readline() == b"x\n"  # no descriptor: as it is
    path = os.path.join(str(tmp_path), "file")  # noqa: PTH118
    with open(path, "w+b") as file:  # noqa: PTH123
        assert polled(file, 100) is file
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb") as pipe, os.fdopen(write_end, "wb"):
        assert polled(pipe, 0) is pipe
        assert isinstance(polled(pipe, 100), PolledInput)
    left, right = socket.socketpair()
    with left, right, left.makefile("rb") as stream:
        assert isinstance(polled(stream, 100), PolledInput)


def test_a_closed_stream_is_left_as_it_is() -> None:
    read_end, write_end = os.pipe()
    os.close(write_end)
    pipe = os.fdopen(read_end, "rb")
    pipe.close()
    assert polled(pipe, 100) is pipe


@pytest.mark.parametrize("window_us", [0, 100])
def test_the_end_of_input_is_the_empty_line(window_us: int) -> None:
    with pipe_fed([]) as fd:
        source = polled_input.PolledInput(fd, window_us)
        assert source.readline(-1) == b""
        assert source.readline(5) == b""


def test_without_poll_the_stream_is_read_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where `select` has no `poll` (Windows), nothing is wrapped: reads block as before."""
    monkeypatch.setattr(polled_input, "select", object())
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb") as pipe, os.fdopen(write_end, "wb"):
        assert polled(pipe, 100) is pipe


def test_a_pipe_someone_made_non_blocking_is_still_waited_on() -> None:
    """O_NONBLOCK belongs to the open pipe, shared with other processes: it is not an end."""
    with pipe_fed([b"late\n"], pause=0.05) as fd:
        os.set_blocking(fd, False)
        source = PolledInput(fd, window_us=10)
        assert source.readline(-1) == b"late\n"
        assert source.readline(-1) == b""
        assert not os.get_blocking(fd)  # left as it was found
