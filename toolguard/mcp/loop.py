"""The relay's one thread: both sides polled, read when they have bytes, written with room.

A guarded call crosses toolguard twice (the call to the server, its answer to the client).
With a thread per side, each crossing woke another thread and handed it the interpreter's
lock; the check then ran on a thread just woken, its caches cold. One thread that polls both
sides relays the call, then waits for the answer itself, and can poll for it a moment
(`--busy-poll`) before it sleeps: in lock-step the answer is usually there within that window
(yielding the CPU between looks, as `polled_input` does).

Reads and writes never wait (`wire.py`), and a side is read whenever it may be: a side that
does not keep up is not fed. While more than 1 MiB waits for the server, the client is not
read (the server still is: busy writing, it can always finish and read again); while more than
1 MiB waits for the client, the server is not read (the client still is: it may be writing its
answer to a server request before it reads again), and past 4 MiB, which only toolguard's own
replies to the client's lines can reach, the client is not read either.
"""

from __future__ import annotations

import select
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from toolguard import polled_input
from toolguard.framing import Lines
from toolguard.mcp.wire import Input, Output

_LOOK = 0.1  # seconds: how often `drain` looks at `stop`
_READABLE = select.POLLIN | select.POLLHUP | select.POLLERR | select.POLLNVAL


@dataclass(slots=True)
class _Reader:
    input: Input
    lines: Lines
    at_end: Callable[[], None]
    paused: Callable[[], bool]


class Loop:
    """Inputs read into `Lines`, outputs written when they have room, a clock; one thread."""

    def __init__(self, busy_poll_us: int = 0) -> None:
        self._poll = select.poll()
        self._masks: dict[int, int] = {}
        self._readers: dict[int, _Reader] = {}
        self._outputs: dict[int, Output] = {}
        self._window_ns = busy_poll_us * 1000
        self._spin_until = 0  # after a line was relayed: poll without sleeping until then

    def read(
        self,
        stream: IO[bytes],
        lines: Lines,
        at_end: Callable[[], None],
        paused: Callable[[], bool] = lambda: False,
        *,
        ours: bool = False,
    ) -> None:
        """Feed `stream`'s bytes to `lines` (not while `paused()`); `at_end()` at its end.

        `ours`: the stream is this process's alone (a child's stdout), see `wire.Input`.
        """
        try:
            source = Input(stream, ours=ours)
        except (OSError, ValueError):
            lines.end()
            at_end()  # closed before it was read
            return
        self._readers[source.fd] = _Reader(source, lines, at_end, paused)

    def write(self, output: Output) -> None:
        """Write what waits in `output` when its side has room."""
        if output.fd is not None:
            self._outputs[output.fd] = output

    def run(self, done: Callable[[], bool], clock: Callable[[float], float]) -> None:
        """Relay until `done()`; `clock(now)` whenever the time it last returned has come."""
        next_look = 0.0
        while not done():
            now = time.monotonic()
            if now >= next_look:
                next_look = clock(now)
                if done():
                    return
            self._arm()
            for fd, events in self._wait(next_look - now):
                self._ready(fd, events)

    def close(self) -> None:
        """Release what the loop opened to read the sides it has not read to their end."""
        for reader in self._readers.values():
            reader.input.release()

    def drain(self, output: Output, grace: float, stop: Callable[[], bool]) -> None:
        """Write what waits in `output` until its side takes nothing for `grace` s, or `stop()`."""
        room = select.poll()
        if output.fd is not None:
            room.register(output.fd, select.POLLOUT)
        deadline = time.monotonic() + grace
        while output.waiting and not stop() and (left := deadline - time.monotonic()) > 0:
            if room.poll(min(left, _LOOK) * 1000):
                before = output.waiting
                output.flush()
                if output.waiting < before:  # progress: the side reads, however slowly
                    deadline = time.monotonic() + grace

    def _arm(self) -> None:
        """Poll each input that is not paused, and each output with something waiting."""
        wanted: dict[int, int] = {}
        for fd, reader in self._readers.items():
            if not reader.paused():
                wanted[fd] = select.POLLIN
        for fd, output in self._outputs.items():
            if output.waiting:
                wanted[fd] = wanted.get(fd, 0) | select.POLLOUT
        if wanted == self._masks:
            return
        for fd in self._masks.keys() - wanted.keys():
            self._poll.unregister(fd)
        for fd, mask in wanted.items():
            if self._masks.get(fd) != mask:
                self._poll.register(fd, mask)
        self._masks = wanted

    def _wait(self, seconds: float) -> list[tuple[int, int]]:
        """What is ready: at once, or within the busy-poll window, or within `seconds`."""
        poll = self._poll.poll
        if ready := poll(0):
            return ready
        clock, until = time.perf_counter_ns, self._spin_until
        while clock() < until:
            if ready := poll(0):
                return ready
            polled_input.yield_cpu()  # the server, woken on this CPU, answers at once
        return poll(max(0, int(seconds * 1000) + 1))

    def _ready(self, fd: int, events: int) -> None:
        output = self._outputs.get(fd)
        if output is not None and events & select.POLLNVAL:
            output.lost()  # closed under it: never write to what may now be another file
        elif output is not None and events & (select.POLLOUT | select.POLLERR | select.POLLHUP):
            output.flush()
        reader = self._readers.get(fd)
        if reader is None or not events & _READABLE or not self._masks.get(fd, 0) & select.POLLIN:
            return
        # NOTE: POLLIN promises bytes, but another reader of the same pipe may have taken them
        # first: `read` does not wait (`wire.Input`).
        chunk = reader.input.read()
        if chunk is None:
            return
        if chunk:
            reader.lines.feed(chunk)
            # NOTE: from now, not from the read: what the line was relayed to answers soon.
            self._spin_until = time.perf_counter_ns() + self._window_ns
            return
        del self._readers[fd]
        self._masks.pop(fd, None)
        self._poll.unregister(fd)
        reader.input.release()
        reader.lines.end()
        reader.at_end()
