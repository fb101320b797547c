"""`LineWriter`: every byte of a line reaches the descriptor, in order, or the wait gave up."""

from __future__ import annotations

import io
import os
import threading
from collections.abc import Callable

from toolguard.line_writer import LineWriter


def _waited(room: Callable[[int], bool]) -> bool:
    return room(-1)


def test_a_line_longer_than_the_pipe_holds_is_written_whole() -> None:
    """A non-blocking pipe takes part of a long line per write: the rest follows, not lost."""
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)  # as another process sharing the pipe may leave it
    line = bytes(range(256)) * 2048 + b"\n"  # 512 KiB: several times a pipe's buffer
    received = bytearray()

    def drain() -> None:
        while chunk := os.read(read_fd, 1 << 16):
            received.extend(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        with os.fdopen(write_fd, "wb", buffering=0, closefd=False) as stream:
            assert LineWriter(stream).write(line, _waited) is True
    finally:
        os.close(write_fd)
        reader.join()
        os.close(read_fd)
    assert bytes(received) == line


def test_a_wait_that_gives_up_is_reported() -> None:
    """A stop while waiting for room: False, and nothing written."""
    read_fd, write_fd = os.pipe()
    try:
        with os.fdopen(write_fd, "wb", buffering=0, closefd=False) as stream:
            assert LineWriter(stream).write(b"x\n", lambda room: False) is False
        os.set_blocking(read_fd, False)
        try:
            leftover = os.read(read_fd, 16)
        except BlockingIOError:
            leftover = b""
        assert leftover == b""
    finally:
        os.close(write_fd)
        os.close(read_fd)


def test_a_stream_without_a_descriptor_is_written_as_it_is() -> None:
    """A test's BytesIO cannot block: the line goes to it at once."""
    stream = io.BytesIO()
    assert LineWriter(stream).write(b"line\n", _waited) is True
    assert stream.getvalue() == b"line\n"
