"""Raw responses kept for the operator: private, content-addressed, atomic, capped.

A copy is named by the SHA-256 of its bytes, so the audit record's digest finds it and a
second copy of the same bytes costs nothing. The folder is 0700 and each file 0600, written
to a temporary name and renamed. The folder is used only if only this user (and root) can
change it or any folder above it (`trusted_paths.open_folder`), and, when it exists already,
no one else may even list it (mode 0700 or stricter: its mode is never changed for the operator);
otherwise keeping a copy fails, and the answer with it. Pruning deletes only raw copies (64
lowercase hex characters) and toolguard's own stale temporaries for them: any other file
in the folder is left alone. It is opened once per call and everything inside is reached relative to
that descriptor, never by path again. Caps (largest file kept, total size, age) are applied
while holding an exclusive lock on the folder's `.lock`, so concurrent writers never race past
them: a scan of the folder is due once a minute (the `.pruned` file's modification time says
when it was last scanned), and at once when a copy written takes the total past its cap or
finds the oldest copy past the age cap.
NOTE: both are read from the `.total` ledger (the bytes at the last scan plus those written
since, and the modification time of the oldest copy the last scan left), so a write costs no
scan of the folder, whose copies can number millions: a scan per copy made each answer slower
than the last. A scan over the cap deletes down to `LOW_WATER` of it, and a scan deletes the
copies that would pass the age cap within `_early` seconds too, so the next scan is many
copies (or seconds) away, not the very next write. A copy whose bytes arrive again has its age
refreshed, so the ledger's oldest may be older than the folder's: that only brings the next
scan forward, which then records the true oldest.
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
from toolguard.files import is_sha256_name, temporary_of, write_atomic
from toolguard.trusted_paths import open_folder

_STALE_TEMPORARY = 3600  # seconds: no write takes this long, so its writer is gone
PRUNE_INTERVAL = 60  # seconds between two scans of the folder while under the total cap
_STAMP = ".pruned"  # its modification time: when the folder was last scanned
_TOTAL = ".total"  # the ledger, ASCII "<bytes> <oldest copy's mtime in ns, or ->"
LOW_WATER = 7 / 8  # of the total cap: what a scan over the cap deletes down to
_FILE_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_NS = 1_000_000_000


@dataclass(frozen=True, slots=True)
class Kept:
    """What happened to one raw response: kept (new or already there), or why not."""

    sha256: str
    kept: bool
    why: str | None = None


@dataclass(frozen=True, slots=True)
class Pruned:
    """What one scan of the folder did: copies (and their bytes) deleted, and those left."""

    removed: int = 0
    removed_bytes: int = 0
    left: int = 0
    left_bytes: int = 0


@dataclass(frozen=True, slots=True)
class _Ledger:
    """The `.total` file: what a write needs to know whether the folder is due a scan.

    The bytes of the copies at the last scan plus those written since, and the modification
    time (ns) of the oldest copy the last scan left (None: it left none).
    """

    total: int
    oldest: int | None


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
        if len(raw) > self.max_total_bytes:
            # NOTE: the copy just written is never pruned, so one larger than the total cap
            # would hold the folder over it: such a copy is not written, like one over max_file.
            return Kept(digest, kept=False, why=f"over raw_max_total_bytes={self.max_total_bytes}")
        with self._opened(create=True, doing="keep raw response") as folder:
            assert folder is not None  # made if missing
            with _locked(folder):
                written = _write(folder, digest, raw)
                ledger = _read_ledger(folder)
                if (
                    ledger is None
                    or ledger.total + written > self.max_total_bytes
                    or (ledger.oldest is not None and ledger.oldest < self._deadline(time.time()))
                    or _due(folder)
                ):
                    self._prune(folder, keep=digest)
                elif written:
                    oldest = ledger.oldest
                    if oldest is None:  # the folder was empty: the copy just written is oldest
                        oldest = os.stat(digest, dir_fd=folder, follow_symlinks=False).st_mtime_ns
                    _write_ledger(folder, _Ledger(ledger.total + written, oldest))
        return Kept(digest, kept=True)

    def prune(self, *, due_only: bool = True) -> Pruned | None:
        """Enforce the caps now (or, with `due_only`, if the last scan is a minute old).

        None when nothing was scanned: no folder yet, or a scan is not due. Raise `AuditError`.
        """
        with self._opened(create=False, doing="prune raw copies") as folder:
            if folder is None or (due_only and not _due(folder)):
                return None
            with _locked(folder):
                if due_only and not _due(folder):
                    return None  # another process scanned while this one waited for the lock
                return self._prune(folder, keep=None)

    @contextlib.contextmanager
    def _opened(self, *, create: bool, doing: str) -> Iterator[int | None]:
        """The trusted folder's descriptor (None if absent and not `create`d); `AuditError`."""
        try:
            try:
                folder = open_folder(self.folder, create=create)
            except FileNotFoundError:
                if create:
                    raise
                yield None
                return
            try:
                mode = stat.S_IMODE(os.fstat(folder).st_mode)
                if mode & 0o077:  # NOTE: refused, not changed: it may be the operator's folder
                    why = f"it has mode {mode:04o}, open to group or others (make it 0700)"
                    raise ValueError(why)
                yield folder
            finally:
                os.close(folder)
        except (OSError, ValueError) as exc:
            why = (isinstance(exc, OSError) and exc.strerror) or str(exc)
            raise AuditError("raw_unwritable", f"cannot {doing} in {self.folder}: {why}") from None

    def _prune(self, folder: int, keep: str | None) -> Pruned:
        """Delete copies past the age cap (or `_early` of it), then, over the total cap, the oldest.

        Down to LOW_WATER of the total cap; never `keep`, the copy just written.
        """
        now = time.time()
        deadline = self._deadline(now + self._early())
        entries: list[tuple[int, int, str]] = []
        removed = removed_bytes = 0
        with os.scandir(folder) as scan:
            for entry in scan:
                target = temporary_of(entry.name)
                if target is not None and is_sha256_name(target):
                    if _older(entry, now - _STALE_TEMPORARY):
                        _remove(folder, entry.name)  # left by a process that died writing
                    continue
                if not is_sha256_name(entry.name) or not entry.is_file(follow_symlinks=False):
                    continue  # not a raw copy: never toolguard's to delete
                info = entry.stat(follow_symlinks=False)
                if info.st_mtime_ns < deadline and entry.name != keep:
                    _remove(folder, entry.name)
                    removed, removed_bytes = removed + 1, removed_bytes + info.st_size
                    continue
                entries.append((info.st_mtime_ns, info.st_size, entry.name))
        total = sum(size for _, size, _ in entries)
        goal = self.max_total_bytes if total <= self.max_total_bytes else self._low_water()
        left: list[int] = []  # the modification times of the copies left
        for mtime, size, name in sorted(entries):
            if total <= goal or name == keep:
                left.append(mtime)
            else:
                _remove(folder, name)
                total -= size
                removed, removed_bytes = removed + 1, removed_bytes + size
        _stamp(folder)
        _write_ledger(folder, _Ledger(total, min(left, default=None)))
        return Pruned(removed, removed_bytes, len(left), total)

    def _low_water(self) -> int:
        return int(self.max_total_bytes * LOW_WATER)

    def _early(self) -> float:
        """How long before its age cap a scan may delete a copy (at most an eighth of the cap).

        The next scan by age is then at least this far away, and every copy younger than 7/8
        of the cap is kept.
        """
        return min(PRUNE_INTERVAL, self.max_age_seconds / 8)

    def _deadline(self, now: float) -> int:
        """The modification time (ns) before which a copy is past the age cap at `now`."""
        return int((now - self.max_age_seconds) * _NS)


@contextlib.contextmanager
def _locked(folder: int) -> Iterator[None]:
    fd = os.open(".lock", os.O_RDWR | os.O_CREAT | _FILE_FLAGS, 0o600, dir_fd=folder)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _write(folder: int, digest: str, raw: bytes) -> int:
    """The bytes this adds to the folder: 0 when the same bytes were there (their age refreshed)."""
    try:
        info = os.stat(digest, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        info = None
    if info is not None and stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid():
        # Same bytes: refresh its age instead of writing them again.
        os.utime(digest, dir_fd=folder, follow_symlinks=False)
        return 0
    # Replaces whatever was there: the folder is toolguard's own.
    write_atomic(Path(digest), raw, durable=True, dir_fd=folder, special=True)
    return len(raw)


def _read_ledger(folder: int) -> _Ledger | None:
    """The `.total` ledger; None if missing or unreadable (a scan then counts afresh)."""
    try:
        fd = os.open(_TOTAL, os.O_RDONLY | _FILE_FLAGS, dir_fd=folder)
    except OSError:
        return None
    try:
        text = os.read(fd, 64)
    except OSError:
        return None
    finally:
        os.close(fd)
    # NOTE: the oldest comes last, so a write cut short leaves no ledger or an older oldest,
    # either of which only brings a scan forward.
    total, _, oldest = text.partition(b" ")
    if not total.isdigit() or not (oldest.isdigit() or oldest == b"-"):
        return None
    return _Ledger(int(total), int(oldest) if oldest.isdigit() else None)


def _write_ledger(folder: int, ledger: _Ledger) -> None:
    """Write the ledger; one that cannot be written (a full disk) is removed instead.

    NOTE: bookkeeping, not evidence: without a ledger the next write scans the folder, so the
    caps hold, and a copy kept is not failed for want of a line that counts it.
    """
    oldest = "-" if ledger.oldest is None else str(ledger.oldest)
    text = f"{ledger.total} {oldest}".encode()
    try:
        fd = os.open(
            _TOTAL, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _FILE_FLAGS, 0o600, dir_fd=folder
        )
        try:
            if os.write(fd, text) == len(text):
                return
        finally:
            os.close(fd)
    except OSError:
        pass
    with contextlib.suppress(OSError):
        os.unlink(_TOTAL, dir_fd=folder)


def _due(folder: int) -> bool:
    """Whether the last scan is `PRUNE_INTERVAL` old (or in the future: a clock set back)."""
    try:
        scanned = os.stat(_STAMP, dir_fd=folder, follow_symlinks=False).st_mtime
    except FileNotFoundError:
        return True
    return abs(time.time() - scanned) >= PRUNE_INTERVAL


def _stamp(folder: int) -> None:
    """Say the folder was scanned now; where it cannot be said (no room), the next answer scans."""
    with contextlib.suppress(OSError):
        fd = os.open(_STAMP, os.O_WRONLY | os.O_CREAT | _FILE_FLAGS, 0o600, dir_fd=folder)
        try:
            os.utime(fd)
        finally:
            os.close(fd)


def _older(entry: os.DirEntry[str], deadline: float) -> bool:
    try:
        return entry.stat(follow_symlinks=False).st_mtime < deadline
    except OSError:
        return False


def _remove(folder: int, name: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name, dir_fd=folder)
