"""Answering from the command line: one check's set-up, outcome, record, output and exit status.

Shared by the click commands (`cli.py`) and the click-free `check` entry (`entry.py`), so a
check behaves the same whichever parsed its flags. Exceptions become exit statuses here.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, NoReturn, TypeVar

from toolguard import envelope, report
from toolguard.audit.policy import Command, Source
from toolguard.audit.trail import AuditTrail, TrailOptions
from toolguard.contract import Contract, load_contract
from toolguard.errors import ExitStatus, ToolguardError, UsageError
from toolguard.pipeline import check_stream
from toolguard.request import Request, make_request, parse_context_pairs, read_context_file
from toolguard.result import Diagnostics, Outcome

T = TypeVar("T")


def check(  # noqa: PLR0913, PLR0917 - one parameter per flag
    contract: Path,
    input_file: Path | None,
    request_id: str | None,
    pairs: tuple[str, ...],
    context_file: Path | None,
    now: str | None,
    diagnostics: str,
    trail: TrailOptions,
) -> NoReturn:
    """`toolguard check`: one response, one envelope on stdout, then exit."""

    def produce(loaded: Contract, request: Request) -> Outcome:
        with open_input(input_file) as stream:
            return check_stream(loaded, stream, request)

    source = Source("file", str(input_file)) if input_file else Source("stdin")
    flags = (request_id, pairs, context_file, now)
    respond(contract, flags, diagnostics, trail, ("check", source), produce)


def respond(  # noqa: PLR0913, PLR0917 - what `check` and `run` each decide, passed once
    contract: Path,
    request_flags: tuple[str | None, tuple[str, ...], Path | None, str | None],
    diagnostics: str,
    trail: TrailOptions,
    origin: tuple[Command, Source],
    produce: Callable[[Contract, Request], Outcome],
    upstream: tuple[str, ...] | None = None,
) -> NoReturn:
    """Load, build the request, `produce` the outcome, then record and answer it.

    Set-up errors exit before any envelope exists; once the request is known, an interrupt
    or a toolguard bug still gives the agent a failure envelope.
    """
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, interrupt)
    loaded = guard(lambda: load_contract(contract), diagnostics)
    request = guard(lambda: build_request(*request_flags), diagnostics)
    audit = AuditTrail.build(trail, loaded)
    try:
        outcome = produce(loaded, request)
    except ToolguardError as exc:
        fail(exc, diagnostics)
    except KeyboardInterrupt:
        outcome = abandoned(loaded, request, _INTERRUPTED[origin[0]], upstream=upstream)
    except Exception:  # noqa: BLE001 - the agent still gets an envelope
        outcome = abandoned(loaded, request, f"internal error: {trace()}", upstream=upstream)
    finish(outcome, loaded, request, audit, origin, diagnostics)


_INTERRUPTED = {
    "check": "interrupted before the response was checked",
    "run": "interrupted: the command's process group was killed",
    "serve": "interrupted",
}


def build_request(
    request_id: str | None, pairs: tuple[str, ...], context_file: Path | None, now: str | None
) -> Request:
    """The request from its flags: `--context` pairs merged over `--context-file` values."""
    from_file = read_context_file(context_file) if context_file else {}
    return make_request(request_id, parse_context_pairs(pairs, from_file), now)


def open_input(input_file: Path | None) -> BinaryIO:
    """Where the response is read from: `--input FILE`, else stdin."""
    if input_file is None:
        if sys.stdin is None:
            raise UsageError("stdin is closed; pass the response with --input FILE")
        return sys.stdin.buffer
    try:
        return input_file.open("rb")
    except OSError as exc:
        raise UsageError(f"cannot open --input {input_file}: {exc.strerror}") from None


def guard(build: Callable[[], T], mode: str) -> T:
    """Run a set-up step; its errors end the process before any envelope exists."""
    try:
        return build()
    except ToolguardError as exc:
        fail(exc, mode)
    except KeyboardInterrupt:
        report.error("interrupted before a response was read", ExitStatus.INTERRUPTED, mode)
        sys.exit(ExitStatus.INTERRUPTED)
    except Exception:  # noqa: BLE001 - a bug still ends with a clear message, not a traceback
        report.error(f"internal error: {trace()}", ExitStatus.INTERNAL, mode)
        sys.exit(ExitStatus.INTERNAL)


def fail(exc: ToolguardError, mode: str) -> NoReturn:
    """Report an invocation error and exit with its status (nothing on stdout)."""
    report.error(str(exc), exc.exit_status, mode)
    sys.exit(exc.exit_status)


def trace() -> str:
    """The last frames of the exception being handled (traceback costs start-up otherwise)."""
    import traceback  # noqa: PLC0415

    return traceback.format_exc(limit=-3)


def interrupt(signum: int, frame: object) -> NoReturn:
    """Signal handler: SIGINT and SIGTERM unwind like Ctrl-C, so the answer is still decided."""
    raise KeyboardInterrupt


def abandoned(
    contract: Contract, request: Request, why: str, upstream: tuple[str, ...] | None = None
) -> Outcome:
    """Interrupted or broken: the agent still gets a failure envelope, the operator the reason."""
    interrupted = why.startswith("interrupted")
    failure = envelope.failure(
        contract.tool, request.request_id, "UPSTREAM_UNAVAILABLE", interrupted
    )
    diagnostics = Diagnostics(
        tool=contract.tool,
        request_id=request.request_id,
        contract=str(contract.path),
        outcome="failure" if interrupted else "internal",
        layer="input" if interrupted else None,
        reason="interrupted" if interrupted else "internal_error",
        message=why,
        error_code="UPSTREAM_UNAVAILABLE",
        upstream=upstream,
    )
    return Outcome(failure, diagnostics)


def finish(  # noqa: PLR0913, PLR0917 - everything one answer needs, passed once
    outcome: Outcome,
    contract: Contract,
    request: Request,
    audit: AuditTrail,
    origin: tuple[Command, Source],
    mode: str,
) -> NoReturn:
    """Record, then answer: envelope on stdout, diagnostics on stderr, the exit status."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)  # the outcome is decided: finish writing it
    command, source = origin
    outcome, warning = audit.seal(outcome, contract, request, command=command, source=source)
    emit(outcome.envelope, mode)
    report.render(outcome.diagnostics, mode)
    if warning is not None:
        report.error(warning, outcome.diagnostics.exit_status, mode)
    sys.exit(outcome.diagnostics.exit_status)


def emit(result: dict[str, object], mode: str) -> None:
    """Write the envelope; if nobody can read stdout any more, say so and exit 4."""
    try:
        envelope.write(result, sys.stdout)
    except (OSError, ValueError, AttributeError):  # closed pipe, closed file, or no stdout
        if sys.stdout is not None:
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        report.error("stdout was closed before the envelope was written", ExitStatus.INTERNAL, mode)
        sys.exit(ExitStatus.INTERNAL)
