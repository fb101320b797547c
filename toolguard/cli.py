"""Command line: flags -> a contract and a request -> run -> render -> exit status.

Exceptions become exit statuses here and nowhere else (see `errors.ExitStatus`).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, NoReturn, TypeVar

import click

from toolguard import __version__, envelope, report
from toolguard.contract import Contract, load_contract
from toolguard.errors import ExitStatus, ToolguardError, UsageError
from toolguard.pipeline import check_stream, run_upstream
from toolguard.request import Request, make_request, parse_context_pairs, read_context_file
from toolguard.schema import compile_schema
from toolguard.schema.refs import read_schema
from toolguard.validate import validate_files

T = TypeVar("T")
DIAGNOSTICS = ("rich", "json")
_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)
# NOTE: a contract that cannot be read is a bad contract (exit 3), not a usage error.
_CONTRACT = click.Path(path_type=Path)


def _request_options(command: Callable[..., None]) -> Callable[..., None]:
    """The request and diagnostics flags `check` and `run` share (one place, one help text)."""
    options = [
        click.option(
            "--request-id", metavar="ID", help="Request id to echo (default: a random one)."
        ),
        click.option(
            "--context", "pairs", multiple=True, metavar="K=V", help="Request context value."
        ),
        click.option("--context-file", type=_FILE, help="JSON object of request context values."),
        click.option(
            "--now", metavar="RFC3339", help="Clock for freshness rules (default: real time)."
        ),
        click.option(
            "--diagnostics",
            type=click.Choice(DIAGNOSTICS),
            default="rich",
            show_default=True,
            help="Format of the operator diagnostics on stderr.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="toolguard")
def main() -> None:
    """Make tool output earn its way into an agent's context."""


@main.command()
@click.argument("contract", type=_CONTRACT)
@click.option("--input", "input_file", type=_FILE, help="Read the response from FILE, not stdin.")
@_request_options
def check(  # noqa: PLR0913, PLR0917 - one parameter per flag
    contract: Path,
    input_file: Path | None,
    request_id: str | None,
    pairs: tuple[str, ...],
    context_file: Path | None,
    now: str | None,
    diagnostics: str,
) -> None:
    """Check one response against CONTRACT; print exactly one envelope on stdout."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _interrupt)
    loaded = _guard(lambda: load_contract(contract), diagnostics)
    request = _guard(lambda: _request(request_id, pairs, context_file, now), diagnostics)
    try:
        with _open(input_file) as stream:
            outcome = check_stream(loaded, stream, request)
    except ToolguardError as exc:
        _exit(exc, diagnostics)
    except KeyboardInterrupt:
        _abandon(loaded, request, "interrupted before the response was checked", diagnostics)
    except Exception:  # noqa: BLE001 - the agent still gets an envelope
        _abandon(loaded, request, f"internal error: {traceback.format_exc(limit=-3)}", diagnostics)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)  # the outcome is decided: finish writing it
    _emit(outcome.envelope, diagnostics)
    report.render(outcome.diagnostics, diagnostics)
    sys.exit(outcome.diagnostics.exit_status)


@main.command()
@click.argument("contract", type=_CONTRACT)
@click.argument("command", nargs=-1, required=True)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="Wall-clock limit per attempt (default: the contract's, else 30).",
)
@click.option("--stdin-from", type=_FILE, help="Give the command FILE as stdin (default: none).")
@_request_options
def run(  # noqa: PLR0913, PLR0917 - one parameter per flag
    contract: Path,
    command: tuple[str, ...],
    timeout: float | None,
    stdin_from: Path | None,
    request_id: str | None,
    pairs: tuple[str, ...],
    context_file: Path | None,
    now: str | None,
    diagnostics: str,
) -> None:
    """Run COMMAND (after --, no shell), check its output, print one envelope."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _interrupt)
    loaded = _guard(lambda: load_contract(contract), diagnostics)
    request = _guard(lambda: _request(request_id, pairs, context_file, now), diagnostics)
    try:
        outcome = run_upstream(loaded, command, request, timeout=timeout, stdin=stdin_from)
    except ToolguardError as exc:
        _exit(exc, diagnostics)
    except KeyboardInterrupt:
        _abandon(
            loaded, request, "interrupted: the command's process group was killed", diagnostics
        )
    except Exception:  # noqa: BLE001 - the agent still gets an envelope
        _abandon(loaded, request, f"internal error: {traceback.format_exc(limit=-3)}", diagnostics)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)  # the outcome is decided: finish writing it
    _emit(outcome.envelope, diagnostics)
    report.render(outcome.diagnostics, diagnostics)
    sys.exit(outcome.diagnostics.exit_status)


@main.command()
@click.argument("contract", type=_CONTRACT)
def schema(contract: Path) -> None:
    """Print the envelope schema CONTRACT implies (declare it as the tool's output schema)."""
    loaded = _guard(lambda: load_contract(contract), "rich")
    click.echo(json.dumps(loaded.envelope_schema, indent=2))


@main.command()
@click.argument("schema_file", metavar="SCHEMA", type=_FILE)
@click.argument(
    "instances", metavar="INSTANCE...", nargs=-1, required=True, type=click.Path(path_type=Path)
)
@click.option(
    "--refs",
    "registry",
    multiple=True,
    metavar="PREFIX=DIR",
    help="Serve $refs under PREFIX from files in DIR.",
)
@click.option("--no-formats", is_flag=True, help="Treat format as an annotation.")
@click.option(
    "--format",
    "output",
    type=click.Choice(("text", "json")),
    default="text",
    show_default=True,
    help="One line per instance, as text or JSON.",
)
def validate(
    schema_file: Path,
    instances: tuple[Path, ...],
    registry: tuple[str, ...],
    no_formats: bool,
    output: str,
) -> None:
    """Validate INSTANCE files against a Draft 2020-12 SCHEMA (strict parse first)."""
    refs = _guard(lambda: _registry(registry), "rich")
    validator = _guard(
        lambda: compile_schema(read_schema(schema_file), refs=refs, formats=not no_formats),
        "rich",
    )
    all_valid = True
    for result in validate_files(validator, instances):
        all_valid &= result.valid
        report.instance(result, output)
    sys.exit(ExitStatus.SUCCESS if all_valid else ExitStatus.FAILURE)


@main.command("test")
@click.argument("targets", metavar="CONTRACT_OR_DIR...", nargs=-1, required=True, type=_CONTRACT)
@click.option(
    "--format",
    "output",
    type=click.Choice(("rich", "json")),
    default="rich",
    show_default=True,
    help="A table per contract, or one line of JSON.",
)
@click.option(
    "--junit",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Also write JUnit XML to FILE.",
)
@click.option("--update", is_flag=True, help="Write the golden envelope of each accepted fixture.")
@click.option("--request-id", metavar="ID", help="Request id (default: fixtures.toml's).")
@click.option("--now", metavar="RFC3339", help="Clock (default: fixtures.toml's, else real time).")
def run_fixtures(  # noqa: PLR0913, PLR0917 - one parameter per flag
    targets: tuple[Path, ...],
    output: str,
    junit: Path | None,
    update: bool,
    request_id: str | None,
    now: str | None,
) -> None:
    """Check each contract against the fixtures beside it; exit 1 if any fails."""
    from functools import partial  # noqa: PLC0415 - only `test` needs these

    from toolguard import fixture_report  # noqa: PLC0415
    from toolguard.fixture_run import SuiteResult, run_suite  # noqa: PLC0415
    from toolguard.fixtures import contract_paths, discover  # noqa: PLC0415

    _guard(lambda: make_request(request_id, None, now), output)
    paths = _guard(lambda: contract_paths(targets), output)
    contracts = [_guard(partial(load_contract, path), output) for path in paths]

    def run_all() -> list[SuiteResult]:
        suites = [discover(path) for path in paths]
        with fixture_report.progress(sum(len(suite.cases) for suite in suites)) as advance:
            return [
                run_suite(s, c, request_id=request_id, now=now, update=update, on_result=advance)
                for s, c in zip(suites, contracts, strict=True)
            ]

    def write_junit(results: list[SuiteResult], path: Path) -> None:
        try:
            fixture_report.write_junit(results, path)
        except OSError as exc:
            raise UsageError(f"cannot write --junit {path}: {exc.strerror}") from None

    results = _guard(run_all, output)
    fixture_report.render(results, output)
    if junit is not None:
        _guard(lambda: write_junit(results, junit), output)
    passed = all(result.passed for result in results)
    sys.exit(ExitStatus.SUCCESS if passed else ExitStatus.FAILURE)


def _registry(pairs: tuple[str, ...]) -> dict[str, str]:
    registry: dict[str, str] = {}
    for pair in pairs:
        prefix, sep, folder = pair.partition("=")
        if not sep or not prefix or not folder:
            raise UsageError(f"--refs expects PREFIX=DIR, got {pair!r}")
        registry[prefix] = folder
    return registry


LINT_FORMATS = ("rich", "json", "sarif")  # lint.render.RENDERERS; a test keeps them equal


@main.command()
@click.argument("targets", metavar="CONTRACT_OR_SCHEMA...", nargs=-1, required=True, type=_CONTRACT)
@click.option(
    "--format",
    "output",
    type=click.Choice(LINT_FORMATS),
    default="rich",
    show_default=True,
    help="Findings as text, one line of JSON, or SARIF 2.1.0.",
)
def lint(targets: tuple[Path, ...], output: str) -> None:
    """Lint contracts (.toml) and schema files; exit 1 if there are findings."""
    from toolguard.lint import lint_paths  # noqa: PLC0415 - only `lint` needs these
    from toolguard.lint.render import RENDERERS  # noqa: PLC0415

    result = _guard(lambda: lint_paths(targets), "rich")
    RENDERERS[output](result, sys.stdout)
    sys.exit(ExitStatus.SUCCESS if result.clean else ExitStatus.FAILURE)


def _request(
    request_id: str | None, pairs: tuple[str, ...], context_file: Path | None, now: str | None
) -> Request:
    from_file = read_context_file(context_file) if context_file else {}
    return make_request(request_id, parse_context_pairs(pairs, from_file), now)


@main.command()
@click.argument("old", metavar="OLD_CONTRACT", type=_CONTRACT)
@click.argument("new", metavar="NEW_CONTRACT", type=_CONTRACT)
@click.option(
    "--format",
    "output",
    type=click.Choice(("rich", "json")),
    default="rich",
    show_default=True,
    help="A table for people, or one JSON object for CI.",
)
def diff(old: Path, new: Path, output: str) -> None:
    """Compare two contract versions; exit 1 if a needed version bump is missing."""
    from toolguard.diff import diff_contracts  # noqa: PLC0415 - only this command needs it
    from toolguard.diff.render import write  # noqa: PLC0415

    before = _guard(lambda: load_contract(old), output)
    after = _guard(lambda: load_contract(new), output)
    result = _guard(lambda: diff_contracts(before, after), output)
    write(result, output, sys.stdout)
    sys.exit(ExitStatus.SUCCESS if result.verdict.ok else ExitStatus.FAILURE)


def _open(input_file: Path | None) -> BinaryIO:
    if input_file is None:
        if sys.stdin is None:
            raise UsageError("stdin is closed; pass the response with --input FILE")
        return sys.stdin.buffer
    try:
        return input_file.open("rb")
    except OSError as exc:
        raise UsageError(f"cannot open --input {input_file}: {exc.strerror}") from None


def _guard(build: Callable[[], T], mode: str) -> T:
    """Run a set-up step; its errors end the process before any envelope exists."""
    try:
        return build()
    except ToolguardError as exc:
        _exit(exc, mode)
    except KeyboardInterrupt:
        report.error("interrupted before a response was read", ExitStatus.INTERRUPTED, mode)
        sys.exit(ExitStatus.INTERRUPTED)
    except Exception:  # noqa: BLE001 - a bug still ends with a clear message, not a traceback
        report.error(f"internal error: {traceback.format_exc(limit=-3)}", ExitStatus.INTERNAL, mode)
        sys.exit(ExitStatus.INTERNAL)


def _exit(exc: ToolguardError, mode: str) -> NoReturn:
    report.error(str(exc), exc.exit_status, mode)
    sys.exit(exc.exit_status)


def _interrupt(signum: int, frame: object) -> NoReturn:
    raise KeyboardInterrupt


def _abandon(contract: Contract, request: Request, why: str, mode: str) -> NoReturn:
    """Interrupted or broken: the agent still gets a failure envelope, the operator the reason."""
    interrupted = why.startswith("interrupted")
    status = ExitStatus.FAILURE if interrupted else ExitStatus.INTERNAL
    failure = envelope.failure(
        contract.tool, request.request_id, "UPSTREAM_UNAVAILABLE", interrupted
    )
    _emit(failure, mode)
    report.error(why, status, mode)
    sys.exit(status)


def _emit(result: dict[str, object], mode: str) -> None:
    """Write the envelope; if nobody can read stdout any more, say so and exit 4."""
    try:
        envelope.write(result, sys.stdout)
    except (OSError, ValueError, AttributeError):  # closed pipe, closed file, or no stdout
        if sys.stdout is not None:
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        report.error("stdout was closed before the envelope was written", ExitStatus.INTERNAL, mode)
        sys.exit(ExitStatus.INTERNAL)
