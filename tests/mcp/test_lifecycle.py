"""lifecycle.py: the server's environment, its stop, and the status a session ends with."""

from __future__ import annotations

import os
import signal
import sys
import time

from toolguard.errors import ExitStatus
from toolguard.mcp.lifecycle import exit_status, server_environment, start_server, stop_server


def test_the_server_gets_the_environment_less_toolguards_settings() -> None:
    """Credentials pass; TOOLGUARD_* (an audit key, a log path) never do."""
    given = {"PATH": "/bin", "GITHUB_TOKEN": "t", "TOOLGUARD_AUDIT_KEY": "k", "TOOLGUARD_X": ""}
    assert server_environment(given) == {"PATH": "/bin", "GITHUB_TOKEN": "t"}


def test_the_status_comes_from_the_servers() -> None:
    """A clean exit is 0; any other status, a signal or no status at all is 5."""
    assert exit_status(0) == ExitStatus.SUCCESS
    for code in (1, 3, 255, -signal.SIGKILL, None):
        assert exit_status(code) == ExitStatus.SERVER_FAILED


def test_stop_kills_a_server_that_ignores_its_closed_stdin_and_sigterm() -> None:
    """Stdin closed, SIGTERM ignored: SIGKILL, group-wide, a grandchild included."""
    script = (
        "import os, signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print(child.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    server = start_server([sys.executable, "-c", script], os.environ)
    assert server.stdout is not None
    grandchild = int(server.stdout.readline())
    started = time.monotonic()
    status = stop_server(server, grace=0.2)
    assert status == -signal.SIGKILL
    assert time.monotonic() - started < 10
    for _ in range(100):
        try:
            os.kill(grandchild, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the grandchild outlived the server's group")
    server.stdout.close()
    assert server.stderr is not None
    server.stderr.close()
