"""One `toolguard mcp` session: guards from contracts, the server, the relay, the exit status.

The relay's loop runs until the client or the server goes (or a signal comes); the server is
then stopped and its status read.

Set-up refuses what cannot be guarded before the server starts: two contracts for one server
tool, a contract whose reader cannot read what its `[mcp] payload` names, a contract
description that hides characters, an `--allow-unguarded` name a contract also guards.
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, BinaryIO

from toolguard import signals
from toolguard.audit.trail import AuditTrail, TrailOptions
from toolguard.contract import Contract
from toolguard.contract.advertised import advertised_schema
from toolguard.errors import ContractError, ExitStatus, UsageError
from toolguard.framing import Lines
from toolguard.line_writer import lost
from toolguard.mcp import lifecycle
from toolguard.mcp.calls import Guard, reading
from toolguard.mcp.channels import ALL, CHANNEL_BY_NAME, Channels
from toolguard.mcp.listing import Listed
from toolguard.mcp.loop import Loop
from toolguard.mcp.operator import OperatorChannel, relay_server_stderr
from toolguard.mcp.relay import CALL_TIMEOUT, MAX_LINE_BYTES, Options, Relay
from toolguard.mcp.wire import Output
from toolguard.result import trace

DRAIN_GRACE = 0.5  # seconds for the server's output to end once it has exited
_TICK = 0.1


@dataclass(frozen=True, slots=True)
class Settings:
    """The flags of `toolguard mcp`, besides the contracts and the audit trail."""

    call_timeout: float = CALL_TIMEOUT
    max_line_bytes: int = MAX_LINE_BYTES
    allow_unguarded: tuple[str, ...] = ()
    shut_channels: tuple[str, ...] = ()  # channels besides tool results shut (`channels.py`)
    pass_instructions: bool = False
    mode: str = "rich"
    busy_poll_us: int = 0  # how long the relay polls for an answer after relaying a line


def guards(
    contracts: Sequence[Contract],
    trail_options: TrailOptions | None,
    allow_unguarded: Sequence[str],
    max_line_bytes: int = MAX_LINE_BYTES,
) -> tuple[dict[str, Guard], dict[str, Listed]]:
    """Each guarded server tool's guard and listing, keyed by its name on the server."""
    by_tool: dict[str, Guard] = {}
    listed: dict[str, Listed] = {}
    for contract in contracts:
        name = contract.mcp.server_tool(contract.tool)
        if name in by_tool:
            raise ContractError(
                f"two contracts guard the server tool {name!r}: "
                f"{by_tool[name].contract.path} and {contract.path}",
                source=str(contract.path),
            )
        read = reading(contract)
        trail = None
        if trail_options is not None:
            raw_max_file = _raw_line(contract, max_line_bytes)
            trail = AuditTrail.build(trail_options, contract, raw_max_file=raw_max_file)
        by_tool[name] = Guard(read, trail)
        listed[name] = Listed(advertised_schema(contract.envelope_schema), contract.mcp.description)
    if both := sorted(set(allow_unguarded) & set(by_tool)):
        raise UsageError(f"--allow-unguarded names a tool a contract guards: {', '.join(both)}")
    return by_tool, listed


def _raw_line(contract: Contract, max_line_bytes: int) -> int:
    """The default cap on a raw copy, which under `mcp` is the server's whole line.

    A line holds the payload (at most `max_bytes` as written) and, as servers commonly send it,
    the same JSON again as a text block, escaped (each byte at most three), plus the JSON-RPC
    wrapper: the contract's `max_bytes` alone would keep only the digest of most rejected calls.
    """
    return min(max_line_bytes, 4 * contract.limits.max_bytes + (64 << 10))


def shut_channels(names: Sequence[str]) -> Channels:
    """The channels `--shut-channel` shuts; a name that is none is a usage error."""
    try:
        return Channels.named(names)
    except ValueError as exc:
        known = ", ".join((*CHANNEL_BY_NAME, ALL))
        raise UsageError(f"--shut-channel: {exc} (channels: {known})") from None


def run(  # noqa: PLR0913 - the session's parts, all keyword-only
    *,
    contracts: Sequence[Contract],
    trail_options: TrailOptions | None,
    settings: Settings,
    command: Sequence[str],
    streams: tuple[BinaryIO, BinaryIO, IO[str] | None],
    environ: Mapping[str, str],
) -> ExitStatus:
    """Relay between the client on `streams` (stdin, stdout, stderr) and the server `command`."""
    by_tool, listed = guards(
        contracts, trail_options, settings.allow_unguarded, settings.max_line_bytes
    )
    channels = shut_channels(settings.shut_channels)
    client_in, client_out, stderr = streams
    operator = OperatorChannel(stderr, settings.mode)
    try:
        for name in dict.fromkeys(settings.allow_unguarded):
            operator.notice("unguarded", f"--allow-unguarded {name}: its results are not checked")
        options = Options(
            call_timeout=settings.call_timeout,
            max_line_bytes=settings.max_line_bytes,
            allow_unguarded=frozenset(settings.allow_unguarded),
            pass_instructions=settings.pass_instructions,
            listed=listed,
            channels=channels,
        )
        # NOTE: the session's handlers before the server starts: a stop in between must not
        # unwind past a server nothing would then stop (it lives in its own session).
        stop = _Stop()
        with _stop_on_signals(stop):
            try:
                child = lifecycle.start_server(command, environ)
            except (OSError, ValueError) as exc:
                why = (exc.strerror if isinstance(exc, OSError) else None) or str(exc)
                operator.notice("server_not_started", f"cannot start the server: {why}")
                return ExitStatus.INTERRUPTED if stop.asked else ExitStatus.SERVER_FAILED
            try:
                session = _Session(child, by_tool, options, client_out, operator)
            except BaseException:
                lifecycle.stop_server(child, grace=0)
                raise
            stop.reach(session)
            return session.run(client_in, settings.busy_poll_us)
    finally:
        operator.close()


class _Stop:
    """What a stopping signal ends: the session once it exists (one asked before, at once)."""

    def __init__(self) -> None:
        self.asked = False
        self._session: _Session | None = None

    def __call__(self) -> None:
        self.asked = True
        if self._session is not None:
            self._session.signalled()

    def reach(self, session: _Session) -> None:
        """From now on a stop ends `session`; a stop that came already ends it now."""
        self._session = session
        if self.asked:
            session.signalled()


class _Session:
    """The relay's loop around one server process, and how the session ends."""

    def __init__(
        self,
        child: subprocess.Popen[bytes],
        by_tool: dict[str, Guard],
        options: Options,
        client_out: BinaryIO,
        operator: OperatorChannel,
    ) -> None:
        assert child.stdin is not None
        self.child = child
        self.operator = operator
        self.cap = options.max_line_bytes
        self.to_server = Output(child.stdin, self.server_not_reading, ours=True)
        self.not_reading = False  # the server stopped reading its input
        self.closed_at: float | None = None
        self.exited_at: float | None = None
        self.stopping = False  # the client's grace is over: the server was told to go
        self.client_took: tuple[int, float] | None = None  # (`to_client.taken`, seen since)
        self.interrupted = False
        self.to_client = Output(client_out, self.client_not_reading)
        argv = tuple(str(arg) for arg in child.args)  # type: ignore[union-attr] # a list here
        self.relay = Relay(
            by_tool,
            options,
            server=argv,
            operator=operator,
            client=self.to_client,
            to_server=self.to_server,
        )

    def signalled(self) -> None:
        """SIGTERM, SIGINT or SIGHUP: the session ends now, whatever waits."""
        self.interrupted = True
        self.relay.end("signal")

    def server_not_reading(self) -> None:
        """The server stopped reading its input (a broken pipe): no request reaches it now.

        Its session is over as if it had exited (the SDK, talking to it directly, ends it so
        too): what it writes is still read for `DRAIN_GRACE`, then the calls in flight fail.
        """
        self.not_reading = True
        self.operator.notice("server_not_reading", "the server stopped reading its input")

    def client_not_reading(self) -> None:
        """Stdout cannot be written: the client left, or (said) it fails, as on a full disk.

        Either ends the session as the client leaving does; a failure is told, since no
        client left and the answers went nowhere.
        """
        if self.to_client.failure is not None:
            why = f"{lost(self.to_client.failure)}; no more answers can be given"
            self.operator.notice("stdout_failed", why)
        self.client_gone()

    def client_gone(self) -> None:
        """The client closed its side (or stopped reading): close the server's input."""
        self.relay.end("client")
        if self.closed_at is None:
            self.closed_at = time.monotonic()
        self.to_server.close()  # the spec's shutdown: the server sees the end of its input

    def run(self, client_in: BinaryIO, busy_poll_us: int = 0) -> ExitStatus:
        """Relay until the session ends; stop the server; the exit status.

        One thread reads both sides, judges and writes (`loop.py`); the server's stderr has a
        thread of its own, the operator's channel its writer. With `busy_poll_us`, the loop
        polls that long after relaying a line before it sleeps.
        """
        child, relay = self.child, self.relay
        server_out, server_err = child.stdout, child.stderr
        assert server_out is not None
        assert server_err is not None
        stderr = threading.Thread(
            target=relay_server_stderr, args=(server_err, self.operator), daemon=True
        )
        stderr.start()
        to_client, to_server = self.to_client, self.to_server
        loop = Loop(busy_poll_us)
        loop.read(
            client_in,
            Lines(self.cap, _safe(relay.from_client, self.operator)),
            self.client_gone,
            lambda: to_server.full or to_client.far_behind,
        )
        loop.read(
            server_out,
            Lines(self.cap, _safe(relay.from_server, self.operator)),
            relay.server_gone,
            lambda: to_client.full,
            ours=True,
        )
        loop.write(to_client)
        loop.write(to_server)
        try:
            loop.run(lambda: relay.done, self._look)
            # NOTE: what the client has not read yet, while it reads: a client may close its
            # side, then read the answers still due (one that reads nothing is given up on).
            loop.drain(to_client, lifecycle.STOP_GRACE, lambda: self.interrupted)
        finally:
            # NOTE: no grace here: the server has exited, or a signal or the client's grace
            # asks for it to go now (a client that signals toolguard soon kills it for good),
            # or a toolguard bug ends the session: the server never outlives it.
            returncode = lifecycle.stop_server(child, grace=0)
            to_client.release()
            loop.close()
        stderr.join(DRAIN_GRACE)  # the last words on its stderr (a crash's message)
        return self._status(returncode)

    def _look(self, now: float) -> float:
        """The session's clock (calls past their deadline, the server's exit); when to look next."""
        grace_over = self.closed_at is not None and now - self.closed_at > lifecycle.STOP_GRACE
        if grace_over and not self.stopping:
            self.stopping = True
            self.to_server.close(drop=True)
            lifecycle.stop_server(self.child, grace=0)  # then its output ends: `server_gone`
        if self.exited_at is None and (self.not_reading or self.child.poll() is not None):
            self.exited_at = now
        if self.exited_at is not None and self._client_lags(now):
            # NOTE: its output is not read while the client lags: what it wrote is not lost.
            self.exited_at = now
        if self.exited_at is not None and now - self.exited_at > DRAIN_GRACE:
            self.relay.server_gone()  # NOTE: something that left its group holds its output
        upcoming = self.relay.expire(now)
        return now + _TICK if upcoming is None else min(now + _TICK, upcoming)

    def _client_lags(self, now: float) -> bool:
        """Whether the client is behind but still reading: it took something within the grace.

        NOTE: one that takes nothing for `STOP_GRACE` is given up on, as `drain` gives it up:
        else a client that holds its side open without reading would keep toolguard for ever.
        """
        taken = self.to_client.taken
        if self.client_took is None or self.client_took[0] != taken:
            self.client_took = (taken, now)
        return self.to_client.full and now - self.client_took[1] <= lifecycle.STOP_GRACE

    def _status(self, returncode: int | None) -> ExitStatus:
        if self.interrupted or self.relay.ended_by == "signal":
            return ExitStatus.INTERRUPTED
        if self.to_client.failure is not None:  # no client left: the answers went nowhere
            return ExitStatus.INTERNAL
        if self.relay.ended_by == "client":
            return ExitStatus.SUCCESS
        status = lifecycle.exit_status(returncode)
        if status != ExitStatus.SUCCESS:
            how = (
                f"signal {-returncode}" if returncode and returncode < 0 else f"status {returncode}"
            )
            self.operator.notice("server_exited", f"the server ended the session ({how})")
        return status


def _safe(
    handle: Callable[[bytes, bool], None], operator: OperatorChannel
) -> Callable[[bytes, bool], None]:
    """`handle`, where a toolguard bug drops the line (and says so) instead of the session."""

    def safe(line: bytes, over_long: bool) -> None:
        try:
            handle(line, over_long)
        except Exception:  # noqa: BLE001 - one line lost, never the session
            operator.notice("internal_error", f"internal error; a line was dropped: {trace()}")

    return safe


@contextlib.contextmanager
def _stop_on_signals(stop: Callable[[], None]) -> Iterator[None]:
    """SIGTERM, SIGINT and SIGHUP end the session (only the main thread may handle signals).

    Once one did, the three stay ignored: the process is on its way out.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    stopped = [False]

    def stopping(signum: int, frame: object) -> None:
        stopped[0] = True
        stop()

    previous = signals.handle(stopping)
    if signals.asked():  # a stop whose interrupt was lost before the session began
        stopping(0, None)
    try:
        yield
    finally:
        signals.quiet(previous, stopped[0])
