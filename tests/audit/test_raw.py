"""Raw copies: private, content-addressed, atomic, and kept within their caps."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rejections import saying

from toolguard.audit import raw as raw_module
from toolguard.audit.raw import LOW_WATER, PRUNE_INTERVAL, Kept, Pruned, RawStore
from toolguard.errors import AuditError

DAY = 86_400
BODY = b'{"change_id": "CR-1042"}'


def store(folder: Path, **caps: int) -> RawStore:
    """A store in `folder`, with generous caps unless given."""
    options = {"max_file_bytes": 1 << 20, "max_total_bytes": 1 << 30, "max_age_seconds": DAY}
    return RawStore(folder, **{**options, **caps})


def sha(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def contents(folder: Path) -> set[str]:
    """The names in the folder, the lock, the last-scan stamp and the running total aside."""
    return {path.name for path in folder.iterdir()} - {".lock", ".pruned", ".total"}


def raw_copies(folder: Path) -> list[Path]:
    """The raw copies in the folder (named by their SHA-256)."""
    return [path for path in folder.iterdir() if len(path.name) == 64]


def age(path: Path, seconds: float) -> None:
    """Make the file look `seconds` old."""
    then = time.time() - seconds
    os.utime(path, (then, then))


class Clock:
    """The raw store's clock, moved by hand; copies it writes take its time as their mtime."""

    def __init__(self) -> None:
        self.now = time.time()

    def time(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """Time passes for the store only when the test says so (and no scan falls due meanwhile:
    the last-scan stamp keeps the real time, so keep the clock within PRUNE_INTERVAL of it)."""
    fake, write_atomic = Clock(), raw_module.write_atomic

    def written_now(path: Path, data: bytes, **options: object) -> bool:
        done = write_atomic(path, data, **options)  # type: ignore[arg-type]
        os.utime(path, (fake.now, fake.now), dir_fd=options["dir_fd"])  # type: ignore[arg-type]
        return done

    monkeypatch.setattr(raw_module, "time", fake)
    monkeypatch.setattr(raw_module, "write_atomic", written_now)
    return fake


def count_scans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one at each scan of a raw folder."""
    scans: list[int] = []
    scan = RawStore._prune
    monkeypatch.setattr(RawStore, "_prune", lambda *a, **k: scans.append(1) or scan(*a, **k))
    return scans


def test_keep_writes_a_private_file_named_by_its_sha256(tmp_path: Path) -> None:
    """The copy is named by the SHA-256 of the bytes, holds them exactly, and is 0600 in 0700."""
    folder = tmp_path / "raw"
    kept = store(folder).keep(BODY)
    assert kept == Kept(sha(BODY), kept=True)
    path = folder / sha(BODY)
    assert path.read_bytes() == BODY
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_keep_leaves_no_temporary_file(tmp_path: Path) -> None:
    """After several keeps the folder holds only the copies (and the lock)."""
    folder = tmp_path / "raw"
    bodies = [b"a", b"b", b"c"]
    for body in bodies:
        store(folder).keep(body)
    assert contents(folder) == {sha(body) for body in bodies}


def test_second_keep_of_the_same_bytes_refreshes_the_copy(tmp_path: Path) -> None:
    """Keeping the same bytes again makes no second file and resets the copy's age."""
    folder = tmp_path / "raw"
    store(folder).keep(BODY)
    age(folder / sha(BODY), 3600)
    before = time.time()
    assert store(folder).keep(BODY) == Kept(sha(BODY), kept=True)
    assert contents(folder) == {sha(BODY)}
    assert (folder / sha(BODY)).stat().st_mtime >= before - 1


def test_empty_response_is_kept(tmp_path: Path) -> None:
    """An empty response is a copy of zero bytes named by the SHA-256 of nothing."""
    assert store(tmp_path / "raw").keep(b"").kept
    assert (tmp_path / "raw" / sha(b"")).read_bytes() == b""


def test_response_over_max_file_bytes_is_not_kept(tmp_path: Path) -> None:
    """Bytes over max_file_bytes give kept=False with a reason, and nothing is written."""
    folder = tmp_path / "raw"
    kept = store(folder, max_file_bytes=4).keep(b"12345")
    assert kept.sha256 == sha(b"12345")
    assert not kept.kept
    assert kept.why is not None
    assert "max_file_bytes" in kept.why
    assert not folder.exists() or contents(folder) == set()


def test_response_of_exactly_max_file_bytes_is_kept(tmp_path: Path) -> None:
    """Bytes of exactly max_file_bytes are kept."""
    assert store(tmp_path / "raw", max_file_bytes=5).keep(b"12345").kept


def test_total_cap_evicts_the_oldest_first(tmp_path: Path) -> None:
    """Over max_total_bytes, the oldest copies go first until the total fits LOW_WATER of it."""
    folder = tmp_path / "raw"
    bodies = [bytes([65 + index]) * 10 for index in range(4)]
    for index, body in enumerate(bodies):
        store(folder).keep(body)
        age(folder / sha(body), 1000 - index * 100)  # bodies[0] is the oldest
    store(folder, max_total_bytes=32).keep(b"Z" * 10)  # 50 bytes: down to 28
    assert contents(folder) == {sha(bodies[3]), sha(b"Z" * 10)}


def test_a_copy_within_the_cap_costs_no_scan_of_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1,000 copies under a cap of ~100: the folder is scanned a few dozen times, not 1,000."""
    folder, scans = tmp_path / "raw", count_scans(monkeypatch)
    capped = store(folder, max_total_bytes=100 * 16)
    for index in range(1000):
        capped.keep(b"%015d\n" % index)
        assert sum(path.stat().st_size for path in raw_copies(folder)) <= 100 * 16
    assert len(scans) <= 1000 // (100 // 8) + 1  # each scan over the cap frees 1/8 of it
    assert len(raw_copies(folder)) > 100 * LOW_WATER - 1


def test_the_running_total_is_recounted_when_unreadable(tmp_path: Path) -> None:
    """A missing or garbled `.total` makes the next copy scan the folder: the cap still holds."""
    folder = tmp_path / "raw"
    for index in range(10):
        store(folder).keep(b"%09d\n" % index)
    (folder / ".total").write_bytes(b"garbage")
    store(folder, max_total_bytes=50).keep(b"new")
    assert sum(path.stat().st_size for path in raw_copies(folder)) <= 50


def _bookkeeping_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Writes and new files for `.total` and `.pruned` fail as on a full disk (ENOSPC)."""
    real_open, real_write = os.open, os.write
    ours: set[int] = set()

    def opening(path: str, flags: int, *args: object, **kwargs: object) -> int:
        if path in {".total", ".pruned"} and flags & os.O_CREAT:
            if path == ".pruned":
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            fd = real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]
            ours.add(fd)
            return fd
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    def writing(fd: int, data: bytes) -> int:
        if fd in ours:
            ours.discard(fd)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "open", opening)
    monkeypatch.setattr(os, "write", writing)


def test_a_copy_kept_is_kept_though_its_bookkeeping_cannot_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk after the copy (`.total`, `.pruned`): the copy is kept and said kept; no
    ledger is left to undercount it, so the next copy scans and the caps still hold."""
    folder = tmp_path / "raw"
    for index in range(10):
        store(folder).keep(b"%09d\n" % index)
    with monkeypatch.context() as patched:
        _bookkeeping_fails(patched)
        kept = store(folder).keep(b"kept on a full disk")
        assert kept == Kept(sha(b"kept on a full disk"), kept=True)
        pruned = store(folder).prune(due_only=False)
        assert pruned is not None
        assert (pruned.removed, pruned.left) == (0, 11)
    assert (folder / sha(b"kept on a full disk")).read_bytes() == b"kept on a full disk"
    assert not (folder / ".total").exists()
    store(folder, max_total_bytes=50).keep(b"new")
    assert sum(path.stat().st_size for path in raw_copies(folder)) <= 50


def test_total_cap_never_evicts_the_copy_just_written(tmp_path: Path) -> None:
    """A new copy of exactly the total cap stays; the older ones go to make room."""
    folder = tmp_path / "raw"
    store(folder).keep(b"old")
    full = b"x" * 10
    assert store(folder, max_total_bytes=10).keep(full).kept
    assert contents(folder) == {sha(full)}


def test_the_copy_just_written_outlives_an_age_scan_even_if_stamped_old(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file system whose clock lags (a network mount) stamps the new copy past the age cap:
    the scan its own write starts keeps it all the same."""
    write_atomic = raw_module.write_atomic

    def stamped_old(path: Path, data: bytes, **options: object) -> bool:
        done = write_atomic(path, data, **options)  # type: ignore[arg-type]
        then = time.time() - 2 * DAY
        os.utime(path, (then, then), dir_fd=options["dir_fd"])  # type: ignore[arg-type]
        return done

    monkeypatch.setattr(raw_module, "write_atomic", stamped_old)
    folder = tmp_path / "raw"
    assert store(folder).keep(BODY) == Kept(sha(BODY), kept=True)
    assert contents(folder) == {sha(BODY)}


@pytest.mark.parametrize("size", [11, 100, 5000])
def test_a_copy_larger_than_the_total_cap_is_not_kept(tmp_path: Path, size: int) -> None:
    """Bytes over max_total_bytes give kept=False with a reason: the folder stays within it."""
    folder = tmp_path / "raw"
    store(folder).keep(b"old")
    big = b"x" * size
    kept = store(folder, max_total_bytes=10).keep(big)
    assert (kept.sha256, kept.kept, kept.why) == (sha(big), False, "over raw_max_total_bytes=10")
    assert contents(folder) == {sha(b"old")}
    assert sum(path.stat().st_size for path in raw_copies(folder)) <= 10


def test_refreshed_copy_is_not_the_one_evicted(tmp_path: Path) -> None:
    """Keeping old bytes again makes them the newest: another copy is evicted instead."""
    folder = tmp_path / "raw"
    first, second = b"1" * 10, b"2" * 10
    store(folder).keep(first)
    store(folder).keep(second)
    age(folder / sha(first), 500)
    age(folder / sha(second), 100)
    store(folder, max_total_bytes=15).keep(first)
    assert contents(folder) == {sha(first)}


def test_age_cap_deletes_older_copies(tmp_path: Path, clock: Clock) -> None:
    """A copy past max_age_seconds goes at the very next keep, however recent the last scan
    was; a younger one stays."""
    folder, max_age = tmp_path / "raw", 8
    store(folder, max_age_seconds=max_age).keep(b"old")
    clock.advance(4)
    store(folder, max_age_seconds=max_age).keep(b"young")
    clock.advance(5)  # "old" is 9 seconds old, "young" 5
    store(folder, max_age_seconds=max_age).keep(b"new")
    assert contents(folder) == {sha(b"young"), sha(b"new")}


def test_a_scan_keeps_copies_younger_than_seven_eighths_of_the_age_cap(tmp_path: Path) -> None:
    """A scan may delete a copy shortly before its age cap (so the next scan by age is not the
    next write), never one younger than 7/8 of the cap."""
    folder, max_age = tmp_path / "raw", 160
    for body, seconds in ((b"young", 139), (b"nearly", 150), (b"old", 161)):
        store(folder, max_age_seconds=max_age).keep(body)
        age(folder / sha(body), seconds)
    store(folder, max_age_seconds=max_age).prune(due_only=False)
    assert contents(folder) == {sha(b"young")}


def test_steady_writes_with_the_age_cap_binding_scan_now_and_then(
    tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A copy every 10 ms for 20 s under an 8 s age cap: no copy outlives the cap, and the
    folder is scanned about once a second (an eighth of the cap), not at each of 2,000 writes."""
    folder, max_age, scans = tmp_path / "raw", 8, count_scans(monkeypatch)
    for index in range(2000):
        clock.advance(0.01)
        store(folder, max_age_seconds=max_age).keep(b"%015d\n" % index)
        if index % 100 == 0:
            oldest = min(path.stat().st_mtime for path in raw_copies(folder))
            assert oldest >= clock.now - max_age
    assert len(scans) <= 1 + (20 - max_age) / (max_age / 8) + 1  # the first, then by age


def test_age_cap_spares_old_bytes_kept_again(tmp_path: Path) -> None:
    """A copy past the age cap whose bytes arrive again is kept, not deleted."""
    folder = tmp_path / "raw"
    store(folder).keep(BODY)
    age(folder / sha(BODY), 2 * DAY)
    store(folder).keep(BODY)
    assert contents(folder) == {sha(BODY)}


def test_other_files_in_the_folder_are_left_alone(tmp_path: Path) -> None:
    """Files not named like a copy are neither counted nor deleted."""
    folder = tmp_path / "raw"
    store(folder).keep(b"first")
    (folder / "notes.txt").write_bytes(b"n" * 100)
    age(folder / "notes.txt", 10 * DAY)
    store(folder, max_total_bytes=10).keep(b"second")
    assert contents(folder) == {"notes.txt", sha(b"second")}


def test_a_temporary_file_left_by_a_dead_writer_is_cleaned_up(tmp_path: Path) -> None:
    """A `.tmp` file older than an hour (its writer died) is removed; a fresh one is not."""
    folder = tmp_path / "raw"
    store(folder).keep(b"first")
    stale = folder / f".{sha(BODY)}.1.0a1b2c3d.tmp"
    fresh = folder / f".{sha(BODY)}.2.0a1b2c3d.tmp"
    stale.write_bytes(b"half")
    fresh.write_bytes(b"half")
    age(stale, 2 * 3600)
    age(folder / ".pruned", PRUNE_INTERVAL + 1)
    store(folder).keep(BODY)
    assert contents(folder) == {sha(b"first"), sha(BODY), fresh.name}


@pytest.mark.parametrize("mode", [0o755, 0o750, 0o701], ids=lambda mode: f"{mode:04o}")
def test_an_existing_folder_open_to_others_is_refused_and_left_as_it_is(
    tmp_path: Path, mode: int
) -> None:
    """An existing folder others may list is refused, its mode unchanged; nothing written."""
    folder = tmp_path / "raw"
    folder.mkdir()
    folder.chmod(mode)
    with pytest.raises(
        AuditError, check=saying(f"mode {mode:04o}, open to group or others")
    ) as caught:
        store(folder).keep(BODY)
    assert caught.value.reason == "raw_unwritable"
    with pytest.raises(AuditError, check=saying("open to group or others")):
        store(folder).prune(due_only=False)
    assert stat.S_IMODE(folder.stat().st_mode) == mode
    assert list(folder.iterdir()) == []


def test_pruning_deletes_only_raw_copies_and_their_temporaries(tmp_path: Path) -> None:
    """Old files that are not toolguard's (a 64-character name that is not hex, an upper-case
    digest, another program's `.tmp`) stay; old copies and stale temporaries go."""
    folder = tmp_path / "raw"
    store(folder).keep(b"first")
    foreign = [
        "My holiday photos from the summer of twenty twenty two, final.jp",
        sha(BODY).upper(),
        "report.tmp",
        f".{sha(BODY)}.tmp",
        ".notes.1.0a1b2c3d.tmp",
        f".{sha(BODY)}.x.0a1b2c3d.tmp",
    ]
    ours = [sha(BODY), f".{sha(BODY)}.1.0a1b2c3d.tmp"]
    for name in foreign + ours:
        (folder / name).write_bytes(b"data")
        age(folder / name, 40 * 86400)
    result = store(folder, max_age_seconds=86400).prune(due_only=False)
    assert result is not None
    assert result.removed == 1
    assert contents(folder) == {sha(b"first"), *foreign}


def test_folder_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    """A symlinked raw folder (even to a directory) raises AuditError; nothing is written."""
    real = tmp_path / "elsewhere"
    real.mkdir()
    (tmp_path / "raw").symlink_to(real)
    with pytest.raises(AuditError) as caught:
        store(tmp_path / "raw").keep(BODY)
    assert caught.value.reason == "raw_unwritable"
    assert list(real.iterdir()) == []


def test_folder_that_is_a_file_is_refused(tmp_path: Path) -> None:
    """A raw folder path naming a regular file raises AuditError."""
    (tmp_path / "raw").write_bytes(b"")
    with pytest.raises(AuditError):
        store(tmp_path / "raw").keep(BODY)


def test_folder_in_a_missing_directory_is_refused(tmp_path: Path) -> None:
    """A raw folder whose parent does not exist raises AuditError (parents are not made)."""
    with pytest.raises(AuditError):
        store(tmp_path / "missing" / "raw").keep(BODY)


def test_write_failure_raises_and_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENOSPC while writing raises AuditError and leaves neither the copy nor a temporary file."""
    folder = tmp_path / "raw"
    store(folder).keep(b"earlier")

    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(AuditError, check=saying("No space left")) as caught:
        store(folder).keep(BODY)
    assert caught.value.reason == "raw_unwritable"
    assert contents(folder) == {sha(b"earlier")}


def test_short_writes_are_continued(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write that stores only part of the bytes is continued until the copy is whole."""
    real_write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real_write(fd, bytes(data)[:3]))
    store(tmp_path / "raw").keep(BODY)
    assert (tmp_path / "raw" / sha(BODY)).read_bytes() == BODY


KEEPERS = """
import os, sys
from pathlib import Path
from toolguard.audit.raw import RawStore

folder = Path(sys.argv[1])
processes, keeps, cap = map(int, sys.argv[2:5])
barrier, release = os.pipe()
children = []
for worker in range(processes):
    pid = os.fork()
    if pid == 0:
        os.close(release)
        store = RawStore(folder, max_file_bytes=1 << 20, max_total_bytes=cap, max_age_seconds=3600)
        os.read(barrier, 1)
        status = 1
        try:
            for index in range(keeps):
                # Some bytes are shared between workers, so the same copy is kept twice at once.
                body = (b"%d-%d|" % (worker % 3, index)) * (100 + 37 * (index % 11))
                assert store.keep(body).kept
            status = 0
        finally:
            os._exit(status)
    children.append(pid)
os.close(release)
sys.exit(sum(os.waitpid(pid, 0)[1] != 0 for pid in children))
"""


def test_concurrent_keeps_stay_within_the_cap_and_tear_nothing(tmp_path: Path) -> None:
    """8 processes x 50 keeps: the total ends within the cap and every copy matches its name."""
    folder, cap = tmp_path / "raw", 20_000
    argv = [sys.executable, "-I", "-c", KEEPERS, folder, "8", "50", str(cap)]
    done = subprocess.run(argv, capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    names = contents(folder)
    assert names
    assert not [name for name in names if name.endswith(".tmp") or name.startswith(".")]
    assert sum((folder / name).stat().st_size for name in names) <= cap
    for name in names:
        assert sha((folder / name).read_bytes()) == name


# --- who may write the folder: the whole path, or nothing is kept --------------------------------

NEEDS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to chown to another uid")


@pytest.mark.parametrize("mode", [0o775, 0o777], ids=["group-writable", "world-writable"])
def test_an_ancestor_others_can_write_fails_closed(tmp_path: Path, mode: int) -> None:
    """A non-sticky folder above the raw folder that others may write: AuditError, no copy."""
    shared = tmp_path / "shared"
    (shared / "home").mkdir(parents=True)
    shared.chmod(mode)
    with pytest.raises(AuditError, check=saying("shared is writable by group or others")) as caught:
        store(shared / "home" / "raw").keep(BODY)
    assert caught.value.reason == "raw_unwritable"
    assert list((shared / "home").iterdir()) == []


def test_a_sticky_world_writable_ancestor_is_allowed(tmp_path: Path) -> None:
    """A /tmp-like folder two levels up is allowed: the copy is kept."""
    sticky = tmp_path / "tmp"
    (sticky / "mine").mkdir(parents=True, mode=0o700)
    sticky.chmod(0o1777)
    assert store(sticky / "mine" / "raw").keep(BODY).kept


@pytest.mark.parametrize("where", ["folder", "parent"])
def test_a_sticky_world_writable_folder_or_parent_fails_closed(tmp_path: Path, where: str) -> None:
    """The raw folder itself, or its parent, sticky and world-writable: AuditError."""
    sticky = tmp_path / "tmp"
    sticky.mkdir()
    sticky.chmod(0o1777)
    with pytest.raises(AuditError, check=saying("writable by group or others")):
        store(sticky if where == "folder" else sticky / "raw").keep(BODY)
    assert list(sticky.iterdir()) == []


def test_a_folder_others_can_write_is_refused_not_tightened(tmp_path: Path) -> None:
    """A group-writable raw folder may hold what others planted: refused, left as it is."""
    folder = tmp_path / "raw"
    folder.mkdir()
    folder.chmod(0o770)
    with pytest.raises(AuditError, check=saying("raw is writable by group or others")):
        store(folder).keep(BODY)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o770
    assert list(folder.iterdir()) == []


@NEEDS_ROOT
def test_an_ancestor_of_another_user_fails_closed(tmp_path: Path) -> None:
    """A folder above the raw folder owned by another uid (not root): AuditError."""
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o755)
    os.chown(theirs, 65534, -1)
    with pytest.raises(AuditError, check=saying("theirs belongs to uid 65534")):
        store(theirs / "raw").keep(BODY)


@NEEDS_ROOT
def test_a_folder_of_another_user_fails_closed(tmp_path: Path) -> None:
    """A raw folder owned by another uid: AuditError, nothing written."""
    folder = tmp_path / "raw"
    folder.mkdir(mode=0o700)
    os.chown(folder, 65534, -1)
    with pytest.raises(AuditError, check=saying("belongs to uid 65534")):
        store(folder).keep(BODY)
    assert list(folder.iterdir()) == []


def test_a_link_planted_under_a_copy_name_is_replaced_not_written_through(tmp_path: Path) -> None:
    """A symbolic link named like the copy is replaced by the copy; its target is untouched."""
    folder = tmp_path / "raw"
    store(folder).keep(b"first")
    target = tmp_path / "victim"
    target.write_bytes(b"precious")
    age(target, DAY)
    before = target.stat().st_mtime
    (folder / sha(BODY)).symlink_to(target)
    assert store(folder).keep(BODY).kept
    assert not (folder / sha(BODY)).is_symlink()
    assert (folder / sha(BODY)).read_bytes() == BODY
    assert (target.read_bytes(), target.stat().st_mtime) == (b"precious", before)


# --- retention without a new copy ----------------------------------------------------------------


def test_prune_deletes_old_copies_without_writing_one(tmp_path: Path) -> None:
    """prune() applies the age and total caps though nothing new is kept, and says what it did."""
    folder = tmp_path / "raw"
    for body in (b"old" * 10, b"young"):
        store(folder).keep(body)
    age(folder / sha(b"old" * 10), 40 * DAY)
    (folder / ".pruned").unlink()
    assert store(folder, max_age_seconds=60).prune() == Pruned(1, 30, 1, 5)
    assert contents(folder) == {sha(b"young")}


def test_prune_scans_at_most_once_a_minute(tmp_path: Path) -> None:
    """A second prune within PRUNE_INTERVAL does nothing; once the stamp is older, it scans."""
    folder = tmp_path / "raw"
    store(folder).keep(b"copy")
    age(folder / sha(b"copy"), 2 * DAY)
    assert store(folder).prune() is None  # the keep just scanned
    assert contents(folder) == {sha(b"copy")}
    age(folder / ".pruned", PRUNE_INTERVAL + 1)
    assert store(folder).prune() == Pruned(1, 4, 0, 0)
    assert contents(folder) == set()


def test_prune_at_once_ignores_the_interval(tmp_path: Path) -> None:
    """prune(due_only=False), as `toolguard audit prune` runs it, always scans."""
    folder = tmp_path / "raw"
    store(folder).keep(b"copy")
    age(folder / sha(b"copy"), 2 * DAY)
    assert store(folder).prune(due_only=False) == Pruned(1, 4, 0, 0)


def test_prune_of_a_missing_folder_makes_nothing(tmp_path: Path) -> None:
    """No folder yet: nothing to prune, and no folder is made."""
    assert store(tmp_path / "raw").prune() is None
    assert not (tmp_path / "raw").exists()


def test_prune_of_an_untrusted_folder_fails_closed(tmp_path: Path) -> None:
    """Pruning walks the same trusted path as keeping: an open ancestor raises AuditError."""
    (tmp_path / "shared" / "raw").mkdir(parents=True)
    (tmp_path / "shared").chmod(0o777)
    with pytest.raises(AuditError, check=saying("writable by group or others")):
        store(tmp_path / "shared" / "raw").prune()


def test_a_missing_folder_in_a_sticky_parent_gets_the_verdict_it_would_get_existing(
    tmp_path: Path,
) -> None:
    """Directly under a /tmp-like folder, prune refuses the folder whether or not it exists."""
    sticky = tmp_path / "tmp"
    sticky.mkdir()
    sticky.chmod(0o1777)
    for _ in ("missing", "existing"):
        with pytest.raises(AuditError, check=saying("parent, is writable")) as caught:
            store(sticky / "raw").prune(due_only=False)
        assert caught.value.reason == "raw_unwritable"
        (sticky / "raw").mkdir(mode=0o700, exist_ok=True)
