"""The key behind keyed hashes of secret context values: the log never holds them in clear.

A keyed hash (HMAC-SHA256) lets an operator who holds the key check "was this the token?"
without the log revealing the token, even to a dictionary attack by someone with the log only.
That holds only while nobody else can read or choose the key: its folder is reached from `/`
one folder at a time, following no other user's link (`trusted_paths.open_beside`), the file
is opened relative to it without following a symbolic link and checked on its descriptor (a
regular file of this user's, one link, mode 0600 or stricter, a size of 16 to 4096 bytes: a
procfs file such as `/proc/self/environ` says 0), or refused; a missing key is created in that
same folder.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import os
import stat
import time
from pathlib import Path

from toolguard.errors import AuditError
from toolguard.files import write_atomic
from toolguard.trusted_paths import open_beside, refusal

KEY_BYTES = 32
_MAX_KEY_BYTES = 4096
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_CLOSED = 0o077  # nobody else may read (or write) the key
# NOTE: a key being created by another process has two links for an instant (its temporary
# name, linked to the key's, then removed): a second link is looked at again before refusing.
_LINK_RETRIES = 50
_LINK_WAIT = 0.001


def keyed_hash(key: bytes, value: object) -> str:
    """HMAC-SHA256 of the value's text, in hex."""
    return hmac.new(key, str(value).encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


def load_key(path: Path) -> bytes:
    """Read the key file, creating it once (0600, random) if absent; raise `AuditError`."""
    try:
        folder, name = open_beside(path)
        try:
            try:
                key = _read(folder, name, path)
            except FileNotFoundError:
                _create(folder, name)
                key = _read(folder, name, path)
        finally:
            os.close(folder)
    except OSError as exc:
        why = "it is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
        raise AuditError("key_unreadable", f"audit key {path}: {why}") from None
    _require_size(len(key), path)
    return key


_SIZES = (KEY_BYTES // 2, _MAX_KEY_BYTES)


def _require_size(size: int, path: Path, said: str = "") -> None:
    """A key of 16 to 4096 bytes, by what was read or what `fstat` says (`said`)."""
    if not _SIZES[0] <= size <= _SIZES[1]:
        shown = f" ({said})" if said else ""
        why = f"audit key {path} must hold {_SIZES[0]} to {_SIZES[1]} bytes{shown}"
        raise AuditError("key_unreadable", why)


def _read(folder: int, name: str, path: Path) -> bytes:
    fd = os.open(name, _OPEN_FLAGS, dir_fd=folder)
    try:
        info = os.fstat(fd)
        for _ in range(_LINK_RETRIES):
            if not (stat.S_ISREG(info.st_mode) and info.st_nlink == 2):
                break
            time.sleep(_LINK_WAIT)
            info = os.fstat(fd)
        why = refusal(info, closed=_CLOSED)
        if why is not None:
            raise AuditError("key_unreadable", f"refusing audit key {path}: it {why}")
        # procfs and sysfs files say 0
        _require_size(info.st_size, path, f"its size says {info.st_size}")
        key = b""
        while len(key) <= _MAX_KEY_BYTES and (chunk := os.read(fd, _MAX_KEY_BYTES + 1)):
            key += chunk
        return key
    finally:
        os.close(fd)


def _create(folder: int, name: str) -> None:
    """Write a new random key; of racing writers, the first one's key is everyone's."""
    write_atomic(name, os.urandom(KEY_BYTES), durable=True, replace=False, dir_fd=folder)
