"""The command's first steps: a signal while it loads ends it with 130 and one line."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# NOTE: as `bin/toolguard` starts, with the signal sent from inside `one_shot.start` (the
# window the command spends loading, before `cli.main` handles anything itself).
_PROBE = """
import os, sys
from toolguard import one_shot
from toolguard.launch import run

def start(argv):
    os.kill(os.getpid(), int(sys.argv[1]))
    for _ in range(1000):  # the signal is handled between two instructions
        pass

one_shot.start = start
run(["toolguard", *sys.argv[2:]])
"""


@pytest.mark.parametrize(
    "signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["SIGINT", "SIGTERM", "SIGHUP"]
)
@pytest.mark.parametrize("diagnostics", ["rich", "json"])
def test_a_signal_while_the_command_loads_is_130_and_one_line(
    signum: signal.Signals, diagnostics: str
) -> None:
    form = "json" if diagnostics == "json" else "text"  # lint's spelling: `--format`
    done = _probed(_PROBE, signum, "lint", "x", "--format", form)
    assert done.returncode == 130, done.stderr
    assert done.stdout == b""
    if diagnostics == "json":
        assert done.stderr == (
            b'{"outcome":"error","exit_status":130,"message":"interrupted during set-up"}\n'
        )
    else:
        assert done.stderr == b"toolguard: error: interrupted during set-up\n"


# NOTE: as above, but the interrupt is lost as Python loses one raised in a weakref callback
# (importlib's module locks have one): the handler runs, its exception goes nowhere.
_LOST = """
import signal, sys
from toolguard import one_shot
from toolguard.launch import run

def start(argv):
    try:
        signal.getsignal(int(sys.argv[1]))(int(sys.argv[1]), None)
    except KeyboardInterrupt:
        pass

one_shot.start = start
run(["toolguard", *sys.argv[2:]])
"""


@pytest.mark.parametrize(
    "signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["SIGINT", "SIGTERM", "SIGHUP"]
)
def test_a_signal_whose_interrupt_was_lost_while_loading_still_ends_it(
    signum: signal.Signals,
) -> None:
    done = _probed(_LOST, signum, "lint", "x")
    assert done.returncode == 130, done.stderr
    assert done.stderr == b"toolguard: error: interrupted during set-up\n"


# NOTE: the interrupt lost the way Python loses it: raised by the handler inside a weakref
# callback (importlib's module locks have one), from inside start-up or once the command runs.
# Python reports such an exception ("Exception ignored in ..." and a traceback) on stderr.
_IN_A_CALLBACK = """
import gc, signal, sys, weakref
from toolguard import one_shot
from toolguard.launch import run

SIGNUM = int(sys.argv[2])

class Lock:
    pass

def losing(step):
    def lose(*args, **kwargs):
        lock = Lock()
        ref = weakref.ref(lock, lambda _: signal.raise_signal(SIGNUM))
        del lock  # the callback runs here; the handler's interrupt goes nowhere
        gc.collect()
        return step(*args, **kwargs)
    return lose

if sys.argv[1] == "start":
    one_shot.start = losing(one_shot.start)
else:
    from toolguard.cli import respond
    respond.build_request = losing(respond.build_request)  # set-up: the contract is loaded
sys.argv[:] = ["toolguard", *sys.argv[3:]]
run(sys.argv)
"""


@pytest.mark.parametrize(
    "signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["SIGINT", "SIGTERM", "SIGHUP"]
)
@pytest.mark.parametrize("where", ["start", "set-up"])
def test_an_interrupt_python_drops_in_a_weakref_callback_prints_no_traceback(
    where: str, signum: signal.Signals
) -> None:
    """A stop whose interrupt is raised inside a weakref callback (an import's module lock)
    ends the command with 130 and its one line: no "Exception ignored", no traceback."""
    done = _check_losing("signal.raise_signal(SIGNUM)", where, signum)
    assert done.returncode == 130, done.stderr
    assert done.stderr == b"toolguard: error: interrupted during set-up\n"


@pytest.mark.parametrize(
    ("callback", "reported"),
    [
        ("int('not a number')", b"ValueError: invalid literal for int()"),
        ("exec('raise KeyboardInterrupt')", b"KeyboardInterrupt"),
    ],
    ids=["a bug", "an interrupt no stop raised"],
)
def test_what_else_python_drops_is_still_reported(callback: str, reported: bytes) -> None:
    """Only the interrupt of a stop toolguard noted goes unreported: any other exception Python
    cannot raise (a bug in a weakref callback; a KeyboardInterrupt raised by code, or by
    Python's own handler before toolguard's are set) is reported as Python reports it, and the
    command goes on: nothing else would tell it was lost."""
    done = _check_losing(callback, "start", signal.SIGINT)
    assert done.returncode == 0, done.stderr
    assert b"Exception ignored" in done.stderr
    assert reported in done.stderr


def _check_losing(
    callback: str, where: str, signum: signal.Signals
) -> subprocess.CompletedProcess[bytes]:
    """`check` of the example, with `callback` run in a weakref callback at `where`."""
    probe = _IN_A_CALLBACK.replace("signal.raise_signal(SIGNUM)", callback)
    example = REPO / "examples" / "review_status"
    return subprocess.run(
        [sys.executable, "-c", probe, where, str(int(signum)),
         "check", str(example / "contract.toml"), "--input", str(example / "response.json"),
         "--context-file", str(example / "context.json")],
        capture_output=True, cwd=REPO, timeout=60, check=False,
    )  # fmt: skip


def _probed(
    probe: str, signum: signal.Signals, *command: str
) -> subprocess.CompletedProcess[bytes]:
    """The probe, sending `signum` from inside start-up, on the command line `command`."""
    return subprocess.run(
        [sys.executable, "-c", probe, str(int(signum)), *command],
        capture_output=True,
        cwd=REPO,
        timeout=60,
        check=False,
    )


# NOTE: SIGINT, SIGHUP and SIGTERM all pending at once (blocked, sent, unblocked), from inside
# start-up (`launch`'s handlers) or once the command runs (`cli.main`'s).
_BURST = """
import os, signal, sys
from toolguard import one_shot
from toolguard.launch import run

STOPPING = (signal.SIGINT, signal.SIGHUP, signal.SIGTERM)

def burst(*args, **kwargs):
    signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING)
    for signum in STOPPING:
        os.kill(os.getpid(), signum)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPPING)
    for _ in range(1000):  # the signals are handled between two instructions
        pass

if sys.argv[1] == "start":
    one_shot.start = burst
else:
    from toolguard.cli import respond
    respond.build_request = burst  # set-up: the contract is loaded, the request not built
sys.argv[:] = ["toolguard", *sys.argv[2:]]
run(sys.argv)
"""


@pytest.mark.parametrize("where", ["start", "set-up"])
def test_three_signals_at_once_are_130_and_one_line(where: str) -> None:
    """Ctrl-C mashed, or TERM and HUP from a closing session: the first decides, the others
    are ignored: no traceback, no "Exception ignored", no death by a signal."""
    contract = str(REPO / "examples" / "review_status" / "contract.toml")
    done = subprocess.run(
        [sys.executable, "-c", _BURST, where, "check", contract, "--input", contract],
        capture_output=True, cwd=REPO, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 130, done.stderr
    assert done.stderr == b"toolguard: error: interrupted during set-up\n"


def test_three_signals_from_outside_never_give_a_traceback() -> None:
    """The same burst sent from outside at a few moments of start-up and set-up: a status
    from the table (130, or `run`'s interrupted 1), never a traceback nor a death by signal."""
    contract = REPO / "examples" / "deploy_status" / "contract.toml"
    argv = [sys.executable, "-m", "toolguard", "run", str(contract),
            "--request-id", "req.burst.0001", "--context", "environment=staging",
            "--", "sleep", "5"]  # fmt: skip
    statuses = []
    for delay in (0.02, 0.04, 0.06, 0.08, 0.12):
        with subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO
        ) as toolguard:
            time.sleep(delay)
            for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
                toolguard.send_signal(signum)
            _, stderr = toolguard.communicate(timeout=20)
        assert b"Traceback" not in stderr, (delay, stderr)
        assert b"Exception ignored" not in stderr, (delay, stderr)
        # NOTE: below zero: the burst came inside the interpreter's own start-up (Python's).
        assert toolguard.returncode in {130, 1} or toolguard.returncode < 0, (delay, stderr)
        statuses.append(toolguard.returncode)
    assert any(status >= 0 for status in statuses), "every burst came before toolguard's code"


_IGNORED = """
import signal, sys
from toolguard import one_shot
from toolguard.launch import run

def start(argv):
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        assert signal.getsignal(signum) is signal.SIG_IGN, signum
        signal.raise_signal(signum)  # ignored, as the caller asked

def ignored_still(*args, **kwargs):
    start(None)  # and once the command's own handlers are set
    return command(*args, **kwargs)

from toolguard.cli import app
command, app.cli.main = app.cli.main, ignored_still
one_shot.start = start
run(["toolguard", *sys.argv[1:]])
"""


def test_signals_a_caller_ignores_stay_ignored() -> None:
    """A command started with SIGINT, SIGTERM and SIGHUP ignored (a background job of a script,
    `nohup`) keeps them ignored while it loads and runs."""

    def ignore() -> None:
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)

    done = subprocess.run(
        [sys.executable, "-c", _IGNORED, "lint", str(REPO / "examples")],
        capture_output=True,
        cwd=REPO,
        timeout=120,
        check=False,
        preexec_fn=ignore,
    )
    assert done.returncode == 0, done.stderr


def test_launch_stops_on_the_signals_every_command_stops_on() -> None:
    """`launch` spells the list out (it sets its handlers before importing toolguard)."""
    from toolguard import launch, signals  # noqa: PLC0415

    assert launch._STOPPING == signals.STOPPING
