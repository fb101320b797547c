"""The commands that answer an agent: `check`, `run`, `serve`, `mcp`; `schema` (what they promise).

Their flags come from one table (`flags.py`); the answering itself is `respond.py`'s.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from toolguard.cli import flags, respond
from toolguard.cli.respond import fail, guard
from toolguard.contract import load_contract
from toolguard.errors import ExitStatus, UsageError

_CONTRACT = flags.contract_path()


@click.command(help="Check one response against CONTRACT; print exactly one envelope on stdout.")
@click.argument("contract", type=_CONTRACT)
@flags.click_options(flags.CHECK)
def check(contract: Path, **values: Any) -> None:
    """`check` when the fast path declined its flags (`fast.parse_check`); `respond` answers."""
    respond.check(contract, values)


class _CommandLast(click.Command):
    """A command whose last argument is another command: from COMMAND on, every word is its own.

    click reads options anywhere; here they end where COMMAND starts (`flags.py` finds it from
    the flag table), so `run C cmd --now X` gives `--now X` to `cmd`, never to toolguard.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Insert `--` before COMMAND, then parse as click does."""
        return super().parse_args(ctx, flags.options_end_at_command(flags.RUN, args, leading=1))


@click.command(
    cls=_CommandLast,
    help="Run COMMAND (no shell), check its output, print one envelope.\n\n"
    "Options go before COMMAND: every word from COMMAND on is the command's own, even "
    "one that looks like an option (a `--` before COMMAND is optional).",
)
@click.argument("contract", type=_CONTRACT)
@click.argument("command", nargs=-1, required=True)
@flags.click_options(flags.RUN)
def run(contract: Path, command: tuple[str, ...], **values: Any) -> None:
    """`run`, its words split by `_CommandLast`; the process reaps COMMAND's orphans."""
    from toolguard.run.reaper import become_subreaper  # noqa: PLC0415 - `run` only

    # NOTE: the CLI's process has no children but the command's, so every orphan re-parented
    # to it is one to end with the attempt; a library caller keeps the group kill alone.
    become_subreaper()
    respond.run(contract, command, values)


@click.command(help="Answer JSON request lines on stdin with one envelope line each, in order.")
@click.argument("contracts", metavar="CONTRACT...", nargs=-1, required=True, type=_CONTRACT)
@flags.click_options(flags.SERVE)
def serve(contracts: tuple[Path, ...], **values: Any) -> None:
    """Load every contract, then `Server.serve` until stdin ends; its status is the exit's."""
    from toolguard.serve import Server  # noqa: PLC0415 - only `serve` needs it

    mode = values["diagnostics"]
    loaded = [guard(functools.partial(load_contract, path), mode) for path in contracts]
    server = guard(lambda: Server(loaded, flags.trail_options(values)), mode)
    respond.need_stdio("serve", mode)
    status = server.serve(
        sys.stdin.buffer, sys.stdout.buffer, sys.stderr, mode, values["busy_poll_us"]
    )
    if status == ExitStatus.INTERNAL:  # stdout closed: let the final flush write nowhere
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(status)


# NOTE: no interspersed options: everything from COMMAND on belongs to the server.
@click.command(
    context_settings={"allow_interspersed_args": False},
    help="Start the MCP server COMMAND (after --) and guard every tools/call result.\n\n"
    "Configure it in the MCP client in place of the server. Only tools with a "
    "contract are listed and callable; each result is checked and reaches the client "
    "as an envelope.",
)
@flags.click_options(flags.MCP)
@click.argument("command", nargs=-1, required=True)
def mcp(command: tuple[str, ...], **values: Any) -> None:
    """`respond.mcp` relays; the process reaps what leaves the server's group."""
    from toolguard.run.reaper import become_subreaper  # noqa: PLC0415 - `run` and `mcp` only

    # NOTE: the CLI only, as for `run`: a library caller's other children are its own. What
    # leaves the server's group is re-parented here and swept when the server stops.
    become_subreaper()
    respond.mcp(command, values)


@click.command(
    help="Print the envelope schema CONTRACT implies "
    "(declare it as the tool's output schema).\n\n"
    "It is the outputSchema `toolguard mcp` lists. With --serve, the schema of every "
    "line `toolguard serve CONTRACT...` writes."
)
@click.argument("contracts", metavar="CONTRACT...", nargs=-1, required=True, type=_CONTRACT)
@click.option(
    "--serve",
    "for_serve",
    is_flag=True,
    help="The schema of every line `serve` writes for these contracts (bad requests too).",
)
def schema(contracts: tuple[Path, ...], for_serve: bool) -> None:
    """The contract's `advertised_schema`, or the `serve_schema` of them all, on stdout."""
    from toolguard.contract.advertised import advertised_schema  # noqa: PLC0415
    from toolguard.contract.envelope_schema import serve_schema  # noqa: PLC0415

    if len(contracts) > 1 and not for_serve:
        fail(UsageError("one contract, or several with --serve"))
    loaded = [guard(functools.partial(load_contract, path)) for path in contracts]
    schemas = [advertised_schema(contract.envelope_schema) for contract in loaded]
    printed = serve_schema(schemas) if for_serve else schemas[0]
    respond.emit(json.dumps(printed, indent=2) + "\n")
