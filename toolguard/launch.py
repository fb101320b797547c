"""The `toolguard` command's first steps, shared by `bin/toolguard` and `python -m toolguard`.

A signal that arrives while the command is still loading (its start-up, `one_shot.start`, the
CLI's import: some ten milliseconds) must end it as one during set-up does: exit 130 and one
line, not a traceback through toolguard's modules, nor a death by SIGTERM or SIGHUP.
`cli.main` handles what arrives once it runs; this covers the steps before it. NOTE: this
module imports nothing of toolguard's until the handlers are set, so that only the
interpreter's own start-up (and the package's empty `__init__`) is left uncovered.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal as _signal
    from collections.abc import Sequence
else:  # NOTE: what `signal` wraps, as in `signals` (`signal` builds enums as it loads)
    import _signal


# Whether SIGINT, SIGTERM or SIGHUP arrived before `signals` was loaded (`_interrupted`).
_SIGNALLED = [False]
# NOTE: `signals.STOPPING`, spelled out: that module is not imported before the handlers are set.
_STOPPING = tuple(
    getattr(_signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(_signal, name)
)


def _interrupted(signum: int, frame: object) -> None:
    """`signals.interrupt`, spelled out for the instant before that module is loaded."""
    _SIGNALLED[0] = True
    for signum_ in _STOPPING:
        if _signal.getsignal(signum_) is not _signal.SIG_IGN:
            _signal.signal(signum_, _noted)  # a burst: the others raise no more
    raise KeyboardInterrupt


def _noted(signum: int, frame: object) -> None:
    """A stop after the first (`signals.noted`): already on the way out."""


# What reports an exception Python cannot raise (its own hook, unless replaced): `_unraisable`.
_REPORT = sys.unraisablehook


def _unraisable(unraisable: sys.UnraisableHookArgs) -> None:
    """`sys.unraisablehook`: the interrupt of a noted stop goes unreported; all else as before.

    NOTE: Python cannot raise from a weakref callback, and importlib's module locks have one:
    a stop during an import can raise there, and Python prints "Exception ignored in ..." and
    a traceback instead (seen most on 3.12). The stop is lost to Python only: its handler noted
    it first, and the command still ends at its next step (`signals.still_running`) with its
    status and one line, which that traceback would precede. An interrupt no handler of
    toolguard's noted (Python's own, before ours are set; one raised by code) is reported:
    nothing else would tell it was lost.
    """
    if not (issubclass(unraisable.exc_type, KeyboardInterrupt) and _stop_noted()):
        _REPORT(unraisable)


def _stop_noted() -> bool:
    """Whether a stop's handler noted it: `_interrupted`'s flag, or `signals`' once loaded."""
    signals = sys.modules.get("toolguard.signals")
    return _SIGNALLED[0] or (signals is not None and signals.asked())


def run(argv: Sequence[str]) -> None:
    """Start up (`one_shot.start`) and run the command line `argv` (`cli.main`); never returns.

    Under `python -i` or `PYTHONINSPECT`, the interpreter would turn the exit into a printed
    `SystemExit` traceback, an interactive prompt, and the prompt's own status: every command
    then leaves as `check` and `run` always do (`leave`), its output flushed and its status
    the table's. NOTE: toolguard is a command, not a session to inspect after it ends.
    """
    try:
        _start(argv)
    except SystemExit as exited:
        if not sys.flags.inspect:
            raise
        from toolguard.cli.respond import leave  # noqa: PLC0415 - only on the way out

        leave(exited.code)
    except Exception:
        _refuse_unsupported_python()
        raise


def _refuse_unsupported_python() -> None:
    """On a Python toolguard refuses, the line that says why and exit 4, not a traceback.

    NOTE: `cli` says so itself where its modules load (3.10, 3.11.0 to 3.11.4); on an older
    one (macOS's 3.9, Ubuntu 20.04's 3.8) their import fails first, and this says why.
    """
    from toolguard import unsupported_python  # noqa: PLC0415 - only on the way out
    from toolguard.errors import ExitStatus  # noqa: PLC0415 - only on the way out

    refused = unsupported_python()
    if refused is not None:
        print(f"toolguard: error: {refused}", file=sys.stderr)
        raise SystemExit(ExitStatus.INTERNAL) from None


def _start(argv: Sequence[str]) -> None:
    sys.unraisablehook = _unraisable  # before the handlers: their first interrupt may be lost
    for signum in _STOPPING:
        if _signal.getsignal(signum) is not _signal.SIG_IGN:  # a caller's choice: kept
            _signal.signal(signum, _interrupted)
    try:
        from toolguard import signals  # noqa: PLC0415 - after the handlers are set

        if _SIGNALLED[0]:
            raise KeyboardInterrupt  # NOTE: lost, as below
        signals.handle(signals.interrupt)  # from now on the one flag is `signals`'
        from toolguard.one_shot import start  # noqa: PLC0415 - after the handlers are set

        start(argv)
        from toolguard.cli import main  # noqa: PLC0415 - after start-up is set

        # NOTE: a lost KeyboardInterrupt: Python drops an exception raised in a weakref
        # callback, and importlib's module locks have one (`signals.still_running`).
        signals.still_running()
        main()
    except KeyboardInterrupt:
        # NOTE: a stop after the first is only noted (the handler's first act), and
        # `last_resort` ignores them all before it writes its one line.
        from toolguard.cli.respond import last_resort  # noqa: PLC0415 - only on the way out

        last_resort(KeyboardInterrupt(), list(argv[1:]))
