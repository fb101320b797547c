"""The folder where toolguard keeps code between processes, and who may have written it.

What is kept there (compiled validators and contract artefacts, `schema/cache.py`; the
command's own byte-code, `one_shot.py`) is code a later process runs, so who can write
it matters more than what it says. Layout: `$TOOLGUARD_CACHE_DIR` (empty: no cache), else
`$XDG_CACHE_HOME/toolguard`, else `~/.cache/toolguard`, used only if only this user (and root)
can change it or any folder above it (`trusted_paths.open_folder`: a sticky `/tmp` may be an
ancestor, not the parent). Otherwise, and wherever there is no such folder (no home, a
read-only one, another user's), it is bypassed and every run starts cold: the first user that
is not `quiet` warns once per process on stderr, saying why and how to have a cache (only
`TOOLGUARD_CACHE_DIR=`, the cache turned off, is silent); a write that fails is said the same
way. The folder is opened once per process; files are opened relative to it, without
following links, and read only if they are regular files of this user's with one link and
closed to others. Files are written to a private temporary name and renamed into place, so a
reader never sees half of one. Nothing here is a point of failure: a folder or a file that
cannot be used only costs the time the cache would have saved.
"""

from __future__ import annotations

import _frozen_importlib_external
import _thread
import os
import sys

from toolguard.trusted_paths import Untrusted, open_folder, refusal

_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
# The configured path, its open folder, and why it is not used (said once, see `opened`).
_opened: tuple[str, int | None, str] | None = None
_warned = False
# NOTE: threads of a library host load contracts at once: one opens the folder (or closes the
# one of a path no longer configured) at a time; the others wait and take its descriptor,
# never close it twice, nor a descriptor number another thread's open just reused.
_LOCK = _thread.allocate_lock()


def opened(*, quiet: bool = False) -> int | None:
    """The cache folder, opened once per process; None if it is off, unusable or untrusted.

    Unless the cache is off (`TOOLGUARD_CACHE_DIR=`), a folder that is not used (untrusted,
    unmakeable, or no home to put it in) is bypassed and, unless `quiet`, stderr says so once
    per process (`_warn`).
    """
    global _opened  # noqa: PLW0603 - one descriptor per process, for the configured path
    configured = os.environ.get("TOOLGUARD_CACHE_DIR")
    if configured == "":
        return None  # an empty value turns the cache off
    configured = configured or _default()
    current = _opened
    if current is None or current[0] != configured:
        with _LOCK:
            current = _opened
            if current is None or current[0] != configured:
                current = _opened = _open(configured, current)
    if current[2] and not quiet:
        _warn(f"compile cache not used: {current[2]}")
    return current[1]


def interpreter() -> str:
    """The running interpreter's byte-code, as each key of code kept here names it.

    Its cache tag (implementation and minor version), its byte-code's magic number, which
    `importlib` checks in every `.pyc` (it changes between a minor version's pre-releases, and
    did in a bugfix release, 3.5.3), and its optimisation level (`-O` compiles other code).
    NOTE: code marshalled by one interpreter is run by no other: loaded, it could crash it.
    """
    magic = _frozen_importlib_external.MAGIC_NUMBER.hex()
    return f"{sys.implementation.cache_tag}\0{magic}\0{sys.flags.optimize}"


def _default() -> str:
    """`$XDG_CACHE_HOME/toolguard`, else `~/.cache/toolguard`; `_NO_HOME` where there is no home.

    NOTE: a relative `XDG_CACHE_HOME` is invalid and ignored, as the XDG base directory
    specification says: it would put the cache (code later processes run) in whatever folder
    the command runs in. A home that is not an absolute path (`HOME` empty or relative) or not
    a folder (`/nonexistent`, a service account's) is no home: nothing is made to stand for it.
    """
    base = os.environ.get("XDG_CACHE_HOME", "")
    if base.startswith("/"):
        return f"{base}/toolguard"
    home = os.environ["HOME"] if "HOME" in os.environ else os.path.expanduser("~")  # noqa: PTH111 - a string, no Path
    if not home.startswith("/") or not os.path.isdir(home):  # noqa: PTH112 - no pathlib at start-up
        return _NO_HOME + home
    return f"{home.rstrip('/')}/.cache/toolguard"


# NOTE: what `_default` answers where there is no home, followed by the home it found: a NUL
# starts it, so no configured path (which cannot hold one) is ever taken for it.
_NO_HOME = "\0no home: "


def _open(
    configured: str, previous: tuple[str, int | None, str] | None
) -> tuple[str, int | None, str]:
    """`configured` opened (or why it is not used), the folder of `previous` closed."""
    if previous is not None and previous[1] is not None:
        os.close(previous[1])
    if configured.startswith(_NO_HOME):
        home = configured[len(_NO_HOME) :]
        why = f"no folder for it (XDG_CACHE_HOME unset or relative; home {_shown(repr(home))}"
        return configured, None, f"{why} not a folder); {_SLOW}: {_SET}"
    fd, why = None, ""
    try:
        fd = open_folder(configured, parents=True)
    except Untrusted as exc:
        why = f"{_shown(str(exc))}; {_SLOW}: make that path writable by you alone, or {_SET}"
    except (OSError, ValueError) as exc:  # a read-only home, another user's folder
        error = getattr(exc, "strerror", None) or exc
        why = f"{_shown(configured)} cannot be made or opened ({error}); {_SLOW}: {_SET}"
    return configured, fd, why


def _shown(text: str) -> str:
    """`text` from outside (a path, the home) escaped and bounded for the warning.

    NOTE: `toolguard.text` imported only when the cache is refused: this module starts before
    the bundle (`one_shot`), which serves `toolguard.text` to every other run.
    """
    from toolguard.text import clean  # noqa: PLC0415

    return clean(text)


# What the warning says after why the cache is not used (`_warn`): what it costs, what to do.
# NOTE: only what comes from outside (a path, the home) is escaped and bounded (`clean`), so
# that a long path never cuts the advice short.
_SLOW = "every run compiles in memory, as slowly as a first run"
_SET = "set TOOLGUARD_CACHE_DIR to a folder only you can write (set empty: no cache, no warning)"
_AGAIN = "each run redoes the work it could not keep"
_WRITABLE = f"make that folder writable by you, or {_SET}"


def _new_lock_in_child() -> None:
    """A fork's child: the lock may have been held by a thread the child does not have."""
    global _LOCK  # noqa: PLW0603
    _LOCK = _thread.allocate_lock()


os.register_at_fork(after_in_child=_new_lock_in_child)


def _warn(message: str) -> None:
    """Say once per process, on stderr, why the cache is bypassed and how to have one.

    NOTE: every process says it: a bypassed cache makes each run as slow as a first run, and
    without a usable folder nothing can remember that it was said before.
    """
    global _warned  # noqa: PLW0603
    if _warned:
        return
    _warned = True
    # NOTE: imported here, not before the bundle starts (`one_shot` imports this module first):
    # a warning is rare, and says itself in the form the command line chose.
    from toolguard import operator_line  # noqa: PLC0415

    operator_line.write(operator_line.warning(message))


def read(folder: int, name: str) -> bytes | None:
    """A file's bytes, if it is a regular file of this user's, one link, closed to others."""
    fd = open_file(folder, name)
    if fd is None:
        return None
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def open_file(folder: int, name: str) -> int | None:
    """A file opened for reading (the caller closes it), under the same rules as `read`."""
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=folder)
    except OSError:
        return None
    try:
        if refusal(os.fstat(fd)) is None:
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def write(folder: int, name: str, data: bytes) -> None:
    """Put `data` in place as `name`, atomically; a full disk only costs the next call time.

    A write that fails (a folder made read-only, a read-only mount, a full disk or quota) is
    said once per process, as a bypassed cache is: every later run would repeat the work the
    entry was to save. A cache that holds all it needs is never written, so a warm read-only
    cache (one filled beforehand) says nothing.
    """
    # NOTE: imported here: this module loads before the one-shot bundle, and a warm check
    # writes nothing (one module fewer read from its own file at start-up).
    from toolguard.files import write_atomic  # noqa: PLC0415

    try:
        write_atomic(name, data, dir_fd=folder)
    except OSError as exc:
        current = _opened
        where = _shown(current[0]) if current is not None and current[1] == folder else "it"
        error = exc.strerror or exc
        _warn(f"compile cache not written: {where} ({error}); {_AGAIN}: {_WRITABLE}")
