"""Folders and files only this user (and root) can change: the walk from `/` of docs/trust.md.

Where toolguard keeps what it later trusts (the compile cache, raw copies, the audit log and
its key), the path is walked one folder at a time from `/`, each opened relative to the one
above it and judged on its descriptor, so nothing is looked up by path again after its check:
`open_folder` by OpenSSH's StrictModes rule, `open_beside` for a file opened by name (no other
user's link on the way), and `refusal` for a file once opened.
"""

from __future__ import annotations

import errno
import os
import stat

from toolguard.standins import suppress

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
