"""loop.py: both sides in one thread, a paused side left unread, the clock kept, polling bounded."""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from toolguard import polled_input
from toolguard.framing import Lines
from toolguard.mcp.loop import Loop
from toolguard.mcp.wire import Output


class Recorded:
    """A poll object that remembers each timeout it was given."""

    def __init__(self, poll: Any) -> None:
        self._real = poll
        self.timeouts: list[int] = []

    def poll(self, timeout: int) -> list[tuple[int, int]]:
        self.timeouts.append(timeout)
        ready: list[tuple[int, int]] = self._real.poll(timeout)
        return ready

    def register(self, fd: int, mask: int) -> None:
        self._real.register(fd, mask)

    def unregister(self, fd: int) -> None:
        self._real.unregister(fd)


def run_for(loop: Loop, seconds: float, done: Callable[[], bool] = lambda: False) -> None:
    """Run `loop` until `done()` or `seconds` have passed."""
    until = time.monotonic() + seconds
    loop.run(lambda: done() or time.monotonic() > until, lambda now: min(until, now + 0.02))


def test_lines_from_both_sides_and_the_end_of_each() -> None:
    """Each side's lines reach its handler; each end is told once, with its last line first."""
    (a_read, a_write), (b_read, b_write) = os.pipe(), os.pipe()
    seen: list[Any] = []
    with os.fdopen(a_read, "rb") as a, os.fdopen(b_read, "rb") as b:
        loop = Loop()
        loop.read(a, Lines(64, lambda line, _: seen.append(("a", line))), lambda: seen.append("a"))
        loop.read(b, Lines(64, lambda line, _: seen.append(("b", line))), lambda: seen.append("b"))
        os.write(a_write, b"one\ntw")
        os.write(b_write, b"x" * 100 + b"\n")
        os.close(b_write)
        run_for(loop, 0.3)
        os.write(a_write, b"o\nlast")
        os.close(a_write)
        run_for(loop, 5, lambda: "a" in seen)
    assert [item for item in seen if item[0] == "a"] == [
        ("a", b"one\n"),
        ("a", b"two\n"),
        ("a", b"last\n"),
        "a",
    ]
    assert [item for item in seen if item[0] == "b"] == [("b", b"x" * 65), "b"]


def test_a_paused_side_is_not_read_until_it_may_be() -> None:
    """While `paused()`, its bytes stay in the pipe (the side that feeds a full output waits)."""
    read, write = os.pipe()
    seen: list[bytes] = []
    paused = True
    with os.fdopen(read, "rb") as stream:
        loop = Loop()
        loop.read(
            stream, Lines(64, lambda line, _: seen.append(line)), lambda: None, lambda: paused
        )
        os.write(write, b"held\n")
        run_for(loop, 0.3)
        assert seen == []
        paused = False
        run_for(loop, 5, lambda: bool(seen))
        os.close(write)
    assert seen == [b"held\n"]


def test_an_output_waiting_for_room_is_written_as_the_side_reads() -> None:
    """What the side could not take at once goes out when it reads, without anyone asking."""
    read, write = os.pipe()
    got = bytearray()
    line = b"w" * 300_000 + b"\n"
    with os.fdopen(write, "wb") as stream:
        output = Output(stream, ours=True)
        output.write(line)
        loop = Loop()
        loop.write(output)

        def reader() -> None:
            while len(got) < len(line):
                got.extend(os.read(read, 1 << 16))

        thread = threading.Thread(target=reader)
        thread.start()
        run_for(loop, 10, lambda: not output.waiting)
        thread.join(10)
    os.close(read)
    assert bytes(got) == line


def test_the_clock_is_kept_while_nothing_happens() -> None:
    """`clock(now)` runs again at the time it returned, with no input at all."""
    read, write = os.pipe()
    looks: list[float] = []
    with os.fdopen(read, "rb") as stream:
        loop = Loop()
        loop.read(stream, Lines(64, lambda *_: None), lambda: None)

        def clock(now: float) -> float:
            looks.append(now)
            return now + 0.05

        loop.run(lambda: len(looks) >= 4, clock)
        os.close(write)
    assert len(looks) == 4
    assert all(later - earlier >= 0.04 for earlier, later in itertools.pairwise(looks))


def test_after_a_line_it_polls_for_the_window_before_sleeping(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A line relayed: the next is looked for without sleeping for `--busy-poll`, yielding the
    CPU between looks (the server, woken on this CPU, runs at once); then it sleeps."""
    read, write = os.pipe()
    seen: list[bytes] = []
    yields: list[int] = []
    monkeypatch.setattr(polled_input, "yield_cpu", lambda: yields.append(1))
    with os.fdopen(read, "rb") as stream:
        for window_us, spins in ((300_000, True), (0, False)):
            yields.clear()
            loop = Loop(window_us)
            recorded = Recorded(loop._poll)
            loop._poll = recorded  # type: ignore[assignment]
            loop.read(stream, Lines(64, lambda line, _: seen.append(line)), lambda: None)
            os.write(write, b"first\n")
            threading.Timer(0.1, os.write, (write, b"second\n")).start()
            run_for(loop, 5, lambda: len(seen) == 2)
            seen.clear()
            after_first = recorded.timeouts[recorded.timeouts.index(0) :]
            assert (max(after_first[:-1] or [0]) == 0) is spins, after_first
            assert bool(yields) is spins
        os.close(write)


class Stealing(Recorded):
    """A poll object whose ready pipe is emptied by another reader before the loop reads it."""

    def __init__(self, poll: Any, fd: int) -> None:
        super().__init__(poll)
        self.fd = fd
        self.stolen = b""

    def poll(self, timeout: int) -> list[tuple[int, int]]:
        ready = super().poll(timeout)
        if any(fd == self.fd for fd, _ in ready) and not self.stolen:
            self.stolen = os.read(self.fd, 1 << 16)
        return ready


def test_bytes_another_reader_took_first_do_not_stall_the_loop() -> None:
    """POLLIN said the shared side had bytes, a second reader took them: the loop goes on."""
    (shared_read, shared_write), (other_read, other_write) = os.pipe(), os.pipe()
    seen: list[bytes] = []
    with os.fdopen(shared_read, "rb") as shared, os.fdopen(other_read, "rb") as other:
        loop = Loop()
        loop.read(shared, Lines(64, lambda line, _: seen.append(line)), lambda: None)
        loop.read(other, Lines(64, lambda line, _: seen.append(line)), lambda: None, ours=True)
        stealing = Stealing(loop._poll, next(iter(loop._readers)))
        loop._poll = stealing  # type: ignore[assignment]
        os.write(shared_write, b"taken by the other reader\n")
        threading.Timer(0.2, os.write, (other_write, b"still relayed\n")).start()
        thread = threading.Thread(target=run_for, args=(loop, 5, lambda: bool(seen)))
        thread.start()
        thread.join(10)
        stalled = thread.is_alive()
        os.write(shared_write, b"unblock\n")  # a loop that waits in `read` wakes up
        thread.join(10)
        loop.close()
        os.close(shared_write)
        os.close(other_write)
    assert stealing.stolen == b"taken by the other reader\n"
    assert not stalled
    assert seen == [b"still relayed\n"]


@contextmanager
def unread() -> Iterator[Output]:
    """An output with 300 KB waiting for a side that reads nothing."""
    read, write = os.pipe()
    with os.fdopen(write, "wb") as stream:
        output = Output(stream, ours=True)
        output.write(b"d" * 300_000 + b"\n")
        yield output
    os.close(read)


def test_drain_gives_up_once_the_side_stops_reading_for_its_grace() -> None:
    """At the end, what waits for a side that reads nothing is written for the grace only."""
    with unread() as output:
        started = time.monotonic()
        Loop().drain(output, 0.2, lambda: False)
        assert 0.15 < time.monotonic() - started < 5
        assert output.waiting


def test_drain_goes_on_while_the_side_reads_however_slowly() -> None:
    """A client that reads its answers slowly after closing its side gets them all."""
    read, write = os.pipe()
    line = b"s" * 1_000_000 + b"\n"
    got = bytearray()

    def slow_reader() -> None:
        while len(got) < len(line):
            time.sleep(0.01)
            got.extend(os.read(read, 1 << 14))

    with os.fdopen(write, "wb") as stream:
        output = Output(stream, ours=True)
        output.write(line)
        thread = threading.Thread(target=slow_reader)
        thread.start()
        started = time.monotonic()
        Loop().drain(output, 0.2, lambda: False)
        assert time.monotonic() - started > 0.2  # longer than the grace: it kept reading
        thread.join(10)
    os.close(read)
    assert bytes(got) == line


def test_drain_stops_when_told() -> None:
    """A signal ends the wait for a client that reads nothing, at once."""
    with unread() as output:
        started = time.monotonic()
        Loop().drain(output, 60, lambda: time.monotonic() - started > 0.2)
        assert time.monotonic() - started < 5


def test_an_output_closed_under_the_loop_is_lost_not_written() -> None:
    """POLLNVAL: its descriptor may be another file's by now; the side is gone, and told."""
    read, write = os.pipe()
    gone: list[bool] = []
    stream = os.fdopen(write, "wb")
    output = Output(stream, lambda: gone.append(True), ours=True)
    output.write(b"x" * 300_000 + b"\n")
    loop = Loop()
    loop.write(output)
    loop._arm()
    os.close(write)  # behind its back
    for fd, events in loop._wait(1):
        loop._ready(fd, events)
    assert output.gone
    assert gone == [True]
    os.close(read)
    with contextlib.suppress(OSError):
        stream.close()
