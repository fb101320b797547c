"""Shared test fixtures: run the real `toolguard` CLI in a subprocess, stdout and stderr apart."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from toolguard import operator_line, signals

REPO = Path(__file__).resolve().parents[1]
# Variables that would make rich or click colour a pipe; the CLI must be tested as piped.
_COLOUR_VARIABLES = (
    "FORCE_COLOR",
    "CLICOLOR_FORCE",
    "PY_COLORS",
    "TTY_COMPATIBLE",
    "TTY_INTERACTIVE",
)


def piped_environment(*dropped_prefixes: str) -> dict[str, str]:
    """This process's environment as a piped CLI should see it: no colour, `TERM=dumb`.

    Variables starting with one of `dropped_prefixes` are left out too (an audit log the
    caller's environment names, say).
    """
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in _COLOUR_VARIABLES and not key.startswith(dropped_prefixes)
    }
    env["TERM"] = "dumb"
    return env


def pytest_configure(config: pytest.Config) -> None:
    """Keep compiled-schema caches of the run (and its subprocesses) out of the user's home.

    The cache is a folder inside a private temporary one: directly under the sticky, world-
    writable /tmp it would not be trusted (see `trusted_paths.open_folder`).
    """
    if "TOOLGUARD_CACHE_DIR" not in os.environ:
        private = tempfile.mkdtemp(prefix="toolguard-test-cache-")
        os.environ["TOOLGUARD_CACHE_DIR"] = os.path.join(private, "cache")  # noqa: PTH118


@pytest.fixture(autouse=True)
def _stops_as_they_were() -> Iterator[None]:
    """Each test leaves the stopping signals' handlers, and `signals.asked`, as it found them.

    NOTE: a test that lets `signals.interrupt` run (a stop while a child starts, say) marks the
    process as stopping; without this, a `serve` or `mcp` loop in a later test starts stopped
    and answers nothing, and which test fails depends on the order the suite runs in.
    """
    before = {signum: signal.getsignal(signum) for signum in signals.STOPPING}
    yield
    signals._ASKED[0] = False  # what `listen` clears, without installing a handler
    operator_line.choose("rich")  # `main` in process chose the form of stderr's lines
    for signum, handler in before.items():
        signal.signal(signum, handler)


class Run(NamedTuple):
    """One finished CLI process: its exit status and its two output streams as raw bytes."""

    status: int
    stdout: bytes
    stderr: bytes

    def envelope(self) -> Any:
        """The single JSON line printed on stdout."""
        lines = self.stdout.splitlines()
        assert len(lines) == 1, f"expected one line on stdout, got {self.stdout!r}"
        return json.loads(lines[0])

    def diagnostics(self) -> dict[str, Any]:
        """The single JSON object `--diagnostics json` printed on stderr."""
        lines = self.stderr.splitlines()
        assert len(lines) == 1, f"expected one line on stderr, got {self.stderr!r}"
        record = json.loads(lines[0])
        assert isinstance(record, dict)
        return record


RunToolguard = Callable[..., Run]


def run_fed_late(argv: list[str], pieces: list[bytes], env: dict[str, str] | None = None) -> Run:
    """Run `argv` in REPO, its stdin a pipe set O_NONBLOCK, each piece written after a pause.

    A caller that shares its pipe may set the flag (it belongs to the open pipe, not to a
    process): the child then finds nothing yet where it would have waited.
    """
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    child = subprocess.Popen(
        argv, stdin=read_end, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO, env=env
    )
    os.close(read_end)
    with os.fdopen(write_end, "wb", buffering=0) as stdin, contextlib.suppress(BrokenPipeError):
        for piece in pieces:
            time.sleep(0.3)  # the child is up, reading, and finds nothing yet
            stdin.write(piece)
    stdout, stderr = child.communicate(timeout=60)
    return Run(child.returncode, stdout, stderr)


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The project checkout (the directory holding `examples/` and `tests/`)."""
    return REPO


@pytest.fixture(scope="session")
def run_toolguard() -> RunToolguard:
    """Run `python -m toolguard ARGS...` with `stdin` bytes; return a `Run`.

    Pass `command=[...]` to run another entry point (e.g. the `toolguard` script) instead, and
    `extra_env={...}` to set variables for this run only.
    """
    env = piped_environment()

    def run(
        *args: str | os.PathLike[str],
        stdin: bytes = b"",
        cwd: Path = REPO,
        command: list[str] | None = None,
        extra_env: dict[str, str] | None = None,
    ) -> Run:
        argv = [*(command or [sys.executable, "-m", "toolguard"]), *map(str, args)]
        done = subprocess.run(  # noqa: PLW1510 - the status is what the tests assert
            argv,
            input=stdin,
            capture_output=True,
            cwd=cwd,
            env={**env, **(extra_env or {})},
            timeout=60,
        )
        return Run(done.returncode, done.stdout, done.stderr)

    return run


def without_waiting(work: Callable[[], object]) -> object:
    """`work()`'s result (or the exception it raised), failing the test if it blocks."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(work())
        except Exception as exc:  # noqa: BLE001 - handed to the test to assert on
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(30)
    assert outcome, "blocked"
    return outcome[0]
