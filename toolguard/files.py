"""Files toolguard writes and reads, and the folders it trusts on the way to them.

Every file toolguard creates (compiled schemas, contract artefacts, raw copies, the audit key,
golden envelopes) is written here: to a private temporary name beside the target, then moved
into place in one rename (or linked, when the first writer must win). Data files it reads
(`--input`, `--context-file`, `validate`'s files) open through `open_data`, where `-` is
standard input; files it is configured by (a contract, a schema, a key set, a fixture) through
`open_regular`, which refuses a FIFO or a device instead of waiting on it; `open_at_once` opens
a FIFO without waiting for a writer. `open_folder` and `open_beside` walk a path from `/`, one
folder at a time, by the trust rules of docs/trust.md.
"""

from __future__ import annotations

import errno
import os
import stat
import sys

from toolguard.standins import suppress

TYPE_CHECKING = False  # NOTE: `typing` and `pathlib` cost a one-shot check start-up time
if TYPE_CHECKING:
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


def is_stdin(path: Path | str | None) -> bool:
    """Whether a data-file argument means standard input (`-`)."""
    return path is not None and str(path) == "-"


def open_data(path: Path | str) -> AbstractContextManager[BinaryIO]:
    """A data file opened for reading in binary, or standard input for `-` (left open after).

    Raises `OSError` like `open` when it cannot be read (stdin closed included). A stdin the
    caller made non-blocking is read as if it blocked: nothing yet is not its end.
    """
    if is_stdin(path):
        if sys.stdin is None:
            raise OSError(errno.EBADF, "standard input is closed")
        stream = sys.stdin.buffer
        if _blocks(stream):  # the usual stdin: no `select` on a check's path
            return _Borrowed(stream)
        from toolguard.polled_input import waiting  # noqa: PLC0415 - a non-blocking stdin only

        return _Borrowed(waiting(stream))
    return open(path, "rb")  # noqa: PTH123 - a str or a Path (no pathlib); the caller's `with` closes it


def open_at_once(path: str | os.PathLike[str]) -> int:
    """`path` opened for reading without waiting: a named pipe nobody writes to opens at once.

    `open` on a FIFO blocks until a writer comes, before any limit or timeout of ours runs.
    Opened non-blocking, then set back to blocking: a read then waits only while a writer
    holds the pipe, and ends at once when none does. The caller owns the descriptor.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    os.set_blocking(fd, True)
    return fd


def open_regular(path: str | os.PathLike[str], *, fifo: bool = False) -> BinaryIO:
    """A file toolguard is configured by (a contract, a schema, a key set, a fixture), opened.

    It must be a regular file: a FIFO or a device is refused (OSError, `strerror` saying
    what it is) rather than waited on or read without end. With `fifo`, a named pipe is
    accepted as a stream (opened at once: it reads as empty when nobody writes to it). The
    path is judged before it is opened (opening a device can do something: rewind a tape,
    arm a watchdog), then the file opened is judged again on its descriptor.
    """
    _refuse_special(os.stat(path).st_mode, fifo=fifo)  # noqa: PTH116 - no pathlib at start-up
    fd = open_at_once(path)
    try:
        _refuse_special(os.fstat(fd).st_mode, fifo=fifo)
    except OSError:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def _refuse_special(mode: int, *, fifo: bool) -> None:
    if not (stat.S_ISREG(mode) or (fifo and stat.S_ISFIFO(mode))):
        kind = _KINDS.get(stat.S_IFMT(mode), "special file")
        raise OSError(errno.EINVAL, f"not a regular file (a {kind})")


_KINDS = {
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
) -> bool:
    """Put `data` at `path` whole or not at all; False if `replace` is off and it existed.

    `mode` is set exactly (not filtered by the umask). `durable` fsyncs the data before the
    rename. With `dir_fd`, `path` is relative to that open folder, so a folder swapped after
    it was checked cannot redirect the write.
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


_TOKEN_BYTES = 4


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


# --- trusted folders and files -------------------------------------------------------------------

_SHARED_WRITE = stat.S_IWGRP | stat.S_IWOTH
_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_MAX_LINKS = 40  # symbolic links followed on one path, as the kernel allows


class Untrusted(OSError):
    """Raised when someone other than this user (or root) could change a path or a file."""


def open_folder(path: str | os.PathLike[str], *, create: bool = True, parents: bool = False) -> int:
    """Open `path` as a folder only this user and root can change; return its descriptor.

    The rule is OpenSSH's StrictModes: every folder from `/` down is owned by this user or
    root and writable by no one else, except that a sticky folder (like `/tmp`) may be an
    ancestor, never the folder itself or its parent; the folder itself is this user's. Each
    folder is opened relative to the one above it (O_DIRECTORY, O_NOFOLLOW) and checked on
    its descriptor, so nothing is looked up by path again after its check. A symbolic link
    on the way is followed only if its owner passes the same test; the folder itself must not
    be one. With `create`, a missing folder is made 0700 (with `parents`, its missing
    ancestors too). Raise `Untrusted` when the path fails the rule (whether or not the folder
    exists yet), another `OSError` when it cannot be opened or made.
    """
    walk = _Walk(strict=True, create=create, parents=parents)
    try:
        return walk.through(_absolute(path))
    finally:
        walk.close()


def open_beside(path: str | os.PathLike[str]) -> tuple[int, str]:
    """The folder holding the file `path` (its descriptor) and the file's name in it.

    For a file toolguard opens by name (the audit log, its key), where a folder others can
    write is allowed on the way but no link of theirs is: each folder is opened from `/` down
    relative to the one above it (O_DIRECTORY, O_NOFOLLOW), and a symbolic link on the way
    (the last folder included) is followed only if this user or root owns it. Nothing is
    created. The caller opens the name relative to the descriptor (O_NOFOLLOW) and closes it.
    Raise `Untrusted` for another user's link, another `OSError` when a folder cannot be opened.
    """
    text = _absolute(path)
    folder, _, name = text.rpartition("/")
    if name in {"", ".", ".."}:
        raise IsADirectoryError(errno.EISDIR, "names a folder, not a file")
    walk = _Walk(strict=False, create=False, parents=False)
    try:
        return walk.through(folder or "/"), name
    finally:
        walk.close()


def _absolute(path: str | os.PathLike[str]) -> str:
    text = os.fspath(path)
    return text if text.startswith("/") else f"{os.getcwd()}/{text}"  # noqa: PTH109


class _Walk:
    """The folders opened so far from `/` down (descriptor and path), checked as opened.

    `strict`: each folder must pass the path rule (`open_folder`); otherwise only symbolic
    links are judged, by their owner (`open_beside`).
    """

    def __init__(self, *, strict: bool, create: bool, parents: bool) -> None:
        self.user = os.geteuid()
        self.strict = strict
        self.create = create
        self.parents = parents
        self.links = 0
        self.chain: list[tuple[int, str]] = []

    def through(self, path: str) -> int:
        self._append(os.open("/", _FOLDER_FLAGS), "/")
        pending = _names(path)
        while pending:
            name = pending.pop()
            if name == "..":
                if len(self.chain) > 1:
                    os.close(self.chain.pop()[0])
                continue
            target = self._step(name, last=not pending)
            if target is not None:
                if target.startswith("/"):
                    while len(self.chain) > 1:
                        os.close(self.chain.pop()[0])
                pending.extend(_names(target))
        folder, shown = self.chain[-1]
        if self.strict:
            info = os.fstat(folder)
            if info.st_uid != self.user:
                raise Untrusted(f"{shown} belongs to uid {info.st_uid}, not to this user")
            if info.st_mode & _SHARED_WRITE:
                raise Untrusted(f"{shown} is writable by group or others")
            if len(self.chain) > 1:
                _check_parent(*self.chain[-2])
        return self.chain.pop()[0]

    def _step(self, name: str, *, last: bool) -> str | None:
        """Open `name` in the current folder; the target to follow if it is a symbolic link."""
        parent, where = self.chain[-1]
        shown = f"{where.rstrip('/')}/{name}"
        try:
            fd = os.open(name, _FOLDER_FLAGS, dir_fd=parent)
        except FileNotFoundError:
            if self.strict and last:
                # NOTE: before "missing" is said: the same path gets the same verdict whether
                # the folder exists yet or not.
                _check_parent(parent, where)
            if not (self.create and (self.parents or last)):
                raise
            with suppress(FileExistsError):
                os.mkdir(name, 0o700, dir_fd=parent)
            fd = os.open(name, _FOLDER_FLAGS, dir_fd=parent)
        except OSError as exc:
            owner, target = _link(name, parent, exc)
            if last and self.strict:
                raise Untrusted(f"{shown} is a symbolic link") from None
            self.links += 1
            if owner not in {self.user, 0}:
                raise Untrusted(f"symbolic link {shown} belongs to uid {owner}") from None
            if self.links > _MAX_LINKS:
                raise OSError(errno.ELOOP, f"too many symbolic links in {shown}") from None
            return target
        self._append(fd, shown)
        return None

    def _append(self, fd: int, shown: str) -> None:
        self.chain.append((fd, shown))
        if not self.strict:
            return
        info = os.fstat(fd)
        if info.st_uid not in {self.user, 0}:
            raise Untrusted(f"{shown} belongs to uid {info.st_uid}, neither this user nor root")
        if info.st_mode & _SHARED_WRITE and not info.st_mode & stat.S_ISVTX:
            raise Untrusted(f"{shown} is writable by group or others (and not sticky)")

    def close(self) -> None:
        for fd, _ in self.chain:
            os.close(fd)


def _names(path: str) -> list[str]:
    """The steps of a path, last first (a stack to pop), without empty and `.` steps."""
    return [name for name in reversed(path.split("/")) if name not in {"", "."}]


def _link(name: str, parent: int, error: OSError) -> tuple[int, str]:
    """The owner and target of the symbolic link `name`; re-raise `error` if it is not one.

    Both are read from one descriptor of the link itself (O_PATH, Linux): a link swapped
    between the two reads cannot lend its owner to another's target. Where there is no O_PATH,
    the link is looked at before and after its target is read, and must be the same inode.
    """
    if error.errno not in {errno.ELOOP, errno.ENOTDIR}:
        raise error
    if not hasattr(os, "O_PATH"):
        return _link_by_name(name, parent, error)
    try:
        fd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    except OSError:
        raise error from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISLNK(info.st_mode):
            raise error
        return info.st_uid, os.readlink("", dir_fd=fd)
    except OSError:
        raise error from None
    finally:
        os.close(fd)


def _link_by_name(name: str, parent: int, error: OSError) -> tuple[int, str]:
    """`_link` without O_PATH (macOS, the BSDs): the same link both sides of `readlink`."""
    try:
        before = os.stat(name, dir_fd=parent, follow_symlinks=False)
        target = os.readlink(name, dir_fd=parent)
        after = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except OSError:
        raise error from None
    same = (before.st_dev, before.st_ino, before.st_uid) == (
        after.st_dev,
        after.st_ino,
        after.st_uid,
    )
    if not (stat.S_ISLNK(after.st_mode) and same):
        raise error
    return after.st_uid, target


def _check_parent(fd: int, shown: str) -> None:
    if os.fstat(fd).st_mode & _SHARED_WRITE:
        raise Untrusted(f"{shown}, the folder's parent, is writable by group or others")


def refusal(info: os.stat_result, *, closed: int = _SHARED_WRITE) -> str | None:
    """Why an opened regular file is not this user's alone to change, or None if it is.

    It must be a regular file owned by this user, with one link (a hard link makes it also
    another path's file), and none of the `closed` mode bits set (by default: writable by
    group or others).
    """
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    if info.st_uid != os.geteuid():
        return f"belongs to uid {info.st_uid}, not to this user"
    if info.st_nlink != 1:
        return f"has {info.st_nlink} hard links"
    if info.st_mode & closed:
        return f"has mode {stat.S_IMODE(info.st_mode):04o}, open to group or others"
    return None
