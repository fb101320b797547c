"""Every descendant ends with the attempt: toolguard as a child subreaper, and the sweep after.

A process group is no leash: a grandchild that calls `setsid()` or `setpgid(0, 0)` leaves the
command's group, and once its parent exits it is re-parented to init, out of reach. On Linux
the CLI makes toolguard a *child subreaper* (`prctl(PR_SET_CHILD_SUBREAPER)`): orphans of any
depth are re-parented to toolguard instead, and `sweep` kills and reaps every child toolguard
has, again and again as the orphans of those it killed arrive, until none is left or
`SWEEP_BOUND` has passed. Only the CLI turns this on (`become_subreaper`): a library caller's
process may have children of its own that are none of toolguard's business, so it keeps the
process-group kill alone.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Collection, Iterator
from pathlib import Path

SWEEP_BOUND = 2.0  # seconds one sweep may take before it gives up on what will not die
_PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>
_subreaper = False  # set once, by the CLI: "every child of this process is the command's"


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux); whether it is one now."""
    global _subreaper  # noqa: PLW0603 - mirrors process-wide kernel state, set once
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # noqa: PLC0415 - `run` only, after the decision

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):  # no libc to load, or no prctl in it
        return False
    _subreaper = True
    return True


def sweep(*, spare: Collection[int] = ()) -> int:
    """Kill and reap this process's children but `spare`, until none is left; how many ended.

    A no-op unless `become_subreaper` succeeded. Only direct children are signalled: their
    process ids cannot be reused before they are reaped, so nothing else is ever hit. A child
    that leads its own process group has the group killed with it (a setsid()'d grandchild's
    helpers go in one step); whatever survives its parent arrives as a new child next round.
    """
    if not _subreaper:
        return 0
    deadline = time.monotonic() + SWEEP_BOUND
    ended: set[int] = set()
    left = set(spare)  # spared, or beyond our permission to signal (it changed its real uid)
    while True:
        children = [child for child in _children() if child[0] not in left] if _any() else []
        if not children or time.monotonic() > deadline:
            return len(ended)
        for pid, leads_group in children:
            try:
                if leads_group:
                    os.killpg(pid, signal.SIGKILL)
                os.kill(pid, signal.SIGKILL)
            except PermissionError:
                left.add(pid)
            except ProcessLookupError:
                pass
        for pid, _ in children:
            with contextlib.suppress(ChildProcessError):
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    ended.add(pid)
        time.sleep(0.001)  # let the killed die; their orphans arrive as our children


def _any() -> bool:
    """Whether this process has a child at all, without reaping one (cheaper than /proc)."""
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return False
    return True


def _children() -> Iterator[tuple[int, bool]]:
    """(pid, leads its process group) of every child of this process, read from /proc."""
    me = os.getpid()
    try:
        entries = list(os.scandir("/proc"))
    except OSError:
        return
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_bytes()
        except OSError:
            continue  # it ended while we looked
        # NOTE: the command name (field 2) may hold spaces and ")": split after the last ")".
        # What follows is state, ppid, pgrp, ...
        _, ppid, pgrp, *_ = stat.rpartition(b")")[2].split()
        pid = int(entry.name)
        if int(ppid) == me:
            yield pid, int(pgrp) == pid
