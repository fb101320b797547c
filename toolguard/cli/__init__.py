"""The command layer: the `toolguard` command, its flags, and how an answer ends the process.

`main` is the entry point: `check` goes through the click-free fast path (`fast.py`) when its
flags are plain, everything else through click (`app.py`). `flags.py` is the one table of the
answering commands' flags; `respond.py` is the one place exceptions become exit statuses.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Run `toolguard` with `sys.argv`."""
    arguments = sys.argv[1:]
    if arguments[:1] == ["check"]:
        from toolguard.cli.fast import parse_check  # noqa: PLC0415 - after the decision

        parsed = parse_check(arguments[1:])
        if parsed is not None:
            from toolguard.cli import respond  # noqa: PLC0415

            contract = parsed.pop("contract")
            respond.check(contract, parsed)  # type: ignore[arg-type]
    from toolguard.cli.app import cli  # noqa: PLC0415

    cli()
