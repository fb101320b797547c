"""Raw bytes from an upstream command: one bounded, timed attempt, whatever the child does.

`toolguard run` executes argv directly (no shell) in a new session, so the child and every
process it starts share one process group that can be killed at once. stdout is read as it
arrives and the group is killed the moment it passes `max_bytes`; stderr is read at the same
time and only its first `STDERR_KEPT` bytes are kept (for the operator, never the agent). When
the child exits, whatever it left behind in its group is killed too, so a grandchild holding
the pipe open cannot stall us. One that left the group (`setsid`, `setpgid`) is killed as
well where the CLI made toolguard a subreaper (`reaper.py`), when the child exits and again
after the attempt; elsewhere (a library caller) it is given `DRAIN_GRACE` to let go before the
pipe is simply closed, and outlives the attempt. `start` is the one way a child starts: for an
attempt, and for a long conversation (`toolguard mcp`'s server, pipes on all three streams).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from toolguard import signals
from toolguard.files import open_at_once
from toolguard.run import reaper
from toolguard.run.program import locate

STDERR_KEPT = 64 * 1024
DRAIN_GRACE = 0.2  # seconds to wait for EOF once the child has exited
_READ = 64 * 1024


@dataclass(frozen=True, slots=True)
class Attempt:
    """What one run of the command produced; `stdout` holds at most `max_bytes + 1` bytes."""

    stdout: bytes
    stderr: bytes
    stderr_size: int  # bytes the child wrote to stderr, kept or not
    duration: float
    exit_status: int | None = None  # None: killed by a signal, timed out or never started
    signal: int | None = None
    timed_out: bool = False
    over_limit: bool = False  # stdout passed max_bytes and the group was killed
    spawn_error: str | None = None


def run_command(
    argv: Sequence[str],
    *,
    max_bytes: int,
    timeout: float,
    env: Mapping[str, str],
    stdin: Path | None = None,
) -> Attempt:
    """Run `argv` once; never raises for anything the command does."""
    started = time.monotonic()
    child: subprocess.Popen[bytes] | None = None
    try:
        try:
            with contextlib.ExitStack() as stack:
                # a FIFO nobody writes to opens at once: the wait is the child's, in the timeout
                source: int | BinaryIO = subprocess.DEVNULL
                if stdin:
                    source = stack.enter_context(os.fdopen(open_at_once(stdin), "rb"))
                child = start(argv, env=env, stdin=source)
        except (OSError, ValueError) as exc:  # ValueError: a NUL byte in argv
            reason = (exc.strerror if isinstance(exc, OSError) else None) or str(exc)
            return Attempt(b"", b"", 0, time.monotonic() - started, spawn_error=reason)
        with child:  # closes both pipes and reaps the child
            try:
                return _collect(child, max_bytes, started + timeout, started)
            finally:
                kill_group(child)
    finally:
        if child is not None and child.returncode is None:  # a stop before `with child`
            _end(child)
        reaper.sweep()  # descendants that left the group (only where the CLI set this up)


def start(
    argv: Sequence[str], *, env: Mapping[str, str], stdin: int | BinaryIO = subprocess.PIPE
) -> subprocess.Popen[bytes]:
    """Start `argv` with pipes on stdout and stderr (and stdin): no shell, its own session.

    A bare name is looked up on `env`'s PATH by `program.locate` (never through a relative
    entry). Raises `OSError` (or `ValueError`, a NUL byte in argv) if it cannot start. A stop
    (SIGINT, SIGTERM, SIGHUP) that comes while it starts is held until the child is ours,
    then ends it: when `KeyboardInterrupt` leaves `start`, no child it started is running.
    """
    executable = locate(argv[0], env) if argv else None
    # NOTE: an interrupt raised inside Popen, after its fork, would lose the child: no object,
    # no process id, and in its own session nothing else ends it.
    child: subprocess.Popen[bytes] | None = None
    try:
        with signals.Deferred():
            child = subprocess.Popen(  # noqa: S603 - argv on purpose: no shell
                list(argv),
                executable=executable,
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=dict(env),
                start_new_session=True,
                close_fds=True,
            )
    except KeyboardInterrupt:  # the held stop, delivered now that the child is ours
        if child is not None:
            _end(child)
        raise
    assert child is not None  # Popen returned, or raised past this
    return child


def _collect(
    child: subprocess.Popen[bytes], max_bytes: int, deadline: float, started: float
) -> Attempt:
    assert child.stdout is not None
    assert child.stderr is not None
    out, err = bytearray(), bytearray()
    err_size = 0
    over_limit = timed_out = False
    exited_at: float | None = None
    with selectors.DefaultSelector() as selector:
        selector.register(child.stdout, selectors.EVENT_READ, out)
        selector.register(child.stderr, selectors.EVENT_READ, err)
        while selector.get_map():
            now = time.monotonic()
            if now >= deadline:
                timed_out = True
                break
            if exited_at is None and child.poll() is not None:
                exited_at = now
                kill_group(child)  # leftovers in its group: their pipe ends close
                reaper.sweep()  # and, in the CLI, those that left the group
            if exited_at is not None and now - exited_at > DRAIN_GRACE:
                break  # an escaped process holds the pipe: what the child wrote is in
            wait = min(deadline - now, DRAIN_GRACE / 4 if exited_at else 0.05)
            for key, _ in selector.select(wait):
                chunk = os.read(key.fd, _READ)
                if not chunk:
                    selector.unregister(key.fileobj)
                elif key.data is out:
                    out += chunk[: max_bytes + 1 - len(out)]
                    if len(out) > max_bytes:
                        over_limit = True
                        kill_group(child)
                        selector.unregister(key.fileobj)
                else:
                    err_size += len(chunk)
                    err += chunk[: STDERR_KEPT - len(err)]
    if not (timed_out or over_limit):
        # NOTE: both pipes at EOF does not mean the child is done: it may have closed them
        # (`exec >/dev/null 2>&1`) and still be running. The deadline holds for it too.
        try:
            child.wait(timeout=max(deadline - time.monotonic(), 0))
        except subprocess.TimeoutExpired:
            timed_out = True
    if timed_out or over_limit:
        kill_group(child)
    status = child.wait() if not timed_out else _reap(child)
    return Attempt(
        stdout=bytes(out),
        stderr=bytes(err),
        stderr_size=err_size,
        duration=time.monotonic() - started,
        exit_status=status if status is not None and status >= 0 and not timed_out else None,
        signal=-status if status is not None and status < 0 and not timed_out else None,
        timed_out=timed_out,
        over_limit=over_limit,
    )


def _end(child: subprocess.Popen[bytes]) -> None:
    """Kill the group of a child nobody will read (a stop came), reap it, close its pipes."""
    kill_group(child)
    _reap(child)
    for stream in (child.stdin, child.stdout, child.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()


def _reap(child: subprocess.Popen[bytes]) -> int | None:
    try:
        return child.wait(timeout=1)
    except subprocess.TimeoutExpired:
        return None


def kill_group(child: subprocess.Popen[bytes], signum: int = signal.SIGKILL) -> None:
    """Signal the child's whole process group (it leads its own session): SIGKILL by default."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, signum)
