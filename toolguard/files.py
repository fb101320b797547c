"""Files toolguard writes and reads: one atomic writer, and how each kind of file is opened.

Every file toolguard creates (compiled schemas, contract artefacts, raw copies, the audit key,
golden envelopes) is written here: to a private temporary name beside the target, then moved
into place in one rename (or linked, when the first writer must win). Data files it reads
(`--context-file`, `validate`'s files) open through `open_data`, where `-` is standard input
and a named pipe is not waited on; files it is configured by (a contract, a schema, a key
set, a fixture) through `open_regular`, which refuses a FIFO or a device instead of waiting
on it; `open_at_once` opens a FIFO without waiting for a writer. The folders toolguard trusts
on the way to the files it keeps are walked in `trusted_paths.py`.
"""

from __future__ import annotations

import errno
import os
import stat
import sys

from toolguard.standins import suppress

TYPE_CHECKING = False  # NOTE: `typing` and `pathlib` cost a one-shot check start-up time
if TYPE_CHECKING:
    from collections.abc import Iterator
    from contextlib import AbstractContextManager
    from pathlib import Path
    from typing import BinaryIO

TEMPORARY_SUFFIX = ".tmp"  # what a writer that died leaves behind; `audit/raw.py` sweeps them


def path_text(path: str | os.PathLike[str]) -> str:
    """`path` as `str(pathlib.Path(path))` spells it, without importing `pathlib`.

    Empty and `.` steps dropped, a trailing `/` too; `..` kept; a leading `//` (but not `///`)
    kept, as POSIX allows it a meaning of its own; nothing at all is `.`.
    """
    text = os.fspath(path)
    root = ""
    if text.startswith("/"):
        root = "//" if text.startswith("//") and not text.startswith("///") else "/"
    steps = [step for step in text.split("/") if step and step != "."]
    return root + "/".join(steps) or "."


def absolute_text(path: str | os.PathLike[str]) -> str:
    """`path` as `str(pathlib.Path(path).absolute())` spells it: relative to the current folder."""
    return path_text(os.path.join(os.getcwd(), os.fspath(path)))  # noqa: PTH109, PTH118


def is_folder(path: str | os.PathLike[str]) -> bool:
    """Whether `path` is a folder; False where asking fails (a name too long, no permission).

    `Path.is_dir` and `Path.exists` raise there: on a user's path, that would be an internal
    error where the command should say what it could not use.
    """
    return os.path.isdir(path)  # noqa: PTH112 - it is the one that never raises


def is_stdin(path: Path | str | None) -> bool:
    """Whether a data-file argument means standard input (`-`)."""
    return path is not None and str(path) == "-"


def open_data(path: Path | str) -> AbstractContextManager[BinaryIO]:
    """A data file opened for reading in binary, or standard input for `-` (left open after).

    Raises `OSError` like `open` when it cannot be read (stdin closed included). A stdin the
    caller made non-blocking is read as if it blocked: nothing yet is not its end. A named
    pipe is opened without waiting for a writer (`open_at_once`): one nobody writes to reads
    as empty, as `audit summary` reads one, instead of blocking the command before any limit.
    """
    if is_stdin(path):
        if sys.stdin is None:
            raise OSError(errno.EBADF, "standard input is closed")
        stream = sys.stdin.buffer
        if _blocks(stream):  # the usual stdin: no `select` on a check's path
            return _Borrowed(stream)
        from toolguard.polled_input import waiting  # noqa: PLC0415 - a non-blocking stdin only

        return _Borrowed(waiting(stream))
    fd = open_at_once(path)
    try:
        return os.fdopen(fd, "rb")  # the caller's `with` closes it
    except BaseException:  # a folder: `fdopen` refuses it, and leaves the descriptor open
        os.close(fd)
        raise


def open_at_once(
    path: str | os.PathLike[str], *, dir_fd: int | None = None, follow: bool = True
) -> int:
    """`path` opened for reading without waiting: a named pipe nobody writes to opens at once.

    `open` on a FIFO blocks until a writer comes, before any limit or timeout of ours runs.
    Opened non-blocking, then set back to blocking: a read then waits only while a writer
    holds the pipe, and ends at once when none does. The caller owns the descriptor.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    fd = os.open(path, flags, dir_fd=dir_fd)
    os.set_blocking(fd, True)
    return fd


def open_regular(
    path: str | os.PathLike[str],
    *,
    fifo: bool = False,
    dir_fd: int | None = None,
    follow: bool = True,
) -> BinaryIO:
    """A file toolguard is configured by (a contract, a schema, a key set, a fixture), opened.

    It must be a regular file: a FIFO or a device is refused (`SpecialFile`, an OSError whose
    `strerror` says what it is) rather than waited on or read without end. With `fifo`, a
    named pipe is accepted as a stream (opened at once: it reads as empty when nobody writes
    to it). The path is judged before it is opened (opening a device can do something: rewind
    a tape, arm a watchdog), then the file opened is judged again on its descriptor. Without
    `follow`, a symbolic link is refused as well (a file toolguard wrote itself is never one);
    `dir_fd` names the folder `path` is in, as for `os.open`.
    """
    mode = os.stat(path, dir_fd=dir_fd, follow_symlinks=follow).st_mode
    _refuse_special(mode, fifo=fifo)
    fd = open_at_once(path, dir_fd=dir_fd, follow=follow)
    try:
        _refuse_special(os.fstat(fd).st_mode, fifo=fifo)
    except OSError:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


class SpecialFile(OSError):
    """What `open_regular` refuses: a path holding no regular file; `kind` says what instead."""

    def __init__(self, kind: str) -> None:
        super().__init__(errno.EINVAL, f"not a regular file (a {kind})")
        self.kind = kind

    def __reduce__(self) -> tuple[type[SpecialFile], tuple[str]]:
        return SpecialFile, (self.kind,)


def _refuse_special(mode: int, *, fifo: bool, link: bool = False) -> None:
    if not (stat.S_ISREG(mode) or (fifo and stat.S_ISFIFO(mode)) or (link and stat.S_ISLNK(mode))):
        raise SpecialFile(_KINDS.get(stat.S_IFMT(mode), "special file"))


_KINDS = {
    stat.S_IFLNK: "symbolic link",
    stat.S_IFIFO: "named pipe",
    stat.S_IFCHR: "character device",
    stat.S_IFBLK: "block device",
    stat.S_IFSOCK: "socket",
    stat.S_IFDIR: "folder",
}


def _blocks(stream: BinaryIO) -> bool:
    """Whether reading `stream` waits for input (or it has no descriptor to ask)."""
    try:
        return os.get_blocking(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return True


class _Borrowed:
    """Standard input as a `with` target: the block reads it, nobody closes it."""

    __slots__ = ("_stream",)

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def __enter__(self) -> BinaryIO:
        return self._stream

    def __exit__(self, *exc_info: object) -> None:
        return None


def write_atomic(  # noqa: PLR0913 - each switch is a promise a caller needs
    path: Path | str,
    data: bytes,
    *,
    mode: int = 0o600,
    durable: bool = False,
    replace: bool = True,
    dir_fd: int | None = None,
    special: bool = False,
) -> bool:
    """Put `data` at `path` whole or not at all; False if `replace` is off and it existed.

    `mode` is set exactly (not filtered by the umask). `durable` fsyncs the data before the
    rename. With `dir_fd`, `path` is relative to that open folder, so a folder swapped after
    it was checked cannot redirect the write. A device, FIFO or socket at `path` is refused
    (`SpecialFile`), never renamed over: a user's `--junit /dev/null` must not delete the
    system's device; `special` replaces one all the same, in a folder toolguard keeps.
    """
    if not special:
        refuse_special_target(path, dir_fd=dir_fd)
    temporary = staged(path, data, mode=mode, durable=durable, dir_fd=dir_fd)
    try:
        if replace:
            os.replace(temporary, path, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            return True
        try:
            os.link(temporary, path, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
        except FileExistsError:
            return False
        return True
    finally:
        with suppress(OSError):
            os.unlink(temporary, dir_fd=dir_fd)


def refuse_special_target(path: Path | str, *, dir_fd: int | None = None) -> None:
    """Raise `SpecialFile` if a device, FIFO or socket is at `path`: a rename would replace it.

    A user's output path (`--junit /dev/null`, `init --force` over a pipe) must never delete
    the system's device; a link there is replaced, not written through.
    """
    with suppress(FileNotFoundError):
        _refuse_special(os.lstat(path, dir_fd=dir_fd).st_mode, fifo=False, link=True)


_TOKEN_BYTES = 4


def staged(
    path: Path | str, data: bytes, *, mode: int = 0o600, durable: bool = False,
    dir_fd: int | None = None,
) -> str:  # fmt: skip
    """`data` written whole to a private temporary beside `path`: its name, to move or remove.

    What `write_atomic` does before its rename; several files staged first, then renamed,
    are all written or none is (the bytes are where a full disk fails, not the renames).
    Raises `OSError`, leaving no temporary.
    """
    folder, name = os.path.split(path)
    temporary = os.path.join(  # noqa: PTH118 - no pathlib on the check path
        folder, f".{name}.{os.getpid()}.{os.urandom(_TOKEN_BYTES).hex()}{TEMPORARY_SUFFIX}"
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
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary, dir_fd=dir_fd)
        raise
    return temporary


def scratch_folder(prefix: str) -> AbstractContextManager[Path]:
    """A private temporary folder (in `TMPDIR`, else the system's), removed after use.

    A folder that cannot be made or written (none usable, a full disk, `ulimit -f`) is the
    environment's doing, not a toolguard bug: an `OSError` in making it or in its body (the
    files written there) becomes a `UsageError` that says so, never an internal error.
    """
    import contextlib  # noqa: PLC0415 - `init` and `diff --against` only (start-up budget)
    import tempfile  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    from toolguard.errors import UsageError  # noqa: PLC0415

    @contextlib.contextmanager
    def made() -> Iterator[Path]:
        try:
            with tempfile.TemporaryDirectory(prefix=prefix) as folder:
                yield Path(folder)
        except OSError as exc:
            why = exc.strerror or str(exc)
            raise UsageError(
                f"cannot use a temporary folder: {why} (TMPDIR names the folder to use)"
            ) from None

    return made()


def temporary_of(name: str) -> str | None:
    """The file `name` is `write_atomic`'s temporary for (`.<name>.<pid>.<hex>.tmp`), or None.

    A sweeper deletes only what this says is toolguard's own, never a file that merely ends
    in `.tmp`.
    """
    if not (name.startswith(".") and name.endswith(TEMPORARY_SUFFIX)):
        return None
    parts = name[1 : -len(TEMPORARY_SUFFIX)].rsplit(".", 2)
    if len(parts) != 3:  # name, pid, token
        return None
    target, pid, token = parts
    if not (target and pid.isascii() and pid.isdigit()) or not _is_hex(token, 2 * _TOKEN_BYTES):
        return None
    return target


def _is_hex(text: str, length: int) -> bool:
    """Whether `text` is exactly `length` lowercase hexadecimal digits."""
    return len(text) == length and all(char in "0123456789abcdef" for char in text)


def is_sha256_name(name: str) -> bool:
    """Whether `name` is a SHA-256 in lowercase hex, as content-addressed files are named."""
    return _is_hex(name, 64)


def public_mode(path: Path) -> int:
    """The mode a user-facing file (a golden, a report) keeps: its own, else the umask's usual."""
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
