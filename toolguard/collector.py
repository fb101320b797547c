"""The cyclic collector paused while a parsed document grows, for every thread at once.

A parsed document holds no reference cycles, and a collection while it grows only walks it
again (a quarter of `json`'s time on 10 MB; a third of a late rejection's on the strict
path). But the collector's switch is process-wide: each parse saving `gc.isenabled()` and
restoring it would race with another thread's (one sees the collector off because the other
paused it, turns it off after the other turned it back on, and leaves it off for good). So
the first parse to arrive pauses it, if it was on, and only that parse resumes it; a parse that
overlaps it runs with the collector as it finds it. A child forked during a pause gets its
collector back on (the parse that paused it is not in the child).
"""

from __future__ import annotations

import _thread
import gc
import os

_LOCK = _thread.allocate_lock()
_PAUSED = [False]  # whether a parse paused the collector and has not resumed it yet


def pause() -> bool:
    """Turn the collector off unless it is off already; whether this call did (`resume`)."""
    with _LOCK:
        if _PAUSED[0] or not gc.isenabled():
            return False
        gc.disable()
        _PAUSED[0] = True
        return True


def resume(paused: bool) -> None:
    """Turn the collector back on if `pause` (its result: `paused`) turned it off."""
    if paused:
        with _LOCK:
            _PAUSED[0] = False
            gc.enable()


def _after_fork_in_child() -> None:
    if _PAUSED[0]:
        _PAUSED[0] = False
        gc.enable()
    _LOCK.release()


# NOTE: the lock is held across a fork, so the child never inherits it taken by a thread that
# does not exist there (its first parse would wait for ever).
os.register_at_fork(
    before=_LOCK.acquire, after_in_parent=_LOCK.release, after_in_child=_after_fork_in_child
)
