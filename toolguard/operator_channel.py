"""The operator's channel (stderr) for long-running commands: written by a thread, never waited on.

`serve` (and `mcp`) write a diagnostics line per answer. A caller that reads stdout but never
stderr (`stderr=PIPE`, the common integration) lets the pipe fill after a few hundred lines,
and a plain `write` would then block every answer behind it. So lines go into a bounded queue
that a writer thread empties; when the queue is full the line is dropped and counted, and the
count is reported when the channel closes. stderr itself is never made non-blocking: fd 2 is
shared with the parent, and O_NONBLOCK is a property of the open file, not of this process.

When stderr is a pipe (on Linux, where its fill level can be read), the writer also keeps a
little room free, so the closing report fits even if nobody ever reads: the count then waits
in the pipe for whoever reads it last. The fill level alone overstates the room: a Linux pipe
is a ring of page-sized slots, and a write that does not fit in the last page's tail starts a
new slot, wasting that tail. So writes are cut at page boundaries (counted from this writer's
own bytes, restarted whenever the pipe is seen empty), which keeps every page but the first
and the last full; the room is then the free bytes less a page (a partly read head page),
less another for one page misaligned by a reader emptying the pipe between look and write.
An empty pipe's room is judged the same way (its size less two pages), though it really holds
its size: filled to the brim, the next look would take the two pages off again, and no room
would be left for the report.
This holds while this process is the pipe's only writer; another writer can make a write
block, and then only the writer thread waits (and the closing report may be lost).

The writer is not woken per line: waking a thread costs a thread switch, about what a
lock-step answer costs on its own. Once it has written, it rests for `INTERVAL` and then
writes what queued meanwhile in one go; only a writer with nothing to do is woken by the
next line, and a queue filling up (or `close`) cuts the rest short. A line waits at most
`INTERVAL` behind the answer it describes.

A reader that is merely slow (a log shipper that falls behind for a while) loses lines too, in
the middle of a session that may run for days: the closing count would come too late and say
nowhere where the hole is. So, given `gap`, the first line the queue takes after some were
dropped goes with a line of its own in front, saying how many were dropped there; at most one
such line per `GAP_EVERY` seconds (the drops in between are told by the next one), so a reader
that keeps falling behind gets a steady trickle of them, not one per line. A reader that never
reads gets none: the queue never takes a line again, and the closing count says it all.

An audit log that is this same open file (`--audit-log /dev/stderr`) would otherwise be
written to it directly, blocking; its records go through the writer too (`channel_for`,
`record`). A record is never dropped: `record` returns once it is written (the writer does
not rest while one waits), or takes it back and says so when the pipe has no room for it or
it waited `LINGER`, and the trail then fails closed (see `audit/log.py`). An answer is never
released with a record that may still be lost.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import threading
import time
from collections import deque
from collections.abc import Callable
from types import TracebackType
from typing import IO

CAPACITY = 256 * 1024  # bytes waiting for the writer, at most
LINGER = 1.0  # seconds to wait, at close, for a writer that makes no progress
_RESERVE = 1024  # bytes kept free in a pipe for the closing report
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096  # a pipe slot
_POLL = 0.01  # seconds between looks at a full pipe
_BATCH = 64 * 1024  # bytes written at once, at most, where the room cannot be read
INTERVAL = 0.05  # seconds the writer rests after writing, gathering what queues meanwhile
_HURRY = 4  # a queue past 1/_HURRY of its capacity ends the writer's rest
GAP_EVERY = 10.0  # seconds between two lines saying where lines were dropped, at least
_OPEN: dict[tuple[int, int], OperatorChannel] = {}  # (st_dev, st_ino) -> the channel writing it


class OperatorChannel:
    """Text for the operator, handed to a writer thread; `stream` is what report functions get.

    Use as a context manager (or call `close`). `farewell(count)` gives the closing report's
    text when lines were dropped (`count`: in all); `gap(count)` the text of a line put where
    `count` lines were dropped, once the queue takes lines again (see the module docstring).
    A stream without a file descriptor (a `StringIO`) cannot block and is written directly.
    """

    def __init__(  # noqa: PLR0913 - the channel's settings, all keyword-only
        self,
        target: IO[str] | None,
        *,
        farewell: Callable[[int], str] | None = None,
        gap: Callable[[int], str] | None = None,
        capacity: int = CAPACITY,
        linger: float = LINGER,
        gap_every: float = GAP_EVERY,
    ) -> None:
        self.dropped = 0  # lines (chunks) the operator never got
        self._gap = gap
        self._gap_every = gap_every
        self._untold = 0  # lines dropped since the last gap line
        self._next_gap = 0.0  # monotonic time before which no gap line is written
        self.stream = _Chunks(self, target)
        self._target = target
        self._farewell = farewell
        self._capacity = capacity
        self._linger = linger
        self._encoding = getattr(target, "encoding", None) or "utf-8"
        self._queue: deque[bytes] = deque()
        self._queued = 0
        self._written = 0  # progress, in bytes
        self._records = 0  # audit records waiting to be written: the writer must not rest
        self._no_room = False  # the writer's last look found a full pipe
        self._looks = 0  # times the writer looked for room
        self._closing = False
        self._idle = False  # the writer waits for a line, not resting: the next one wakes it
        self._hurry = False  # `close` is waiting: no more rests
        self._changed = threading.Condition()
        self._in_flight = 0  # chunks being written
        self._tail = 0  # bytes in the pipe's last page, by this writer's count (0: unknown)
        self._fd = _descriptor(target)
        self._pipe_size = None if self._fd is None else _pipe_capacity(self._fd)
        self._thread: threading.Thread | None = None
        self._file: tuple[int, int] | None = None
        if self._fd is not None:
            info = os.fstat(self._fd)
            self._file = (info.st_dev, info.st_ino)
            _OPEN[self._file] = self
            self._thread = threading.Thread(target=self._run, name="toolguard-stderr", daemon=True)
            self._thread.start()

    def send(self, text: str) -> None:
        """Queue `text` for the operator; never blocks. Dropped (and counted) if it cannot wait."""
        if not text:
            return
        if self._fd is None:
            self._write_directly(text)
            return
        chunk = text.encode(self._encoding, "backslashreplace")
        with self._changed:
            told = self._gap_line()
            if told and self._enqueue_locked(told + chunk):
                self._untold = 0
                self._next_gap = time.monotonic() + self._gap_every
            elif not self._enqueue_locked(chunk):
                self.dropped += 1
                self._untold += 1

    def _gap_line(self) -> bytes:
        """The line saying where lines were dropped, if one is due now; else nothing."""
        if self._gap is None or not self._untold or time.monotonic() < self._next_gap:
            return b""
        return self._gap(self._untold).encode(self._encoding, "backslashreplace")

    def record(self, line: bytes) -> bool:
        """Write an audit record's bytes through the writer: True once written, else False.

        Unlike a diagnostics line, a record is not left in the queue: the caller releases an
        answer on it. It is taken back (False) when the pipe has no room (nobody reads
        stderr), the channel closes, or it waited `linger`; a record the writer had already
        taken is waited for (it fits the pipe's room), up to `linger`.
        """
        if self._fd is None:
            return False
        chunk = _Record(line)
        with self._changed:
            if not self._enqueue_locked(chunk):
                return False
            self._records += 1
            self._changed.notify_all()  # a resting writer writes it now
            deadline = time.monotonic() + self._linger
            looks = self._looks  # the pipe is judged full by a look taken after this record came
            try:
                while not chunk.written:
                    left = deadline - time.monotonic()
                    queued = _index(self._queue, chunk)
                    full = self._no_room and self._looks > looks
                    if queued is not None and (full or self._closing or left <= 0):
                        del self._queue[queued]
                        self._queued -= len(chunk)
                        return False
                    if left <= 0 or (queued is None and self._closing and not self._in_flight):
                        return False
                    self._changed.wait(min(left, _POLL))
                return True
            finally:
                self._records -= 1

    def _enqueue_locked(self, chunk: bytes) -> bool:
        queued = self._queued
        if self._closing or queued + len(chunk) > self._capacity:
            return False
        self._queue.append(chunk)
        self._queued = queued + len(chunk)
        # NOTE: a resting writer is left to rest (see the module's docstring), unless this
        # line takes the queue past the mark where it must not wait any longer.
        mark = self._capacity // _HURRY
        if self._idle or queued < mark <= self._queued:
            self._changed.notify_all()
        return True

    def close(self) -> None:
        """Let the writer finish while it makes progress, then report what was dropped."""
        self.stream.flush()
        if self._thread is None:  # written directly: nothing was ever dropped
            return
        with self._changed:
            self._hurry = True
            self._changed.notify_all()  # a resting writer writes what is queued now
            last, since = self._written, time.monotonic()
            while (self._queue or self._in_flight) and self._thread.is_alive():
                if self._written != last:
                    last, since = self._written, time.monotonic()
                elif time.monotonic() - since >= self._linger:
                    break  # nobody is reading: stop waiting
                self._changed.wait(_POLL)
            self.dropped += len(self._queue)
            self._queue.clear()
            self._queued = 0
            self._closing = True
            self._changed.notify_all()
        self._thread.join(self._linger)
        if self._thread.is_alive():  # stuck in write(): left behind (a daemon thread)
            self.dropped += self._in_flight
        if self._file is not None and _OPEN.get(self._file) is self:
            del _OPEN[self._file]

    def __enter__(self) -> OperatorChannel:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _write_directly(self, text: str) -> None:
        if self._target is not None:
            with contextlib.suppress(OSError, ValueError):
                self._target.write(text)
                self._target.flush()

    def _run(self) -> None:
        """The writer thread: what fits, never into the room kept for the closing report."""
        assert self._fd is not None
        fd = self._fd
        try:
            while (taken := self._next(fd)) is not None:
                chunk = b"".join(taken)
                self._write(fd, chunk)
                with self._changed:
                    self._in_flight = 0
                    self._written += len(chunk)
                    for each in taken:
                        if type(each) is _Record:
                            each.written = True
                    self._changed.notify_all()
                    hurried = self._hurry or self._records
                    if not hurried and self._queued < self._capacity // _HURRY:
                        self._changed.wait(INTERVAL)  # rest: what queues meanwhile goes as one
            if self.dropped and self._farewell is not None:
                last = self._farewell(self.dropped).encode(self._encoding, "backslashreplace")
                if len(last) <= self._free(fd):
                    self._write(fd, last)
        except OSError:  # stderr closed or broken: what is left is lost, and counted
            with self._changed:
                self.dropped += len(self._queue) + self._in_flight
                self._queue.clear()
                self._queued = 0
                self._in_flight = 0
                self._closing = True
                self._changed.notify_all()
        finally:
            with contextlib.suppress(OSError):
                os.close(fd)

    def _next(self, fd: int) -> list[bytes] | None:
        """What to write next (queued chunks), once the pipe has room; None to stop."""
        while True:
            with self._changed:
                while not self._queue and not self._closing:
                    self._idle = True
                    self._changed.wait()
                self._idle = False
                if not self._queue:
                    return None  # closing, and everything was written or counted
                room = self._free(fd)
                taken: list[bytes] = []
                size = 0
                while self._queue and size + len(self._queue[0]) + _RESERVE <= room:
                    taken.append(self._queue.popleft())
                    size += len(taken[-1])
                if not taken and len(self._queue[0]) + _RESERVE > self._largest_room():
                    taken.append(self._queue.popleft())  # it could never fit: write it, blocking
                    size = len(taken[0])
                self._no_room = not taken
                self._looks += 1
                if taken:
                    self._queued -= size
                    self._in_flight = len(taken)
                    return taken
                self._changed.notify_all()  # a waiting record is taken back at once
                self._changed.wait(_POLL)  # a full pipe: look again soon (or at close)

    def _largest_room(self) -> int:
        """The most `_free` can ever say: an empty pipe's room, or `_BATCH` for anything else."""
        return _BATCH if self._pipe_size is None else _empty_room(self._pipe_size)

    def _free(self, fd: int) -> int:
        """Bytes stderr takes without blocking (see the module docstring for a pipe's)."""
        if self._pipe_size is None:
            return _BATCH  # a terminal or a socket: a blocking write, in this thread
        waiting = _pipe_fill(fd)
        if waiting is None:
            return _BATCH
        if waiting == 0:  # an empty pipe holds no page: the next write starts one
            self._tail = 0
            return _empty_room(self._pipe_size)
        last_page = _PAGE - self._tail if self._tail else 0
        return max(self._pipe_size - waiting - 2 * _PAGE, last_page)

    def _write(self, fd: int, data: bytes) -> None:
        """Write `data` whole, cut where this writer's count crosses a page (for a pipe)."""
        if self._pipe_size is None:
            _write_all(fd, data)
            return
        view = memoryview(data)
        while view:
            written = os.write(fd, view[: _PAGE - self._tail])
            self._tail = (self._tail + written) % _PAGE
            view = view[written:]


class _Record(bytes):
    """An audit record's bytes, marked by the writer once they are in the file."""

    written = False


def _empty_room(pipe_size: int) -> int:
    """An empty pipe's room, by the measure `_free` applies once it holds bytes (two pages less).

    NOTE: the room it really has (`pipe_size`) was once used: lines of whole pages then filled
    it to 1 KiB short, and the look after the write, two pages less, found no room at all for
    the closing report. At least a page, for a pipe of one or two.
    """
    return max(pipe_size - 2 * _PAGE, _PAGE)


def _index(queue: deque[bytes], chunk: bytes) -> int | None:
    """Where `chunk` itself (not an equal line) waits in `queue`, else None."""
    for position, each in enumerate(queue):
        if each is chunk:
            return position
    return None


def channel_for(info: os.stat_result) -> OperatorChannel | None:
    """The open channel whose writer thread writes the file `info` describes, else None.

    The same open file is the same (st_dev, st_ino), whatever path named it.
    """
    return _OPEN.get((info.st_dev, info.st_ino))


class _Chunks(io.StringIO):
    """A text stream for `report`: what is written until each `flush` is sent as one chunk."""

    def __init__(self, channel: OperatorChannel, target: IO[str] | None) -> None:
        super().__init__()
        self._channel = channel
        self._terminal = _is_terminal(target)

    def flush(self) -> None:
        text = self.getvalue()
        if text:
            self.seek(0)
            self.truncate()
            self._channel.send(text)

    def isatty(self) -> bool:
        return self._terminal


def _descriptor(target: IO[str] | None) -> int | None:
    """A private duplicate of `target`'s descriptor if writing to it may block, else None.

    A pipe, a socket or a terminal may block; a regular file or /dev/null is written directly.
    Python's buffer is flushed first, so nothing written earlier comes out later.
    """
    if target is None:
        return None
    try:
        target.flush()
        fd = target.fileno()
        mode = os.fstat(fd).st_mode
        if stat.S_ISREG(mode) or (stat.S_ISCHR(mode) and not os.isatty(fd)):
            return None
        return os.dup(fd)
    except (AttributeError, OSError, ValueError):  # a StringIO, a closed or odd stream
        return None


def _pipe_capacity(fd: int) -> int | None:
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return None
        import fcntl  # noqa: PLC0415 - POSIX only

        return fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ)  # Linux 2.6.35+
    except (AttributeError, ImportError, OSError):
        return None


def _pipe_fill(fd: int) -> int | None:
    """Bytes waiting in the pipe (FIONREAD works on its write end too, on Linux)."""
    try:
        import array  # noqa: PLC0415
        import fcntl  # noqa: PLC0415
        import termios  # noqa: PLC0415

        waiting = array.array("i", [0])
        fcntl.ioctl(fd, termios.FIONREAD, waiting)
    except (ImportError, OSError):
        return None
    return waiting[0]


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _is_terminal(target: IO[str] | None) -> bool:
    try:
        return bool(target is not None and target.isatty())
    except (AttributeError, ValueError):
        return False
