"""The command layer: the `toolguard` command, its flags, and how an answer ends the process.

`main` is the entry point: `check` goes through the click-free fast path (`fast.py`) when its
flags are plain, everything else through click (`app.py`). `flags.py` is the one table of the
answering commands' flags; `respond.py` is the one place exceptions become exit statuses, and
`main` hands it whatever no command handled, so the process always ends with a status from the
table and a one-line message, never a traceback.
"""

from __future__ import annotations

import sys

from toolguard import one_shot, operator_line, signals, unsupported_python
from toolguard.cli.flags import stderr_mode
from toolguard.standins import suppress

TYPE_CHECKING = False
if TYPE_CHECKING:
    import click


def main() -> None:
    """Run `toolguard` with `sys.argv`; whatever happens, exit with a documented status."""
    arguments = sys.argv[1:]
    # NOTE: before anything is parsed: a usage error found before `--diagnostics json` is
    # reached (an unknown flag earlier on the line) is still one JSON line (`stderr_mode`).
    operator_line.choose(stderr_mode(arguments))
    # NOTE: SIGINT, SIGTERM and SIGHUP unwind alike from the first instant (the table says 130
    # during set-up), unless the caller ignores them; `check`, `run`, `serve` and `mcp` install
    # their own handlers later.
    signals.listen()
    try:
        _dispatch(arguments)
    except SystemExit as exited:
        from toolguard.cli.respond import flush_stdout, leave  # noqa: PLC0415 - after the command

        flush_stdout(arguments)
        # NOTE: the answer is out; the bundle only saves later runs time. A stopping signal
        # while it is written leaves with the answer's status all the same.
        with suppress(KeyboardInterrupt):
            one_shot.finish()
        if arguments[:1] and arguments[0] in one_shot.COMMANDS:
            leave(exited.code)
        raise
    except BaseException as exc:  # noqa: BLE001 - the last catch-all: the exit-status table holds
        from toolguard.cli.respond import last_resort  # noqa: PLC0415 - only on the way out

        last_resort(exc, arguments)
    finally:
        # NOTE: every other command ends with the interpreter's teardown, whose last flush of a
        # stderr nobody can read would exit 120 (`leave` settles it for the one-shot ones).
        from toolguard.cli.respond import settle_stderr  # noqa: PLC0415 - imported by now

        settle_stderr()


def _dispatch(arguments: list[str]) -> None:
    refused = unsupported_python()
    if refused is not None:
        from toolguard.errors import BrokenInstall  # noqa: PLC0415 - only on the way out

        raise BrokenInstall(refused)
    if arguments[:1] == ["check"]:
        from toolguard.cli.fast import parse_check  # noqa: PLC0415 - after the decision

        parsed = parse_check(arguments[1:])
        if parsed is not None:
            from toolguard.cli import respond  # noqa: PLC0415

            signals.still_running()
            contract = parsed.pop("contract")
            respond.check(contract, parsed)  # type: ignore[arg-type]
    import click  # noqa: PLC0415 - not on the fast path

    from toolguard.cli.app import cli  # noqa: PLC0415
    from toolguard.cli.respond import watch_stdout  # noqa: PLC0415

    signals.still_running()
    watch_stdout()

    try:
        # NOTE: not click's standalone mode: there, Ctrl-C becomes "Aborted!" and exit 1, and an
        # unexpected exception escapes with a traceback. Usage errors are still click's to show.
        status = cli.main(args=arguments, prog_name="toolguard", standalone_mode=False)
    except click.exceptions.Abort:
        raise KeyboardInterrupt from None
    except click.ClickException as exc:
        _usage_error(exc)
        sys.exit(exc.exit_code)
    sys.exit(status if isinstance(status, int) else 0)  # `--help`, `--version`: 0


def _usage_error(exc: click.ClickException) -> None:
    """A usage error: click's own lines, or one JSON record (`operator_line`) if asked for.

    NOTE: a stderr nobody can read (its reader gone, a full disk) loses the message, never the
    status: unguarded, the failed write would end as an internal error (4). One closed from the
    start (`2>&-`: Python's `sys.stderr` is None) loses it too: click would print it on stdout.
    """
    if operator_line.chosen() == "json":
        context = getattr(exc, "ctx", None)
        hint = f" (see '{context.command_path} --help')" if context is not None else ""
        operator_line.write(
            operator_line.error(exc.format_message().removesuffix(".") + hint, exc.exit_code)
        )
        return
    if sys.stderr is None:
        return
    with suppress(OSError, ValueError):
        exc.show()
