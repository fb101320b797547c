"""The `toolguard` click group: every command, registered from the module that declares it."""

from __future__ import annotations

import click

from toolguard.cli import answering, authoring, reading
from toolguard.version import __version__


@click.group(
    context_settings={"help_option_names": ["-h", "--help"]},
    help="Make tool output earn its way into an agent's context.",
)
@click.version_option(__version__, "-V", "--version", prog_name="toolguard")
def cli() -> None:
    """The `toolguard` group; `main` runs it without click's standalone mode."""


for command in (
    answering.check,
    answering.run,
    answering.serve,
    answering.mcp,
    answering.schema,
    authoring.init,
    authoring.validate,
    authoring.run_fixtures,
    authoring.lint,
    authoring.diff,
    reading.explain,
    reading.audit,
):
    cli.add_command(command)
