"""cache_folder.py: the folder opened once per process, whichever threads ask at once."""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from toolguard import cache_folder


def test_threads_asking_at_once_share_one_descriptor_and_close_the_old_one_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library host's threads load contracts at once after the configured folder changed:
    the old folder is closed once (a second `close` failed with EBADF, or closed a number
    another open had just reused), and every thread gets the one new descriptor."""
    old = os.open(tmp_path, os.O_RDONLY)
    monkeypatch.setattr(cache_folder, "_opened", (str(tmp_path / "before"), old, ""))
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", str(tmp_path / "after"))
    real_open = cache_folder.open_folder

    def slow_open(path: str, *, parents: bool) -> int:
        time.sleep(0.05)  # the window in which the other threads ask too
        return real_open(path, parents=parents)

    monkeypatch.setattr(cache_folder, "open_folder", slow_open)
    start = threading.Barrier(4)

    def ask(_: int) -> int | None:
        start.wait()
        return cache_folder.opened(quiet=True)

    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(ask, range(4)))
    assert len(set(answers)) == 1  # one descriptor, not one per thread (the others leaked)
    assert answers[0] is not None
    os.close(answers[0])
    monkeypatch.setattr(cache_folder, "_opened", None)


@pytest.mark.parametrize(
    ("xdg", "home", "expected"),
    [
        ("relative", "{tmp}/home", "{tmp}/home/.cache/toolguard"),  # XDG: relative is ignored
        ("", "relative", None),
        ("", "", None),
        ("", "{tmp}/gone", None),  # `/nonexistent`: a service account's home, never made
        ("{tmp}/xdg", "relative", "{tmp}/xdg/toolguard"),
    ],
    ids=["xdg-relative", "home-relative", "home-empty", "home-missing", "xdg-absolute"],
)
def test_the_cache_is_never_put_in_the_working_folder_nor_made_a_home(
    xdg: str, home: str, expected: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A relative XDG_CACHE_HOME or HOME would cache code wherever the command runs (and trust
    it there); a missing home would be created: the cache is then elsewhere or off."""
    (tmp_path / "home").mkdir()
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.delenv("TOOLGUARD_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", xdg.format(tmp=tmp_path))
    monkeypatch.setenv("HOME", home.format(tmp=tmp_path))
    monkeypatch.setattr(cache_folder, "_opened", None)
    folder = cache_folder.opened(quiet=True)
    monkeypatch.setattr(cache_folder, "_opened", None)
    if folder is not None:
        os.close(folder)
    assert list(work.iterdir()) == []
    assert not (tmp_path / "gone").exists()
    if expected is None:
        assert folder is None
    else:
        assert folder is not None
        assert Path(expected.format(tmp=tmp_path)).is_dir()
