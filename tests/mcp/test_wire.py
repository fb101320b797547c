"""wire.py: each side read without waiting; lines written whole, in order, unwaited."""

from __future__ import annotations

import fcntl
import io
import os
import select
import socket
import threading
import tty
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from toolguard.mcp.wire import Input, Output


def new_pipe() -> tuple[int, int]:
    """A pipe of 64 KiB, which the tests' 100 KB lines overfill, whatever the kernel's default
    (16 pages: 1 MiB where a page is 64 KiB)."""
    read, write = os.pipe()
    fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, 65_536)
    return read, write


@contextmanager
def pipe() -> Iterator[tuple[int, int]]:
    read, write = new_pipe()
    try:
        yield read, write
    finally:
        for fd in (read, write):
            with suppress(OSError):
                os.close(fd)


def drain(read: int) -> bytes:
    """Everything in the pipe now."""
    os.set_blocking(read, False)
    got = bytearray()
    try:
        while chunk := os.read(read, 1 << 16):
            got += chunk
    except BlockingIOError:
        pass
    return bytes(got)


def test_a_side_that_does_not_read_never_holds_the_writer() -> None:
    """Lines past what the pipe holds wait, in order; `full` past the mark; `flush` goes on."""
    with pipe() as (read, write), os.fdopen(write, "wb", closefd=False) as stream:
        output = Output(stream)
        lines = [bytes([65 + n % 26]) * 100_000 + b"\n" for n in range(12)]
        for line in lines:
            output.write(line)  # 1.2 MB into a 64 KiB pipe: never waits
        assert output.waiting
        assert output.full
        got = bytearray()
        while output.waiting:
            got += drain(read)
            output.flush()
        got += drain(read)
        assert bytes(got) == b"".join(lines)
        assert not output.full


def test_a_shared_pipe_stays_blocking_for_everyone_else() -> None:
    """O_NONBLOCK is the open file's: toolguard writes through its own; the caller's stays."""
    with pipe() as (_read, write), os.fdopen(write, "wb", closefd=False) as stream:
        output = Output(stream)
        for _ in range(100):
            output.write(b"x" * 1000 + b"\n")
        assert os.get_blocking(write)
        assert output.fd is not None
        assert output.fd != write
        assert not os.get_blocking(output.fd)
        assert output.waiting


def test_a_socket_is_written_without_waiting_and_stays_blocking() -> None:
    """A socket (Node clients give one) is written with MSG_DONTWAIT: its flags stay."""
    ours, theirs = socket.socketpair()
    with ours, theirs, os.fdopen(os.dup(ours.fileno()), "wb") as stream:
        output = Output(stream)
        line = b"s" * 100_000 + b"\n"
        for _ in range(20):
            output.write(line)
        assert output.waiting
        assert ours.getblocking()
        assert os.get_blocking(ours.fileno())
        theirs.settimeout(5)
        got = bytearray()
        while len(got) < 20 * len(line):
            got += theirs.recv(1 << 16)
            output.flush()
        assert bytes(got) == line * 20
        output.close()
        assert stream.closed


def test_a_line_toolguard_can_do_without_is_dropped_for_a_side_far_behind() -> None:
    """`offer`: toolguard's own replies to a side that sends without reading do not pile up."""
    with pipe() as (_read, write), os.fdopen(write, "wb", closefd=False) as stream:
        output = Output(stream, ours=True)
        reply = b'{"jsonrpc":"2.0","id":1,"error":{}}\n'
        offered = [output.offer(reply) for _ in range(100_000)]  # 3.6 MB
        assert offered[0]
        assert offered[-1] is False
        assert output.full
        assert output.waiting < (1 << 20) + len(reply)
        output.write(b"forwarded\n")  # what a side sent is never dropped
        assert output.waiting >= (1 << 20) + len(b"forwarded\n")


def test_a_side_is_full_past_1_mib_waiting_and_far_behind_past_4_mib() -> None:
    """The marks at which the relay stops reading what feeds a side, then the side itself."""
    with pipe() as (_read, write), os.fdopen(write, "wb", closefd=False) as stream:
        output = Output(stream, ours=True)
        output.write(b"x" * fcntl.fcntl(write, fcntl.F_GETPIPE_SZ))  # the pipe takes it all
        assert output.waiting == 0
        output.write(b"y" * ((1 << 20) - 1))
        assert not output.full
        output.write(b"\n")
        assert output.full
        assert not output.far_behind
        output.write(b"z" * ((3 << 20) - 1))
        assert not output.far_behind
        output.write(b"\n")
        assert output.far_behind


def test_a_terminal_someone_made_non_blocking_loses_nothing() -> None:
    """A terminal is written to its descriptor: what it did not take waits, in order."""
    controller, terminal = os.openpty()
    try:
        tty.setraw(terminal)  # no newline translation: the bytes as written
        os.set_blocking(terminal, False)
        with os.fdopen(terminal, "wb", closefd=False) as stream:
            output = Output(stream)
            lines = [bytes([97 + n % 26]) * 1000 + b"\n" for n in range(300)]
            for line in lines:
                output.write(line)
            assert output.waiting
            got = bytearray()
            while len(got) < 300 * 1001:
                got += os.read(controller, 1 << 16)
                output.flush()
            assert bytes(got) == b"".join(lines)
    finally:
        os.close(controller)
        os.close(terminal)


def test_our_own_pipe_is_made_non_blocking() -> None:
    """The server's stdin is toolguard's alone: written through its own descriptor."""
    with pipe() as (_read, write), os.fdopen(write, "wb", closefd=False) as stream:
        output = Output(stream, ours=True)
        assert output.fd == write
        assert not os.get_blocking(write)
        output.write(b"x" * 200_000 + b"\n")
        assert output.waiting


def test_output_marks_itself_gone_when_the_reader_goes() -> None:
    """A broken pipe: what waits is dropped, `on_gone` runs once, later writes do nothing."""
    gone: list[bool] = []
    with pipe() as (read, write), os.fdopen(write, "wb", closefd=False) as stream:
        output = Output(stream, lambda: gone.append(True))
        output.write(b"x" * 100_000 + b"\n")
        assert output.waiting
        os.close(read)
        output.flush()
        output.write(b"two\n")
        assert output.gone
        assert not output.waiting
        assert gone == [True]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_output_says_what_a_failing_side_met() -> None:
    """A write failing otherwise than a reader leaving (a full disk) is kept for the operator."""
    gone: list[bool] = []
    with Path("/dev/full").open("wb") as full:
        output = Output(full, lambda: gone.append(True))
        output.write(b"one\n")
    assert output.gone
    assert gone == [True]
    assert output.failure == "No space left on device"


def test_a_reader_that_left_is_no_failure() -> None:
    """A broken pipe is the reader leaving: nothing to tell beyond that."""
    with pipe() as (read, write), os.fdopen(write, "wb", closefd=False) as stream:
        output = Output(stream)
        os.close(read)
        output.write(b"one\n")
        assert output.gone
        assert output.failure is None


def test_a_reader_gone_before_a_line_is_written_leaves_nothing_waiting() -> None:
    """The line meets a broken pipe: dropped with the side, not kept for a side that is gone."""
    gone: list[bool] = []
    with pipe() as (read, write), os.fdopen(write, "wb", closefd=False) as stream:
        output = Output(stream, lambda: gone.append(True))
        os.close(read)
        output.write(b"one\n")
        assert output.gone
        assert not output.waiting
        assert gone == [True]


def test_a_line_written_while_others_wait_goes_after_them() -> None:
    """A reader making room lets no later line jump the queue; caught up, the side stays open."""
    with pipe() as (read, write), os.fdopen(write, "wb", closefd=False) as stream:
        output = Output(stream, ours=True)
        first = b"a" * 100_000 + b"\n"
        output.write(first)
        assert output.waiting
        got = bytearray(drain(read))  # room now, the rest of `first` still waiting
        output.write(b"second\n")
        while output.waiting:
            output.flush()
            got += drain(read)
        output.write(b"third\n")
        got += drain(read)
        assert bytes(got) == first + b"second\nthird\n"
        assert not output.gone
        assert output.taken == len(got)  # every byte the side took, counted


def test_close_waits_for_what_is_waiting() -> None:
    """The server sees the end of its input only after every line written before it."""
    read, write = new_pipe()
    stream = os.fdopen(write, "wb")
    output = Output(stream, ours=True)
    output.write(b"x" * 100_000 + b"\n")
    output.close()
    output.write(b"late\n")  # after close: never sent
    assert not stream.closed  # 100 KB wait for room: not yet
    got = bytearray()
    while output.waiting:
        got += drain(read)
        output.flush()
    assert stream.closed
    got += drain(read)
    os.set_blocking(read, True)
    assert os.read(read, 1) == b""  # the end of input
    os.close(read)
    assert bytes(got) == b"x" * 100_000 + b"\n"


def test_close_with_drop_ends_the_side_at_once() -> None:
    """Past the grace, what waits is dropped: the server sees the end now, not after it."""
    read, write = new_pipe()
    stream = os.fdopen(write, "wb")
    output = Output(stream, ours=True)
    output.write(b"x" * 100_000 + b"\n")
    output.close(drop=True)
    assert stream.closed
    assert output.gone
    assert not output.waiting
    got = drain(read)
    os.set_blocking(read, True)
    assert os.read(read, 1) == b""  # the end of input
    os.close(read)
    assert len(got) < 100_001


def test_a_side_lost_is_told_once_and_its_stream_left_alone() -> None:
    """Its descriptor closed under it may be another file's now: the stream is not closed."""
    gone: list[bool] = []
    with pipe() as (_read, write), os.fdopen(write, "wb", closefd=False) as stream:
        output = Output(stream, lambda: gone.append(True), ours=True)
        output.lost()
        output.lost()
        assert output.gone
        assert gone == [True]
        assert not stream.closed
        Output(stream, ours=True).lost()  # nobody to tell: nothing to do


def test_release_closes_what_toolguard_opened_and_not_the_stream() -> None:
    """The client's stdout: toolguard's own open file is closed, the caller's stream stays."""
    with pipe() as (_read, write), os.fdopen(write, "wb", closefd=False) as stream:
        output = Output(stream)
        own = output.fd
        assert own is not None
        assert own != write
        output.release()
        assert output.gone
        with pytest.raises(OSError):
            os.fstat(own)
        assert not stream.closed
        os.fstat(write)


def test_a_stream_without_a_descriptor_is_written_as_it_is() -> None:
    """A test's BytesIO, even buffered: each line written through at once, nothing waits."""
    written = io.BytesIO()
    stream = io.BufferedWriter(written)
    output = Output(stream)
    output.write(b"one\n")
    output.write(b"two\n")
    assert written.getvalue() == b"one\ntwo\n"
    assert output.fd is None
    assert not output.waiting


def test_a_shared_pipe_is_read_without_waiting_and_stays_blocking() -> None:
    """The client's stdin: read through toolguard's own open file; the caller's flags stay."""
    with pipe() as (read, write), os.fdopen(read, "rb", closefd=False) as stream:
        own = os.dup(read)  # the lowest free descriptor: the one `Input` opens next
        os.close(own)
        side = Input(stream)
        fds = Path("/proc/self/fd")
        assert (fds / str(own)).readlink() == (fds / str(read)).readlink()  # the same pipe
        assert side.fd == read  # polled as given; read through its own open file
        assert os.get_blocking(read)
        assert not os.get_blocking(own)
        assert side.read() is None  # nothing there: no wait
        os.write(write, b"line\n")
        assert side.read() == b"line\n"
        os.close(write)
        assert side.read() == b""
        side.release()
        with pytest.raises(OSError):
            os.fstat(own)
        assert side.read() == b""


def test_a_named_fifo_whose_writer_left_first_still_ends(tmp_path: Path) -> None:
    """`mcp < fifo`: a client that wrote and closed before toolguard started still ends it."""
    path = tmp_path / "fifo"
    os.mkfifo(path)
    writer = threading.Thread(target=lambda: path.write_bytes(b"hello\n"))
    writer.start()
    with path.open("rb", buffering=0) as stream:
        writer.join()  # the writer has come and gone
        side = Input(stream)
        ready = select.poll()
        ready.register(side.fd, select.POLLIN)
        assert ready.poll(5000)
        assert side.read() == b"hello\n"
        assert ready.poll(5000)  # the end is told, not waited for
        assert side.read() == b""
        side.release()


def test_our_own_pipe_is_read_without_waiting() -> None:
    """The server's stdout is toolguard's alone: made non-blocking, read as it is."""
    with pipe() as (read, _write), os.fdopen(read, "rb", closefd=False) as stream:
        side = Input(stream, ours=True)
        assert side.fd == read
        assert not os.get_blocking(read)
        assert side.read() is None
        side.release()  # nothing of toolguard's own to close: it reads nothing after
        assert side.read() == b""


def test_a_socket_is_read_without_waiting_and_stays_blocking() -> None:
    """A socket (Node clients give one) is read with MSG_DONTWAIT: its flags stay."""
    ours, theirs = socket.socketpair()
    with ours, theirs, os.fdopen(os.dup(ours.fileno()), "rb") as stream:
        side = Input(stream)
        assert side.read() is None
        assert ours.getblocking()
        theirs.sendall(b"hello\n")
        assert side.read() == b"hello\n"
        theirs.close()
        assert side.read() == b""
        side.release()


def test_a_reset_socket_is_the_side_s_end() -> None:
    """The client's socket reset (it left with a line unread): the side ended, not "nothing"."""
    ours, theirs = socket.socketpair()
    with ours, os.fdopen(os.dup(ours.fileno()), "rb") as stream:
        side = Input(stream)
        ours.sendall(b"unread\n")
        theirs.close()  # with that line unread: a reset, not an orderly end
        assert side.read() == b""
        side.release()


def test_a_file_is_read_through_its_own_descriptor_from_where_it_stands(tmp_path: Path) -> None:
    """`mcp < file`: not opened anew (from its start); read on from the caller's offset."""
    path = tmp_path / "requests"
    path.write_bytes(b"taken\nline\n")
    with path.open("rb", buffering=0) as stream:
        assert os.read(stream.fileno(), 6) == b"taken\n"  # the caller read this already
        side = Input(stream)
        assert side.fd == stream.fileno()
        assert side.read() == b"line\n"
        assert side.read() == b""
        assert os.lseek(stream.fileno(), 0, os.SEEK_CUR) == 11  # its descriptor was read
        side.release()


def test_a_file_is_written_through_its_own_descriptor_where_it_stands(tmp_path: Path) -> None:
    """`mcp > file`: not opened anew (at its start, over what it holds): written on after it."""
    path = tmp_path / "answers"
    path.write_bytes(b"before\n")
    with path.open("ab", buffering=0) as stream:
        output = Output(stream)
        assert output.fd == stream.fileno()
        output.write(b"line\n")
        assert not output.waiting
    assert path.read_bytes() == b"before\nline\n"
