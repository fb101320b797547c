"""`trusted_paths`: a path walked from `/` by OpenSSH's StrictModes, links judged by owner."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from toolguard.files import write_atomic
from toolguard.trusted_paths import Untrusted, open_beside, open_folder, refusal

# --- open_folder: the whole path is trusted, as OpenSSH's StrictModes does ---------------------

ROOT = os.geteuid() == 0
NEEDS_ROOT = pytest.mark.skipif(not ROOT, reason="needs root to give a file to another uid")
OTHER_UID = 65534  # nobody


def opened(path: Path, **options: bool) -> os.stat_result:
    """The folder `open_folder` opens, as its fstat; the descriptor is closed."""
    fd = open_folder(path, **options)
    try:
        return os.fstat(fd)
    finally:
        os.close(fd)


def same(info: os.stat_result, path: Path) -> bool:
    return (info.st_dev, info.st_ino) == (path.stat().st_dev, path.stat().st_ino)


def folder(path: Path, mode: int = 0o700) -> Path:
    """Make `path` (and its parents) and give it exactly `mode`."""
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(mode)
    return path


def test_a_private_path_opens_as_that_folder(tmp_path: Path) -> None:
    """A folder only this user and root can change is opened, and it is the folder named."""
    target = folder(tmp_path / "a" / "cache")
    assert same(opened(target), target)


def test_a_missing_folder_is_made_private_and_its_parents_only_when_asked(tmp_path: Path) -> None:
    """The folder is made 0700; missing parents need `parents`; `create=False` makes nothing."""
    with pytest.raises(FileNotFoundError):
        opened(tmp_path / "no" / "cache")
    with pytest.raises(FileNotFoundError):
        opened(tmp_path / "cache", create=False)
    assert not (tmp_path / "no").exists()
    assert not (tmp_path / "cache").exists()
    opened(tmp_path / "no" / "cache", parents=True)
    assert stat.S_IMODE((tmp_path / "no").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "no" / "cache").stat().st_mode) == 0o700


@pytest.mark.parametrize(
    "mode", [0o770, 0o757, 0o777], ids=["group-writable", "world-writable", "both"]
)
def test_an_ancestor_others_can_write_is_refused(tmp_path: Path, mode: int) -> None:
    """A folder above the target that group or others may write (not sticky) fails the path."""
    target = folder(tmp_path / "shared" / "mine" / "cache")
    (tmp_path / "shared").chmod(mode)
    with pytest.raises(Untrusted, match="shared is writable by group or others"):
        opened(target)


def test_a_sticky_world_writable_ancestor_is_allowed(tmp_path: Path) -> None:
    """A /tmp-like folder (1777) above the parent is allowed: others cannot rename in it."""
    target = folder(tmp_path / "tmp" / "mine" / "cache")
    (tmp_path / "tmp").chmod(0o1777)
    assert same(opened(target), target)


def test_a_sticky_world_writable_parent_is_refused(tmp_path: Path) -> None:
    """Directly inside a /tmp-like folder the target is refused, and nothing is made there."""
    sticky = folder(tmp_path / "tmp", 0o1777)
    with pytest.raises(Untrusted, match="parent, is writable"):
        opened(sticky / "cache")
    assert list(sticky.iterdir()) == []
    folder(sticky / "cache")
    with pytest.raises(Untrusted, match="parent, is writable"):
        opened(sticky / "cache")


def test_a_missing_folder_in_a_sticky_parent_is_refused_before_it_is_missing(
    tmp_path: Path,
) -> None:
    """Without `create`, the parent rule still comes first: the same verdict as once it exists."""
    sticky = folder(tmp_path / "tmp", 0o1777)
    with pytest.raises(Untrusted, match="parent, is writable"):
        opened(sticky / "cache", create=False)
    with pytest.raises(FileNotFoundError):
        opened(folder(sticky / "mine") / "cache", create=False)


@pytest.mark.parametrize("mode", [0o1777, 0o770, 0o702], ids=["sticky", "group", "others"])
def test_a_folder_others_can_write_is_refused(tmp_path: Path, mode: int) -> None:
    """The folder itself, writable by group or others, is refused even when sticky."""
    target = folder(tmp_path / "cache", mode)
    with pytest.raises(Untrusted, match="cache is writable by group or others"):
        opened(target)


def test_a_folder_that_is_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    """The folder itself is opened without following a link, even to a private folder."""
    real = folder(tmp_path / "real")
    (tmp_path / "cache").symlink_to(real)
    with pytest.raises(Untrusted, match="is a symbolic link"):
        opened(tmp_path / "cache")


def test_a_symbolic_link_above_the_folder_is_followed_and_checked(tmp_path: Path) -> None:
    """A link on the way is resolved step by step: the folders it leads to are checked too."""
    real = folder(tmp_path / "real" / "cache")
    (tmp_path / "absolute").symlink_to(tmp_path / "real")
    (tmp_path / "relative").symlink_to("real")
    assert same(opened(tmp_path / "absolute" / "cache"), real)
    assert same(opened(tmp_path / "relative" / ".." / "real" / "cache"), real)
    (tmp_path / "real").chmod(0o777)
    with pytest.raises(Untrusted, match="real is writable"):
        opened(tmp_path / "absolute" / "cache")


def test_a_relative_path_is_taken_from_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A relative path is walked from the current folder, from `/` down like any other."""
    target = folder(tmp_path / "cache")
    monkeypatch.chdir(tmp_path)
    assert same(opened(Path("cache")), target)
    tmp_path.chmod(0o777)
    with pytest.raises(Untrusted):
        opened(Path("cache"))


@NEEDS_ROOT
def test_an_ancestor_of_another_user_is_refused(tmp_path: Path) -> None:
    """A folder above the target owned by someone else (not root) fails the path."""
    target = folder(tmp_path / "theirs" / "cache")
    os.chown(tmp_path / "theirs", OTHER_UID, -1)
    with pytest.raises(Untrusted, match="theirs belongs to uid 65534"):
        opened(target)


@NEEDS_ROOT
def test_a_folder_of_another_user_is_refused(tmp_path: Path) -> None:
    """The folder itself must be this user's."""
    target = folder(tmp_path / "cache")
    os.chown(target, OTHER_UID, -1)
    with pytest.raises(Untrusted, match="belongs to uid 65534"):
        opened(target)


def test_a_root_owned_folder_is_not_this_users(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Root may own the folders above, never the folder itself unless this user is root: as
    any other uid (here pretended), a folder of root's fails the path."""
    target = folder(tmp_path / "cache")
    os.chown(target, 0, -1)
    for above in (tmp_path, *tmp_path.parents):
        if above.stat().st_uid != 0:
            pytest.skip(f"{above} is not root's: the walk would stop there first")
    monkeypatch.setattr(os, "geteuid", lambda: 4242)
    with pytest.raises(Untrusted, match="cache belongs to uid 0, not to this user"):
        opened(target)


@pytest.mark.parametrize("links", [40, 41])
def test_a_path_through_more_symbolic_links_than_the_kernel_follows_is_refused(
    tmp_path: Path, links: int
) -> None:
    """A chain of 40 links is followed, as the kernel would; one more is ELOOP, so that a
    loop of links ends with an error instead of a walk that never ends."""
    folder(tmp_path / "real" / "cache")
    names = [f"link{index}" for index in range(links)]
    for name, target in zip(names, [*names[1:], "real"], strict=True):
        (tmp_path / name).symlink_to(target)
    if links <= 40:
        assert same(opened(tmp_path / names[0] / "cache"), tmp_path / "real" / "cache")
    else:
        with pytest.raises(OSError, match="too many symbolic links"):
            opened(tmp_path / names[0] / "cache")


AS_NOBODY = """
import os, sys
from toolguard.trusted_paths import Untrusted, open_folder
os.setgid(65534)
os.setuid(65534)
for path in sys.argv[1:]:
    try:
        os.close(open_folder(path))
        print("opened")
    except Untrusted as exc:
        print("untrusted", exc)
"""


@NEEDS_ROOT
def test_for_another_user_root_owned_ancestors_pass_but_a_root_owned_folder_does_not() -> None:
    """As uid 65534: folders above owned by root are fine; the folder itself must be its own."""
    base = Path(tempfile.mkdtemp(prefix="toolguard-test-"))  # one 65534 can walk into
    try:
        base.chmod(0o755)
        own = folder(base / "parent" / "own")
        (base / "parent").chmod(0o755)
        os.chown(own, OTHER_UID, OTHER_UID)
        roots = folder(base / "parent" / "roots", 0o755)
        argv = [sys.executable, "-I", "-c", AS_NOBODY, str(own), str(roots)]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    finally:
        shutil.rmtree(base)
    if "Permission denied" in done.stderr:
        pytest.skip(f"uid 65534 cannot run this interpreter: {done.stderr.splitlines()[-1]}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "opened",
        f"untrusted {roots} belongs to uid 0, not to this user",
    ]


# --- refusal: a file opened, then checked on its descriptor ---------------------------------------


def info(path: Path) -> os.stat_result:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        return os.fstat(fd)
    finally:
        os.close(fd)


def test_a_private_file_of_this_user_passes(tmp_path: Path) -> None:
    """A regular 0600 file of this user's with one link is this user's alone."""
    write_atomic(tmp_path / "entry", b"x")
    assert refusal(info(tmp_path / "entry")) is None


def test_a_hard_linked_file_is_refused(tmp_path: Path) -> None:
    """A second link makes the file also another path's: refused."""
    write_atomic(tmp_path / "entry", b"x")
    os.link(tmp_path / "entry", tmp_path / "elsewhere")
    assert refusal(info(tmp_path / "entry")) == "has 2 hard links"


@pytest.mark.parametrize(("mode", "closed"), [(0o620, 0o022), (0o602, 0o022), (0o640, 0o077)])
def test_a_file_open_to_others_is_refused(tmp_path: Path, mode: int, closed: int) -> None:
    """Mode bits the caller closes (writable by others; for a key, any access) refuse the file."""
    write_atomic(tmp_path / "entry", b"x", mode=mode)
    assert refusal(info(tmp_path / "entry"), closed=closed) == (
        f"has mode {mode:04o}, open to group or others"
    )


def test_what_is_not_a_regular_file_is_refused(tmp_path: Path) -> None:
    """A folder (or a FIFO, a device) is not an entry."""
    assert refusal(tmp_path.stat()) == "is not a regular file"


@NEEDS_ROOT
def test_a_file_of_another_user_is_refused(tmp_path: Path) -> None:
    """A file owned by another uid is refused."""
    write_atomic(tmp_path / "entry", b"x")
    os.chown(tmp_path / "entry", OTHER_UID, -1)
    assert refusal(info(tmp_path / "entry")) == "belongs to uid 65534, not to this user"


@pytest.fixture(params=["O_PATH", "by name"])
def link_reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways a link's owner and target are read: Linux's O_PATH, and elsewhere's."""
    if request.param == "by name":
        monkeypatch.delattr(os, "O_PATH", raising=False)
    elif not hasattr(os, "O_PATH"):
        pytest.skip("no O_PATH on this system")
    return str(request.param)


def test_links_on_the_way_are_read_with_or_without_o_path(tmp_path: Path, link_reader: str) -> None:
    """Without O_PATH (macOS, the BSDs) a link on the way is still followed, and checked."""
    real = folder(tmp_path / "real" / "cache")
    (tmp_path / "absolute").symlink_to(tmp_path / "real")
    assert same(opened(tmp_path / "absolute" / "cache"), real)
    fd, name = open_beside(tmp_path / "absolute" / "cache" / "audit.log")
    try:
        assert same(os.fstat(fd), real)
        assert name == "audit.log"
    finally:
        os.close(fd)


@NEEDS_ROOT
def test_another_users_link_is_refused_with_or_without_o_path(
    tmp_path: Path, link_reader: str
) -> None:
    """A link on the way owned by someone else (as one planted in /tmp would be) is refused."""
    folder(tmp_path / "real" / "cache")
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "real")
    os.lchown(link, OTHER_UID, -1)
    with pytest.raises(Untrusted, match=r"symbolic link .*link belongs to uid 65534"):
        opened(link / "cache")
