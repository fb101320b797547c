"""Commands for contract authors and CI: `init`, `validate`, `test`, `lint` and `diff`.

Each turns its flags into values, runs its package (`scaffold`, `schema`, `fixtures`, `lint`,
`diff`)
through `respond.guard`, renders, and exits 0 or 1; the packages are imported only by the
command that needs them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from toolguard import report
from toolguard.cli.flags import (
    LINT_FORMATS,
    REPORT_FORMATS,
    contract_path,
    format_option,
    named_path,
)
from toolguard.cli.respond import fail, guard
from toolguard.contract import load_contract
from toolguard.errors import ExitStatus, UsageError
from toolguard.files import is_folder, is_stdin
from toolguard.request import make_request

_CONTRACT = contract_path()
# NOTE: readable=False: a schema or instance that cannot be read is the reader's to report
# (exit 3 for a schema, 1 for an instance, as when it is missing), not click's usage error.
_SCHEMA = named_path(path_type=Path, allow_dash=True, readable=False)


@click.command(
    help="Write a contract for TOOL in DIR (default ./TOOL), with fixtures that pass.\n\n"
    "The contract, a closed and bounded schema, an accepted response and the "
    "article's near misses as reject fixtures: `toolguard test DIR` and `toolguard "
    "lint` pass as written. Without --from, an example to replace; with it, a draft "
    "of the sample's shape."
)
@click.argument("tool")
@click.argument(
    "folder", metavar="[DIR]", required=False, type=named_path(file_okay=False, path_type=Path)
)
@click.option(
    "--from",
    "response",
    metavar="RESPONSE",
    type=named_path(dir_okay=False, allow_dash=True, path_type=Path),
    help="Draft the schema from a sample response (- for standard input).",
)
@click.option("--force", is_flag=True, help="Replace the files init writes (its old fixtures too).")
def init(tool: str, folder: Path | None, response: Path | None, force: bool) -> None:
    """Build with `scaffold` (from a sample, if given), write, print the summary."""
    from toolguard import scaffold  # noqa: PLC0415 - only `init` needs it
    from toolguard.scaffold.sample import read_sample, sample_name  # noqa: PLC0415

    target = folder if folder is not None else Path(tool)
    guard(lambda: scaffold.check_tool_name(tool))
    sample = None
    if response is not None:
        raw = guard(lambda: read_sample(response))
        sample = (raw, sample_name(response))
    built = guard(lambda: scaffold.build(tool, sample))
    removed = guard(lambda: scaffold.write(built, target, force=force))
    sys.stdout.write(scaffold.summary(built, target, removed))


@click.command(
    help="Validate INSTANCE files against a Draft 2020-12 SCHEMA (strict parse first).\n\n"
    "Either SCHEMA or one INSTANCE may be `-`, read from standard input."
)
@click.argument("schema_file", metavar="SCHEMA", type=_SCHEMA)
@click.argument(
    "instances",
    metavar="INSTANCE...",
    nargs=-1,
    required=True,
    type=named_path(path_type=Path, readable=False),
)
@click.option(
    "--refs",
    "registry",
    multiple=True,
    metavar="PREFIX=DIR",
    help="Serve $refs under PREFIX from files in DIR.",
)
@click.option("--no-formats", is_flag=True, help="Treat format as an annotation.")
@format_option(REPORT_FORMATS, "One line per instance, as text or JSON.")
def validate(
    schema_file: Path,
    instances: tuple[Path, ...],
    registry: tuple[str, ...],
    no_formats: bool,
    output: str,
) -> None:
    """Compile SCHEMA once, then one report line per instance (`validate_files`)."""
    from toolguard.schema import compile_schema  # noqa: PLC0415 - only `validate` needs these
    from toolguard.schema.refs import read_schema  # noqa: PLC0415
    from toolguard.validate import validate_files  # noqa: PLC0415

    if sum(is_stdin(path) for path in (schema_file, *instances)) > 1:
        fail(UsageError("only one of SCHEMA and INSTANCE... can be '-' (standard input)"))
    refs = guard(lambda: _registry(registry))
    validator = guard(
        lambda: compile_schema(read_schema(schema_file), refs=refs, formats=not no_formats)
    )
    all_valid = True
    for result in validate_files(validator, instances):
        all_valid &= result.valid
        report.instance(result, output)
    sys.exit(ExitStatus.SUCCESS if all_valid else ExitStatus.FAILURE)


@click.command(
    "test", help="Check each contract against the fixtures beside it; exit 1 if any fails."
)
@click.argument("targets", metavar="CONTRACT_OR_DIR...", nargs=-1, required=True, type=_CONTRACT)
@format_option(REPORT_FORMATS, "A table per contract, or one line of JSON.")
@click.option(
    "--junit",
    type=named_path(dir_okay=False, path_type=Path, readable=False),  # written, never read
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
    """`toolguard test`: prepare each contract's suite, run them all, render (JUnit too)."""
    from functools import partial  # noqa: PLC0415 - only `test` needs these

    from toolguard.contract.find import contract_paths  # noqa: PLC0415
    from toolguard.fixtures import report as fixture_report  # noqa: PLC0415
    from toolguard.fixtures.run import SuiteResult, prepare, run_suite  # noqa: PLC0415

    guard(lambda: make_request(request_id, None, now), output)
    guard(lambda: _junit_file(junit), output)
    paths = guard(lambda: contract_paths(targets), output)
    prepared = [guard(partial(prepare, path), output) for path in paths]

    def run_all() -> list[SuiteResult]:
        with fixture_report.progress(sum(len(suite.cases) for _, suite in prepared)) as advance:
            return [
                run_suite(s, c, request_id=request_id, now=now, update=update, on_result=advance)
                for c, s in prepared
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


def _junit_file(junit: Path | None) -> None:
    """Refuse, before anything runs, a `--junit` that can name no file to write.

    `-` (stdout holds the report: it would be a file named `-`), or a path whose folder does
    not exist. Any other failure to write (permissions, a full disk) shows when the run ends.
    """
    if junit is None:
        return
    if is_stdin(junit):
        raise UsageError(
            "--junit needs a file, not - (stdout holds the report); ./- names a file called -"
        )
    if not is_folder(junit.parent):
        raise UsageError(f"cannot write --junit {junit}: no folder {junit.parent}")


def _registry(pairs: tuple[str, ...]) -> dict[str, str]:
    registry: dict[str, str] = {}
    for pair in pairs:
        prefix, sep, folder = pair.partition("=")
        if not sep or not prefix or not folder:
            raise UsageError(f"--refs expects PREFIX=DIR, got {pair!r}")
        if prefix in registry:  # which folder would serve it? refuse rather than pick one
            raise UsageError(f"--refs gives {prefix!r} twice")
        registry[prefix] = folder
    return registry


@click.command(
    help="Lint contracts (.toml) and schema files; exit 1 on findings (notices never fail).\n\n"
    "A folder stands for every contract.toml and contract.NAME.toml under it."
)
@click.argument(
    "targets", metavar="CONTRACT_SCHEMA_OR_DIR...", nargs=-1, required=True, type=_CONTRACT
)
@format_option(LINT_FORMATS, "Findings as text, one line of JSON, or SARIF 2.1.0.")
def lint(targets: tuple[Path, ...], output: str) -> None:
    """`lint_paths`, rendered by the renderer `--format` names."""
    from toolguard.lint import lint_paths  # noqa: PLC0415 - only `lint` needs these
    from toolguard.lint.render import RENDERERS  # noqa: PLC0415

    result = guard(lambda: lint_paths(targets), output)
    RENDERERS[output](result, sys.stdout)
    sys.exit(ExitStatus.SUCCESS if result.clean else ExitStatus.FAILURE)


@click.command(
    help="Compare two contract versions; exit 1 if a needed version bump is missing.\n\n"
    "With --against REV, the old version is each contract as committed at REV, with "
    "the files it names, read with git from any folder of the work tree; a contract "
    "moved since REV (a rename git sees) is compared with itself where it was, and one "
    "that did not exist at REV is new: all added, no bump needed."
)
@click.argument(
    "contracts",
    metavar="OLD_CONTRACT NEW_CONTRACT | --against REV CONTRACT_OR_DIR...",
    nargs=-1,
    required=True,
    type=_CONTRACT,
)
@click.option(
    "--against",
    "revision",
    metavar="REV",
    help="Compare each contract (every one under a folder) with itself at git revision REV.",
)
@format_option(REPORT_FORMATS, "A table for people, or one JSON object (per contract) for CI.")
def diff(contracts: tuple[Path, ...], revision: str | None, output: str) -> None:
    """`diff_contracts` of two files, or of each contract and its committed self (`--against`)."""
    from toolguard.diff import ContractDiff, diff_contracts  # noqa: PLC0415 - only `diff` needs it
    from toolguard.diff.render import write  # noqa: PLC0415

    def compare() -> list[ContractDiff]:
        if revision is not None:
            from toolguard.diff.revision import diff_against  # noqa: PLC0415 - git: --against

            return diff_against(contracts, revision)
        if len(contracts) != 2:
            raise UsageError(
                "diff takes OLD_CONTRACT NEW_CONTRACT, or --against REV and CONTRACT_OR_DIR..."
            )
        old, new = contracts
        return [diff_contracts(load_contract(old), load_contract(new))]

    results = guard(compare, output)
    for index, result in enumerate(results):
        if index and output != "json":
            sys.stdout.write("\n")
        write(result, output, sys.stdout, titled=revision is not None)
    passed = all(result.verdict.ok for result in results)
    sys.exit(ExitStatus.SUCCESS if passed else ExitStatus.FAILURE)
