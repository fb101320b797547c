"""The audit key: made once, private, shared by racing processes, and checked when read."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from rejections import saying

from toolguard.audit.keys import KEY_BYTES, keyed_hash, load_key
from toolguard.errors import AuditError


def test_missing_key_is_created_private_and_random(tmp_path: Path) -> None:
    """A missing key file is created 0600 holding KEY_BYTES (32) bytes, returned as read."""
    path = tmp_path / "audit.key"
    key = load_key(path)
    assert len(key) == KEY_BYTES == 32
    assert path.read_bytes() == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [item.name for item in tmp_path.iterdir()] == ["audit.key"]  # no temporary left


def test_existing_key_is_read_not_replaced(tmp_path: Path) -> None:
    """A second load returns the same key and leaves the file as it was."""
    path = tmp_path / "audit.key"
    first = load_key(path)
    assert load_key(path) == first
    assert path.read_bytes() == first


def test_two_new_keys_differ(tmp_path: Path) -> None:
    """Keys made for two logs are random, not a constant."""
    assert load_key(tmp_path / "a.key") != load_key(tmp_path / "b.key")


def own_key(path: Path, key: bytes, mode: int = 0o600) -> Path:
    """An operator's key file at `path`, private unless `mode` says otherwise."""
    path.write_bytes(key)
    path.chmod(mode)
    return path


def test_operator_key_of_any_reasonable_length_is_accepted(tmp_path: Path) -> None:
    """An operator's own key of 16 to 4096 bytes (0600 or 0400) is used as is."""
    for size, mode in ((16, 0o600), (4096, 0o400)):
        path = own_key(tmp_path / f"{size}.key", b"k" * size, mode)
        assert load_key(path) == b"k" * size


@pytest.mark.parametrize("size", [0, 1, 15, 4097])
def test_key_of_the_wrong_length_is_refused(tmp_path: Path, size: int) -> None:
    """A key file shorter than 16 bytes (or over 4096) raises AuditError key_unreadable."""
    path = own_key(tmp_path / "audit.key", b"k" * size)
    with pytest.raises(AuditError, check=saying("must hold 16 to 4096 bytes")) as caught:
        load_key(path)
    assert caught.value.reason == "key_unreadable"
    assert path.read_bytes() == b"k" * size  # a bad key is never silently replaced


def test_key_in_a_missing_directory_raises_audit_error(tmp_path: Path) -> None:
    """A key whose directory does not exist raises AuditError rather than OSError."""
    with pytest.raises(AuditError) as caught:
        load_key(tmp_path / "missing" / "audit.key")
    assert caught.value.reason == "key_unreadable"


def test_key_path_that_is_a_directory_raises_audit_error(tmp_path: Path) -> None:
    """A key path naming a directory raises AuditError."""
    with pytest.raises(AuditError):
        load_key(tmp_path)


RACERS = """
import os, sys
from pathlib import Path
from toolguard.audit.keys import load_key

path, racers = Path(sys.argv[1]), int(sys.argv[2])
barrier, release = os.pipe()
reads = []
for _ in range(racers):
    read, write = os.pipe()
    if os.fork() == 0:
        os.close(release)
        os.read(barrier, 1)
        os.write(write, load_key(path).hex().encode())
        os._exit(0)
    os.close(write)
    reads.append(read)
os.close(release)
for read in reads:
    print(os.read(read, 4096).decode())
"""


def test_racing_creators_all_get_the_same_key(tmp_path: Path) -> None:
    """Processes that create the key at the same moment all end up with the one on disk."""
    path = tmp_path / "audit.key"
    argv = [sys.executable, "-I", "-c", RACERS, path, "12"]
    done = subprocess.run(argv, capture_output=True, timeout=60, check=True)
    keys = set(done.stdout.decode().split())
    assert keys == {path.read_bytes().hex()}
    assert len(path.read_bytes()) == KEY_BYTES
    assert [item.name for item in tmp_path.iterdir()] == ["audit.key"]


def test_keyed_hash_depends_on_key_and_value() -> None:
    """The hash is stable for one key and value, and changes with either."""
    key = b"k" * 32
    assert keyed_hash(key, "token") == keyed_hash(key, "token")
    assert keyed_hash(key, "token") != keyed_hash(b"K" * 32, "token")
    assert keyed_hash(key, "token") != keyed_hash(key, "token2")
    assert len(keyed_hash(key, "token")) == 64


def test_keyed_hash_accepts_lone_surrogates() -> None:
    """A value holding a lone surrogate (possible from library callers) still hashes."""
    assert keyed_hash(b"k" * 32, "\ud800") != keyed_hash(b"k" * 32, "\udfff")


# --- a key nobody else can read or choose ---------------------------------------------------------

NEEDS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to chown to another uid")
KEY = b"k" * 32


def refused(path: Path, why: str) -> None:
    """load_key refuses `path` with key_unreadable, naming `why`, and leaves it as it was."""
    before = path.read_bytes() if path.exists() else None
    with pytest.raises(AuditError, check=saying(why)) as caught:
        load_key(path)
    assert caught.value.reason == "key_unreadable"
    assert (path.read_bytes() if path.exists() else None) == before


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o620, 0o644], ids=lambda mode: f"{mode:04o}")
def test_a_key_others_can_read_or_write_is_refused(tmp_path: Path, mode: int) -> None:
    """Group or others with any access to the key: refused (their HMACs would be guessable)."""
    refused(own_key(tmp_path / "audit.key", KEY, mode), f"has mode {mode:04o}")


def test_a_key_that_is_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    """A key path that is a link, even to a private key of this user's, is not followed."""
    real = own_key(tmp_path / "real.key", KEY)
    (tmp_path / "audit.key").symlink_to(real)
    refused(tmp_path / "audit.key", "symbolic link")


def test_a_dangling_link_is_not_followed_to_create_a_key(tmp_path: Path) -> None:
    """A link to a missing file is refused, and nothing is created where it points."""
    (tmp_path / "audit.key").symlink_to(tmp_path / "planted.key")
    refused(tmp_path / "audit.key", "symbolic link")
    assert not (tmp_path / "planted.key").exists()


def test_a_hard_linked_key_is_refused(tmp_path: Path) -> None:
    """A key with a second link (another path's file too) is refused."""
    own_key(tmp_path / "audit.key", KEY)
    os.link(tmp_path / "audit.key", tmp_path / "elsewhere")
    refused(tmp_path / "audit.key", "has 2 hard links")


def test_a_key_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    """A FIFO at the key path is refused at once (opening it does not wait for a writer)."""
    os.mkfifo(tmp_path / "audit.key", 0o600)
    with pytest.raises(AuditError, check=saying("is not a regular file")):
        load_key(tmp_path / "audit.key")


@NEEDS_ROOT
def test_a_key_of_another_user_is_refused(tmp_path: Path) -> None:
    """A key owned by another uid (planted beside the log) is refused."""
    path = own_key(tmp_path / "audit.key", KEY)
    os.chown(path, 65534, -1)
    refused(path, "belongs to uid 65534")


def test_a_key_whose_size_says_0_is_refused() -> None:
    """A procfs file (the user's, one link, 0400) reports size 0: not a key, whatever it reads."""
    with pytest.raises(AuditError, check=saying("must hold 16 to 4096 bytes")) as caught:
        load_key(Path("/proc/self/environ"))
    assert caught.value.reason == "key_unreadable"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to chown to another uid")
def test_a_key_behind_a_folder_link_of_another_user_is_refused(tmp_path: Path) -> None:
    """A link on the way to the key owned by someone else is not followed: nothing is made."""
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (tmp_path / "keys").symlink_to(theirs)
    os.lchown(tmp_path / "keys", 65534, -1)
    with pytest.raises(AuditError, check=saying("belongs to uid 65534")) as caught:
        load_key(tmp_path / "keys" / "audit.key")
    assert caught.value.reason == "key_unreadable"
    assert list(theirs.iterdir()) == []
