"""session.py: the session's clock (what `_look` decides), beyond what a whole session shows."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from toolguard.audit.trail import TrailOptions
from toolguard.contract import load_contract
from toolguard.errors import ExitStatus
from toolguard.mcp import lifecycle
from toolguard.mcp.operator import OperatorChannel
from toolguard.mcp.relay import Options
from toolguard.mcp.session import DRAIN_GRACE, Settings, _Session, _stop_on_signals, guards
from toolguard.mcp.session import run as session_run

PROBE = Path(__file__).resolve().parents[1] / "data" / "mcp" / "probe" / "contract.toml"


@contextmanager
def exited_server_session() -> Iterator[tuple[_Session, int]]:
    """A session whose server has exited, and the read end of its client's stdout."""
    child = subprocess.Popen(
        [sys.executable, "-c", "pass"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    child.wait(30)
    by_tool, listed = guards([load_contract(PROBE)], None, ())
    read, write = os.pipe()
    operator = OperatorChannel(io.StringIO(), "rich")
    try:
        with os.fdopen(write, "wb") as client_out:
            session = _Session(child, by_tool, Options(listed=listed), client_out, operator)
            yield session, read
            session.to_client.release()
    finally:
        os.close(read)
        for stream in (child.stdin, child.stdout, child.stderr):
            if stream is not None:
                stream.close()
        operator.close()


def test_a_server_gone_is_waited_for_while_the_client_lags() -> None:
    """Its output is not read while the client lags: the grace for its end runs from when the
    client caught up, so answers still in the exited server's pipe are not failed as lost.
    """
    with exited_server_session() as (session, read):
        session.to_client.write(b"a" * (3 << 20) + b"\n")  # far behind: the server is unread
        start = 1000.0
        for step in range(5):  # the server has exited; the client reads nothing for long
            session._look(start + DRAIN_GRACE * 2 * step)
        assert not session.relay.done
        os.set_blocking(read, False)
        while session.to_client.full:  # the client catches up
            os.read(read, 1 << 16)
            session.to_client.flush()
        session._look(start + DRAIN_GRACE * 8.5)  # half a grace since it lagged
        assert not session.relay.done
        session._look(start + DRAIN_GRACE * 9.5)  # a grace and a half
        assert session.relay.done


def test_a_client_that_reads_nothing_is_not_waited_for_without_end() -> None:
    """The server has exited and the client stops reading (its stdin open or closed): past a
    grace in which it took nothing, the session ends, as `drain` gives it up; never a hang."""
    with exited_server_session() as (session, _):
        session.to_client.write(b"a" * (3 << 20) + b"\n")  # the client never reads it
        start = 1000.0
        for step in range(80):  # 20 s of looks, four a second
            session._look(start + step / 4)
        assert session.relay.done


def test_once_the_clients_grace_is_over_the_server_is_stopped_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What waits for its input is dropped with it; later looks do not signal a reaped pid."""
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(30)"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # as `lifecycle.start_server` starts it: its group is killed
    )
    stops: list[float] = []
    real_stop = lifecycle.stop_server

    def stop(child: subprocess.Popen[bytes], *, grace: float) -> int | None:
        stops.append(grace)
        return real_stop(child, grace=0)

    monkeypatch.setattr(lifecycle, "stop_server", stop)
    by_tool, listed = guards([load_contract(PROBE)], None, ())
    operator = OperatorChannel(io.StringIO(), "rich")
    try:
        session = _Session(child, by_tool, Options(listed=listed), io.BytesIO(), operator)
        session.to_server.write(b"w" * 300_000 + b"\n")  # the server reads nothing
        session.client_gone()
        assert session.to_server.waiting
        start = session.closed_at or 0.0
        for step in range(1, 6):
            session._look(start + lifecycle.STOP_GRACE + step)
        assert stops == [0]
        assert session.to_server.gone
    finally:
        real_stop(child, grace=0)
        for stream in (child.stdin, child.stdout, child.stderr):
            if stream is not None:
                stream.close()
        operator.close()


_STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@pytest.mark.parametrize("signalled", [False, True], ids=["quiet", "signalled"])
def test_a_signal_that_ended_the_session_leaves_the_next_ones_ignored(signalled: bool) -> None:
    """A second stop on the way out must not end the process (its old handler, or SIG_DFL at
    Python's shutdown); a session no signal ended puts the handlers back."""
    before = {signum: signal.getsignal(signum) for signum in _STOPPING}
    stops: list[None] = []
    try:
        with _stop_on_signals(lambda: stops.append(None)):
            if signalled:
                signal.raise_signal(signal.SIGTERM)
        after = {signum: signal.getsignal(signum) for signum in _STOPPING}
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
    assert len(stops) == int(signalled)
    assert after == (dict.fromkeys(_STOPPING, signal.SIG_IGN) if signalled else before)


def test_a_stop_lost_before_the_session_began_ends_it_and_later_stops_still_reach_it() -> None:
    """A stop whose interrupt was lost (in an import) left the handlers only noting: the
    session ends at once, and a later stop is still its own, not ignored forever."""
    from toolguard import signals  # noqa: PLC0415

    before = {signum: signal.getsignal(signum) for signum in _STOPPING}
    stops: list[None] = []
    try:
        signals.listen()
        with contextlib.suppress(KeyboardInterrupt):  # as importlib's callback drops it
            signals.interrupt(signal.SIGTERM, None)
        with _stop_on_signals(lambda: stops.append(None)):
            assert len(stops) == 1  # ended at once
            signal.raise_signal(signal.SIGINT)
            assert len(stops) == 2  # and a later stop reached the session
    finally:
        signals._ASKED[0] = False
        for signum, handler in before.items():
            signal.signal(signum, handler)


def test_a_stop_just_after_the_server_started_still_stops_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SIGTERM between the server's start and the relay's loop: the session ends (130) and the
    server does not outlive it (no orphan left in its own session, reading nothing)."""
    from toolguard import signals  # noqa: PLC0415

    started: list[subprocess.Popen[bytes]] = []
    real_start = lifecycle.start_server

    def start(argv: Sequence[str], environ: Mapping[str, str]) -> subprocess.Popen[bytes]:
        child = real_start(argv, environ)
        started.append(child)
        signal.raise_signal(signal.SIGTERM)  # as the CLI's set-up handlers would see it
        return child

    monkeypatch.setattr(lifecycle, "start_server", start)
    before = {signum: signal.getsignal(signum) for signum in _STOPPING}
    read, write = os.pipe()
    try:
        signals.listen()  # the CLI's: a stop during set-up unwinds
        with os.fdopen(read, "rb") as client_in:
            status = session_run(
                contracts=[load_contract(PROBE)],
                trail_options=None,
                settings=Settings(),
                command=[sys.executable, "-c", "import time; time.sleep(30)"],
                streams=(client_in, io.BytesIO(), io.StringIO()),
                environ=os.environ,
            )
        assert status == ExitStatus.INTERRUPTED
    except KeyboardInterrupt:
        pass  # the defect: the session never began, so nothing stopped the server
    finally:
        os.close(write)
        signals._ASKED[0] = False
        for signum, handler in before.items():
            signal.signal(signum, handler)
        (child,) = started
        still_running = child.poll() is None
        lifecycle.stop_server(child, grace=0)
        for stream in (child.stdin, child.stdout, child.stderr):
            if stream is not None:
                stream.close()
    assert not still_running


def test_a_raw_copy_has_room_for_the_servers_whole_line_by_default(tmp_path: Path) -> None:
    """Under `mcp` the raw copy is the server's line, which holds the payload (at most
    `max_bytes`) and often its escaped text block too: the default cap leaves room for both,
    within `--max-line-bytes`; an operator's or the contract's cap still wins.
    """
    contract = load_contract(PROBE)
    options = TrailOptions(raw_dir=tmp_path / "raw")

    def cap(trail_options: TrailOptions, max_line_bytes: int) -> int:
        by_tool, _ = guards([contract], trail_options, (), max_line_bytes)
        (guard,) = by_tool.values()
        assert guard.trail is not None
        assert guard.trail.raw is not None
        return guard.trail.raw.max_file_bytes

    max_bytes = contract.limits.max_bytes
    assert cap(options, 16 << 20) == 4 * max_bytes + (64 << 10)
    assert cap(options, 1000) == 1000
    assert cap(TrailOptions(raw_dir=tmp_path / "raw", raw_max_file_bytes=7), 16 << 20) == 7
