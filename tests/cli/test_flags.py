"""The flag table's reading of `run`'s argv: every word from COMMAND on is the command's own."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click
import pytest
from conftest import RunToolguard
from hypothesis import given
from hypothesis import strategies as st

from toolguard.cli import flags
from toolguard.cli.answering import run
from toolguard.cli.app import cli
from toolguard.mcp.relay import CALL_TIMEOUT, MAX_LINE_BYTES, Options
from toolguard.mcp.session import Settings

HERE = str(Path(__file__).resolve())
REPO = Path(__file__).resolve().parents[2]
# Words appended to a command that toolguard would read as its own flags if it looked.
INJECTED = (
    ["--now=2000-01-01T00:00:00Z"],
    ["--timeout", "0.5"],
    ["--audit-optional"],
    ["--stdin-from", HERE],
    ["--audit-log", "/tmp/elsewhere.jsonl"],
)
EVERY_INJECTED = [word for words in INJECTED for word in words]


def value_for(flag: flags.Flag) -> st.SearchStrategy[str]:
    """A value click accepts for `flag` (any text, even `--` or `-x`, where it takes text)."""
    kind = flag.kind
    if isinstance(kind, tuple):
        return st.sampled_from(kind)
    return {
        "existing file": st.just(HERE),
        "data file": st.sampled_from([HERE, "-"]),
        "file path": st.just("audit/log.jsonl"),
        "folder path": st.just("raw"),
        "count": st.integers(1, 10**6).map(str),
        "seconds": st.sampled_from(["0.5", "3", "86400"]),
    }.get(kind, st.text(max_size=8))


# Flags given once each: click keeps the last of a repeated option, which is not our concern.
options = st.lists(st.sampled_from(flags.RUN), unique=True, max_size=4).flatmap(
    lambda chosen: st.tuples(
        *(
            st.just([flag.name])
            if flag.kind == "switch"
            else value_for(flag).flatmap(
                lambda value, name=flag.name: st.sampled_from([[name, value], [f"{name}={value}"]])
            )
            for flag in chosen
        )
    )
)
words = st.one_of(
    st.text(max_size=6), st.sampled_from([*EVERY_INJECTED, "--", "-", "-h", "--help", "--bogus"])
)


def parse(arguments: list[str]) -> dict[str, Any]:
    """`run`'s parameters as click passes them for `arguments`."""
    # NOTE: with the group's settings (`-h`), as the CLI runs it: click caches the help option
    # it first builds on the command, and `--help` alone would then change `run --help`.
    with run.make_context("run", list(arguments), **cli.context_settings) as context:
        return dict(context.params)


@given(
    before=options,
    between=options,
    program=st.text(max_size=6).filter(lambda word: not word.startswith("-")),
    rest=st.lists(words, max_size=6),
)
def test_every_word_from_command_on_is_the_commands(
    before: tuple[list[str], ...], between: tuple[list[str], ...], program: str, rest: list[str]
) -> None:
    """Options before and after CONTRACT are toolguard's; COMMAND and all after it are argv."""
    leading = [word for option in before for word in option]
    middle = [word for option in between for word in option]
    arguments = [*leading, "contract.toml", *middle, program, *rest]
    params = parse(arguments)
    assert params["command"] == (program, *rest)
    assert params["contract"] == Path("contract.toml")


@pytest.mark.parametrize("trailing", [*INJECTED, EVERY_INJECTED])
def test_options_after_the_command_reach_the_command(trailing: list[str]) -> None:
    """`--now`, `--timeout`, `--stdin-from`, `--audit-*` after COMMAND are the command's words."""
    params = parse(["contract.toml", "--timeout", "7", "ssh", "host", *trailing])
    assert params["command"] == ("ssh", "host", *trailing)
    assert (params["timeout"], params["now"], params["optional"]) == (7.0, None, False)
    assert (params["stdin_from"], params["log"]) == (None, None)


def test_an_explicit_double_dash_is_kept_as_it_was() -> None:
    """With `--` before COMMAND, a later `--` is the command's own word."""
    params = parse(["contract.toml", "--now", "2020-01-01T00:00:00Z", "--", "cmd", "--", "-x"])
    assert params["command"] == ("cmd", "--", "-x")
    assert params["now"] == "2020-01-01T00:00:00Z"


def test_a_value_that_looks_like_double_dash_is_still_a_value() -> None:
    """`--request-id --` gives `--` to the flag (as click reads it), so COMMAND comes after."""
    params = parse(["contract.toml", "--request-id", "--", "cmd", "--now", "x"])
    assert params["request_id"] == "--"
    assert params["command"] == ("cmd", "--now", "x")


def test_insertion_is_table_driven() -> None:
    """A flag's value is skipped by its table kind, so its value is never taken for COMMAND."""
    table = (
        flags.Flag("--new-value", "new", "text", "a value"),
        flags.Flag("--on", "on", "switch", "a switch"),
    )
    got = flags.options_end_at_command(table, ["C", "--new-value", "v", "--on", "cmd", "--on"], 1)
    assert got == ["C", "--new-value", "v", "--on", "--", "cmd", "--on"]


def test_unknown_option_before_the_command_is_still_refused() -> None:
    """An unknown flag before COMMAND stays a usage error (click's message), not a command word."""
    with pytest.raises(click.NoSuchOption):
        parse(["contract.toml", "--bogus", "cmd"])


SECONDS = [
    (table, flag)
    for table in ("RUN", "MCP")
    for flag in getattr(flags, table)
    if flag.kind == "seconds"
]
COMMANDS = {
    "RUN": ["run", "tests/data/mcp/probe/contract.toml", "{flag}", "{value}", "true"],
    "MCP": [
        "mcp",
        "--contract",
        "tests/data/mcp/probe/contract.toml",
        "{flag}",
        "{value}",
        "--",
        "true",
    ],
}


def test_every_seconds_flag_is_tried() -> None:
    """The seconds flags of every table of the module (any command's) are all tried below."""
    every = {
        flag.name
        for name in dir(flags)
        if isinstance(table := getattr(flags, name), tuple)
        for flag in table
        if isinstance(flag, flags.Flag) and flag.kind == "seconds"
    }
    assert every == {flag.name for _, flag in SECONDS}
    assert every


@pytest.mark.parametrize(("table", "flag"), SECONDS, ids=lambda item: getattr(item, "name", item))
@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "Infinity", "1e400"])
def test_a_seconds_flag_refuses_what_is_not_a_finite_number(
    table: str, flag: flags.Flag, value: str, run_toolguard: RunToolguard
) -> None:
    """`nan` and `inf` would turn the limit off: a usage error (2), never a session."""
    words = [word.format(flag=flag.name, value=value) for word in COMMANDS[table]]
    result = run_toolguard(*words)
    assert result.status == 2, result.stderr
    assert b"digits 0-9" in result.stderr or b"finite" in result.stderr


def test_mcp_flags_default_to_what_the_library_does() -> None:
    """`--call-timeout` and `--max-line-bytes` default to the values a library session takes."""
    defaults = {flag.dest: flag.default for flag in flags.MCP}
    assert defaults["call_timeout"] == CALL_TIMEOUT == Options().call_timeout
    assert Settings().call_timeout == CALL_TIMEOUT
    assert defaults["max_line_bytes"] == MAX_LINE_BYTES == Options().max_line_bytes
    assert Settings().max_line_bytes == MAX_LINE_BYTES


@pytest.mark.parametrize(
    "words",
    [
        ["check", "{X}"],
        ["run", "{X}", "true"],
        ["serve", "{X}"],
        ["schema", "{X}"],
        ["mcp", "--contract", "{X}", "--", "true"],
        ["test", "{X}"],
        ["lint", "{X}"],
        ["diff", "{X}", "{X}"],
        ["validate", "{X}", "-"],
        ["validate", "-", "{X}"],
        ["test", "--junit", "{X}", "{X}"],
    ],
    ids=" ".join,
)
def test_a_file_this_user_cannot_read_is_left_to_its_reader(
    words: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unreadable contract, schema or instance is said so by its reader, with the status a
    missing one gets (3 for a contract or schema, 1 for an instance), never click's usage
    error (2); a --junit file is written, never read."""
    unreadable = str(tmp_path / "contract.toml")
    Path(unreadable).write_bytes(b"")
    # NOTE: os.access, as click asks it: root may read any file, so the test stands in.
    allowed = os.access
    monkeypatch.setattr(
        os, "access", lambda path, mode: str(path) != unreadable and allowed(path, mode)
    )
    name, *rest = [unreadable if word == "{X}" else word for word in words]
    command = cli.commands[name]
    with command.make_context(name, rest) as context:
        assert unreadable in {str(value) for value in _values(context.params)}


def _values(params: dict[str, Any]) -> list[Any]:
    return [
        v for value in params.values() for v in (value if isinstance(value, tuple) else [value])
    ]


def _every_command(group: click.Group) -> list[click.Command]:
    commands: list[click.Command] = []
    for command in group.commands.values():
        commands += _every_command(command) if isinstance(command, click.Group) else [command]
    return commands


@pytest.mark.parametrize(
    "param",
    [
        param
        for command in _every_command(cli)
        for param in command.params
        if isinstance(param.type, click.Path)
    ],
    ids=lambda param: f"{param.name}",
)
def test_an_empty_path_names_no_file_for_any_path_argument(param: click.Parameter) -> None:
    """`""` would be the current folder: `test ""` tested it and `init t ""` wrote into it.
    Every path a command takes, contract, folder or file, refuses it (a usage error, 2)."""
    with pytest.raises(click.BadParameter, match="an empty path"):
        param.type.convert("", param, None)


NUMBERS = [
    flag
    for name in dir(flags)
    if isinstance(table := getattr(flags, name), tuple)
    for flag in table
    if isinstance(flag, flags.Flag) and flag.kind in flags.LEAST
]
# What Python's int() or float() reads as a number, and no one writes as a limit.
LOOSE = [
    "1_000",
    "\u0661\u0662",
    " 5 ",
    "5 ",
    "+5",
    "-5",
    "1e3",
    "0x10",
    "5.",
    ".5",
    "nan",
    "\x1b[31m",
]


@pytest.mark.parametrize("flag", NUMBERS, ids=lambda flag: flag.name)
@pytest.mark.parametrize("text", LOOSE)
def test_a_number_is_plain_ascii_digits_else_a_usage_error(flag: flags.Flag, text: str) -> None:
    """`1_000`, Arabic-Indic digits, spaces, a sign or an exponent: refused, the value escaped."""
    with pytest.raises(click.BadParameter) as refused:
        flags._number_type(flag).convert(text, None, None)
    assert "\x1b" not in refused.value.message  # escaped: a terminal never reads it
    with pytest.raises(ValueError, match="digits 0-9"):
        flags.number(flag, text)


@pytest.mark.parametrize("flag", NUMBERS, ids=lambda flag: flag.name)
def test_a_number_past_its_maximum_is_refused_however_long(flag: flags.Flag) -> None:
    """One over the flag's maximum, or 400 digits, is refused; the maximum itself is taken."""
    if flag.maximum is None:
        assert flag.kind == "seconds"  # none documented: only a finite number is asked for
        with pytest.raises(ValueError, match="finite"):
            flags.number(flag, "9" * 400)
        return
    assert flags.number(flag, str(flag.maximum)) == flag.maximum
    for text in (str(flag.maximum + 1), "9" * 400, "9" * 5000):
        with pytest.raises(ValueError, match="the most it can be"):
            flags.number(flag, text)


def test_every_count_has_a_maximum_the_contract_takes_too() -> None:
    """Each byte or count flag has a maximum; one a contract also sets is the contract's."""
    schema = json.loads((REPO / "schemas" / "contract.schema.json").read_text())
    audit = schema["properties"]["audit"]["properties"]
    contract = {
        "raw_max_file_bytes": audit["raw_max_file_bytes"]["maximum"],
        "raw_max_total_bytes": audit["raw_max_total_bytes"]["maximum"],
        "raw_max_age_seconds": audit["raw_max_age_seconds"]["maximum"],
        "timeout": schema["properties"]["run"]["properties"]["timeout_seconds"]["maximum"],
    }
    assert all(flag.maximum for flag in NUMBERS if flag.kind != "seconds")
    assert {flag.dest: flag.maximum for flag in NUMBERS if flag.dest in contract} == contract
    max_bytes = schema["properties"]["limits"]["properties"]["max_bytes"]["maximum"]
    assert 4 * max_bytes + (64 << 10) == flags.MCP_LINE_BYTES_MAX


@pytest.mark.parametrize("flag", NUMBERS, ids=lambda flag: flag.name)
def test_click_and_the_number_reader_agree(flag: flags.Flag) -> None:
    """Click's type gives what `number` gives, for plain values at and inside the bounds."""
    kind_type = flags._number_type(flag)
    texts = ["1", "12", "0.5", "3.25", "0", str(flag.maximum or 86400)]
    for text in texts:
        try:
            expected: Any = flags.number(flag, text)
        except ValueError:
            with pytest.raises(click.BadParameter):
                kind_type.convert(text, None, None)
        else:
            assert kind_type.convert(text, None, None) == expected


def test_an_empty_tool_name_is_not_let_through_unguarded(run_toolguard: RunToolguard) -> None:
    """`mcp --allow-unguarded ""` names no tool: a usage error (2), no server started."""
    result = run_toolguard(
        "mcp", "--contract", "tests/data/mcp/probe/contract.toml", "--allow-unguarded", "",
        "--", "true",
    )  # fmt: skip
    assert result.status == 2, result.stderr
    assert b"--allow-unguarded" in result.stderr
    assert b"empty name" in result.stderr
