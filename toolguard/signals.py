"""The signals that end toolguard as Ctrl-C does: SIGINT, SIGTERM and SIGHUP.

A person presses Ctrl-C, a supervisor sends SIGTERM, a closing terminal or ssh session sends
SIGHUP. Each must unwind the same way, so that what toolguard started is ended (`run`'s
command lives in its own session: nothing else would end it) and the documented ending
follows: a failure envelope, the answer being computed, the session's end. A signal the caller
ignores stays ignored (`nohup` ignores SIGHUP; a script's background job, SIGINT): that is
the caller's choice. (`launch.py` covers start-up with the same three, before it may import
this module.)
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal as _signal
    from collections.abc import Callable
    from types import FrameType
    from typing import Any, TypeAlias

    Handler: TypeAlias = Callable[[int, FrameType | None], Any]
else:  # NOTE: what `signal` wraps; `signal` builds three enums as it loads (start-up time)
    import _signal

# NOTE: no SIGHUP on Windows.
STOPPING: tuple[int, ...] = tuple(
    getattr(_signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(_signal, name)
)


def handle(handler: Handler) -> dict[int, Any]:
    """`handler` for every stopping signal the caller does not ignore; the handlers it replaced."""
    return {
        signum: _signal.signal(signum, handler)
        for signum in STOPPING
        if _signal.getsignal(signum) is not _signal.SIG_IGN
    }


def restore(previous: dict[int, Any]) -> None:
    """Put back the handlers `handle` replaced."""
    for signum, handler in previous.items():
        _signal.signal(signum, handler)


def ignore() -> None:
    """Ignore every stopping signal from now on: what is decided is written whole."""
    for signum in STOPPING:
        _signal.signal(signum, _signal.SIG_IGN)
