"""Command line: flags -> a contract and a request -> run -> render -> exit status.

Exceptions become exit statuses here and nowhere else (see `errors.ExitStatus`).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import click

from toolguard import __version__, answer, report
from toolguard.answer import fail, guard
from toolguard.audit.policy import Command, Source
from toolguard.audit.trail import TrailOptions
from toolguard.contract import Contract, load_contract
from toolguard.errors import ExitStatus, UsageError
from toolguard.pipeline import run_upstream
from toolguard.request import Request, make_request
from toolguard.result import Outcome

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
    command = _audit_options(command)  # innermost, so --help lists the audit flags last
    for option in reversed(options):
        command = option(command)
    return command


_BYTES = click.IntRange(min=1)


def _audit_options(command: Callable[..., None]) -> Callable[..., None]:
    """The audit trail flags, gathered into one `TrailOptions` (the `trail` parameter)."""
    options = [
        click.option(
            "--audit-log",
            "log",
            type=click.Path(dir_okay=False, path_type=Path),
            envvar="TOOLGUARD_AUDIT_LOG",
            metavar="FILE",
            help="Append one JSON record per check to FILE (env TOOLGUARD_AUDIT_LOG).",
        ),
        click.option(
            "--raw-dir",
            type=click.Path(file_okay=False, path_type=Path),
            envvar="TOOLGUARD_RAW_DIR",
            metavar="DIR",
            help="Keep raw responses in DIR, named by SHA-256 (env TOOLGUARD_RAW_DIR).",
        ),
        click.option(
            "--raw-keep",
            type=click.Choice(("all", "rejected")),
            help="Which raw responses to keep (default: the contract's, else rejected).",
        ),
        click.option(
            "--raw-max-file",
            "raw_max_file_bytes",
            type=_BYTES,
            metavar="BYTES",
            help="Keep only the digest of larger responses (default: max_bytes).",
        ),
        click.option(
            "--raw-max-total",
            "raw_max_total_bytes",
            type=_BYTES,
            metavar="BYTES",
            help="Delete the oldest raw copies past this total (default: 1 GiB).",
        ),
        click.option(
            "--raw-max-age",
            "raw_max_age_seconds",
            type=_BYTES,
            metavar="SECONDS",
            help="Delete raw copies older than this (default: 30 days).",
        ),
        click.option(
            "--audit-key",
            "key_file",
            type=click.Path(dir_okay=False, path_type=Path),
            envvar="TOOLGUARD_AUDIT_KEY",
            metavar="FILE",
            help="Key for hashing secret context (default: the log's path + .key).",
        ),
        click.option("--fsync", is_flag=True, help="fsync the audit log after each record."),
        click.option(
            "--audit-optional",
            "optional",
            is_flag=True,
            help="Answer even if the audit trail cannot be written (default: fail closed).",
        ),
    ]

    @functools.wraps(command)
    def gathered(**kwargs: object) -> None:
        fields = {name: kwargs.pop(name) for name in TrailOptions.__dataclass_fields__}
        command(trail=TrailOptions(**fields), **kwargs)  # type: ignore[arg-type]

    for option in reversed(options):
        gathered = option(gathered)
    return gathered


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
    trail: TrailOptions,
) -> None:
    """Check one response against CONTRACT; print exactly one envelope on stdout."""
    answer.check(contract, input_file, request_id, pairs, context_file, now, diagnostics, trail)


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
    trail: TrailOptions,
) -> None:
    """Run COMMAND (after --, no shell), check its output, print one envelope."""

    def produce(loaded: Contract, request: Request) -> Outcome:
        return run_upstream(loaded, command, request, timeout=timeout, stdin=stdin_from)

    flags = (request_id, pairs, context_file, now)
    origin: tuple[Command, Source] = ("run", Source("command"))
    answer.respond(contract, flags, diagnostics, trail, origin, produce, upstream=command)


@main.command()
@click.argument("contracts", metavar="CONTRACT...", nargs=-1, required=True, type=_CONTRACT)
@click.option(
    "--diagnostics",
    type=click.Choice(DIAGNOSTICS),
    default="json",
    show_default=True,
    help="Format of the operator diagnostics on stderr.",
)
@_audit_options
def serve(contracts: tuple[Path, ...], diagnostics: str, trail: TrailOptions) -> None:
    """Answer JSON request lines on stdin with one envelope line each, in order."""
    from toolguard.serve import Server  # noqa: PLC0415 - only `serve` needs it

    loaded = [guard(functools.partial(load_contract, path), diagnostics) for path in contracts]
    server = guard(lambda: Server(loaded, trail), diagnostics)
    if sys.stdin is None or sys.stdout is None:
        fail(UsageError("serve needs both stdin and stdout open"), diagnostics)
    status = server.serve(sys.stdin.buffer, sys.stdout.buffer, sys.stderr, diagnostics)
    if status == ExitStatus.INTERNAL:  # stdout closed: let the final flush write nowhere
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(status)


@main.command()
@click.argument("contract", type=_CONTRACT)
def schema(contract: Path) -> None:
    """Print the envelope schema CONTRACT implies (declare it as the tool's output schema)."""
    loaded = guard(lambda: load_contract(contract), "rich")
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
    from toolguard.schema import compile_schema  # noqa: PLC0415 - only `validate` needs these
    from toolguard.schema.refs import read_schema  # noqa: PLC0415
    from toolguard.validate import validate_files  # noqa: PLC0415

    refs = guard(lambda: _registry(registry), "rich")
    validator = guard(
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

    guard(lambda: make_request(request_id, None, now), output)
    paths = guard(lambda: contract_paths(targets), output)
    contracts = [guard(partial(load_contract, path), output) for path in paths]

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

    results = guard(run_all, output)
    fixture_report.render(results, output)
    if junit is not None:
        guard(lambda: write_junit(results, junit), output)
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

    result = guard(lambda: lint_paths(targets), "rich")
    RENDERERS[output](result, sys.stdout)
    sys.exit(ExitStatus.SUCCESS if result.clean else ExitStatus.FAILURE)


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

    before = guard(lambda: load_contract(old), output)
    after = guard(lambda: load_contract(new), output)
    result = guard(lambda: diff_contracts(before, after), output)
    write(result, output, sys.stdout)
    sys.exit(ExitStatus.SUCCESS if result.verdict.ok else ExitStatus.FAILURE)


@main.command()
@click.argument("request_id", metavar="REQUEST_ID")
@click.option(
    "--audit-log",
    "log_file",
    type=_FILE,
    envvar="TOOLGUARD_AUDIT_LOG",
    required=True,
    metavar="FILE",
    help="The audit log to search (env TOOLGUARD_AUDIT_LOG).",
)
@click.option(
    "--raw-dir",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="TOOLGUARD_RAW_DIR",
    metavar="DIR",
    help="Raw copies, to re-check with --recheck (env TOOLGUARD_RAW_DIR).",
)
@click.option("--recheck", is_flag=True, help="Re-check the raw bytes with today's contract.")
@click.option(
    "--contract",
    "contract_file",
    type=_FILE,
    help="Re-check with this contract, not the recorded one.",
)
@click.option(
    "--format",
    "output",
    type=click.Choice(("rich", "json")),
    default="rich",
    show_default=True,
    help="A story for people, or one line of JSON.",
)
def explain(  # noqa: PLR0913, PLR0917 - one parameter per flag
    request_id: str,
    log_file: Path,
    raw_dir: Path | None,
    recheck: bool,
    contract_file: Path | None,
    output: str,
) -> None:
    """Tell the whole story of REQUEST_ID from the audit log; exit 1 if it is not there."""
    from toolguard.audit import explain as finder  # noqa: PLC0415 - only this command needs it
    from toolguard.audit import render  # noqa: PLC0415

    if recheck and raw_dir is None:
        fail(UsageError("--recheck needs --raw-dir (or TOOLGUARD_RAW_DIR)"), output)
    found = guard(lambda: finder.find(log_file, request_id), output)
    rechecks = {}
    if recheck and raw_dir is not None:
        rechecks = {
            offset: finder.recheck(entry, raw_dir, contract_file) for offset, entry in found.records
        }
    render.explain(found, rechecks, output, sys.stdout, request_id)
    if not found.records:
        report.error(f"no record of {request_id} in {log_file}", ExitStatus.FAILURE, output)
    sys.exit(ExitStatus.SUCCESS if found.records else ExitStatus.FAILURE)


@main.group()
def audit() -> None:
    """Read audit logs."""


@audit.command()
@click.argument("log_file", metavar="FILE", type=_FILE)
@click.option("--since", metavar="WHEN", help="RFC 3339 instant or a duration back (30m, 24h, 7d).")
@click.option("--until", metavar="WHEN", help="RFC 3339 instant or a duration back (exclusive).")
@click.option(
    "--format",
    "output",
    type=click.Choice(("rich", "json")),
    default="rich",
    show_default=True,
    help="A table for people, or one line of JSON.",
)
def summary(log_file: Path, since: str | None, until: str | None, output: str) -> None:
    """Count FILE's records per tool, outcome, error code and layer."""
    from toolguard.audit import render  # noqa: PLC0415 - only this command needs it
    from toolguard.audit.summary import summarize  # noqa: PLC0415

    result = guard(lambda: summarize(log_file, since, until), output)
    render.summary(result, output, sys.stdout)
