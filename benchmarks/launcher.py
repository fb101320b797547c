"""Run benchmark commands from a tiny process, so their peak RSS is their own.

Shared by the scripts in this folder. Not a test.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PYTHON = sys.executable

# Peak RSS from `wait4` is the child's `ru_maxrss`, and Linux folds into it the resident size
# of the process that spawned it (the memory it had when the child called exec): spawned from
# this script (toolguard imported, a 10 MB document built), every child would "peak" at this
# script's size. So the measured commands are spawned by a small launcher, `python -S` (about
# 6 MiB, below any Python process measured), which times each one and reports its `wait4`.
LAUNCHER = r"""
import os, signal, sys, time
signal.signal(signal.SIGALRM, lambda *_: os.kill(pid, signal.SIGKILL))  # a run over its time
null = os.open(os.devnull, os.O_RDWR)
block = b"[" * (1 << 20)
for line in sys.stdin.buffer:
    feed, out, stream, cache, timeout, *argv = line.rstrip(b"\n").split(b"\0")
    env = dict(os.environb, TOOLGUARD_CACHE_DIR=cache) if cache else os.environb
    actions, opened, writer = [], [], None
    if stream:
        reader, writer = os.pipe()
        opened.append(reader)
    else:
        reader = os.open(feed, os.O_RDONLY) if feed else null
        opened += [reader] if feed else []
    sink = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC) if out else null
    opened += [sink] if out else []
    actions = [(os.POSIX_SPAWN_DUP2, reader, 0), (os.POSIX_SPAWN_DUP2, sink, 1),
               (os.POSIX_SPAWN_DUP2, null, 2)]
    started = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
    signal.setitimer(signal.ITIMER_REAL, float(timeout))
    if writer is not None:
        os.close(reader)
        opened.remove(reader)
        try:
            for _ in range(int(stream)):
                os.write(writer, block)
        except BrokenPipeError:
            pass
        os.close(writer)
    _, status, usage = os.wait4(pid, 0)
    elapsed = time.perf_counter() - started
    signal.setitimer(signal.ITIMER_REAL, 0)
    for fd in opened:
        os.close(fd)
    sys.stdout.write(f"{os.waitstatus_to_exitcode(status)} {elapsed} {usage.ru_maxrss}\n")
    sys.stdout.flush()
"""


TIMEOUT = 60.0  # seconds a measured run may take before the launcher kills it


class Launcher:
    """Runs commands from the small `python -S` process above: (seconds, peak RSS KiB)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [PYTHON, "-S", "-c", LAUNCHER], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def run(
        self,
        argv: list[str],
        feed: Path | None = None,
        out: Path | None = None,
        stream_mb: int = 0,
        cache: str = "",
        timeout: float = TIMEOUT,
    ) -> tuple[int, float, int]:
        """Exit status (-9: killed after `timeout` s), wall seconds, peak RSS (KiB) of `argv`."""
        fields = [str(feed or ""), str(out or ""), str(stream_mb or ""), cache, str(timeout)]
        fields += argv
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write("\0".join(fields).encode() + b"\n")
        self.process.stdin.flush()
        status, seconds, rss = self.process.stdout.readline().split()
        return int(status), float(seconds), int(rss)

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()
