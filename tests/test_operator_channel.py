"""The operator channel: stderr that nobody reads never blocks the caller; drops are counted."""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import pty
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from toolguard.operator_channel import _RESERVE, OperatorChannel, _empty_room

REPO = Path(__file__).resolve().parents[1]
REVIEW = REPO / "examples" / "review_status"
LINE = "x" * 199 + "\n"


def farewell(count: int) -> str:
    return f"dropped {count}\n"


@pytest.fixture
def pipe() -> Iterator[tuple[int, io.TextIOWrapper]]:
    """A pipe of 64 KiB: its read end (a descriptor) and its write end as a text stream.

    Its size is set: the kernel's default is 16 pages, 1 MiB where a page is 64 KiB, and the
    tests' lines overfill 64 KiB, not that."""
    read, write = os.pipe()
    fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, 65_536)
    stream = open(write, "w", encoding="ascii")  # noqa: SIM115, PTH123 - closed below
    yield read, stream
    stream.close()
    os.close(read)


def finishes(work: Callable[[], object], seconds: float = 30) -> None:
    """Run `work` in a thread; fail (instead of hanging the suite) if it does not finish."""
    done = threading.Event()
    thread = threading.Thread(target=lambda: (work(), done.set()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert done.is_set(), "blocked"


def read_all(fd: int) -> bytes:
    os.set_blocking(fd, False)
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def test_a_pipe_nobody_reads_never_blocks_and_every_drop_is_counted(
    pipe: tuple[int, io.TextIOWrapper],
) -> None:
    """10,000 lines into a 64 KiB pipe never read: no wait; lines read + dropped = lines sent."""
    read, stream = pipe
    channel = OperatorChannel(stream, farewell=farewell, linger=0.2)

    def send_all() -> None:
        for _ in range(10_000):
            channel.stream.write(LINE)
            channel.stream.flush()
        channel.close()

    finishes(send_all)
    *lines, last = read_all(read).decode().splitlines(keepends=True)
    assert set(lines) == {LINE}
    assert last == f"dropped {channel.dropped}\n"
    assert len(lines) + channel.dropped == 10_000
    assert channel.dropped > 0


def test_close_waits_for_a_slow_reader_while_it_reads(
    pipe: tuple[int, io.TextIOWrapper],
) -> None:
    """A reader that takes longer than `linger` in all, but is never idle that long: no loss."""
    read, stream = pipe
    channel = OperatorChannel(stream, farewell=farewell, linger=1.0)
    for _ in range(1_200):  # 240 KB: the pipe's 64 KiB, the rest queued
        channel.send(LINE)
    got: list[bytes] = []
    closed = threading.Event()

    def slowly() -> None:  # 4 KiB at a time, resting in between: 240 KB take some seconds
        os.set_blocking(read, False)
        while not closed.is_set():
            with contextlib.suppress(BlockingIOError):
                got.append(os.read(read, 4096))
            threading.Event().wait(0.05)

    reader = threading.Thread(target=slowly, daemon=True)
    reader.start()
    finishes(channel.close, 120)
    closed.set()
    reader.join(120)
    assert channel.dropped == 0
    assert b"".join(got) + read_all(read) == LINE.encode() * 1_200


def test_a_closing_report_longer_than_the_room_kept_is_left_out(
    pipe: tuple[int, io.TextIOWrapper],
) -> None:
    """Nobody reads, and the count's text does not fit what is free: not a byte of it is
    written (a blocking write would leave the writer stuck, the report cut)."""
    read, stream = pipe
    channel = OperatorChannel(stream, farewell=lambda _count: "x" * 10_000 + "\n", linger=0.2)
    for _ in range(1_000):  # 200 KB: the pipe fills, the rest waits till close drops it
        channel.send(LINE)
    finishes(channel.close)
    assert channel.dropped > 0
    assert set(read_all(read).decode().splitlines(keepends=True)) == {LINE}


def _drop_then_catch_up(channel: OperatorChannel, read: int, drops: int) -> bytes:
    """A reader that falls behind (the pipe has no room) while `drops` more lines are dropped,
    then catches up, reading till the channel has nothing left to write: what it read."""
    target = channel.dropped + drops
    channel._free = lambda _fd: 0  # type: ignore[method-assign] # no room: nothing is written
    while channel.dropped < target:
        channel.send(LINE)
    del channel._free  # the reader is back
    got = []
    for _ in range(3_000):  # the writer rests between writes: a few dozen reads at most
        got.append(read_all(read))
        if not channel._queue and not channel._in_flight:
            break
        threading.Event().wait(0.01)
    return b"".join(got) + read_all(read)


@pytest.mark.parametrize("gap_every", [0, 3600])
def test_a_reader_that_catches_up_is_told_where_lines_were_dropped(
    pipe: tuple[int, io.TextIOWrapper], gap_every: float
) -> None:
    """The first line after a hole comes behind one saying how many lines fell in it; a second
    hole within `gap_every` is told by the closing count alone (a bounded trickle)."""
    read, stream = pipe
    fcntl.fcntl(stream.fileno(), fcntl.F_SETPIPE_SZ, 4096)
    channel = OperatorChannel(
        stream,
        farewell=farewell,
        gap=lambda count: f"gap {count}\n",
        capacity=2048,
        gap_every=gap_every,
    )
    first = _drop_then_catch_up(channel, read, 3)
    told = channel.dropped
    channel.send("after one\n")
    second = _drop_then_catch_up(channel, read, 2)
    hole = channel.dropped - told
    channel.send("after two\n")
    channel.close()
    text = (first + second + read_all(read)).decode()
    assert text.count("gap ") == (2 if gap_every == 0 else 1)
    assert f"gap {told}\nafter one\n" in text
    assert (f"gap {hole}\nafter two\n" in text) == (gap_every == 0)
    assert text.endswith(f"after two\ndropped {channel.dropped}\n")  # the closing count: in all


def test_without_a_gap_text_nothing_is_put_in_the_hole(
    pipe: tuple[int, io.TextIOWrapper],
) -> None:
    """`gap` not given (a library caller's channel): the lines after a hole come as they are."""
    read, stream = pipe
    fcntl.fcntl(stream.fileno(), fcntl.F_SETPIPE_SZ, 4096)
    channel = OperatorChannel(stream, farewell=farewell, capacity=2048)
    read_before = _drop_then_catch_up(channel, read, 3)
    channel.send("after\n")
    channel.close()
    text = (read_before + read_all(read)).decode()
    assert set(text.splitlines(keepends=True)) == {LINE, "after\n", f"dropped {channel.dropped}\n"}


def _one_write_at_a_time(channel: OperatorChannel, line: str, count: int) -> None:
    """Send `line` `count` times, each after the last was written (or 0.2 s without progress).

    NOTE: a writer that found the pipe full never writes again here (nobody reads), so the
    lines after that are not waited for: each wait would be the whole 0.2 s, 12 s a test.
    """
    for _ in range(count):
        before = channel._written
        channel.send(line)
        for _ in range(20):
            if channel._written != before or channel._no_room:
                break
            threading.Event().wait(0.01)


@pytest.mark.parametrize(
    ("pipe_size", "line_size"), [(65_536, 1_500), (65_536, 2_900), (4_096, 700)]
)
def test_the_closing_report_fits_however_the_pipe_pages_were_filled(
    pipe: tuple[int, io.TextIOWrapper], pipe_size: int, line_size: int
) -> None:
    """Lines written one by one waste each page's tail in a Linux pipe: the count still fits.

    Found in CI: the fill level said there was room, the write blocked, the report was lost.
    """
    read, stream = pipe
    fcntl.fcntl(stream.fileno(), fcntl.F_SETPIPE_SZ, pipe_size)
    line = "z" * (line_size - 1) + "\n"
    channel = OperatorChannel(stream, farewell=farewell, linger=0.2)

    def send_all() -> None:
        _one_write_at_a_time(channel, line, 2 * pipe_size // line_size)
        channel.close()

    finishes(send_all)
    *lines, last = read_all(read).decode().splitlines(keepends=True)
    assert set(lines) == {line}
    assert last == f"dropped {channel.dropped}\n"
    assert len(lines) + channel.dropped == 2 * pipe_size // line_size


@pytest.mark.parametrize("pipe_size", [65_536, 16_384])
def test_the_closing_report_fits_after_an_empty_pipe_took_a_burst_of_whole_pages(
    pipe: tuple[int, io.TextIOWrapper], pipe_size: int
) -> None:
    """Lines queued while the writer had no room go at once into the empty pipe: room is left.

    Found by a mutant: an empty pipe's room was its whole size, so page-sized lines filled it to
    1 KiB short, and the next look (two pages less) left none for the report: it was lost.
    """
    read, stream = pipe
    fcntl.fcntl(stream.fileno(), fcntl.F_SETPIPE_SZ, pipe_size)
    line = "z" * 4_095 + "\n"
    count = 2 * pipe_size // len(line)
    channel = OperatorChannel(stream, farewell=farewell, linger=0.2)
    channel._free = lambda _fd: 0  # type: ignore[method-assign] # the lines queue meanwhile
    for _ in range(count):
        channel.send(line)
    del channel._free  # now the writer sees an empty pipe, and takes what fits at once
    finishes(channel.close)
    *lines, last = read_all(read).decode().splitlines(keepends=True)
    assert set(lines) == {line}
    assert last == f"dropped {channel.dropped}\n"
    assert len(lines) + channel.dropped == count


def test_a_reader_gets_every_line_in_order(pipe: tuple[int, io.TextIOWrapper]) -> None:
    """With someone reading, nothing is dropped and nothing is reordered."""
    read, stream = pipe
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(_drain(read)), daemon=True)
    reader.start()
    with OperatorChannel(stream, farewell=farewell) as channel:
        for number in range(5_000):
            channel.send(f"{number}\n")
    stream.close()
    reader.join(30)
    assert received[0].decode().splitlines() == [str(number) for number in range(5_000)]
    assert channel.dropped == 0


def _drain(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def test_a_chunk_larger_than_the_pipe_still_arrives_whole(
    pipe: tuple[int, io.TextIOWrapper],
) -> None:
    """100 KiB in one flush, more than a 64 KiB pipe holds: written (blocking, in the thread)."""
    read, stream = pipe
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(_drain(read)), daemon=True)
    reader.start()
    big = "y" * 100_000 + "\n"
    with OperatorChannel(stream) as channel:
        channel.send(big)
    stream.close()
    reader.join(30)
    assert received == [big.encode()]
    assert channel.dropped == 0


def test_a_socket_is_written_by_the_thread_too() -> None:
    """Another kind of stderr that may block (a socket): every line arrives, in order."""
    ours, theirs = socket.socketpair()
    target = ours.makefile("w", encoding="ascii")
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(_drain(theirs.fileno())), daemon=True)
    reader.start()
    with target, OperatorChannel(target) as channel:
        for number in range(1_000):
            channel.send(f"{number}\n")
    ours.close()
    reader.join(30)
    theirs.close()
    assert received[0].decode().splitlines() == [str(number) for number in range(1_000)]


def test_stderr_is_never_made_non_blocking(pipe: tuple[int, io.TextIOWrapper]) -> None:
    """The descriptor is shared with the parent: its O_NONBLOCK flag stays as it was."""
    _, stream = pipe
    before = fcntl.fcntl(stream.fileno(), fcntl.F_GETFL)
    with OperatorChannel(stream, linger=0.1) as channel:
        for _ in range(2_000):
            channel.send(LINE)
    assert fcntl.fcntl(stream.fileno(), fcntl.F_GETFL) == before
    assert not before & os.O_NONBLOCK


def test_a_closed_reader_loses_lines_without_an_exception(
    pipe: tuple[int, io.TextIOWrapper],
) -> None:
    """EPIPE in the writer: the rest is counted as dropped, once; the caller sees no error."""
    read, stream = pipe
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, read)  # the reader gone; the fixture's close stays harmless
    os.close(nothing)
    with OperatorChannel(stream, linger=0.1) as channel:
        room = _RESERVE + len(LINE)  # one line at a time: the rest still queued at EPIPE
        channel._free = lambda _fd: room  # type: ignore[method-assign]
        with channel._changed:  # all queued before the writer takes the first
            for _ in range(100):
                channel.send(LINE)
    assert channel.dropped == 100


def test_a_stream_without_a_descriptor_is_written_directly() -> None:
    """A StringIO cannot block: every line lands there at once, in order; nothing dropped,
    however much more than the queue's capacity it is given (nothing queues)."""
    target = io.StringIO()
    with OperatorChannel(target, farewell=farewell, capacity=8) as channel:
        channel.stream.write("one\n")
        channel.stream.flush()
        assert target.getvalue() == "one\n"
        for _ in range(3):
            channel.send("two\n")
    assert (target.getvalue(), channel.dropped) == ("one\n" + "two\n" * 3, 0)


def test_the_queue_holds_capacity_bytes_and_not_one_more(
    pipe: tuple[int, io.TextIOWrapper],
) -> None:
    """`capacity` bytes wait for a writer that has no room; the next line is dropped."""
    _, stream = pipe
    channel = OperatorChannel(stream, capacity=10 * len(LINE), linger=0.1)
    channel._free = lambda _fd: 0  # type: ignore[method-assign] # no room: the queue fills
    for _ in range(10):
        channel.send(LINE)
    assert channel.dropped == 0
    channel.send(LINE)
    assert channel.dropped == 1
    channel.close()
    assert channel.dropped == 11  # what still waited at close is counted too


def _arrives(read: int, expected: bytes) -> None:
    """What the writer thread wrote reaches the pipe: `expected`, no more (waits up to 10 s)."""
    got = b""
    for _ in range(1_000):
        got += read_all(read)
        if len(got) >= len(expected):
            break
        threading.Event().wait(0.01)
    assert got == expected


def _holds_exactly(channel: OperatorChannel, lines: list[str]) -> None:
    """With no room in the pipe, `lines` (the queue's whole capacity) wait; one byte more drops."""
    channel._free = lambda _fd: 0  # type: ignore[method-assign] # no room: the queue fills
    for line in lines:
        channel.send(line)
    assert channel.dropped == 0
    channel.send("x")
    assert channel.dropped == 1
    channel.close()


def test_the_queue_holds_capacity_bytes_after_lines_were_written(
    pipe: tuple[int, io.TextIOWrapper],
) -> None:
    """Each line the writer took frees its bytes exactly: the queue still holds `capacity`."""
    read, stream = pipe
    channel = OperatorChannel(stream, capacity=10, linger=0.1)
    for _ in range(5):  # one line at a time: five takes
        channel.send("x")
        _arrives(read, b"x")
    _holds_exactly(channel, ["x"] * 10)


def test_a_line_that_fills_the_room_to_the_reserve_is_written(
    pipe: tuple[int, io.TextIOWrapper],
) -> None:
    """Room for the line and the closing report's reserve, not a byte more: it still goes."""
    read, stream = pipe
    with OperatorChannel(stream) as channel:
        channel._free = lambda _fd: _RESERVE + len(LINE)  # type: ignore[method-assign]
        channel.send(LINE)
        _arrives(read, LINE.encode())


def test_lines_of_any_size_taken_together_free_their_bytes_exactly(
    pipe: tuple[int, io.TextIOWrapper],
) -> None:
    """A short line and a longer one written in one go: the queue still holds `capacity`."""
    read, stream = pipe
    channel = OperatorChannel(stream, capacity=10, linger=0.1)
    channel._free = lambda _fd: 0  # type: ignore[method-assign] # both wait...
    channel.send("x")
    channel.send("yyyy")
    del channel._free  # ...and go together
    _arrives(read, b"xyyyy")
    _holds_exactly(channel, ["z" * 10])


def test_a_chunk_just_over_the_room_a_pipe_can_have_is_written_and_freed(
    pipe: tuple[int, io.TextIOWrapper],
) -> None:
    """Too long to ever fit beside the reserve, though the pipe holds it: written (blocking),
    and its bytes leave the queue."""
    read, stream = pipe
    size = fcntl.fcntl(stream.fileno(), fcntl.F_GETPIPE_SZ)
    largest = _empty_room(size) - _RESERVE + 1  # never fits: always goes
    channel = OperatorChannel(stream, capacity=largest, linger=0.1)
    channel.send("c" * largest)
    _arrives(read, b"c" * largest)
    channel._free = lambda _fd: 0  # type: ignore[method-assign] # no room: the queue fills
    channel.send("d" * largest)
    assert channel.dropped == 0
    channel.close()


def test_the_first_line_waiting_is_judged_whatever_waits_behind_it(
    pipe: tuple[int, io.TextIOWrapper],
) -> None:
    """In order: a line the room cannot take holds back a shorter one behind it (no room
    ever comes here: close gives both up), and one that can never fit goes first, blocking."""
    read, stream = pipe
    channel = OperatorChannel(stream, linger=0.1)
    channel._free = lambda _fd: _RESERVE + 10  # type: ignore[method-assign]
    with channel._changed:  # both queued before the writer looks
        channel.send(LINE)
        channel.send("x\n")
    channel.close()
    assert channel.dropped == 2
    assert read_all(read) == b""
    huge = "h" * (fcntl.fcntl(stream.fileno(), fcntl.F_GETPIPE_SZ) + 1)
    with OperatorChannel(stream) as channel:
        channel._free = lambda _fd: 0  # type: ignore[method-assign]
        with channel._changed:
            channel.send(huge)
            channel.send("x\n")
        _arrives(read, huge.encode())
        del channel._free
        _arrives(read, b"x\n")


def test_a_line_reaches_an_idle_writer_without_waiting_for_close(
    pipe: tuple[int, io.TextIOWrapper],
) -> None:
    """A writer with nothing to do is woken by the next line: it is not held until close."""
    read, stream = pipe
    with OperatorChannel(stream) as channel:
        channel.send("one\n")
        _arrives(read, b"one\n")


def test_text_not_yet_flushed_to_the_stream_is_sent_at_close(
    pipe: tuple[int, io.TextIOWrapper],
) -> None:
    """`close` flushes what a reporter wrote to `stream` without flushing it."""
    read, stream = pipe
    with OperatorChannel(stream) as channel:
        channel.stream.write("unflushed\n")
    assert read_all(read) == b"unflushed\n"


def test_a_line_sent_after_close_is_counted_as_dropped(
    pipe: tuple[int, io.TextIOWrapper],
) -> None:
    """The writer is gone: a late line is never written, and it is not lost uncounted."""
    read, stream = pipe
    channel = OperatorChannel(stream)
    channel.close()
    channel.send(LINE)
    assert channel.dropped == 1
    assert read_all(read) == b""


def test_a_terminal_is_still_a_terminal_to_the_reporter() -> None:
    """`report` styles output for a terminal: the channel's stream says whether it is one."""
    leader, follower = pty.openpty()
    terminal = open(follower, "w", encoding="utf-8")  # noqa: SIM115, PTH123 - closed below
    with terminal, OperatorChannel(terminal) as channel:
        assert channel.stream.isatty()
        channel.send("hello\n")
    assert b"hello" in os.read(leader, 100)
    os.close(leader)
    with OperatorChannel(io.StringIO()) as channel:
        assert not channel.stream.isatty()


def test_serve_answers_5000_requests_to_a_caller_that_never_reads_stderr() -> None:
    """`stderr=PIPE`, only stdout read: every answer arrives, exit 0 at EOF, drops reported."""
    request = json.dumps(
        {
            "raw": json.dumps({"change_id": "CR-1042", "decision": "maybe", "reviewed_by": "a"}),
            "context": {"change_id": "CR-1042"},
        }
    ).encode()
    child = subprocess.Popen(
        [sys.executable, "-m", "toolguard", "serve", str(REVIEW / "contract.toml")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdin is not None
    assert child.stdout is not None
    assert child.stderr is not None
    answers: list[bytes] = []

    def converse() -> None:
        for _ in range(5_000):
            child.stdin.write(request + b"\n")  # type: ignore[union-attr]
            child.stdin.flush()  # type: ignore[union-attr]
            answers.append(child.stdout.readline())  # type: ignore[union-attr]
        child.stdin.close()  # type: ignore[union-attr]
        child.wait()

    with child:
        try:
            finishes(converse, seconds=120)
        finally:
            child.kill()
        stderr = child.stderr.read()
    assert child.returncode == 0
    assert len(answers) == 5_000
    assert all(json.loads(answer)["error"]["code"] == "INVALID_RESPONSE" for answer in answers)
    *diagnostics, last = stderr.splitlines()
    report = json.loads(last)
    assert report["outcome"] == "dropped"
    assert report["count"] + len(diagnostics) == 5_000


# --- audit records through the channel (`--audit-log /dev/stderr` under serve and mcp) ----------


def test_a_record_returns_once_it_is_in_the_pipe(pipe: tuple[int, io.TextIOWrapper]) -> None:
    """True means written: the bytes are in the pipe when `record` returns, even while the
    writer would otherwise rest after a diagnostics line."""
    read, stream = pipe
    with OperatorChannel(stream) as channel:
        channel.send(LINE)
        assert channel.record(b"record one\n")
        assert read_all(read) == LINE.encode() + b"record one\n"


def test_a_record_the_pipe_has_no_room_for_is_taken_back_and_never_written(
    pipe: tuple[int, io.TextIOWrapper],
) -> None:
    """Nobody reads: `record` says False at once, and the record is not written later."""
    read, stream = pipe
    results: list[bool] = []
    with OperatorChannel(stream) as channel:
        room = fcntl.fcntl(read, fcntl.F_GETPIPE_SZ)

        def fill() -> None:
            for number in range(room // 100 + 50):
                results.append(channel.record(b"r%06d" % number + b"." * 92 + b"\n"))

        finishes(fill)
    assert False in results
    written = read_all(read).splitlines()
    assert len(written) == results.count(True)  # every True in the pipe, no False after it


def test_a_record_after_close_is_refused() -> None:
    read, write = os.pipe()
    stream = open(write, "w", encoding="ascii")  # noqa: SIM115, PTH123 - closed below
    try:
        channel = OperatorChannel(stream)
        channel.close()
        assert not channel.record(b"late\n")
    finally:
        stream.close()
        os.close(read)
