"""What trusting the file system costs: the path walk, an entry read, a prune: a script, not a test.

The compile cache walks its folder's path once per process (`trusted_paths.open_folder`: one
`openat` and one `fstat` per folder from `/` down) where it used to `mkdir` and `lstat` the
folder on every load and store; then every entry is opened relative to the folder and
`fstat`ed. The raw
folder is walked on every sealing that uses it, and its copies are scanned at most once a
minute when nothing new is kept. Printed: microseconds per call, and the scan's milliseconds
for 1,000 and 10,000 copies.

    .venv/bin/python benchmarks/trust.py
"""

from __future__ import annotations

import os
import stat
import tempfile
import time
import timeit
from collections.abc import Callable
from pathlib import Path

from toolguard import cache_folder
from toolguard.audit.raw import RawStore
from toolguard.files import write_atomic
from toolguard.trusted_paths import open_folder

CALLS = 20_000


def per_call(action: Callable[[], object], calls: int = CALLS) -> float:
    """Microseconds per call, best of five rounds."""
    return min(timeit.repeat(action, number=calls, repeat=5)) / calls * 1e6


def old_folder(folder: Path) -> Path | None:
    """The check the cache made before (mkdir, then lstat the folder only), for comparison."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.lstat()
    except OSError:
        return None
    private = stat.S_ISDIR(info.st_mode) and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    return folder if private and info.st_uid == os.getuid() else None


def cache_figures(base: Path) -> None:
    folder = base / "home" / "user" / ".cache" / "toolguard"  # as deep as a usual cache
    folder.mkdir(parents=True, mode=0o700)
    os.environ["TOOLGUARD_CACHE_DIR"] = str(folder)
    print(f"cache folder: {folder} ({len(folder.parts)} folders from /)")
    before = per_call(lambda: old_folder(folder))
    print(f"  before: mkdir + lstat, on every load and store  {before:7.1f} us")
    walk = per_call(lambda: os.close(open_folder(folder, parents=True)))
    print(f"  now: the whole path walked, once per process   {walk:7.1f} us")
    remembered = per_call(lambda: cache_folder.opened(quiet=True))
    print(f"  now: each later load or store (remembered)     {remembered:7.1f} us")
    opened = cache_folder.opened()
    assert opened is not None, "the cache folder is not used: see the warning above"
    cache_folder.write(opened, "bench", b"x" * 4096)
    load = per_call(lambda: cache_folder.read(opened, "bench"))
    print(f"  load of a 4 KB entry (open at, fstat, read)     {load:7.1f} us")


def raw_figures(base: Path) -> None:
    for copies in (0, 1_000, 10_000):
        folder = base / f"raw-{copies}"
        folder.mkdir(mode=0o700)
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        for index in range(copies):
            write_atomic(Path(f"{index:064x}"), b"x" * 100, dir_fd=fd)
        os.close(fd)
        store = RawStore(folder, 1 << 20, 1 << 40, 1 << 30)
        store.prune(due_only=False)
        not_due = per_call(store.prune, 5_000)
        started = time.perf_counter()
        rounds = 5
        for _ in range(rounds):
            store.prune(due_only=False)
        scan = (time.perf_counter() - started) / rounds * 1e3
        print(
            f"raw folder with {copies:6,} copies: a sealing with no scan due {not_due:6.1f} us; "
            f"a scan {scan:7.2f} ms (at most once a minute)"
        )


def main() -> None:
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)
        cache_figures(base)
        raw_figures(base)


if __name__ == "__main__":
    main()
