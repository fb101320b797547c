"""Which program a command name runs: looked up on the child's PATH, never through the folder.

`exec` would search every entry of PATH, a relative one too (`.`, `bin`, or an empty entry,
which means the working folder), so a `PATH=.:/usr/bin` would run whatever `ssh` someone
left in the folder toolguard was started in (an agent's work tree). As Go's `os/exec` does
since 1.19, a name that the search finds through a relative entry first is refused; one found
in an absolute folder runs by that absolute path, so nothing put in a folder later changes
which program started. A name with a `/` in it (`./ssh`, `bin/tool`) is a path the caller
chose and is run as given.
"""

from __future__ import annotations

import errno
import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


class RelativeMatch(OSError):
    """Raised when a command name is found first through a relative PATH entry."""


def locate(name: str, env: Mapping[str, str]) -> str:
    """The path `name` runs from, searched on `env`'s PATH (`/bin:/usr/bin` without one).

    Raises `RelativeMatch` for a name found first through a relative PATH entry, and
    `FileNotFoundError` (`PermissionError` if only a file without execute permission was
    found) when no folder holds it. A name with a `/` comes back as it is.
    """
    if "/" in name or not name or "\0" in name:  # a NUL: Popen's own ValueError says so
        return name
    denied = False
    for folder in os.get_exec_path(dict(env)):
        candidate = os.path.join(folder, name)  # noqa: PTH118 - no pathlib in this stage
        try:
            mode = os.stat(candidate).st_mode  # noqa: PTH116
        except (OSError, ValueError):  # absent, a folder on the way is not one, a NUL
            continue
        if not stat.S_ISREG(mode):
            continue
        if not os.access(candidate, os.X_OK):
            denied = True  # exec would go on to the next folder, and report this if none
            continue
        if not os.path.isabs(folder):  # noqa: PTH117
            mean = os.path.join(folder or ".", name)  # noqa: PTH118
            raise RelativeMatch(
                errno.EACCES,
                f"{name!r} is found first through the relative PATH entry {folder!r}, which "
                f"depends on the working folder: refused (say {mean} to mean that file)",
            )
        return candidate
    if denied:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
    raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT))
