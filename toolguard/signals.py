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
    from typing import Any, NoReturn, TypeAlias

    Handler: TypeAlias = Callable[[int, FrameType | None], Any]
else:  # NOTE: what `signal` wraps; `signal` builds three enums as it loads (start-up time)
    import _signal

# NOTE: no SIGHUP on Windows.
STOPPING: tuple[int, ...] = tuple(
    getattr(_signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(_signal, name)
)
# NOTE: no `pthread_sigmask` on Windows.
_BLOCK = getattr(_signal, "pthread_sigmask", None)


# Whether a stop was asked since `listen` (`interrupt`); `still_running` reads it.
_ASKED = [False]


def listen() -> None:
    """From now on, a stop (one the caller does not ignore) is an `interrupt`; none asked yet."""
    _ASKED[0] = False
    handle(interrupt)


def interrupt(signum: int, frame: object) -> NoReturn:
    """Signal handler: the first stop unwinds like Ctrl-C; a stop after it is only noted.

    NOTE: two or three stops together (Ctrl-C mashed; TERM then HUP from a closing session) are
    all pending already when the first handler runs: each still raising would interrupt the code
    that answers the first (a traceback). Not SIG_IGN here: Python reports a pending signal
    whose handler became SIG_IGN ("Signal N ignored due to race condition"); the way out
    (`ignore`) lets them pass first. The flag outlives a `KeyboardInterrupt` Python drops.
    """
    _ASKED[0] = True
    for signum_ in STOPPING:
        if _signal.getsignal(signum_) is not _signal.SIG_IGN:
            _signal.signal(signum_, noted)
    raise KeyboardInterrupt


def noted(signum: int, frame: object) -> None:
    """Signal handler for a stop after the first (`interrupt`): already on the way out."""


def still_running() -> None:
    """Raise again the interrupt of a stop whose `KeyboardInterrupt` was lost.

    NOTE: Python drops an exception raised in a weakref callback ("Exception ignored"), and
    importlib's module locks have one: a stop during an import can go unheard. Checked after
    lazy imports and between a command's steps (`run`'s attempts), where work would go on.
    """
    if _ASKED[0]:
        raise KeyboardInterrupt


def asked() -> bool:
    """Whether a stop came since `listen`, its interrupt raised or lost (a loop's own start)."""
    return _ASKED[0]


def handle(handler: Handler) -> dict[int, Any]:
    """`handler` for every stopping signal the caller does not ignore; the handlers it replaced.

    A signal only `noted` (a stop came, its interrupt perhaps lost) gets `handler` too: the
    caller checks `asked` after this, and later stops must still reach it.
    """
    return {
        signum: _signal.signal(signum, handler)
        for signum in STOPPING
        if _signal.getsignal(signum) is not _signal.SIG_IGN  # the caller's choice: kept
    }


def restore(previous: dict[int, Any]) -> None:
    """Put back the handlers `handle` replaced."""
    for signum, handler in previous.items():
        _signal.signal(signum, handler)


def ignore() -> None:
    """Ignore every stopping signal from now on: what is decided is written whole.

    NOTE: the three are blocked while they are switched, so that none still raises between
    two switches: blocking runs the handlers of those already received (a stop after the first
    is only `noted`), and SIG_IGN drops those that come meanwhile. Python's shutdown keeps
    SIG_IGN, where it puts back SIG_DFL (death by a late signal) for a handler.
    """
    mask = _BLOCK(_signal.SIG_BLOCK, STOPPING) if _BLOCK else None
    try:
        for signum in STOPPING:
            _signal.signal(signum, _signal.SIG_IGN)
    finally:
        if _BLOCK and mask is not None:
            _BLOCK(_signal.SIG_SETMASK, mask)


def quiet(previous: dict[int, Any], stopping: bool) -> None:
    """Once `stopping`, ignore every stopping signal; else put back what `handle` replaced.

    For a loop whose own handler stops it (`serve`, `mcp`): a second stop on the way out must
    not end the process by its previous handler (a raise), nor by SIG_DFL, which Python's
    shutdown puts back for a handler.
    """
    if stopping:
        ignore()
    else:
        restore(previous)


class Deferred:
    """A context in which a stop is held until it ends, then delivered as if it came then.

    For the moment a child is being started: a `KeyboardInterrupt` raised inside
    `subprocess.Popen` after its fork loses the child (no object, no process id to kill), and
    a child in its own session outlives toolguard. Within the context a stop is only noted;
    on the way out the replaced handlers are put back and each noted signal is raised again,
    so the caller, holding the child by then, can kill it. Off the main thread, where no
    handler can be set, it does nothing.
    """

    def __init__(self) -> None:
        self.previous: dict[int, Any] | None = None
        self.received: list[int] = []

    def __enter__(self) -> None:
        try:
            self.previous = handle(self._note)
        except ValueError:  # not the main thread: signals are not ours to handle here
            self.previous = None

    def __exit__(self, *exc_info: object) -> None:
        if self.previous is None:
            return
        restore(self.previous)
        for signum in self.received:
            _signal.raise_signal(signum)  # its handler runs now: `interrupt` raises

    def _note(self, signum: int, frame: object) -> None:
        if signum not in self.received:
            self.received.append(signum)


def signal_name(number: int) -> str:
    """`SIGTERM`, or `signal 35` for one with no name here (a real-time signal).

    For the diagnostic of a child a signal ended (`run`'s command, the jc child).
    """
    import signal  # noqa: PLC0415 - only to name a signal that ended a child (start-up time)

    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
