"""Whole lines to `serve`'s stdout: every byte of an answer written, in order, or a clear stop.

`stream.write(line)` is not enough. Under `PYTHONUNBUFFERED` (common in containers) stdout's
binary stream is raw: a write may take part of the line, or nothing at all (`None`) where a
process sharing the pipe made it non-blocking, and the rest of the answer would be lost
without a word; a buffered stream raises instead, as if stdout were closed. And a write
blocked on a full pipe that nobody reads cannot be left by a stop: SIGTERM would wait for a
reader that may never come. So the descriptor is written directly, its flags left alone (the
pipe is shared), and room is waited for with `poll` first: a wait that writes nothing, which
a stop may cut short (`wait`). A stream without a descriptor (a test's `BytesIO`) cannot
block, and is written as it is.
"""

from __future__ import annotations

import errno
import os
import select
from collections.abc import Callable
from typing import BinaryIO

# How to wait for room: `wait(room)` calls `room(timeout_ms)` (-1: no timeout), and returns
# what it says, or False when it gives up (a stop, and no room within its grace).
Wait = Callable[[Callable[[int], bool]], bool]


class LineWriter:
    """`write(line, wait)` writes all of `line` to `stream`, or returns False if `wait` gave up."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._fd: int | None = None
        self._room: Callable[[int], bool] | None = None
        try:
            stream.flush()  # what a caller left in the stream's buffer goes first
            self._fd = stream.fileno()
        except (OSError, ValueError, AttributeError):
            return  # no descriptor (or a closed stream: writing says so)
        if hasattr(select, "poll"):  # NOTE: no `poll` on Windows: the write itself waits
            ready = select.poll()
            ready.register(self._fd, select.POLLOUT)
            self._room = lambda timeout_ms: bool(ready.poll(timeout_ms))

    def write(self, line: bytes, wait: Wait) -> bool:
        """All of `line`, written: True; False when `wait` gave up first (a stop).

        Raises `OSError` or `ValueError` when the stream cannot be written (closed).
        """
        if self._fd is None:
            self._stream.write(line)
            self._stream.flush()
            return True
        rest = memoryview(line)
        while rest:
            # NOTE: room first: a pipe that says it has some takes part of the line at
            # once, so the write below returns (a stop during it leaves a count, not EINTR).
            if self._room is not None and not wait(self._room):
                return False
            try:
                rest = rest[os.write(self._fd, rest) :]
            except BlockingIOError:  # another process made the pipe non-blocking: no room
                if self._room is None:
                    raise
        return True


def failure(exc: BaseException) -> str | None:
    """What writing an output met (a full disk: ENOSPC, EIO), or None if its reader left.

    A closed descriptor, a broken pipe or a reset socket is the reader gone; anything else is
    a failure the operator must be told as such, never as a reader that left.
    """
    if isinstance(exc, OSError) and exc.errno not in _LEFT:
        return exc.strerror or str(exc)
    return None


_LEFT = (None, errno.EPIPE, errno.EBADF, errno.ECONNRESET)


def lost(why: str | None) -> str:
    """Stdout lost, in the operator's words: closed, or failing with `why` (`failure`)."""
    return "stdout was closed" if why is None else f"stdout failed ({why})"
