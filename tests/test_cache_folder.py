"""cache_folder.py: the folder opened once per process, whichever threads ask at once."""

from __future__ import annotations

import ast
import errno
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from toolguard import cache_folder, files

REPO = Path(__file__).resolve().parent.parent
CONTEXT = ["--context", "change_id=CR-1042"]


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
    relative = [work / home] if home and not home.startswith("{tmp}") else []
    for made in relative:  # a relative home naming a folder here is no home all the same
        made.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.delenv("TOOLGUARD_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", xdg.format(tmp=tmp_path))
    monkeypatch.setenv("HOME", home.format(tmp=tmp_path))
    monkeypatch.setattr(cache_folder, "_opened", None)
    folder = cache_folder.opened(quiet=True)
    monkeypatch.setattr(cache_folder, "_opened", None)
    if folder is not None:
        os.close(folder)
    assert list(work.rglob("*")) == relative
    assert not (tmp_path / "gone").exists()
    if expected is None:
        assert folder is None
    else:
        assert folder is not None
        assert Path(expected.format(tmp=tmp_path)).is_dir()


@pytest.mark.parametrize(
    ("environment", "why"),
    [
        ({"HOME": "{tmp}/gone"}, "no folder for it (XDG_CACHE_HOME unset or relative; home "),
        ({"HOME": ""}, "no folder for it (XDG_CACHE_HOME unset or relative; home '' not a folder)"),
        ({"XDG_CACHE_HOME": "{tmp}/file"}, "{tmp}/file/toolguard cannot be made or opened ("),
        ({"TOOLGUARD_CACHE_DIR": "{tmp}/file/cache"}, "{tmp}/file/cache cannot be made or "),
    ],
    ids=["home-missing", "home-empty", "xdg-unmakeable", "configured-unmakeable"],
)
def test_a_cache_that_cannot_be_used_is_said_once_with_what_to_set(
    environment: dict[str, str],
    why: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """No home (a service account's `/nonexistent`), or a folder that cannot be made (a
    read-only home, `HOME=/` for a user who is not root; here a file on the way): every run
    compiles as a first run does, so the operator is told, once, why and what to set."""
    (tmp_path / "file").write_text("")
    for name in ("TOOLGUARD_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value.format(tmp=tmp_path))
    monkeypatch.setattr(cache_folder, "_opened", None)
    monkeypatch.setattr(cache_folder, "_warned", False)
    assert cache_folder.opened(quiet=True) is None
    assert capsys.readouterr().err == ""  # the one-shot start's look is quiet
    assert cache_folder.opened() is None
    assert cache_folder.opened() is None
    warning = capsys.readouterr().err
    monkeypatch.setattr(cache_folder, "_opened", None)
    assert warning.startswith(
        f"toolguard: warning: compile cache not used: {why}".format(tmp=tmp_path)
    )
    assert warning.endswith(
        "; every run compiles in memory, as slowly as a first run: set TOOLGUARD_CACHE_DIR to a"
        " folder only you can write (set empty: no cache, no warning)\n"
    )
    assert warning.count("\n") == 1


def test_a_cache_turned_off_is_not_warned_about(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`TOOLGUARD_CACHE_DIR=` is the operator's choice: no cache, and nothing said."""
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", "")
    monkeypatch.setattr(cache_folder, "_opened", None)
    monkeypatch.setattr(cache_folder, "_warned", False)
    assert cache_folder.opened() is None
    assert capsys.readouterr().err == ""


def test_a_check_without_a_home_still_answers_and_says_why_each_run_is_cold(
    tmp_path: Path,
) -> None:
    """End to end, as a container user with no home runs it: exit 0, the envelope on stdout,
    one warning line on stderr (the one-shot start's look at the cache says nothing)."""
    environment = {**os.environ, "HOME": str(tmp_path / "gone")}
    for name in ("TOOLGUARD_CACHE_DIR", "XDG_CACHE_HOME", "PYTHONPROFILEIMPORTTIME"):
        environment.pop(name, None)
    contract = REPO / "examples" / "review_status"
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-m", "toolguard", "check", str(contract / "contract.toml"), *CONTEXT],
            input=(contract / "response.json").read_bytes(),
            capture_output=True,
            env={**environment, "PYTHONPATH": str(REPO)},
            cwd=tmp_path,
            check=False,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(b'{"tool":"review_status"')
        warnings = [line for line in done.stderr.splitlines() if b"warning" in line]
        assert len(warnings) == 1
        assert b"compile cache not used: no folder for it" in warnings[0]
    assert not (tmp_path / "gone").exists()


def test_a_cache_that_cannot_be_written_is_said_once_with_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder of one's own made read-only (or a read-only mount, a full disk): it opens, so
    it was used silently, and every run compiled again what it could not store."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", str(cache))
    monkeypatch.setattr(cache_folder, "_opened", None)
    monkeypatch.setattr(cache_folder, "_warned", False)
    folder = cache_folder.opened()
    assert folder is not None

    def read_only(*args: object, **kwargs: object) -> bool:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    with monkeypatch.context() as patch:
        patch.setattr(files, "write_atomic", read_only)
        cache_folder.write(folder, "entry.bin", b"code")
        cache_folder.write(folder, "other.bin", b"code")
    cache_folder.write(folder, "entry.bin", b"code")  # writable again: nothing more is said
    os.close(folder)
    monkeypatch.setattr(cache_folder, "_opened", None)
    assert capsys.readouterr().err == (
        f"toolguard: warning: compile cache not written: {cache} (Read-only file system); each"
        " run redoes the work it could not keep: make that folder writable by you, or set"
        " TOOLGUARD_CACHE_DIR to a folder only you can write (set empty: no cache, no warning)\n"
    )
    assert (cache / "entry.bin").read_bytes() == b"code"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes a read-only folder all the same")
def test_a_read_only_cache_folder_of_ones_own_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same, for real: `chmod 0500` on the cache folder."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o500)
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", str(cache))
    monkeypatch.setattr(cache_folder, "_opened", None)
    monkeypatch.setattr(cache_folder, "_warned", False)
    folder = cache_folder.opened()
    assert folder is not None
    cache_folder.write(folder, "entry.bin", b"code")
    os.close(folder)
    monkeypatch.setattr(cache_folder, "_opened", None)
    assert "compile cache not written: " in capsys.readouterr().err


# NOTE: `bin/toolguard`'s check as another interpreter would run it: one of another minor version
# (its cache tag and byte-code magic number differ: 3.11 against 3.13) or another build of this
# one (only the magic number differs: a pre-release, or 3.5.3 against 3.5.2). Python's own
# `.pyc` files are then read by nobody, and none are written. Reports every cache file opened.
_AS_ANOTHER_INTERPRETER = """
import _frozen_importlib_external, io, os, sys
sys.dont_write_bytecode = True
pretend, sys.argv = sys.argv[1], ["toolguard", *sys.argv[2:]]
if pretend != "this":
    number = int.from_bytes(_frozen_importlib_external.MAGIC_NUMBER[:2], "little") + 1
    _frozen_importlib_external.MAGIC_NUMBER = number.to_bytes(2, "little") + b"\\r\\n"
if pretend == "another minor version":
    sys.implementation.cache_tag = "cpython-399"
from toolguard import cache_folder
opened, open_file = [], cache_folder.open_file

def noted(folder, name):
    fd = open_file(folder, name)
    if fd is not None:
        opened.append(name)
    return fd

cache_folder.open_file = noted
stdout, sys.stdout = sys.stdout, io.StringIO()
os._exit = sys.exit  # a check leaves with os._exit; the probe reports first
from toolguard.launch import run
try:
    run(sys.argv)
except SystemExit as exit:
    status = exit.code
stdout.write(repr((status, sys.stdout.getvalue(), sorted(opened))))
"""


@pytest.mark.parametrize("another", ["another minor version", "another build of this version"])
def test_a_cache_another_interpreter_wrote_is_never_loaded(tmp_path: Path, another: str) -> None:
    """The module bundle, the contract's artefact and compiled validators hold marshalled code
    that only the interpreter that wrote them may run: another one (3.11's cache read by 3.13)
    opens none of them, answers the same, and keeps its own beside them."""
    example = REPO / "examples" / "review_status"
    check = ["check", str(example / "contract.toml"), "--input", str(example / "response.json"),
             "--request-id", "req.cache.0001", *CONTEXT]  # fmt: skip
    environment = {**os.environ, "TOOLGUARD_CACHE_DIR": str(tmp_path / "cache")}
    for name in ("TOOLGUARD_AUDIT_LOG", "TOOLGUARD_RAW_DIR"):
        environment.pop(name, None)

    def probe(pretend: str) -> tuple[object, str, list[str]]:
        done = subprocess.run(
            [sys.executable, "-c", _AS_ANOTHER_INTERPRETER, pretend, *check],
            capture_output=True, env=environment, cwd=REPO, timeout=120, check=True,
        )  # fmt: skip
        return ast.literal_eval(done.stdout.decode())

    status, answer, _ = probe("this")  # cold: writes this interpreter's cache
    written = {path.name for path in (tmp_path / "cache").iterdir()}
    warm = probe("this")
    assert warm[:2] == (status, answer)
    assert warm[2], "a warm run reads the cache"
    assert set(warm[2]) <= written
    assert probe(another) == (status, answer, [])  # cold again: none of it is read
    theirs = {path.name for path in (tmp_path / "cache").iterdir()} - written
    assert len(theirs) == len(written)  # its own entries, beside the first's
    again = probe(another)  # and warm on its own entries only
    assert again[:2] == (status, answer)
    assert again[2]
    assert set(again[2]) <= theirs
