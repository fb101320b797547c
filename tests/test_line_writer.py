"""`LineWriter`: every byte of a line reaches the descriptor, in order, or the wait gave up."""

from __future__ import annotations

import io
import os
import threading
from collections.abc import Callable

import pytest

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


def test_what_the_stream_held_goes_before_the_line() -> None:
    """Bytes a caller left in the stream's buffer are flushed first: the order is kept."""
    read_fd, write_fd = os.pipe()
    try:
        with os.fdopen(write_fd, "wb", closefd=False) as stream:
            stream.write(b"first\n")  # still in the buffer
            assert LineWriter(stream).write(b"second\n", _waited) is True
        assert os.read(read_fd, 64) == b"first\nsecond\n"
    finally:
        os.close(write_fd)
        os.close(read_fd)


def test_a_write_that_finds_no_room_after_all_waits_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Room said, then taken by another writer on the pipe (EAGAIN): wait again, not an error."""
    read_fd, write_fd = os.pipe()
    write = os.write
    refused = [False]

    def once_full(fd: int, data: bytes) -> int:
        if not refused[0]:
            refused[0] = True
            raise BlockingIOError
        return write(fd, data)

    monkeypatch.setattr(os, "write", once_full)
    try:
        with os.fdopen(write_fd, "wb", buffering=0, closefd=False) as stream:
            assert LineWriter(stream).write(b"line\n", _waited) is True
        assert os.read(read_fd, 64) == b"line\n"
    finally:
        os.close(write_fd)
        os.close(read_fd)
