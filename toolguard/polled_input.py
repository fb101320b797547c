"""Lines from a pipe or socket, polled for a moment before the process goes to sleep.

A caller in lock-step (write a request line, wait for its answer, write the next) sends its
next line within tens of microseconds of reading an answer. A process that blocks in `read`
as soon as it has answered is put to sleep, and waking it again costs as much as the rest of
the round trip: on a virtual machine, an idle CPU is handed back to the host. Polling the
input without blocking for a bounded window first (the way the kernel's own `busy_poll`
does for sockets) answers a back-to-back request without that sleep; a request that comes
later costs the window in CPU time, once, and is then waited for as before. Each look that
finds nothing yields the CPU (`sched_yield`): a caller the scheduler woke on this same CPU
would otherwise wait for the window to end before it could send its next line (measured:
a round trip then cost the whole window, 100 µs, in a third of the benchmark's rounds).

`serve` reads its one input in its one thread: it polls after every line it has answered.
(`mcp` polls both of its sides in its one loop: `mcp/loop.py`.)

`polled` gives the next bytes of a stream, as they come, for the line framing
(`framing.Lines`); the file descriptor's flags are left alone (no `O_NONBLOCK` on a pipe that
other processes may share). Whatever those flags are, a read that finds nothing yet (EAGAIN)
waits for the input to be readable (`wait_readable`): only a read that returns no bytes from a
descriptor that says so is the end.
"""

from __future__ import annotations

import functools
import io
import os
import select
import stat
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import IO, Any, BinaryIO

_CHUNK = 1 << 16
# NOTE: what a busy poll calls between looks that found nothing (here and in `mcp/loop.py`):
# another process woken on this CPU runs at once, instead of after the window (see above).
yield_cpu: Callable[[], None] = getattr(os, "sched_yield", lambda: None)


class PolledInput:
    """`read()` from a file descriptor, polling for `window_us` before it blocks."""

    def __init__(self, fd: int, window_us: int) -> None:
        self._fd = fd
        self._window_ns = window_us * 1000
        self._ready = select.poll()  # the input alone: is a line there now?
        self._ready.register(fd, select.POLLIN)

    def read(self) -> bytes:
        """The next bytes (at most 64 KiB), once polled for the window; `b""` at the end."""
        if self._window_ns:
            self._poll(time.perf_counter_ns() + self._window_ns)
        return self._read()

    def _read(self) -> bytes:
        """The input's next bytes, waited for even where the descriptor does not block.

        NOTE: a process sharing the pipe may have set `O_NONBLOCK` on it (the flag belongs to
        the open file, not to a process): a read then fails where it would have waited.
        """
        while True:
            try:
                return os.read(self._fd, _CHUNK)
            except BlockingIOError:
                self._ready.poll()

    def _poll(self, until: int) -> bool:
        """Whether the input can be read, polling without blocking until `until`."""
        ready = self._ready.poll
        while not ready(0):
            if time.perf_counter_ns() >= until:
                return False
            yield_cpu()
        return True


class _Buffered:
    """`read1()` from a buffered stream with a descriptor, then `os.read`, waiting on EAGAIN.

    `read1` says nothing both at the end and when a non-blocking descriptor has nothing yet
    (EAGAIN). Once it has said nothing, the stream's buffer is empty and stays so: the
    descriptor is read directly from then on, where the two differ.
    """

    def __init__(self, stream: IO[bytes], fd: int) -> None:
        self._read = functools.partial(getattr(stream, "read1", None) or stream.read, _CHUNK)
        self._fd = fd
        self._direct = False

    def read(self) -> bytes:
        """The next bytes, as many as are there (at most 64 KiB); `b""` at the end."""
        if not self._direct:
            try:
                chunk = self._read()
            except BlockingIOError:
                chunk = None
            if chunk:
                return chunk
            if chunk is not None and os.get_blocking(self._fd):
                return b""  # NOTE: a terminal's end of input (Ctrl-D) is read once: not again
            self._direct = True
        while True:
            try:
                return os.read(self._fd, _CHUNK)
            except BlockingIOError:
                wait_readable(self._fd)


class _Waiting(io.RawIOBase):
    """A descriptor read as if it blocked: a read that finds nothing yet waits (`waiting`)."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def readinto(self, buffer: Any) -> int:
        while True:
            try:
                return os.readv(self._fd, [buffer])
            except BlockingIOError:
                wait_readable(self._fd)


def waiting(stream: BinaryIO) -> BinaryIO:
    """`stream`, read as if its descriptor blocked, for readers that take no bytes for the end.

    (`readline` does.) A stream without a descriptor, or whose descriptor blocks, is returned
    as it is; else only a stream nothing has read from yet may be passed (its buffer would be
    lost), and the descriptor's flags are left as they are.
    """
    try:
        fd = stream.fileno()
        if os.get_blocking(fd):
            return stream
    except (OSError, ValueError, AttributeError):
        return stream
    return io.BufferedReader(_Waiting(fd))


def wait_readable(fd: int) -> None:
    """Wait until `fd` can be read, or is at its end: where a read found nothing yet (EAGAIN)."""
    if hasattr(select, "poll"):
        ready = select.poll()
        ready.register(fd, select.POLLIN)
        ready.poll()
    else:  # NOTE: no `poll` on Windows, where `select` takes only sockets
        select.select([fd], [], [])


def polled(stream: IO[bytes], window_us: int) -> Callable[[], bytes]:
    """How to read `stream`'s next bytes as they come (`b""` at its end, and only there).

    A pipe or a socket is read through a `PolledInput`; anything else as it is, whatever it
    holds now (`read1`): a file, a terminal or a stream without a descriptor never waits for a
    caller in lock-step, and a window of 0 turns polling off. Only a stream nothing has read
    from yet may be polled (its buffer would be lost): a process's standard input before its
    first read, a child's output. Either way a descriptor that does not block is waited on,
    never taken to be at its end because it has nothing yet.
    """
    try:
        fd = stream.fileno()
        mode = os.fstat(fd).st_mode
    except (OSError, ValueError, AttributeError):
        # no descriptor (a test's BytesIO), or a closed one
        return functools.partial(getattr(stream, "read1", None) or stream.read, _CHUNK)
    polling = window_us > 0 and hasattr(select, "poll")  # NOTE: no `poll` on Windows
    if polling and (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return PolledInput(fd, window_us).read
    return _Buffered(stream, fd).read
