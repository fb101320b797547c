"""Answering from the command line, and the one place exceptions become exit statuses.

`check` and `run` load the contract, build the request, produce an outcome, record it and
answer it; every other command runs its steps through `guard`. Set-up errors exit before any
envelope exists (usage 2, contract 3, internal 4, interrupted 130); once the request is known,
an interrupt or a toolguard bug still gives the agent a failure envelope.
"""

from __future__ import annotations

import io
import os
import sys

from toolguard import envelope, operator_line, report, result, signals
from toolguard.audit import Source
from toolguard.audit.trail import AuditTrail
from toolguard.cli.flags import CHECK, one_stdin, stderr_mode, trail_options
from toolguard.contract import load_contract
from toolguard.errors import (
    ContextError,
    ContractError,
    ExitStatus,
    ToolguardError,
    UsageError,
    broken_install,
    operator_text,
)
from toolguard.files import absolute_text, is_stdin, open_data, path_text
from toolguard.pipeline import RunInterrupted, check_stream, run_upstream
from toolguard.request import (
    make_request,
    parse_context_json,
    parse_context_pairs,
    read_context_file,
)
from toolguard.standins import suppress

CONTEXT_FLAGS = "give it with --context K=V, --context-json K=JSON or --context-file FILE"

TYPE_CHECKING = False  # NOTE: a check imports neither `typing` nor `pathlib`
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence
    from contextlib import AbstractContextManager
    from pathlib import Path
    from typing import IO, Any, BinaryIO, NoReturn, TypeVar

    from toolguard.audit import Command
    from toolguard.contract import Contract
    from toolguard.request import Request
    from toolguard.result import Outcome

    T = TypeVar("T")


def check(contract: Path | str, flags: Mapping[str, Any]) -> NoReturn:
    """`toolguard check`: one response, one envelope on stdout, then exit.

    Paths come as `Path`s from click, as text from the click-free parser (`fast.py`).
    """
    input_file: Path | str | None = flags["input_file"]
    reads_stdin = input_file is None or is_stdin(input_file)
    implicit = () if input_file else ("the response (no --input)",)
    guard(lambda: one_stdin(CHECK, flags, *implicit), flags["diagnostics"])

    def produce(loaded: Contract, request: Request) -> Outcome:
        with open_input(input_file) as stream:
            return check_stream(loaded, stream, request)

    # NOTE: absolute, as the contract's path is: a record is read later, from another folder.
    source = Source("stdin") if reads_stdin else Source("file", absolute_text(input_file or ""))
    _respond(contract, flags, "check", source, produce)


def run(contract: Path | str, command: tuple[str, ...], flags: Mapping[str, Any]) -> NoReturn:
    """`toolguard run`: run COMMAND, check its output, one envelope on stdout, then exit."""

    def produce(loaded: Contract, request: Request) -> Outcome:
        return run_upstream(
            loaded, command, request, timeout=flags["timeout"], stdin=flags["stdin_from"]
        )

    _respond(contract, flags, "run", Source("command"), produce, upstream=command)


def _respond(  # noqa: PLR0913 - what `check` and `run` each decide, passed once
    contract: Path | str,
    flags: Mapping[str, Any],
    command: Command,
    source: Source,
    produce: Callable[[Contract, Request], Outcome],
    *,
    upstream: tuple[str, ...] | None = None,
) -> NoReturn:
    """Load, build the request, `produce` the outcome, then record and answer it."""
    mode = flags["diagnostics"]
    signals.handle(signals.interrupt)
    loaded = guard(lambda: load_contract(contract), mode)
    request = guard(lambda: build_request(flags), mode)
    audit = guard(lambda: AuditTrail.build(trail_options(flags), loaded), mode)
    try:
        outcome = produce(loaded, request)
    except ContextError as exc:
        fail(UsageError(f"{exc} ({CONTEXT_FLAGS})"), mode)
    except ToolguardError as exc:
        fail(exc, mode)
    except RunInterrupted as stopped:
        outcome = result.interrupted(
            loaded,
            request,
            stopped.why,
            upstream,
            started=stopped.started,
            attempts=tuple(stopped.attempts),
            responses=tuple(stopped.responses),
        )
    except KeyboardInterrupt:
        why = "interrupted before the response was checked"
        outcome = result.interrupted(loaded, request, why, upstream)
    except Exception:  # noqa: BLE001 - the agent still gets an envelope
        why = f"internal error: {result.trace()}"
        outcome = result.internal(loaded, request, why, upstream=upstream)
    _finish(outcome, loaded, request, audit, (command, source), mode)


def mcp(command: tuple[str, ...], flags: Mapping[str, Any]) -> NoReturn:
    """`toolguard mcp`: relay between the MCP client on stdio and the server COMMAND."""
    from toolguard.mcp import session  # noqa: PLC0415 - only `mcp` needs it

    mode = flags["diagnostics"]
    if not flags["contracts"]:
        fail(UsageError("mcp needs at least one --contract"), mode)
    need_stdio("mcp", mode)
    contracts = [guard(_loader(path), mode) for path in flags["contracts"]]
    settings = session.Settings(
        call_timeout=flags["call_timeout"],
        max_line_bytes=flags["max_line_bytes"],
        allow_unguarded=tuple(flags["allow_unguarded"]),
        shut_channels=tuple(flags["shut_channels"]),
        pass_instructions=flags["pass_instructions"],
        mode=mode,
        busy_poll_us=flags["busy_poll_us"],
    )
    status = guard(
        lambda: session.run(
            contracts=contracts,
            trail_options=trail_options(flags),
            settings=settings,
            command=command,
            streams=(sys.stdin.buffer, sys.stdout.buffer, sys.stderr),
            environ=os.environ,
        ),
        mode,
    )
    # NOTE: the server's stderr reader and the operator's writer may still be blocked in a
    # read or a write; interpreter shutdown would wait on them. Everything is written (or
    # given up on): leave at once.
    leave(status)


def _loader(path: Path | str) -> Callable[[], Contract]:
    return lambda: load_contract(path)


def build_request(flags: Mapping[str, Any]) -> Request:
    """The request from its flags: `--context` and `--context-json` over `--context-file`."""
    context_file: Path | str | None = flags["context_file"]
    from_file = read_context_file(context_file) if context_file else {}
    typed = parse_context_json(flags["json_pairs"], from_file)
    context = parse_context_pairs(flags["pairs"], typed)
    return make_request(flags["request_id"], context, flags["now"])


_FROM_TERMINAL = (
    "reading the response from the terminal: type or paste it, then Ctrl-D"
    " (or pipe it in, or pass --input FILE)"
)


def open_input(input_file: Path | str | None) -> AbstractContextManager[BinaryIO]:
    """Where the response is read from: `--input FILE`, else stdin (`--input -` too).

    A file is a data file (`open_data`): a named pipe nobody writes to reads as empty. A
    terminal as stdin gets a warning first: a check typed by hand would otherwise wait in
    silence for a response nobody meant to type.
    """
    if input_file is None or is_stdin(input_file):
        if sys.stdin is None:
            raise UsageError("stdin is closed; pass the response with --input FILE")
        if sys.stdin.isatty():
            operator_line.write(operator_line.warning(_FROM_TERMINAL))
        return sys.stdin.buffer
    try:
        return open_data(input_file)
    except OSError as exc:
        raise UsageError(f"cannot open --input {path_text(input_file)}: {exc.strerror}") from None


def guard(build: Callable[[], T], mode: str | None = None) -> T:
    """Run a set-up step; its errors end the process before any envelope exists.

    `mode` None: the form the command line chose for stderr (`operator_line`), as for `fail`.
    """
    try:
        built = build()
        signals.still_running()  # a stop its imports may have lost
    except ToolguardError as exc:
        fail(exc, mode)
    except KeyboardInterrupt:
        _interrupted_in_set_up(mode)
    except Exception as exc:  # noqa: BLE001 - a bug still ends with one clear line
        _unexpected(exc, mode)
    return built


def fail(exc: ToolguardError, mode: str | None = None) -> NoReturn:
    """Report an invocation error and exit with its status (nothing on stdout).

    A contract with several problems gets one line (one JSON record) per problem.
    """
    for line in exc.lines() if isinstance(exc, ContractError) else [operator_text(exc)]:
        report.error(line, exc.exit_status, mode)
    sys.exit(exc.exit_status)


def last_resort(exc: BaseException, arguments: Sequence[str]) -> NoReturn:
    """The entry point's catch-all: one line on stderr and a status from the table, always.

    Reached only by what no command handled: an error toolguard raised on purpose keeps its
    status, Ctrl-C during set-up is 130, anything else is a bug (4), named in one line.
    """
    if isinstance(exc, OutputClosed):
        stdout_closed(arguments, exc.why)
    _settle_stdout()
    mode = stderr_mode(arguments)
    if isinstance(exc, ToolguardError):
        fail(exc, mode)
    if isinstance(exc, KeyboardInterrupt):
        _interrupted_in_set_up(mode)
    _unexpected(exc, mode)


def _unexpected(exc: BaseException, mode: str | None) -> NoReturn:
    """An exception nothing expected, in one line, exit 4: a broken install says what to install.

    A missing dependency (`python -S`, a venv without it) is no toolguard bug and needs no
    trace: `broken_install` names the package, as for an envelope (`result.trace`).
    """
    broken = broken_install(exc)
    if broken is not None:
        fail(broken, mode)
    report.error(f"internal error: {described(exc)}", ExitStatus.INTERNAL, mode)
    sys.exit(ExitStatus.INTERNAL)


def _interrupted_in_set_up(mode: str | None) -> NoReturn:
    """Exit 130 with one line, every stopping signal ignored from now on.

    A stop after the first must not interrupt the line, nor end the process by SIG_DFL, which
    Python's shutdown puts back for a handler.
    """
    signals.ignore()
    report.error("interrupted during set-up", ExitStatus.INTERRUPTED, mode)
    sys.exit(ExitStatus.INTERRUPTED)


class OutputClosed(Exception):
    """stdout cannot take what a command writes: closed, its reader left, or (`why`) failing."""

    def __init__(self, why: str | None = None) -> None:
        super().__init__(why)
        self.why = why  # None: closed or broken; else what writing to it met (a full disk)


def _failure(exc: BaseException) -> str | None:
    """None if stdout was closed or its reader left; else what writing to it met."""
    if isinstance(exc, OutputClosed):
        return exc.why
    from toolguard.line_writer import failure  # noqa: PLC0415 - only once stdout failed

    return failure(exc)


def watch_stdout() -> None:
    """Make `sys.stdout` raise `OutputClosed` when it is closed or broken (`_Watched`).

    A character its encoding cannot spell (`PYTHONIOENCODING=ascii`, a Latin-1 locale, and
    a file name or a record's text holding one) is written as a backslash escape, as stderr
    writes it, rather than ending a report half written with an internal error (exit 4).
    """
    with suppress(AttributeError, ValueError, OSError):  # closed, or not a text stream
        sys.stdout.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    sys.stdout = _Watched(sys.stdout)


def need_stdio(command: str, mode: str) -> None:
    """End `serve` or `mcp` (they talk on stdin and stdout) if one was closed from the start.

    Stdin (`<&-`) as `check` says it (2); stdout (`>&-`) as every command does (4, `stdout was
    closed before anything was written`).
    """
    if sys.stdin is None:
        fail(UsageError(f"{command} needs stdin open: it reads its requests there"), mode)
    if not stdout_open():
        _stdout_lost(None, "anything", mode)


def stdout_open() -> bool:
    """Whether the process was given a stdout at all (watched or not)."""
    stream = sys.stdout
    return (stream.stream if isinstance(stream, _Watched) else stream) is not None


class _Watched:
    """`sys.stdout` for the commands click runs: a closed or broken one raises `OutputClosed`.

    click turns a broken pipe raised by a command into a silent exit 1, the status of a failed
    fixture or a lint finding (`toolguard test examples/ | head -1` would read as a failure),
    and a stdout closed from the start (`>&-`) is None, which the report writers cannot use
    and click's `echo` silently skips. `OutputClosed` is no `OSError`: it passes click by, and
    `main` says what happened and exits 4 (`emit`, for an envelope, says it its own way): a
    closed stdout, or what the system said (a full disk). An encoding error is a bug, raised
    as it is (`watch_stdout` has the stream escape what it cannot encode). Everything else is
    the stream's own.
    """

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        if self.stream is None:
            raise OutputClosed
        try:
            written: int = self.stream.write(text)
        except (OSError, ValueError) as exc:
            raise self._closed(exc) from None
        return written

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self.stream is None:
            return  # nothing was written
        try:
            self.stream.flush()
        except (OSError, ValueError) as exc:
            raise self._closed(exc) from None

    def isatty(self) -> bool:
        try:
            return bool(self.stream.isatty())
        except (OSError, ValueError, AttributeError):
            return False

    def fileno(self) -> int:
        if self.stream is None:
            raise io.UnsupportedOperation("stdout is closed")
        fd: int = self.stream.fileno()
        return fd

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)

    def _closed(self, exc: OSError | ValueError) -> Exception:
        """`OutputClosed` for an `OSError` or a closed stream; `exc` itself (a bug) otherwise."""
        if isinstance(exc, OSError):
            return OutputClosed(_failure(exc))
        if not isinstance(exc, UnicodeError) and self.stream.closed is True:
            return OutputClosed()  # "I/O operation on closed file"
        return exc


def flush_stdout(arguments: Sequence[str]) -> None:
    """Flush stdout before the process ends; if nobody can read it any more, exit 4.

    Left to the interpreter, a closed pipe would print "Exception ignored ... BrokenPipeError"
    at shutdown and exit 120, a status the table does not have.
    """
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except (OSError, ValueError, OutputClosed) as exc:
        stdout_closed(arguments, _failure(exc))


def stdout_closed(arguments: Sequence[str], why: str | None = None) -> NoReturn:
    """Say that stdout was closed (or `why` it failed) before all was written, and exit 4."""
    _stdout_lost(why, "everything", stderr_mode(arguments))


def _stdout_lost(why: str | None, lost: str, mode: str | None) -> NoReturn:
    """Point stdout nowhere, say it closed (or `why` it failed) before `lost` was, exit 4."""
    from toolguard.line_writer import lost as said  # noqa: PLC0415 - only once stdout failed

    _to_devnull(sys.stdout)
    report.error(f"{said(why)} before {lost} was written", ExitStatus.INTERNAL, mode)
    sys.exit(ExitStatus.INTERNAL)


def leave(status: object) -> NoReturn:
    """End the process at once with `status` as `SystemExit` reads it, once stderr is flushed.

    Called when everything is written (stdout flushed by the caller). Tearing the interpreter
    down (every module, the contract, its compiled patterns) would cost a one-shot check
    about a tenth of its time and give the agent nothing.
    """
    with suppress(OSError, ValueError, AttributeError):
        sys.stderr.flush()
    if status is None or isinstance(status, int):
        os._exit(status or 0)
    raise SystemExit(status)  # a message: the interpreter prints it and exits 1


def described(exc: BaseException) -> str:
    """An exception in one line: its type, its message, and where it was raised."""
    import traceback  # noqa: PLC0415 - only a bug gets here (start-up budget)

    where = ""
    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
    if frames:
        frame = frames[-1]
        where = f" (at {os.path.basename(frame.filename)}:{frame.lineno} in {frame.name})"  # noqa: PTH119
    return f"{type(exc).__name__}: {exc}{where}"


def _finish(  # noqa: PLR0913, PLR0917 - everything one answer needs, passed once
    outcome: Outcome,
    contract: Contract,
    request: Request,
    audit: AuditTrail,
    origin: tuple[Command, Source],
    mode: str,
) -> NoReturn:
    """Record, then answer: envelope on stdout, diagnostics on stderr, the exit status.

    What the operator reads (stderr; the record redacts its own) has no secret context value.
    """
    signals.ignore()  # the outcome is decided: finish writing it
    command, source = origin
    try:
        outcome, warning = audit.seal(outcome, contract, request, command=command, source=source)
    except Exception:  # noqa: BLE001 - a bug in the trail: fail closed, the agent still hears
        why = f"internal error while recording: {result.trace()}"
        upstream = outcome.diagnostics.upstream
        outcome, warning = result.internal(contract, request, why, upstream=upstream), None
    emit(envelope.dumps(outcome.envelope), mode)
    shown = result.redacted(outcome, request, contract.audit.secret_context)
    report.render(shown.diagnostics, mode)
    if warning is not None:
        report.error(warning, outcome.diagnostics.exit_status, mode)
    sys.exit(outcome.diagnostics.exit_status)


def emit(text: str, mode: str | None = None) -> None:
    """Write to stdout; if nobody can read it any more, say so and exit 4."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    # NOTE: a closed pipe, a closed file, no stdout, a full disk; or the same, watched.
    except (OSError, ValueError, AttributeError, OutputClosed) as exc:
        _stdout_lost(_failure(exc), "the envelope", mode)


def _settle_stdout() -> None:
    """Flush stdout now, or send what it holds nowhere: no "Exception ignored" (120) at exit."""
    _settle(sys.stdout)


def settle_stderr() -> None:
    """Flush stderr now, or send what it holds nowhere: the line is lost, never the status.

    NOTE: stderr is line-buffered unless `PYTHONUNBUFFERED` is set. A line that could not be
    written (its reader gone, a full disk) stays in the buffer, and the interpreter's last
    flush would fail on it again and exit 120, a status the table does not have.
    """
    _settle(sys.stderr)


def _settle(stream: IO[str] | None) -> None:
    try:
        if stream is not None:
            stream.flush()
    except (OSError, ValueError, OutputClosed):
        _to_devnull(stream)


def _to_devnull(stream: IO[str] | None) -> None:
    """Point `stream`'s descriptor at /dev/null: what it holds goes nowhere, not to 120."""
    if stream is not None:
        with suppress(OSError, ValueError, AttributeError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
