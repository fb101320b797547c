"""`polled`: a stream's bytes as they come, read after polling for a pipe or socket, never lost."""

from __future__ import annotations

import io
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolguard import polled_input
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


def read_all(read: Callable[[], bytes]) -> list[bytes]:
    """`read()` until the end of the input: the chunks as they came."""
    chunks = []
    while chunk := read():
        chunks.append(chunk)
    return chunks


def polls(read: Callable[[], bytes]) -> bool:
    """Whether `read` is a `PolledInput`'s."""
    return isinstance(getattr(read, "__self__", None), PolledInput)


@settings(max_examples=60, deadline=None)
@given(
    pieces=st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\0", b"\n")), max_size=8),
    window_us=st.sampled_from([0, 1, 50]),
)
def test_every_byte_comes_once_and_in_order(pieces: list[bytes], window_us: int) -> None:
    with pipe_fed(pieces) as fd:
        chunks = read_all(PolledInput(fd, window_us).read)
    assert b"".join(chunks) == b"".join(pieces)
    assert all(chunks)


def test_a_large_input_comes_in_bounded_chunks() -> None:
    data = bytes(range(256)) * 2_000
    with pipe_fed([data]) as fd:
        chunks = read_all(PolledInput(fd, window_us=100).read)
    assert b"".join(chunks) == data
    assert max(map(len, chunks)) <= 1 << 16


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
        assert source.read() == b"late\n"
    assert poller.polls > 1  # it kept polling until the line was there


def test_a_line_that_comes_after_the_window_is_waited_for() -> None:
    with pipe_fed([b"later\n"], pause=0.05) as fd:
        source, poller = counted(fd, window_us=1)
        started = time.monotonic()
        assert source.read() == b"later\n"
    assert time.monotonic() - started >= 0.04  # it blocked in read until the line came
    assert poller.polls >= 1


def test_a_window_of_zero_never_polls() -> None:
    with pipe_fed([b"one\n", b"two\n"], pause=0.01) as fd:
        source, poller = counted(fd, window_us=0)
        assert read_all(source.read) == [b"one\n", b"two\n"]
    assert poller.polls == 0


def test_only_an_unread_pipe_or_socket_is_polled(tmp_path: object) -> None:
    read = polled(io.BytesIO(b"x\ny\n"), 100)  # no descriptor: read as it is
    assert not polls(read)
    assert read_all(read) == [b"x\ny\n"]
    path = os.path.join(str(tmp_path), "file")  # noqa: PTH118
    with open(path, "w+b") as file:  # noqa: PTH123
        file.write(b"in a file\n")
        file.seek(0)
        read = polled(file, 100)
        assert not polls(read)
        assert read_all(read) == [b"in a file\n"]
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb") as pipe, os.fdopen(write_end, "wb"):
        assert not polls(polled(pipe, 0))
        assert polls(polled(pipe, 100))
    left, right = socket.socketpair()
    with left, right, left.makefile("rb") as stream:
        assert polls(polled(stream, 100))


def test_a_stream_read_as_it_is_gives_what_it_holds_without_waiting_for_more() -> None:
    """A terminal, or a pipe with polling off: one line typed is read, not 64 KiB awaited."""
    with (
        pipe_fed([b"typed\n", b"later\n"], pause=0.05) as fd,
        os.fdopen(fd, "rb", closefd=False) as pipe,
    ):
        read = polled(pipe, 0)
        assert read() == b"typed\n"


def test_a_closed_stream_is_left_as_it_is() -> None:
    read_end, write_end = os.pipe()
    os.close(write_end)
    pipe = os.fdopen(read_end, "rb")
    pipe.close()
    read = polled(pipe, 100)
    assert not polls(read)
    with pytest.raises(ValueError, match="closed"):
        read()


@pytest.mark.parametrize("window_us", [0, 100])
def test_the_end_of_input_is_no_bytes(window_us: int) -> None:
    with pipe_fed([]) as fd:
        source = polled_input.PolledInput(fd, window_us)
        assert source.read() == b""
        assert source.read() == b""


def test_without_poll_the_stream_is_read_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where `select` has no `poll` (Windows), nothing is wrapped: reads block as before."""
    monkeypatch.setattr(polled_input, "select", object())
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb") as pipe, os.fdopen(write_end, "wb"):
        assert not polls(polled(pipe, 100))


def test_a_pipe_someone_made_non_blocking_is_still_waited_on() -> None:
    """O_NONBLOCK belongs to the open pipe, shared with other processes: it is not an end."""
    with pipe_fed([b"late\n"], pause=0.05) as fd:
        os.set_blocking(fd, False)
        source = PolledInput(fd, window_us=10)
        assert source.read() == b"late\n"
        assert source.read() == b""
        assert not os.get_blocking(fd)  # left as it was found


@pytest.mark.parametrize("window_us", [0, 100])
def test_a_non_blocking_stream_with_nothing_yet_is_waited_on_not_ended(window_us: int) -> None:
    """EAGAIN is "nothing yet" whatever the window: the late line comes, then the end."""
    with (
        pipe_fed([b"late\n", b"later\n"], pause=0.05) as fd,
        os.fdopen(fd, "rb", closefd=False) as pipe,
    ):
        os.set_blocking(fd, False)
        read = polled(pipe, window_us)
        assert b"".join(read_all(read)) == b"late\nlater\n"
        assert read() == b""
        assert not os.get_blocking(fd)  # left as it was found


def test_a_non_blocking_stream_without_a_buffer_is_waited_on() -> None:
    """An unbuffered stream's `read` gives None for EAGAIN: that is not the end either."""
    with (
        pipe_fed([b"late\n"], pause=0.05) as fd,
        os.fdopen(fd, "rb", buffering=0, closefd=False) as pipe,
    ):
        os.set_blocking(fd, False)
        assert read_all(polled(pipe, 0)) == [b"late\n"]


class _RaisingRead1(io.RawIOBase):
    """A stream whose `read1` says EAGAIN by raising, as a buffered reader may."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def fileno(self) -> int:
        return self._fd

    def read1(self, size: int = -1) -> bytes:
        raise BlockingIOError


def test_a_stream_that_raises_eagain_is_waited_on_not_ended() -> None:
    """`read1` raising BlockingIOError is "nothing yet" too: the late line comes, then the end."""
    with pipe_fed([b"late\n"], pause=0.05) as fd:
        os.set_blocking(fd, False)
        read = polled(_RaisingRead1(fd), 0)  # type: ignore[arg-type]
        assert b"".join(read_all(read)) == b"late\n"
        assert read() == b""


def test_polling_yields_the_cpu_between_looks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each look that finds nothing yields the CPU: a caller woken on the same CPU must not
    wait for the whole window before it can write its next line."""
    yields = []
    monkeypatch.setattr(polled_input, "yield_cpu", lambda: yields.append(1))
    with pipe_fed([b"late\n"], pause=0.02) as fd:
        assert PolledInput(fd, 5_000).read() == b"late\n"  # the window ends before the line
    assert len(yields) >= 2
