"""The one table of the answering commands' flags, read by click and by the click-free fast path.

Adding a flag to `check`, `run`, `serve` or `mcp` is one `Flag` here (and its use): `click_options`
turns the table into click options, `fast.py` parses `check`'s without importing click,
`options_end_at_command` keeps `run`'s out of the command's words, and `respond.py` reads
the values by `dest`. Nothing here imports click at module level: the fast
path reads this table on every check.
"""

from __future__ import annotations

from toolguard import operator_line
from toolguard.errors import UsageError
from toolguard.files import absolute_text, is_stdin
from toolguard.frozen import frozen, replace
from toolguard.standins import cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

    from toolguard.audit.trail import TrailOptions

Kind = str  # "text", "data file" (an existing file, or `-` for stdin), "existing file",
# "file path", "folder path", "count", "seconds", "microseconds", "repeatable", "repeatable
# name" (no empty one), "repeatable file", "switch", or a tuple of choices
# The numbers' kinds, and the least each takes (`number`): a count is at least 1, microseconds
# may be 0 (off), seconds are above 0.
LEAST = {"count": 1, "microseconds": 0, "seconds": 0}
# Kinds the audit trail reads as a `Path`, and judges itself: click checks nothing about them.
TRAIL_PATHS = ("file path", "folder path")


@frozen
class Flag:
    """One option: its spelling, where its value goes, how it is read, and its help."""

    name: str
    dest: str
    kind: Kind | tuple[str, ...]
    help: str
    metavar: str | None = None
    envvar: str | None = None
    default: Any = None
    maximum: int | None = None  # a number's largest value; a count's is required


DIAGNOSTICS = ("rich", "json")
# NOTE: the largest values are those the contract's own tables take for the same setting
# (`schemas/contract.schema.json`; tests/cli/test_flags.py holds them equal): a flag can
# override a contract, never go past what any contract could say.
GIB = 1 << 30
RAW_MAX_FILE = GIB
RAW_MAX_TOTAL = 1 << 40
RAW_MAX_AGE = 315_360_000  # ten years
RUN_TIMEOUT = 86_400
REQUEST = (
    Flag("--request-id", "request_id", "text", "Request id to echo (default: a random one).", "ID"),
    Flag("--context", "pairs", "repeatable", "Request context value, always a string.", "K=V"),
    Flag(
        "--context-json",
        "json_pairs",
        "repeatable",
        "Request context value as JSON: 42, true, [1, 2].",
        "K=JSON",
    ),
    Flag(
        "--context-file",
        "context_file",
        "data file",
        "JSON object of request context values (-: stdin).",
    ),
    Flag("--now", "now", "text", "Clock for freshness rules (default: real time).", "RFC3339"),
)
AUDIT = (
    Flag(
        "--audit-log",
        "log",
        "file path",
        "Append one JSON record per check to FILE (env TOOLGUARD_AUDIT_LOG).",
        "FILE",
        "TOOLGUARD_AUDIT_LOG",
    ),
    Flag(
        "--raw-dir",
        "raw_dir",
        "folder path",
        "Keep raw responses in DIR, named by SHA-256 (env TOOLGUARD_RAW_DIR).",
        "DIR",
        "TOOLGUARD_RAW_DIR",
    ),
    Flag(
        "--raw-keep",
        "raw_keep",
        ("all", "rejected"),
        "Which raw responses to keep (default: the contract's, else rejected).",
    ),
    Flag(
        "--raw-max-file",
        "raw_max_file_bytes",
        "count",
        "Keep only the digest of larger responses (default: max_bytes; mcp: 4x + 64 KiB).",
        "BYTES",
        maximum=RAW_MAX_FILE,
    ),
    Flag(
        "--raw-max-total",
        "raw_max_total_bytes",
        "count",
        "Delete the oldest raw copies past this total (default: 1 GiB).",
        "BYTES",
        maximum=RAW_MAX_TOTAL,
    ),
    Flag(
        "--raw-max-age",
        "raw_max_age_seconds",
        "count",
        "Delete raw copies older than this (default: 30 days).",
        "SECONDS",
        maximum=RAW_MAX_AGE,
    ),
    Flag(
        "--audit-key",
        "key_file",
        "file path",
        "Key for hashing secret context (default: the log's path + .key).",
        "FILE",
        "TOOLGUARD_AUDIT_KEY",
    ),
    Flag("--fsync", "fsync", "switch", "fsync the audit log after each record."),
    Flag(
        "--audit-optional",
        "optional",
        "switch",
        "Answer even if the audit trail cannot be written (default: fail closed).",
    ),
)


# `toolguard audit prune`: the raw folder and its caps, spelt (and read from the environment)
# as on `check`.
PRUNE = tuple(
    replace(flag, help="The raw-copy folder to prune (env TOOLGUARD_RAW_DIR).")
    if flag.dest == "raw_dir"
    else flag
    for flag in AUDIT
    if flag.dest in {"raw_dir", "raw_max_total_bytes", "raw_max_age_seconds"}
)


def _diagnostics(default: str) -> Flag:
    return Flag(
        "--diagnostics",
        "diagnostics",
        DIAGNOSTICS,
        "Format of the operator diagnostics on stderr.",
        default=default,
    )


# NOTE: the audit flags come last, so --help lists them after what a first reader needs.
CHECK = (
    Flag(
        "--input", "input_file", "data file", "Read the response from FILE (default, or -: stdin)."
    ),
    *REQUEST,
    _diagnostics("rich"),
    *AUDIT,
)
RUN = (
    Flag(
        "--timeout",
        "timeout",
        "seconds",
        "Wall-clock limit per attempt: all of it for the first, at most what is left "
        "of the retry budget for a retry (default: the contract's, else 30).",
        "SECONDS",
        maximum=RUN_TIMEOUT,
    ),
    Flag(
        "--stdin-from",
        "stdin_from",
        "existing file",
        "Give the command FILE as stdin (default: none).",
    ),
    *REQUEST,
    _diagnostics("rich"),
    *AUDIT,
)
# `serve` and `mcp`: how long to poll for a line expected soon (`polled_input`, `mcp/loop.py`).
BUSY_POLL = Flag(
    "--busy-poll",
    "busy_poll_us",
    "microseconds",
    "Poll this long for an expected line before sleeping (0: off).",
    "MICROSECONDS",
    default=100,
    maximum=1_000_000,
)
SERVE = (_diagnostics("json"), BUSY_POLL, *AUDIT)
# NOTE: the library's defaults are `toolguard.mcp.relay`'s, which this module may not import
# (the check path loads it): tests/cli/test_flags.py holds the two equal.
MCP_LINE_BYTES = 16 << 20
# The longest line a guarded result within the largest `max_bytes` (1 GiB) needs: the room
# `mcp` keeps for a raw line (`mcp/session.py`), the payload sent both ways plus 64 KiB.
MCP_LINE_BYTES_MAX = 4 * GIB + (64 << 10)
MCP_CALL_TIMEOUT = 300.0
MCP = (
    Flag(
        "--contract",
        "contracts",
        "repeatable file",
        "A contract guarding one of the server's tools (repeat for each tool).",
        "FILE",
    ),
    Flag(
        "--call-timeout",
        "call_timeout",
        "seconds",
        "Fail a guarded call the server has not answered after this long.",
        "SECONDS",
        default=MCP_CALL_TIMEOUT,
    ),
    Flag(
        "--max-line-bytes",
        "max_line_bytes",
        "count",
        "Longest JSON-RPC line read from either side.",
        "BYTES",
        default=MCP_LINE_BYTES,
        maximum=MCP_LINE_BYTES_MAX,
    ),
    Flag(
        "--allow-unguarded",
        "allow_unguarded",
        "repeatable name",
        "Pass the server's tool NAME through unchecked (repeatable; warned at start).",
        "NAME",
    ),
    Flag(
        "--shut-channel",
        "shut_channels",
        "repeatable",
        "Shut a channel toolguard does not guard (default: passed): resources, prompts, "
        "completions, logging, progress, sampling, elicitation, or all (repeatable).",
        "NAME",
    ),
    Flag(
        "--pass-instructions",
        "pass_instructions",
        "switch",
        "Pass the server's instructions to the client (default: dropped).",
    ),
    BUSY_POLL,
    _diagnostics("rich"),
    *AUDIT,
)


def trail_options(values: Mapping[str, Any]) -> TrailOptions:
    """The audit flags' values, gathered into the audit writer's options.

    A path may come as text (the click-free parser's) or as a `Path` (click's): it is a `Path`.
    """
    from toolguard.audit.trail import TrailOptions  # noqa: PLC0415 - after parsing, not before

    options = {flag.dest: values[flag.dest] for flag in AUDIT}
    for flag in AUDIT:
        if flag.kind in TRAIL_PATHS and isinstance(options[flag.dest], str):
            from pathlib import Path  # noqa: PLC0415 - only an audit trail configured

            options[flag.dest] = Path(options[flag.dest])
    return TrailOptions(**options)


def one_stdin(table: tuple[Flag, ...], values: Mapping[str, Any], *implicit: str) -> None:
    """Refuse a command line on which two things would read standard input (a usage error).

    `implicit` names what reads stdin without a flag saying so (`check`'s response, when no
    `--input` is given); every data-file flag given `-` is another reader.
    """
    readers = [*implicit]
    readers += [
        flag.name for flag in table if flag.kind == "data file" and is_stdin(values[flag.dest])
    ]
    if len(readers) > 1:
        both = " and ".join(readers)
        raise UsageError(f"only one thing can read standard input ('-'), not {both}")


def options_end_at_command(
    table: tuple[Flag, ...], arguments: Sequence[str], leading: int
) -> list[str]:
    """`arguments` with `--` put before the command: the first positional after `leading` others.

    Every word from the command on is the command's own, whatever it looks like: a `--now` or
    `--audit-log` appended to the command must never become toolguard's. The table says which
    flags take a value (all but switches), so a value is never mistaken for the command; a
    `--` already there is left as it is. Anything else starting with `-` (help, an unknown
    flag) takes no value here, as click reads it.
    """
    takes_value = {flag.name for flag in table if flag.kind != "switch"}
    index = seen = 0
    while index < len(arguments):
        word = arguments[index]
        if word == "--":
            break  # the caller ended the options already
        if word.startswith("-") and word != "-":  # click reads a lone `-` as positional
            name, equals, _ = word.partition("=")
            index += 2 if name in takes_value and not equals else 1
        elif seen == leading:
            return [*arguments[:index], "--", *arguments[index:]]
        else:
            seen, index = seen + 1, index + 1
    return list(arguments)


# What each command writes on stderr when its command line says nothing: its `--diagnostics`
# flag's default (the commands that answer an agent), else text (`--format` is the reports').
_STDERR_FLAGS: dict[tuple[str, ...], tuple[Flag, ...]] = {
    ("check",): CHECK,
    ("run",): RUN,
    ("serve",): SERVE,
    ("mcp",): MCP,
}
# Spellings `--format` took before it was `text|json` everywhere: still accepted, never shown.
FORMAT_ALIASES = {"rich": "text"}
# Each reporting command's `--format` values, the first its default (`format_option`).
REPORT_FORMATS = ("text", "json")
LINT_FORMATS = (*REPORT_FORMATS, "sarif")  # lint.render.RENDERERS; a test keeps them equal
_REPORTING: dict[tuple[str, ...], tuple[str, ...]] = {
    ("test",): REPORT_FORMATS,
    ("lint",): LINT_FORMATS,
    ("diff",): REPORT_FORMATS,
    ("explain",): REPORT_FORMATS,
    ("validate",): REPORT_FORMATS,
    ("audit", "summary"): REPORT_FORMATS,
    ("audit", "prune"): REPORT_FORMATS,
}


def stderr_mode(arguments: Sequence[str]) -> str:
    """The form of every operator line on stderr ("json" or "rich"), read from raw `arguments`.

    Read before anything is parsed, so that whatever goes wrong (a usage error click finds
    before it reaches `--diagnostics json`, a signal during start-up, a broken install) is
    reported in the form the operator's log collector expects. `--diagnostics` on `check`,
    `run`, `serve` and `mcp` (its default: `serve`'s is json), `--format json` on the
    commands that print a report (`sarif` is for stdout: stderr stays text). The last valid
    value given wins, as click keeps the last (`--format json --format text` is text); an
    invalid one (`--diagnostics xml`) is click's usage error, not a choice. Words that are not
    toolguard's are skipped: a flag's value, anything after `--`, and `run`'s and `mcp`'s
    COMMAND with its own words. NOTE: only the answering commands' flags are in a table here;
    once click has parsed a command line, its own value decides (`_chose`), so a reporting
    command's flag given the value `--format` can only mislead a usage error.
    """
    words = list(arguments)
    command = tuple(words[:2]) if words[:1] == ["audit"] else tuple(words[:1])
    table = _STDERR_FLAGS.get(command)
    choices: tuple[str, ...]
    if table is not None:
        flag = next(flag for flag in table if flag.dest == "diagnostics")
        name, choices, chosen = flag.name, DIAGNOSTICS, str(flag.default)
    elif command in _REPORTING:
        formats = _REPORTING[command]
        name, choices, chosen, table = "--format", (*formats, *FORMAT_ALIASES), formats[0], ()
    else:
        return "rich"  # no command yet (`toolguard --bogus`): nothing asked for JSON
    own = words[len(command) :]
    if command in {("run",), ("mcp",)}:
        own = options_end_at_command(table, own, leading=1 if command == ("run",) else 0)
    takes_value = {flag.name for flag in table if flag.kind != "switch"} | {name}
    index = 0
    while index < len(own) and own[index] != "--":
        flag_name, equals, value = own[index].partition("=")
        if flag_name in takes_value and not equals:
            value = own[index + 1] if index + 1 < len(own) else ""
        if flag_name == name and value in choices:
            chosen = value
        index += 2 if flag_name in takes_value and not equals else 1
    return "json" if chosen == "json" else "rich"


def _chose(ctx: Any, param: Any, value: Any) -> Any:
    """The stderr mode flag's click callback: once click has parsed it, its value decides.

    `stderr_mode` read the raw command line before click; click's value (the default too) is
    the same wherever that reading is right, and otherwise the one every later line follows.
    """
    operator_line.choose("json" if value == "json" else "rich")
    return value


def format_option(
    formats: tuple[str, ...], help_text: str
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--format` of a reporting command: `formats` (the first the default), old spellings too.

    One vocabulary for every command that prints a report: `text` for people, `json` for
    programs, `sarif` where it applies (lint). `--diagnostics` keeps its own (`rich|json`).
    """
    import click  # noqa: PLC0415 - the fast path reads this module without click

    class Format(click.Choice):  # type: ignore[type-arg]  # generic from click 8.2 on
        """A choice that also takes the hidden old spellings, read as their new names."""

        def convert(self, value: Any, param: Any, ctx: Any) -> Any:
            return super().convert(FORMAT_ALIASES.get(value, value), param, ctx)

    return click.option(
        "--format",
        "output",
        type=Format(formats),
        default=formats[0],
        show_default=True,
        callback=_chose,
        help=help_text,
    )


def click_options(flags: tuple[Flag, ...]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A decorator adding `flags` to a click command, in table order."""
    import click  # noqa: PLC0415 - the fast path reads the table without click

    def option(flag: Flag) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        kind = flag.kind
        settings: dict[str, Any] = {"help": flag.help, "metavar": flag.metavar}
        if flag.envvar:
            settings["envvar"] = flag.envvar
        if flag.default is not None:
            settings.update(default=flag.default, show_default=True)
        if flag.dest == "diagnostics":
            settings["callback"] = _chose
        if isinstance(kind, tuple):
            settings["type"] = click.Choice(kind)
        elif kind == "switch":
            settings["is_flag"] = True
        elif kind.startswith("repeatable"):
            settings["multiple"] = True
            if kind == "repeatable file":
                settings["type"] = contract_path()
            elif kind == "repeatable name":
                settings["type"] = _name_type()()
        elif kind in LEAST:
            settings["type"] = _number_type(flag)
        elif kind != "text":
            settings["type"] = _CLICK_TYPES[kind](click)
        return click.option(flag.name, flag.dest, **settings)

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        for flag in reversed(flags):
            command = option(flag)(command)
        return command

    return decorate


def contract_path() -> Any:
    """Click's Path for a contract or schema argument: only a name (`named_path`) is checked.

    NOTE: one that cannot be read (missing, unreadable, a folder, a pipe) is a bad contract or
    schema (exit 3), not a usage error (2): its loader says why, the same for every command.
    """
    return named_path(path_type=_path_class(), readable=False)


def named_path(**settings: Any) -> Any:
    """Click's Path (`settings` as for it) for a path argument: see `_path_type`."""
    return _path_type()(**settings)


@cache
def _path_type() -> Any:
    """Click's Path, refusing what names no file: an empty path, or one holding a NUL.

    Only `-` itself is standard input: `./-`, the usual way to name a file called `-`, comes
    back absolute, since `pathlib` spells it `-` and every reader would take it for stdin.
    """
    import click  # noqa: PLC0415 - the fast path reads the table without click

    class NamedPath(click.Path):
        def convert(self, value: Any, param: Any, ctx: Any) -> Any:
            # NOTE: "" would be ".", the current folder: never what `--audit-log ""` meant.
            if isinstance(value, str) and (not value or "\0" in value):
                self.fail("an empty path" if not value else "a path cannot hold a NUL", param, ctx)
            path = super().convert(value, param, ctx)
            if value != "-" and str(path) == "-":
                return self.coerce_path_result(absolute_text(value))
            return path

    return NamedPath


@cache
def _replayable_type() -> Any:
    """An existing file an attempt can read again: not `-`, nor this process's own stdin.

    (A pipe or socket on stdin is read once; `/dev/stdin` names it as well as `-` does.)
    """
    import click  # noqa: PLC0415 - the fast path reads the table without click

    class Replayable(_path_type()):  # type: ignore[misc]
        def convert(self, value: Any, param: Any, ctx: Any) -> Any:
            if value == "-":
                self.fail(_ONCE, param, ctx)
            path = super().convert(value, param, ctx)
            if _is_own_stream_stdin(path):
                shown = click.format_filename(value)
                self.fail(f"{shown!r} is this command's own standard input: {_ONCE}", param, ctx)
            return path

    return Replayable


_ONCE = "standard input can be read once, and a retry reads the file again: give a file"


def _is_own_stream_stdin(path: Any) -> bool:
    """Whether `path` opens the pipe or socket on descriptor 0 (a regular file reads again)."""
    import os  # noqa: PLC0415 - click's commands only
    import stat  # noqa: PLC0415

    try:
        mine, named = os.fstat(0), os.stat(path)  # noqa: PTH116 - a str or a Path
    except (OSError, ValueError):
        return False
    same = (mine.st_dev, mine.st_ino) == (named.st_dev, named.st_ino)
    return same and not stat.S_ISREG(named.st_mode)


def number(flag: Flag, text: str) -> int | float:
    """`text` read as `flag`'s number (its kind's least to its maximum), or ValueError: why.

    Only ASCII digits, and for seconds a plain decimal (`0.5`): Python's int() and float() also
    take `1_000`, digits of any script (`١٢`), spaces around, a sign, `1e3`, `nan` and `inf`,
    and a limit is never guessed from those. Both parsers read numbers here: click's type
    (`_number_type`) and the click-free one (`fast.py`).
    """
    whole, point, fraction = text.partition(".")
    decimal = flag.kind == "seconds" and point
    if not (_digits(whole) and (_digits(fraction) if decimal else not point)):
        form = "a number of seconds (such as 30 or 0.5)" if flag.kind == "seconds" else None
        raise ValueError(f"{_shown(text)} is not {form or 'a whole number'} in digits 0-9")
    most = flag.maximum
    # NOTE: by length first: int() refuses over 4300 digits, float() reads 400 as `inf`.
    if most is not None and len(whole.lstrip("0")) > len(str(most)):
        raise ValueError(f"{_shown(text)} is over {most}, the most it can be")
    value = float(text) if flag.kind == "seconds" else int(text)
    if most is not None and value > most:
        raise ValueError(f"{_shown(text)} is over {most}, the most it can be")
    if value < LEAST[str(flag.kind)] or (flag.kind == "seconds" and not value):
        bound = "above 0" if flag.kind == "seconds" else f"at least {LEAST[str(flag.kind)]}"
        raise ValueError(f"{_shown(text)} is not {bound}")
    if value == float("inf"):
        raise ValueError(f"{_shown(text)} is not a finite number of seconds")
    return value


def _digits(text: str) -> bool:
    return bool(text) and text.isascii() and text.isdigit()


def _shown(text: str) -> str:
    from toolguard.text import clean  # noqa: PLC0415 - only for an error

    return f"'{clean(text, 64)}'"


def _number_type(flag: Flag) -> Any:
    """Click's IntRange or FloatRange for `flag` (its help shows the range), read by `number`."""
    import click  # noqa: PLC0415 - the fast path reads the table without click

    base = click.FloatRange if flag.kind == "seconds" else click.IntRange

    class Number(base):  # type: ignore[misc,valid-type]
        def convert(self, value: Any, param: Any, ctx: Any) -> Any:
            if not isinstance(value, str):
                return super().convert(value, param, ctx)  # a default
            try:
                return number(flag, value)
            except ValueError as exc:
                self.fail(str(exc), param, ctx)

    least = LEAST[str(flag.kind)]
    return Number(min=least, max=flag.maximum, min_open=flag.kind == "seconds")


@cache
def _name_type() -> Any:
    """Click's text for a name, refusing an empty one: it names nothing."""
    import click  # noqa: PLC0415 - the fast path reads the table without click

    class Name(click.ParamType):  # type: ignore[type-arg]  # generic from click 8.2 on
        name = "text"

        def convert(self, value: Any, param: Any, ctx: Any) -> Any:
            if value == "":
                self.fail("an empty name names nothing", param, ctx)
            return value

    return Name


def _trail_path() -> Any:
    """Click's Path for the audit log, its key and the raw folder: no empty path, no NUL.

    NOTE: nothing else is checked here (that it is readable, a file or a folder): what lies
    at such a path may be someone else's doing (a log and its key may sit in a shared folder),
    and the trail judges it on what it opens, so that it fails closed (or warns, with
    `--audit-optional`) as docs/trust.md says, whatever the other user chose to put there,
    instead of being a usage error before anything is read.
    """
    return _path_type()(path_type=_path_class(), readable=False)


def _path_class() -> type[Any]:
    from pathlib import Path  # noqa: PLC0415 - click's commands only

    return Path


_CLICK_TYPES: dict[str, Callable[[Any], Any]] = {
    "data file": lambda _: _path_type()(
        exists=True, dir_okay=False, path_type=_path_class(), allow_dash=True
    ),
    "existing file": lambda _: _replayable_type()(
        exists=True, dir_okay=False, path_type=_path_class()
    ),
    "file path": lambda _: _trail_path(),
    "folder path": lambda _: _trail_path(),
}
