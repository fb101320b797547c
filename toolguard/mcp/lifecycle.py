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
from toolguard.run import reaper
from toolguard.run.environment import without_toolguard
from toolguard.run.spawn import kill_group, start

STOP_GRACE = 5.0  # seconds a server has to exit once the client closed its side
TERM_GRACE = 0.5  # seconds between SIGTERM and SIGKILL
_POLL = 0.02


def server_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """What the server runs with: the environment the MCP client gave toolguard, less `TOOLGUARD_*`.

    Clients pass the server's credentials this way, so nothing else is withheld (unlike `run`'s
    default allow-list).
    """
    return without_toolguard(environ)


def start_server(argv: Sequence[str], environ: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """Start the server; raises `OSError` or `ValueError` if it cannot start."""
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
    status = _wait(child, TERM_GRACE)
    reaper.sweep()  # descendants that left the group, re-parented to toolguard
    return status


def exit_status(returncode: int | None) -> ExitStatus:
    """The exit status when the server ended the session: 0 for a clean exit, else 5."""
    return ExitStatus.SUCCESS if returncode == 0 else ExitStatus.SERVER_FAILED


def _wait(child: subprocess.Popen[bytes], seconds: float) -> int | None:
    deadline = time.monotonic() + seconds
    while (status := child.poll()) is None and time.monotonic() < deadline:
        time.sleep(_POLL)
    return status
