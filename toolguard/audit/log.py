"""The audit log: JSON Lines appended by many processes at once, none torn, none lost.

Each record is one `write()` on a descriptor opened with O_APPEND, so the kernel places it
whole at the end of the file (Linux serialises writes to one regular file; records are capped
at `MAX_RECORD_BYTES`, which is also PIPE_BUF, so a FIFO gets them whole too). The file is
opened for each record, which makes rotation by rename safe without any signal.
"""

from __future__ import annotations

import errno
import mmap
import os
from collections.abc import Iterator
from pathlib import Path

from toolguard.errors import AuditError

MAX_RECORD_BYTES = 4096  # PIPE_BUF on Linux: one write is atomic even into a pipe or FIFO


def append(path: Path, line: bytes, *, fsync: bool = False) -> None:
    """Append one record (ending in a newline) with a single write; raise `AuditError`."""
    if len(line) > MAX_RECORD_BYTES or not line.endswith(b"\n"):
        raise AuditError("record_too_large", f"audit record of {len(line)} bytes refused")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise AuditError(
            "audit_unwritable", f"cannot open audit log {path}: {exc.strerror}"
        ) from None
    try:
        written = os.write(fd, line)
        if written != len(line):  # a short write would leave half a record: say so
            raise OSError(errno.ENOSPC, f"short write ({written} of {len(line)} bytes)")
        if fsync:
            os.fsync(fd)
    except OSError as exc:
        raise AuditError(
            "audit_unwritable", f"cannot write audit log {path}: {exc.strerror or exc}"
        ) from None
    finally:
        os.close(fd)


def lines_with(path: Path, needle: bytes) -> Iterator[tuple[int, bytes | None]]:
    """(byte offset, line) for each line that contains `needle`, found without parsing.

    The log is mapped, not read: finding one request among 100,000 records is a memory scan.
    A line longer than any record toolguard writes comes back as None (not toolguard's).
    """
    with path.open("rb") as stream:
        if os.fstat(stream.fileno()).st_size == 0:
            return
        with mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as view:
            position = view.find(needle)
            while position != -1:
                start = view.rfind(b"\n", 0, position) + 1
                end = view.find(b"\n", position)
                end = len(view) if end == -1 else end
                yield start, view[start:end] if end - start <= MAX_RECORD_BYTES else None
                position = view.find(needle, end)


def all_lines(path: Path) -> Iterator[bytes | None]:
    """Every line of the log without its newline; None for one too long to be a record.

    Lines are read at most `MAX_RECORD_BYTES` at a time: a hostile log cannot exhaust memory.
    """
    with path.open("rb") as stream:
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
