"""The one atomic writer: whole files or none, exact modes, first writer wins when asked."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolguard.files import (
    absolute_text,
    open_at_once,
    open_regular,
    path_text,
    public_mode,
    write_atomic,
)


def test_a_new_file_gets_exactly_the_mode_asked_whatever_the_umask(tmp_path: Path) -> None:
    """Private files are 0600 even under a permissive umask, and no temporary is left."""
    previous = os.umask(0)
    try:
        assert write_atomic(tmp_path / "key", b"secret")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "key").stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["key"]


def test_replace_swaps_the_whole_file(tmp_path: Path) -> None:
    """An existing file is replaced by the new bytes in one rename."""
    target = tmp_path / "entry.bin"
    target.write_bytes(b"old and longer")
    assert write_atomic(target, b"new", durable=True)
    assert target.read_bytes() == b"new"


def test_without_replace_the_first_writer_wins(tmp_path: Path) -> None:
    """With replace off, an existing file is kept and the call says it wrote nothing."""
    target = tmp_path / "audit.key"
    assert write_atomic(target, b"first", replace=False)
    assert not write_atomic(target, b"second", replace=False)
    assert target.read_bytes() == b"first"
    assert [p.name for p in tmp_path.iterdir()] == ["audit.key"]


def test_a_path_relative_to_an_open_folder_is_written_there(tmp_path: Path) -> None:
    """With dir_fd, the name is resolved in the folder opened, not by path."""
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        write_atomic(Path("x.bin"), b"data", dir_fd=fd)
    finally:
        os.close(fd)
    assert (tmp_path / "x.bin").read_bytes() == b"data"


def test_a_failed_write_leaves_nothing_behind(tmp_path: Path) -> None:
    """A target that cannot be replaced (a folder) raises, and the temporary is removed."""
    (tmp_path / "taken").mkdir()
    with pytest.raises(OSError):
        write_atomic(tmp_path / "taken", b"data")
    assert [p.name for p in tmp_path.iterdir()] == ["taken"]


@pytest.mark.parametrize("special", [False, True])
def test_a_fifo_at_the_target_is_refused_unless_special_says_replace_it(
    tmp_path: Path, special: bool
) -> None:
    """Renaming over a device would delete it (`--junit /dev/null` as root): by default a
    device, FIFO or socket at the path is refused and kept, and no temporary is left."""
    target = tmp_path / "out"
    os.mkfifo(target)
    if special:
        assert write_atomic(target, b"data", special=True)
        assert target.read_bytes() == b"data"
    else:
        with pytest.raises(OSError, match=r"not a regular file \(a named pipe\)"):
            write_atomic(target, b"data")
        assert stat.S_ISFIFO(target.lstat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_a_link_at_the_target_is_replaced_not_written_through(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").write_bytes(b"kept")
    (tmp_path / "out").symlink_to(tmp_path / "elsewhere")
    assert write_atomic(tmp_path / "out", b"new")
    assert (tmp_path / "out").read_bytes() == b"new"
    assert (tmp_path / "elsewhere").read_bytes() == b"kept"


def test_public_mode_keeps_an_existing_mode_and_follows_the_umask_for_a_new_file(
    tmp_path: Path,
) -> None:
    """A golden keeps its own mode; a new one is an ordinary file, not a private temporary."""
    existing = tmp_path / "old.json"
    existing.write_bytes(b"{}")
    existing.chmod(0o640)
    previous = os.umask(0o022)
    try:
        assert public_mode(existing) == 0o640
        assert public_mode(tmp_path / "new.json") == 0o644
    finally:
        os.umask(previous)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.sampled_from(["", "/", "//", "///", ".", "..", "a", "b.c", "-", " "]), max_size=8)
)
def test_path_text_spells_a_path_as_pathlib_does(parts: list[str]) -> None:
    """`path_text` gives what `str(Path(...))` gives, without importing `pathlib`."""
    text = "".join(parts)
    assert path_text(text) == str(Path(text))
    assert absolute_text(text) == str(Path(text).absolute())


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_a_configuration_file_must_be_a_regular_file(tmp_path: Path, kind: str) -> None:
    """A FIFO nobody writes to is refused at once (not waited on), a device and a folder too."""
    path = {"fifo": tmp_path / "contract.toml", "device": Path("/dev/zero"), "folder": tmp_path}[
        kind
    ]
    if kind == "fifo":
        os.mkfifo(path)
    with pytest.raises(OSError, match="not a regular file") as raised:
        open_regular(path)
    assert raised.value.strerror is not None
    assert raised.value.strerror.startswith("not a regular file (a ")


def test_a_regular_file_opens_and_reads_whole(tmp_path: Path) -> None:
    (tmp_path / "schema.json").write_bytes(b"{}")
    with open_regular(tmp_path / "schema.json") as stream:
        assert stream.read() == b"{}"


def test_a_fifo_nobody_writes_to_opens_at_once_and_reads_as_ended(tmp_path: Path) -> None:
    """`open` would block here until a writer came; the read then ends, as with no writer."""
    fifo = tmp_path / "stdin"
    os.mkfifo(fifo)
    fd = open_at_once(fifo)
    try:
        assert os.get_blocking(fd)
        assert os.read(fd, 10) == b""
    finally:
        os.close(fd)


def test_a_device_is_refused_before_it_is_opened(monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening a device can act (rewind a tape, arm a watchdog): it is judged by path first."""
    opened_paths: list[object] = []
    real_open = os.open

    def spying_open(path: object, *args: object, **kwargs: object) -> int:
        opened_paths.append(path)
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", spying_open)
    with pytest.raises(OSError, match="not a regular file"):
        open_regular("/dev/zero")
    assert opened_paths == []
