"""The MCP server's life: started with `run`'s machinery, stopped like the spec says, its status.

The server is started as `toolguard run` starts a command (no shell, its own process group),
with the environment the MCP client gave toolguard (clients pass a server's credentials that
way) less toolguard's own `TOOLGUARD_*` settings. When the client goes, the server's stdin is
closed; what is still running after a grace period gets SIGTERM, then SIGKILL, group-wide.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence

from toolguard.errors import ExitStatus
from toolguard.run.spawn import kill_group, start

STOP_GRACE = 5.0  # seconds a server has to exit once the client closed its side
TERM_GRACE = 0.5  # seconds between SIGTERM and SIGKILL
_POLL = 0.02


def server_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """What the server runs with: toolguard's environment, less `TOOLGUARD_*`.

    NOTE: the seam for "Trust boundaries" (the `run` environment filter in
    `toolguard/run/policy.py`): swap in the shared filter when it lands.
    """
    return {name: value for name, value in environ.items() if not name.startswith("TOOLGUARD_")}


def contain_descendants() -> None:
    """Make every descendant of the server end with toolguard.

    NOTE: the place for "Trust boundaries" (descendants that leave): toolguard as a child
    subreaper (`PR_SET_CHILD_SUBREAPER`), sweeping what is reparented to it. Until then the
    server's process group is what is killed, and a descendant that left it may outlive us.
    """


def start_server(argv: Sequence[str], environ: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """Start the server; raises `OSError` or `ValueError` if it cannot start."""
    contain_descendants()
    return start(argv, env=server_environment(environ))


def stop_server(child: subprocess.Popen[bytes], *, grace: float = STOP_GRACE) -> int | None:
    """Close its stdin, give it `grace` to exit, then SIGTERM and SIGKILL its group.

    The group is killed even after a clean exit: whatever the server left running in it goes
    too. Returns its exit status (negative: the signal that ended it), or None if unreaped.
    """
    if child.stdin is not None:
        with contextlib.suppress(OSError, ValueError):  # it stopped reading: exiting or gone
            child.stdin.close()
    if _wait(child, grace) is None:
        kill_group(child, signal.SIGTERM)
        _wait(child, TERM_GRACE)
    kill_group(child)
    return _wait(child, TERM_GRACE)


def exit_status(returncode: int | None) -> ExitStatus:
    """The exit status when the server ended the session: 0 for a clean exit, else 5."""
    return ExitStatus.SUCCESS if returncode == 0 else ExitStatus.SERVER_FAILED


def _wait(child: subprocess.Popen[bytes], seconds: float) -> int | None:
    deadline = time.monotonic() + seconds
    while (status := child.poll()) is None and time.monotonic() < deadline:
        time.sleep(_POLL)
    return status
