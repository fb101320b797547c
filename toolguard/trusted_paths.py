"""Folders and files only this user (and root) can change: the walk from `/` of docs/trust.md.

Where toolguard keeps what it later trusts (the compile cache, raw copies, the audit log and
its key), the path is walked one folder at a time from `/`, each opened relative to the one
above it and judged on its descriptor, so nothing is looked up by path again after its check:
`open_folder` by OpenSSH's StrictModes rule, `open_beside` for a file opened by name (no other
user's link on the way), and `refusal` for a file once opened. As Debian's OpenSSH does, a
folder or file writable by a group whose one member is this user (a user-private group under
`umask 002`) counts as this user's: `writable_by_others`.
"""

from __future__ import annotations

import errno
import os
import stat

from toolguard.standins import suppress

_SHOWN_MEMBERS = 5  # members a refusal names before it says how many more
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
            if why := writable_by_others(info):
                raise Untrusted(f"{shown} is {why}")
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
        # NOTE: sticky first: `/tmp` is on most paths, and needs no look-up of its group.
        if not info.st_mode & stat.S_ISVTX and (why := writable_by_others(info)):
            raise Untrusted(f"{shown} is {why}, and not sticky")

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
    if why := writable_by_others(os.fstat(fd)):
        raise Untrusted(f"{shown}, the folder's parent, is {why}")


def refusal(info: os.stat_result, *, private: bool = False) -> str | None:
    """Why an opened regular file is not this user's alone to change, or None if it is.

    It must be a regular file owned by this user, with one link (a hard link makes it also
    another path's file), that no one else may write (`writable_by_others`). A `private` file
    (a key) has no permission bit for group or others at all, whoever is in its group: as
    OpenSSH's rule for a private key, which Debian's user-private groups leave alone.
    """
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    if info.st_uid != os.geteuid():
        return f"belongs to uid {info.st_uid}, not to this user"
    if info.st_nlink != 1:
        return f"has {info.st_nlink} hard links"
    mode = stat.S_IMODE(info.st_mode)
    if private and mode & (stat.S_IRWXG | stat.S_IRWXO):
        return f"has mode {mode:04o}, open to group or others"
    if why := writable_by_others(info):
        return f"has mode {mode:04o}, {why}"
    return None


def writable_by_others(info: os.stat_result) -> str | None:
    """Why someone besides this user (and root) may write what `info` describes; None: no one.

    Writable by others, or by a group that is not this user's alone (`_group_refusal`). Group
    members are looked up only for a mode with the group's write bit, once per group.
    """
    if info.st_mode & stat.S_IWOTH:
        return "writable by others"
    if not info.st_mode & stat.S_IWGRP:
        return None
    key = (info.st_gid, os.geteuid())
    if key not in _GROUPS:
        _GROUPS[key] = _group_refusal(*key)
    return _GROUPS[key]


# Of each (gid, euid) looked up: why that group's write bit lets someone else write, or None.
# NOTE: kept for the process: a walk meets the same group in several folders (`~`, `~/.cache`),
# and reading every account (`getpwall`) again for each would cost a raw folder's walk on every
# record. A member added later is seen by the next process.
_GROUPS: dict[tuple[int, int], str | None] = {}


def _group_refusal(gid: int, user: int) -> str | None:
    """Why group `gid` is not `user`'s alone, or None: Debian OpenSSH's `user-group-modes` rule.

    The group must exist and have exactly one member, `user`: every account whose primary
    group it is has uid `user`, and its member list is empty or `user`'s name alone. A group
    with no member at all (as setgid programs use) is refused: who may join it is unknown.
    NOTE: `grp` and `pwd` are imported here: only a group-writable mode needs them, and a warm
    check imports nothing it does not use (tests/test_startup.py).
    """
    import grp  # noqa: PLC0415
    import pwd  # noqa: PLC0415

    try:
        group = grp.getgrgid(gid)
    except KeyError:
        return f"writable by group {gid} (no such group)"
    try:
        name: str | None = pwd.getpwuid(user).pw_name
    except KeyError:
        name = None
    primary = [entry for entry in pwd.getpwall() if entry.pw_gid == gid]
    listed = list(group.gr_mem)
    if primary or listed:
        others = [entry for entry in primary if entry.pw_uid != user]
        if not others and listed in ([], [name]):
            return None
        names = sorted({entry.pw_name for entry in primary} | set(listed))
        shown = ", ".join(names[:_SHOWN_MEMBERS])
        more = len(names) - _SHOWN_MEMBERS
        members = f"members: {shown}" + (f" and {more} more" if more > 0 else "")
    else:
        members = "no members"
    return f"writable by group {group.gr_name!r} ({members})"
