"""Persistent mode: request lines on stdin -> `check_bytes` -> one envelope line each, in order.

Agent frameworks that call tools all day pay interpreter start-up and contract compilation
once. Every request is held to what `toolguard check` would enforce: the line itself is read
within a byte cap and parsed by the strict parser, and its `raw` goes through `check_bytes`.
A malformed line is the caller's bug: it gets one fixed `BAD_REQUEST` line that quotes nothing.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import io
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from types import FrameType
from typing import IO, Any, BinaryIO

from toolguard import envelope, report, signals
from toolguard.audit import Source
from toolguard.audit.trail import AuditTrail, TrailOptions
from toolguard.contract import Contract
from toolguard.errors import ContextError, ContractError, ExitStatus, Rejection, UsageError
from toolguard.framing import Lines
from toolguard.limits import Limits
from toolguard.line_writer import LineWriter, failure, lost
from toolguard.operator_channel import LINGER, OperatorChannel
from toolguard.parse import parse
from toolguard.pipeline import check_bytes, require_context
from toolguard.polled_input import polled
from toolguard.request import Request, is_request_id, make_request
from toolguard.result import Diagnostics, internal, redacted, trace

MEMBERS = frozenset({"contract", "request_id", "context", "now", "raw", "encoding"})
ENCODINGS = ("text", "base64")
# NOTE: 8x covers the worst honest encoding of max_bytes (a `\u00XX` escape is 6 bytes per
# byte of text; base64 is 4/3), plus room for the other members.
LINE_FACTOR = 8
LINE_SLACK = 65_536
_STDIN = Source("stdin")


@dataclass(frozen=True, slots=True)
class Answer:
    """One request's result: the line for stdout, and what the operator should see on stderr."""

    line: bytes
    diagnostics: Diagnostics | None = None  # None for a bad request: nothing was checked
    refused: str | None = None  # why the line is a bad request
    warning: str | None = None  # the audit trail was not written (`--audit-optional`)


class _BadRequest(Exception):
    def __init__(self, why: str, request_id: str | None) -> None:
        super().__init__(why)
        self.why = why
        self.request_id = request_id


class Server:
    """Contracts loaded once, answering one request line at a time (`handle`, `serve`).

    A request names its contract by tool name or by path; with one contract it may omit it.
    `trail_options=None` records nothing (like `toolguard.check`); the CLI always passes its
    flags, so the contracts' `[audit]` tables apply there as they do for `check`.
    """

    def __init__(
        self, contracts: Sequence[Contract], trail_options: TrailOptions | None = None
    ) -> None:
        if not contracts:
            raise UsageError("serve needs at least one contract")
        self.contracts = tuple(contracts)
        self._by_name: dict[str, Contract] = {}
        for contract in self.contracts:
            for name in dict.fromkeys((contract.tool, str(contract.path))):
                if self._by_name.setdefault(name, contract) is not contract:
                    raise ContractError(
                        f"ambiguous: two contracts answer to the name {name!r}",
                        source=str(contract.path),
                    )
        self._trails = {
            contract.tool: AuditTrail.build(trail_options, contract)
            for contract in self.contracts
            if trail_options is not None
        }
        self.line_cap = LINE_FACTOR * max(c.limits.max_bytes for c in self.contracts) + LINE_SLACK
        self._limits = Limits(max_bytes=self.line_cap, max_depth=8, max_string_length=self.line_cap)

    def handle(self, line: bytes) -> Answer:
        """Answer one request line (its newline optional); never raises for the line's content."""
        try:
            contract, raw, request = self._request(line)
        except _BadRequest as exc:
            return Answer(_bad_request(exc.request_id), refused=exc.why)
        except Exception:  # noqa: BLE001 - a bug must not desynchronise the caller
            why = f"internal error reading the request: {trace()}"
            return Answer(_bad_request(None), refused=why)
        warning = None
        try:
            outcome = check_bytes(contract, raw, request)
            trail = self._trails.get(contract.tool)
            if trail is not None:
                outcome, warning = trail.seal(
                    outcome, contract, request, command="serve", source=_STDIN
                )
        except Exception:  # noqa: BLE001 - the caller still gets an envelope
            outcome = internal(contract, request, f"internal error: {trace()}")
        line_out = envelope.dumps(outcome.envelope).encode("ascii")
        # NOTE: stderr is the operator's: no secret context value in clear (the record redacts
        # its own copy as it is built).
        outcome = redacted(outcome, request, contract.audit.secret_context)
        return Answer(line_out, outcome.diagnostics, warning=warning)

    def serve(
        self,
        stdin: BinaryIO,
        stdout: BinaryIO,
        stderr: IO[str] | None,
        mode: str = "json",
        busy_poll_us: int = 0,
    ) -> ExitStatus:
        """Answer every line of `stdin` in order until EOF or SIGTERM/SIGINT/SIGHUP.

        0 at EOF or on a signal (an answer being computed is written first, while the caller
        takes it: given up after `LINGER` without progress); 4 if stdout was closed. Blank
        lines are skipped; an over-long line is refused as soon as its first `line_cap + 1`
        bytes are read, and its rest is dropped as it comes (`framing.Lines`).
        With `busy_poll_us`, a pipe or socket `stdin` nothing has read yet is polled that long
        after each answer before the process sleeps (`polled_input`; the command's default is
        100, a library caller opts in).
        """
        read = polled(stdin, busy_poll_us)
        out = LineWriter(stdout)
        # NOTE: diagnostics go through a writer thread: a caller that never reads stderr
        # must not block the answers (see operator_channel.py).
        channel = OperatorChannel(stderr, farewell=_farewell(mode), gap=_farewell(mode, gap=True))
        with _stop_on_signals() as stop, channel:

            def respond(line: bytes, _over_long: bool) -> None:
                if stop.requested:
                    raise _Stopped  # lines read with the one being answered: not answered
                answer = self.handle(line)
                try:
                    written = out.write(answer.line, stop.wait)
                except (OSError, ValueError) as exc:
                    raise _StdoutClosed(failure(exc)) from None
                if not written:
                    raise _Stopped  # stopped, and the caller took nothing of it for LINGER
                _tell_operator(answer, mode, channel)

            lines = Lines(self.line_cap, respond)
            try:
                while True:
                    with stop.reading():
                        chunk = read()
                    if not chunk:
                        lines.end()
                        break
                    lines.feed(chunk)
            except _Stopped:
                pass
            except OSError as exc:
                why = f"reading stdin failed: {exc}"
                report.error(why, ExitStatus.INTERNAL, mode, channel.stream)
                return ExitStatus.INTERNAL
            except _StdoutClosed as exc:
                why = f"{lost(exc.why)}; no more answers can be given"
                report.error(why, ExitStatus.INTERNAL, mode, channel.stream)
                return ExitStatus.INTERNAL
        return ExitStatus.SUCCESS

    def _request(self, line: bytes) -> tuple[Contract, bytes, Request]:
        body = line.removesuffix(b"\n")
        if len(body) > self.line_cap:
            raise _BadRequest(f"request line is longer than {self.line_cap} bytes", None)
        try:
            document = parse(body, self._limits)
        except Rejection as exc:
            raise _BadRequest(f"request line is not strict JSON: {exc.message}", None) from None
        if not isinstance(document, dict):
            raise _BadRequest("request line must be a JSON object", None)
        given = document.get("request_id")
        try:
            if not document.keys() <= MEMBERS:
                unknown = sorted(set(document) - MEMBERS)
                raise UsageError(f"unknown request member(s): {', '.join(unknown)}")
            if None in document.values():
                nulls = sorted(key for key, value in document.items() if value is None)
                raise UsageError(f"request member(s) may be omitted but not null: {nulls}")
            contract = self._contract(document.get("contract"))
            raw = _raw(document.get("raw"), document.get("encoding", "text"))
            request = make_request(given, document.get("context"), document.get("now"))
            require_context(contract, request)
        except UsageError as exc:
            echo = given if isinstance(given, str) and is_request_id(given) else None
            hint = ' (give it in the request\'s "context")' if isinstance(exc, ContextError) else ""
            raise _BadRequest(f"{exc}{hint}", echo) from None
        return contract, raw, request

    def _contract(self, name: Any) -> Contract:
        if name is None:
            if len(self.contracts) == 1:
                return self.contracts[0]
            raise UsageError("request names no contract, and several are loaded")
        if not isinstance(name, str):
            raise UsageError("contract must be a string: a tool name or a contract path")
        found = self._by_name.get(name) or self._by_name.get(str(PurePath(name)))
        if found is None:
            raise UsageError(f"unknown contract {name!r}")
        return found


def _raw(value: Any, encoding: Any) -> bytes:
    if not isinstance(value, str):
        raise UsageError("raw is required and must be a string")
    if encoding not in ENCODINGS:
        raise UsageError(f"encoding must be one of {', '.join(ENCODINGS)}")
    try:
        if encoding == "base64":
            return _base64(value)
        return value.encode("utf-8")
    except (binascii.Error, ValueError) as exc:  # UnicodeEncodeError is a ValueError
        raise UsageError(f"raw is not valid {encoding}: {exc}") from None


def _base64(text: str) -> bytes:
    """The bytes `text` encodes in canonical base64 (RFC 4648 §4, padded), and no other text.

    NOTE: `b64decode` ignores the unused bits of the last character (`IB==` reads as `IA==`
    does): one response would have many spellings. Only the one `b64encode` writes is read.
    """
    data = base64.b64decode(text, validate=True)
    if base64.b64encode(data) != text.encode("ascii"):
        raise ValueError("non-canonical encoding: unused bits are not zero")
    return data


def _bad_request(request_id: str | None) -> bytes:
    return envelope.dumps(envelope.bad_request(request_id)).encode("ascii")


def _tell_operator(answer: Answer, mode: str, channel: OperatorChannel) -> None:
    stderr = channel.stream
    if answer.refused is not None:
        report.error(f"bad request: {answer.refused}", ExitStatus.USAGE, mode, stderr)
    if answer.diagnostics is not None:
        report.render_to(answer.diagnostics, mode, stderr, channel.send)
        if answer.warning is not None:
            report.error(answer.warning, answer.diagnostics.exit_status, mode, stderr)


def _farewell(mode: str, *, gap: bool = False) -> Callable[[int], str]:
    """The closing line of the operator channel when diagnostics were dropped.

    `gap`: the line put where they were dropped instead, once stderr is read again.
    """

    def text(count: int) -> str:
        buffer = io.StringIO()
        report.dropped(count, mode, buffer, gap=gap)
        return buffer.getvalue()

    return text


class _Stopped(BaseException):
    """Raised by the signal handler to leave a blocking read (never while answering)."""


class _StdoutClosed(Exception):
    """Stdout cannot be written (closed, or `why` it failed): no answer can be given any more."""

    def __init__(self, why: str | None) -> None:
        super().__init__(why)
        self.why = why


class _Stop:
    """SIGTERM/SIGINT/SIGHUP: stop at once while waiting for input, else after the current answer.

    `with stop.reading():` around a blocking read. NOTE: a plain context manager, not a
    generator: it is entered once per request line. `wait` waits for room for an answer.
    """

    def __init__(self) -> None:
        self.requested = False
        self._reading = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.requested = True
        if self._reading:
            raise _Stopped

    def reading(self) -> _Stop:
        return self

    def wait(self, room: Callable[[int], bool]) -> bool:
        """Wait for stdout to have room: as long as it takes, until a stop; then `LINGER` more.

        NOTE: a stop interrupts the wait alone, which has written nothing: the answer is then
        still written while the caller takes it, but a caller that never reads stdout must not
        hold a stopping server (False: give the answer up).
        """
        if not self.requested:
            try:
                with self:
                    return room(-1)
            except _Stopped:
                pass
        return room(int(LINGER * 1000))

    def __enter__(self) -> None:
        if self.requested:
            raise _Stopped
        self._reading = True

    def __exit__(self, *exc_info: object) -> None:
        self._reading = False


@contextlib.contextmanager
def _stop_on_signals() -> Iterator[_Stop]:
    """Install the handlers for the loop's lifetime (only the main thread may handle signals).

    Once a signal stopped the loop, the three stay ignored: the process is on its way out.
    """
    stop = _Stop()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = signals.handle(stop)
    if signals.asked():  # a stop whose interrupt was lost before the loop began
        stop.requested = True
    try:
        yield stop
    finally:
        signals.quiet(previous, stop.requested)
