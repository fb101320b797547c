"""Raw responses kept for the operator: private, content-addressed, atomic, capped.

A copy is named by the SHA-256 of its bytes, so the audit record's digest finds it and a
second copy of the same bytes costs nothing. The folder is 0700 and each file 0600, written
to a temporary name and renamed. Caps (largest file kept, total size, age) are applied while
holding an exclusive lock on the folder's `.lock`, so concurrent writers never race past them.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from toolguard.errors import AuditError
from toolguard.files import TEMPORARY_SUFFIX, write_atomic

_NAME_LENGTH = 64  # hex SHA-256
_STALE_TEMPORARY = 3600  # seconds: no write takes this long, so its writer is gone


@dataclass(frozen=True, slots=True)
class Kept:
    """What happened to one raw response: kept (new or already there), or why not."""

    sha256: str
    kept: bool
    why: str | None = None


@dataclass(frozen=True, slots=True)
class RawStore:
    """A folder of raw copies and its caps."""

    folder: Path
    max_file_bytes: int
    max_total_bytes: int
    max_age_seconds: int

    def keep(self, raw: bytes) -> Kept:
        """Store `raw` (or refresh its age), then enforce the caps; raise `AuditError`."""
        digest = hashlib.sha256(raw).hexdigest()
        if len(raw) > self.max_file_bytes:
            return Kept(digest, kept=False, why=f"over raw_max_file_bytes={self.max_file_bytes}")
        try:
            self._prepare()
            with self._locked():
                self._write(digest, raw)
                self._prune(keep=digest)
        except OSError as exc:
            raise AuditError(
                "raw_unwritable",
                f"cannot keep raw response in {self.folder}: {exc.strerror or exc}",
            ) from None
        return Kept(digest, kept=True)

    def path_of(self, digest: str) -> Path:
        """Where the copy of the response with this SHA-256 is (or would be)."""
        return self.folder / digest

    def _prepare(self) -> None:
        with contextlib.suppress(FileExistsError):
            self.folder.mkdir(mode=0o700)
        info = os.lstat(self.folder)
        if not stat.S_ISDIR(info.st_mode):
            raise OSError(f"{self.folder} is not a directory")
        if info.st_uid != os.geteuid():
            raise OSError(f"{self.folder} belongs to another user")
        if stat.S_IMODE(info.st_mode) != 0o700:
            self.folder.chmod(0o700)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        fd = os.open(self.folder / ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _write(self, digest: str, raw: bytes) -> None:
        target = self.path_of(digest)
        if target.exists():
            os.utime(target)  # same bytes: refresh its age instead of writing them again
            return
        write_atomic(target, raw, durable=True)

    def _prune(self, keep: str) -> None:
        """Delete copies past the age cap, then the oldest until under the total cap."""
        now = time.time()
        deadline = now - self.max_age_seconds
        entries: list[tuple[float, int, str]] = []
        with os.scandir(self.folder) as scan:
            for entry in scan:
                if entry.name.endswith(TEMPORARY_SUFFIX) and _older(entry, now - _STALE_TEMPORARY):
                    _remove(self.folder / entry.name)  # left by a process that died writing
                    continue
                if len(entry.name) != _NAME_LENGTH or not entry.is_file(follow_symlinks=False):
                    continue
                info = entry.stat(follow_symlinks=False)
                if info.st_mtime < deadline and entry.name != keep:
                    _remove(self.folder / entry.name)
                    continue
                entries.append((info.st_mtime, info.st_size, entry.name))
        total = sum(size for _, size, _ in entries)
        for _, size, name in sorted(entries):
            if total <= self.max_total_bytes:
                break
            if name != keep:
                _remove(self.folder / name)
                total -= size


def _older(entry: os.DirEntry[str], deadline: float) -> bool:
    try:
        return entry.stat(follow_symlinks=False).st_mtime < deadline
    except OSError:
        return False


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
