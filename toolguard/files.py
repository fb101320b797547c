"""Files toolguard writes: one atomic write, so no reader ever sees half a file.

Every file toolguard creates (compiled schemas, contract artefacts, raw copies, the audit key,
golden envelopes) is written here: to a private temporary name beside the target, then moved
into place in one rename (or linked, when the first writer must win).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

TEMPORARY_SUFFIX = ".tmp"  # what a writer that died leaves behind; `audit/raw.py` sweeps them


def write_atomic(  # noqa: PLR0913 - each switch is a promise a caller needs
    path: Path,
    data: bytes,
    *,
    mode: int = 0o600,
    durable: bool = False,
    replace: bool = True,
    dir_fd: int | None = None,
) -> bool:
    """Put `data` at `path` whole or not at all; False if `replace` is off and it existed.

    `mode` is set exactly (not filtered by the umask). `durable` fsyncs the data before the
    rename. With `dir_fd`, `path` is relative to that open folder, so a folder swapped after
    it was checked cannot redirect the write.
    """
    temporary = path.with_name(
        f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}{TEMPORARY_SUFFIX}"
    )
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(temporary, flags, 0o600, dir_fd=dir_fd)
    try:
        try:
            os.fchmod(fd, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        if replace:
            os.replace(temporary, path, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            return True
        try:
            os.link(temporary, path, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
        except FileExistsError:
            return False
        return True
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=dir_fd)


def public_mode(path: Path) -> int:
    """The mode a user-facing file (a golden, a report) keeps: its own, else the umask's usual."""
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
