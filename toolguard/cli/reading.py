"""Commands that read the audit trail back (`explain`, `audit summary`) and `audit prune`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from toolguard import report
from toolguard.cli.flags import PRUNE, REPORT_FORMATS, click_options, format_option, named_path
from toolguard.cli.respond import fail, guard
from toolguard.errors import AuditError, ExitStatus, UsageError
from toolguard.files import is_stdin

_FILE = named_path(exists=True, dir_okay=False, path_type=Path)


@click.command(
    help="Tell the whole story of REQUEST_ID from the audit log; exit 1 if it is not there."
)
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
    type=named_path(file_okay=False, path_type=Path),
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
@format_option(REPORT_FORMATS, "A story for people, or one line of JSON.")
def explain(  # noqa: PLR0913, PLR0917 - one parameter per flag
    request_id: str,
    log_file: Path,
    raw_dir: Path | None,
    recheck: bool,
    contract_file: Path | None,
    output: str,
) -> None:
    """Find REQUEST_ID's records (`explain.find`), re-check them if asked, render the story."""
    from toolguard.explain import find as finder  # noqa: PLC0415 - only this command needs it
    from toolguard.explain import render  # noqa: PLC0415

    if recheck and raw_dir is None:
        fail(UsageError("--recheck needs --raw-dir (or TOOLGUARD_RAW_DIR)"), output)
    found = guard(lambda: finder.find(log_file, request_id), output)
    rechecks = {}
    if recheck and raw_dir is not None:
        from toolguard.mcp.replay import replay  # noqa: PLC0415 - an `mcp` record's line

        rechecks = {
            offset: finder.recheck(entry, raw_dir, contract_file, replay)
            for offset, entry in found.records
        }
    render.explain(found, rechecks, output, sys.stdout, request_id)
    if not found.records:
        report.error(f"no record of {request_id} in {log_file}", ExitStatus.FAILURE, output)
    sys.exit(ExitStatus.SUCCESS if found.records else ExitStatus.FAILURE)


@click.group(help="Read audit logs; prune raw copies.")
def audit() -> None:
    """The `audit` group: `summary` and `prune`."""


@audit.command(
    help="Count FILE's records per tool, outcome, error code and layer (FILE `-`: stdin)."
)
@click.argument(
    "log_file",
    metavar="FILE",
    type=named_path(exists=True, dir_okay=False, path_type=Path, allow_dash=True),
)
@click.option("--since", metavar="WHEN", help="RFC 3339 instant or a duration back (30m, 24h, 7d).")
@click.option("--until", metavar="WHEN", help="RFC 3339 instant or a duration back (exclusive).")
@format_option(REPORT_FORMATS, "A table for people, or one line of JSON.")
def summary(log_file: Path, since: str | None, until: str | None, output: str) -> None:
    """`summarize` the log, with a progress bar when its size is known."""
    from toolguard.explain import render  # noqa: PLC0415 - only this command needs it
    from toolguard.explain.summary import Summary, summarize  # noqa: PLC0415

    def summarized() -> Summary:
        try:
            size = None if is_stdin(log_file) else log_file.stat().st_size
        except OSError:
            size = None  # summarize says why it cannot read the log
        with report.progress(size, "audit summary") as advance:
            return summarize(log_file, since, until, on_read=advance)

    result = guard(summarized, output)
    render.summary(result, output, sys.stdout)


@audit.command(
    help="Delete raw copies past the age and total caps now (for cron); exit 2 if DIR is "
    "unusable.\n\n"
    "Checks apply the same caps as they seal, at most once a minute; this runs at once."
)
@click_options(PRUNE)
@format_option(REPORT_FORMATS, "A line for people, or one line of JSON.")
def prune(
    raw_dir: Path | None,
    raw_max_total_bytes: int | None,
    raw_max_age_seconds: int | None,
    output: str,
) -> None:
    """`RawStore.prune` at once, every file past the caps, due or not."""
    from toolguard.audit.raw import Pruned, RawStore  # noqa: PLC0415 - only this command
    from toolguard.contract.audit_policy import AuditPolicy  # noqa: PLC0415
    from toolguard.explain import render  # noqa: PLC0415

    if raw_dir is None:
        fail(UsageError("audit prune needs --raw-dir (or TOOLGUARD_RAW_DIR)"), output)
    defaults = AuditPolicy()
    store = RawStore(
        raw_dir,
        max_file_bytes=0,  # only keeping a copy reads it
        max_total_bytes=raw_max_total_bytes or defaults.raw_max_total_bytes,
        max_age_seconds=raw_max_age_seconds or defaults.raw_max_age_seconds,
    )

    def pruned() -> Pruned | None:
        try:
            return store.prune(due_only=False)
        except AuditError as exc:
            raise UsageError(exc.message) from None

    render.pruned(raw_dir, guard(pruned, output), output, sys.stdout)
