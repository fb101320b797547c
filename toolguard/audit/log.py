"""The audit log: JSON Lines appended by many processes at once, none torn, none lost.

Each record is one `write()` on a descriptor opened with O_APPEND, so the kernel places it
whole at the end of the file (Linux serialises writes to one regular file; records are capped
at `MAX_RECORD_BYTES`, which is also PIPE_BUF, so a FIFO gets them whole too). The file is
opened for each record, which makes rotation by rename safe without any signal. A write cut
short (a full disk, `ulimit -f`) leaves part of a record at the end of the file: the next
record starts with a newline then (`_ends_a_line`), so no whole record is glued to a torn one;
writers hold the file's `flock` while they judge the end and write, so a record still being
copied in by another writer is never taken for a torn one.

Records are never written into a file someone else controls, nor through their link. The
log's folder is reached from `/` one folder at a time (`trusted_paths.open_beside`: a folder
others can write is allowed on the way, a symbolic link only if this user or root owns it), the log
is opened relative to it without following a link, then checked on its descriptor (no
check-then-use): a regular file must be this user's, with one link, writable by no one else; a
FIFO this user's and writable by no one else; a character device (a terminal, `/dev/null`)
this user's or root's. Anything else is refused, and the trail with it (fail closed).
`/dev/stderr`, `/dev/fd/N` and `/proc/self/fd/N` name a descriptor whoever started toolguard
handed it: records go to that descriptor as it is, since the caller chose it. Never to
standard output, which is the agent's (`refuse_stdout`). When the log is the open file a
`serve` or `mcp` operator channel writes (stderr), the record goes through that channel's
writer, behind the diagnostics, instead of a write that would block every answer behind a
caller that does not read stderr; a record it cannot write (no room, nobody reading) is taken
back and fails the trail, so no answer is released with a record still in a queue.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import BinaryIO

from toolguard.errors import AuditError, UsageError
from toolguard.files import is_stdin, open_data, open_regular
from toolguard.operator_channel import channel_for
from toolguard.trusted_paths import open_beside, refusal

MAX_RECORD_BYTES = 4096  # PIPE_BUF on Linux: one write is atomic even into a pipe or FIFO
_OPEN_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_DESCRIPTOR = re.compile(r"/dev/(?:(stdout)|(stderr)|fd/([0-9]{1,9}))|/proc/self/fd/([0-9]{1,9})")


def append(path: Path, line: bytes, *, fsync: bool = False) -> None:
    """Append one record (ending in a newline) with a single write; raise `AuditError`."""
    if len(line) > MAX_RECORD_BYTES or not line.endswith(b"\n"):
        raise AuditError("record_too_large", f"audit record of {len(line)} bytes refused")
    given = descriptor(path)
    fd = given if given is not None else _open(path)
    try:
        try:
            _write(fd, path, line, fsync=fsync)
        finally:
            if given is None:
                os.close(fd)  # NOTE: NFS may report a lost write here: the trail fails then
    except OSError as exc:
        raise AuditError(
            "audit_unwritable", f"cannot write audit log {path}: {exc.strerror or exc}"
        ) from None


def _write(fd: int, path: Path, line: bytes, *, fsync: bool) -> None:
    """`append`'s write to the open log; raise `OSError`, or `AuditError` for a refused one.

    A record whose fsync fails is taken back: the agent then gets a failure, and a record
    left behind would tell the operator it got the answer.
    """
    info = os.fstat(fd)
    if _is_stdout(info):
        raise AuditError("audit_unwritable", f"refusing audit log {path}: {_STDOUT}")
    channel = channel_for(info)
    if channel is not None:
        if not channel.record(line):
            why = "it is stderr, and the record could not be written (stderr is not being read)"
            raise AuditError("audit_unwritable", f"cannot write audit log {path}: {why}")
        return
    regular = stat.S_ISREG(info.st_mode)
    locked = regular and _locked(fd)
    if locked and not _ends_a_line(fd):
        line = b"\n" + line  # a torn record is at the end: never join this one to it
    start = os.fstat(fd).st_size if locked and fsync else None
    written = os.write(fd, line)
    if written != len(line):  # a short write would leave half a record: say so
        raise OSError(errno.ENOSPC, f"short write ({written} of {len(line)} bytes)")
    if fsync and regular:
        try:
            os.fsync(fd)
        except OSError:
            if start is not None:
                _take_back(fd, start, start + written)
            raise


def _take_back(fd: int, start: int, end: int) -> None:
    """Cut the log back to `start` if this writer's record (to `end`) is still its end.

    Only under the log's lock (`_locked`): no other toolguard writer appended meanwhile.
    """
    with contextlib.suppress(OSError):
        if os.fstat(fd).st_size == end:
            os.ftruncate(fd, start)


def _locked(fd: int) -> bool:
    """Take the log's `flock` for this record's write (released when `fd` is closed).

    Every toolguard writer takes it, so a writer that sees no newline at the end knows no
    other is halfway through its record: what is there is torn. The wait is bounded (a
    process of the same user could hold the lock for ever); without the lock, the tail is not
    judged and the record is written as it is, as before the check existed.
    """
    import fcntl  # noqa: PLC0415 - only a regular log file needs it

    for _ in range(_LOCK_TRIES):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            time.sleep(0.001)
        except OSError:  # no locks here (some network file systems)
            return False
        else:
            return True
    return False


_LOCK_TRIES = 1000  # about a second: a writer holds the lock for one write


def _ends_a_line(fd: int) -> bool:
    """Whether the regular file open (write-only) on `fd` is empty or ends with a newline.

    A write cut short (a full disk, `ulimit -f`) leaves part of a record with no newline at
    the end; the next record appended would join it, and both would read as one malformed
    line. Read through a second descriptor of the same open file (`/proc/self/fd`): the log
    is opened write-only so that a FIFO nobody reads fails at once. Where that cannot be
    opened, the log is taken to end a line (the record is written as before).
    Called with the log locked (`_locked`): a record another writer is appending at this
    instant would look torn too (the file grows a page at a time while it is copied).
    """
    try:
        reader = os.open(f"/proc/self/fd/{fd}", os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return True
    try:
        size = os.fstat(reader).st_size
        return size == 0 or os.pread(reader, 1, size - 1) == b"\n"
    except OSError:
        return True
    finally:
        os.close(reader)


_STDOUT = "it is standard output, where the agent reads answers (records never go there)"


def refuse_stdout(path: Path) -> None:
    """Raise `UsageError` if the log is the open file standard output is (the agent's).

    Said before anything is checked, so `--audit-log /dev/stdout` is a usage error rather
    than a failed answer; `append` checks again on the descriptor it writes.
    """
    given = descriptor(path)
    try:
        info = os.fstat(given) if given is not None else path.stat()
    except (OSError, ValueError):
        return  # missing or unreadable: `append` says what is wrong with it
    if _is_stdout(info):
        raise UsageError(f"refusing audit log {path}: {_STDOUT}")


def is_stream(path: Path) -> bool:
    """Whether the log is a stream records may go to: a descriptor name, a FIFO, a device.

    Looked up as `append` opens it (no other user's link on the way, the log itself not
    followed) and judged by the same rules: a FIFO or a link someone else left where the log
    would be is no stream of this user's, but a log `append` refuses (the trail fails closed),
    never a reason to refuse the command line.
    """
    if descriptor(path) is not None:
        return True
    try:
        folder, name = open_beside(path)
    except (OSError, ValueError):
        return False  # `append` says what is wrong with the way there
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except (OSError, ValueError):
        return False  # missing: it will be created a regular file
    finally:
        os.close(folder)
    return not stat.S_ISREG(info.st_mode) and _refusal(info) is None


def _is_stdout(info: os.stat_result) -> bool:
    """Whether `info` is where descriptor 1 writes (the null device excepted).

    The same open file (device and inode), or the same terminal by another name: its device
    node (`/dev/pts/3`), or `/dev/tty` (whatever terminal controls this process) when stdout
    is a terminal. An agent harness may run toolguard on a terminal it reads.
    """
    try:
        out = os.fstat(1)
    except OSError:
        return False
    character = stat.S_ISCHR(info.st_mode)
    if character and info.st_rdev == Path(os.devnull).stat().st_rdev:
        return False
    if (out.st_dev, out.st_ino) == (info.st_dev, info.st_ino):
        return True
    if not (character and stat.S_ISCHR(out.st_mode)):
        return False
    return info.st_rdev == out.st_rdev or (info.st_rdev == _device("/dev/tty") and os.isatty(1))


def _device(path: str) -> int | None:
    """The device number of the special file `path` (`/dev/tty`: this process's terminal)."""
    try:
        return Path(path).stat().st_rdev
    except OSError:
        return None


def descriptor(path: Path) -> int | None:
    """The descriptor `path` names (`/dev/stderr` is 2), or None for an ordinary path."""
    match = _DESCRIPTOR.fullmatch(str(path))
    if match is None:
        return None
    stdout, stderr, dev_fd, proc_fd = match.groups()
    return 1 if stdout else 2 if stderr else int(dev_fd or proc_fd)


def _open(path: Path) -> int:
    """Open the log for appending and check, on the descriptor, that it is this user's alone."""
    try:
        folder, name = open_beside(path)
        try:
            fd = os.open(name, _OPEN_FLAGS, 0o600, dir_fd=folder)
        finally:
            os.close(folder)
    except OSError as exc:
        why = "it is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
        raise AuditError("audit_unwritable", f"cannot open audit log {path}: {why}") from None
    try:
        info = os.fstat(fd)
        refused = _refusal(info)
        if refused is not None:
            raise AuditError("audit_unwritable", f"refusing audit log {path}: it {refused}")
        if not stat.S_ISREG(info.st_mode):
            os.set_blocking(fd, True)  # opened without blocking only so a FIFO with no reader fails
    except BaseException:
        os.close(fd)
        raise
    return fd


def _refusal(info: os.stat_result) -> str | None:
    """Why records may not go into this file, or None: see the module's docstring."""
    kind = stat.S_IFMT(info.st_mode)
    if kind == stat.S_IFREG:
        return refusal(info)
    if kind == stat.S_IFIFO:
        if info.st_uid != os.geteuid():
            return f"is a FIFO of uid {info.st_uid}, not of this user"
        if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return "is a FIFO writable by group or others"
        return None
    if kind == stat.S_IFCHR:
        if info.st_uid not in {os.geteuid(), 0}:
            return f"is a device of uid {info.st_uid}, neither this user nor root"
        return None
    return "is not a regular file, a FIFO or a character device"


def owner(path: Path) -> int | None:
    """The uid of the log's owner when it is not this user, for readers to say; else None."""
    try:
        uid = os.fstat(0).st_uid if is_stdin(path) else path.stat().st_uid
    except OSError:
        return None
    return None if uid == os.geteuid() else uid


def lines_with(path: Path, needle: bytes | re.Pattern[bytes]) -> Iterator[tuple[int, bytes | None]]:
    """(byte offset, line) for each line that contains `needle` (text or a pattern), in order.

    Found without parsing: the log is read in blocks and each block searched whole, so finding
    one request among 100,000 records is a scan of the bytes. A line longer than any record
    toolguard writes comes back as None (not toolguard's), found in bounded memory (a match
    in it longer than `MAX_RECORD_BYTES` may be missed; no record is that long). The log is
    read as far as it reached when it was opened, and no further than it still reaches: one
    truncated or appended to meanwhile (rotation by copy and truncate) ends the search.
    NOTE: not memory-mapped: a mapped page past a file truncated meanwhile kills the process
    (SIGBUS). It must be a regular file: a FIFO or a device raises `OSError` at once rather
    than being waited on.
    """
    search = _search_for(needle)
    with open_regular(path) as stream:
        left = os.fstat(stream.fileno()).st_size
        at = 0  # where `pending` starts in the log: at the start of a line
        pending = b""  # the start of a line not ended yet, at most `MAX_RECORD_BYTES` long
        skipped: _LongLine | None = None  # a line too long to be a record, being read past
        while left > 0:
            block = stream.read(min(_BLOCK, left))
            if not block:
                break  # truncated meanwhile: what it holds now is all there is
            left -= len(block)
            if skipped is not None:
                end = block.find(b"\n")
                skipped.extend(block, len(block) if end == -1 else end, search)
                if end == -1:
                    continue
                if skipped.found:
                    yield skipped.start, None
                at, skipped, block = skipped.start + skipped.length + 1, None, block[end + 1 :]
            data = pending + block
            cut = data.rfind(b"\n") + 1  # the lines before `cut` are whole
            yield from _matching(data, cut, at, search)
            pending, at = data[cut:], at + cut
            if len(pending) > MAX_RECORD_BYTES:
                skipped, pending = _LongLine(at, pending, search), b""
        if skipped is not None:
            if skipped.found:
                yield skipped.start, None
        elif pending:
            yield from _matching(pending, len(pending), at, search)


_BLOCK = 1 << 18  # bytes read at a time: one search each, and a few blocks of memory at most
_Search = Callable[[bytes, int, int], int]  # (data, start, stop) -> first match in it, or -1


def _search_for(needle: bytes | re.Pattern[bytes]) -> _Search:
    if isinstance(needle, bytes):
        return lambda data, start, stop: data.find(needle, start, stop)

    def search(data: bytes, start: int, stop: int) -> int:
        found = needle.search(data, start, stop)
        return -1 if found is None else found.start()

    return search


def _matching(
    data: bytes, stop: int, at: int, search: _Search
) -> Iterator[tuple[int, bytes | None]]:
    """The lines of `data[:stop]` (whole lines; `data` starts at offset `at`) holding a match."""
    position = search(data, 0, stop)
    while position != -1:
        start = data.rfind(b"\n", 0, position) + 1
        end = data.find(b"\n", position, stop)
        end = stop if end == -1 else end
        yield at + start, data[start:end] if end - start <= MAX_RECORD_BYTES else None
        position = search(data, end, stop) if end < stop else -1


class _LongLine:
    """A line too long to be a record, read past in blocks: where it starts, whether it matched.

    Its last `MAX_RECORD_BYTES` are kept, so a match across two blocks is found too.
    """

    __slots__ = ("found", "length", "start", "tail")

    def __init__(self, start: int, head: bytes, search: _Search) -> None:
        self.start, self.length = start, len(head)
        self.found = search(head, 0, len(head)) != -1
        self.tail = head[-MAX_RECORD_BYTES:]

    def extend(self, block: bytes, stop: int, search: _Search) -> None:
        """Read `block[:stop]` as more of the line."""
        self.length += stop
        if not self.found:
            seam = self.tail + block[: min(stop, MAX_RECORD_BYTES)]
            self.found = search(seam, 0, len(seam)) != -1 or search(block, 0, stop) != -1
        self.tail = (self.tail + block[max(0, stop - MAX_RECORD_BYTES) : stop])[-MAX_RECORD_BYTES:]


def all_lines(path: Path) -> Iterator[bytes | None]:
    """Every line of the log without its newline; None for one too long to be a record.

    Lines are read at most `MAX_RECORD_BYTES` at a time: a hostile log cannot exhaust memory.
    `-` is standard input (`zcat old.log.gz | ... summary -`); a named FIFO is read as a stream
    to its end, opened without waiting (nothing to read when nobody writes to it); a device
    raises `OSError` at once.
    """
    with _open_stream(path) as stream:
        while line := stream.readline(MAX_RECORD_BYTES + 1):
            if line.endswith(b"\n"):
                yield line[:-1]
                continue
            if len(line) <= MAX_RECORD_BYTES:
                yield line  # the last line, without its newline
                continue
            while line and not line.endswith(b"\n"):
                line = stream.readline(1 << 16)
            yield None


def _open_stream(path: Path) -> AbstractContextManager[BinaryIO]:
    if is_stdin(path):
        return open_data(path)
    return open_regular(path, fifo=True)
