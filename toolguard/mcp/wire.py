"""The newline-delimited framing: lines cut within the byte cap, lines written whole and in order.

One thread relays both sides (`session.py`), so neither reading nor writing may ever wait on
one side while the other has something to say: a server busy writing a large answer reads no
request, and a relay blocked writing that request to it would never read the answer.

- Lines are cut by `framing.Lines`, fed whatever bytes a side's pipe holds: an over-long line
  is handed on at once as such (its first bytes, to establish its id), so its call fails
  without waiting for a line that may never end.
- `Output` writes a line at once as far as the side takes it without waiting, and keeps the
  rest, in order, for the relay to write when the side has room (`flush`). A line is never
  split between writes of two lines, and lines are never interleaved.

- `Input` reads what a side's pipe holds now, never waiting for more: the loop reads a side
  it was told has bytes, and another reader of the same pipe may have taken them first.

Reading and writing without waiting need descriptors of our own that do not block: the
server's stdin and stdout are ours alone, so they are set non-blocking. toolguard's stdin and
stdout may be shared with the process that started it, and `O_NONBLOCK` belongs to the open
file, not to a process: a pipe is opened again through `/proc/self/fd` (a new open file, the
same pipe), a socket is read and written with `MSG_DONTWAIT`; anything else (a file, a
terminal; a pipe where `/proc` is missing) is read and written through its descriptor as it
is, which can wait.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
from collections.abc import Callable
from typing import IO

from toolguard.line_writer import failure

_CHUNK = 1 << 16  # bytes read at once, at most
_HIGH = 1 << 20  # bytes waiting for a side beyond which the relay stops reading what feeds it
_FAR = 4 << 20  # beyond which nothing that could add to it is read (its own side included)


class Input:
    """One side's input: `read()` gives the bytes there now, `None` if none, `b""` at the end.

    With `ours`, the stream is this process's alone (a child's stdout). `release` closes what
    toolguard opened to read it (never the stream it was given).
    """

    def __init__(self, stream: IO[bytes], *, ours: bool = False) -> None:
        fd = stream.fileno()
        self._receive: Callable[[int], bytes] = lambda size: os.read(fd, size)
        self._release: Callable[[], None] = lambda: None
        self.fd = fd  # what to poll
        mode = os.fstat(fd).st_mode
        if stat.S_ISSOCK(mode):
            own = socket.socket(fileno=os.dup(fd))  # a duplicate: closing it leaves fd alone
            self._receive = lambda size: own.recv(size, socket.MSG_DONTWAIT)
            self._release = own.close
        elif stat.S_ISFIFO(mode) and ours:
            os.set_blocking(fd, False)
        elif stat.S_ISFIFO(mode) and (own_fd := _reopened(fd, os.O_RDONLY)) is not None:
            # NOTE: read through our own open file, but polled through the one given: a named
            # FIFO opened anew while no writer is connected never reports the end (POLLHUP).
            self._receive = lambda size: os.read(own_fd, size)
            self._release = lambda: os.close(own_fd)

    def read(self) -> bytes | None:
        """What the side holds now (at most 64 KiB); `None` if nothing; `b""` at its end."""
        try:
            return self._receive(_CHUNK)
        except BlockingIOError:
            return None
        except OSError:  # a reset socket, a closed descriptor: the side ended
            return b""

    def release(self) -> None:
        """Close what toolguard opened to read the side; it reads nothing after."""
        release, self._release = self._release, lambda: None
        self._receive = lambda size: b""
        with contextlib.suppress(OSError):
            release()


class Output:
    """One side's output: whole lines in order, never waited on; `gone` once it cannot be written.

    What the side does not take at once waits, and the relay writes it when `fd` has room
    (`flush`). `on_gone` runs once when the side stops reading (a broken pipe). With `ours`,
    the stream is this process's alone (a child's stdin). Only the relay's thread writes.
    """

    def __init__(
        self,
        stream: IO[bytes] | None,
        on_gone: Callable[[], None] | None = None,
        *,
        ours: bool = False,
    ) -> None:
        self._stream = stream
        self._writer: _Writer | None = None if stream is None else _writer(stream, ours=ours)
        self.fd = None if self._writer is None else self._writer.fd
        self._on_gone = on_gone
        self._waiting = bytearray()  # what the side has not taken yet
        self._closing = False
        self.taken = 0  # bytes the side has taken, in all: it grows while the side reads
        self.failure: str | None = None  # what the last write met, if not the reader leaving

    @property
    def gone(self) -> bool:
        """Whether nothing more can be written."""
        return self._writer is None

    @property
    def waiting(self) -> int:
        """Bytes written that wait for room (`flush` writes them)."""
        return len(self._waiting)

    @property
    def full(self) -> bool:
        """Whether the side is so far behind that what feeds it should not be read for now."""
        return len(self._waiting) >= _HIGH

    @property
    def far_behind(self) -> bool:
        """Whether even the side itself should not be read: what it sends adds replies here."""
        return len(self._waiting) >= _FAR

    def write(self, line: bytes) -> None:
        """Write one line, or as much of it as the side takes now: the rest waits its turn."""
        if self._closing:  # a side gone takes nothing: `_try` says so
            return
        if self._waiting:
            self._waiting += line
            return
        sent = self._try(line)
        if sent < len(line) and self._writer is not None:
            self._waiting += memoryview(line)[sent:]

    def offer(self, line: bytes) -> bool:
        """`write` a line toolguard can do without, unless the side is `full` (False: dropped).

        Such a line is toolguard's own reply to what the side sent: a side that sends without
        reading must not make toolguard hold its replies without end.
        """
        if self.full:
            return False
        self.write(line)
        return True

    def flush(self) -> None:
        """Write what waits, as far as the side takes it now."""
        if self._waiting:
            del self._waiting[: self._try(self._waiting)]
        if self._closing and not self._waiting:
            self._close()

    def close(self, *, drop: bool = False) -> None:
        """Close it once what waits is written (`drop`: at once); the server sees the end."""
        self._closing = True
        if drop:
            self._close()
        self.flush()

    def release(self) -> None:
        """Close what toolguard opened to write the side (not the stream it was given)."""
        self._close(stream=False)

    def lost(self) -> None:
        """The side cannot be written any more: gone, and `on_gone` told."""
        if self._writer is None:
            return
        self._close(stream=False)
        if self._on_gone is not None:
            self._on_gone()

    def _try(self, data: bytes | bytearray) -> int:
        """Bytes of `data` the side took now (0 if it is gone)."""
        if self._writer is None:
            return 0
        try:
            sent = self._writer.send(data)
        except BlockingIOError:
            return 0
        except (OSError, ValueError) as exc:
            self.failure = failure(exc)
            self.lost()
            return 0
        self.taken += sent
        return sent

    def _close(self, *, stream: bool = True) -> None:
        writer, self._writer = self._writer, None
        self._waiting.clear()
        if writer is None:
            return
        with contextlib.suppress(OSError, ValueError):  # the reader is gone already
            writer.close()
            if stream and self._stream is not None:
                self._stream.close()


class _Writer:
    """Writes without waiting to one descriptor (`send`: bytes taken, or `BlockingIOError`)."""

    def __init__(self, send: Callable[[bytes | bytearray], int], fd: int | None) -> None:
        self.send = send
        self.fd = fd  # polled for room; None: a write never waits (or cannot tell)
        self.close: Callable[[], None] = lambda: None  # what closing it takes besides the stream


def _writer(stream: IO[bytes], *, ours: bool) -> _Writer:
    try:
        fd = stream.fileno()
        mode = os.fstat(fd).st_mode
    except (OSError, ValueError, AttributeError):
        return _Writer(_blocking(stream), None)  # no descriptor: a test's BytesIO
    if stat.S_ISSOCK(mode):
        own = socket.socket(fileno=os.dup(fd))  # a duplicate: closing it leaves fd alone
        writer = _Writer(lambda data: own.send(data, socket.MSG_DONTWAIT), fd)
        writer.close = own.close
        return writer
    if stat.S_ISFIFO(mode):
        if ours:
            os.set_blocking(fd, False)
        elif (own_fd := _reopened(fd, os.O_WRONLY)) is not None:
            writer = _Writer(lambda data: os.write(own_fd, data), own_fd)
            writer.close = lambda: os.close(own_fd)
            return writer
    # NOTE: a file or a terminal (or a pipe without /proc) is written as it is, to its
    # descriptor and never through the stream's buffer: if someone made it non-blocking,
    # what it did not take waits, in order, for the loop to see it has room.
    return _Writer(lambda data: os.write(fd, data), fd)


def _blocking(stream: IO[bytes]) -> Callable[[bytes | bytearray], int]:
    def write(data: bytes | bytearray) -> int:
        stream.write(data)
        stream.flush()
        return len(data)

    return write


def _reopened(fd: int, access: int) -> int | None:
    """The pipe `fd` is, opened anew: an open file of our own, non-blocking (None: no /proc)."""
    try:
        return os.open(f"/proc/self/fd/{fd}", access | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
