"""Under `--diagnostics json` or `--format json` every stderr line is one JSON object, always.

Operators pipe stderr into log collectors: whatever goes wrong (a usage error click finds, a
missing or unreadable file, a refused contract or schema, a stdout closed, a cache not
trusted), each line parses as an object with its `outcome` and `message` (and, for an error,
the `exit_status` the process ends with). In the human modes, no line is JSON. One table of
cases, each run through the real CLI.
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import pytest
from conftest import Run, RunToolguard

from toolguard.cli.flags import stderr_mode

REPO = Path(__file__).resolve().parents[2]
REVIEW = REPO / "examples" / "review_status"
CONTRACT = str(REVIEW / "contract.toml")
SCHEMA = str(REVIEW / "response.schema.json")
MISSING = str(REPO / "no-such-file.toml")
D = ("--diagnostics", "json")
F = ("--format", "json")

# (arguments, status); `{dir}` is a folder, `{bad}` a contract toolguard refuses.
JSON_CASES = [
    # click's usage errors: unknown option (before and after the mode flag), missing argument,
    # bad choice, bad number, a path click refuses
    (("check", *D, "--bogus", CONTRACT), 2),
    (("check", "--bogus", *D, CONTRACT), 2),
    (("check", "--bogus", "--diagnostics=json", CONTRACT), 2),
    (("check", *D), 2),
    (("check", *D, "--raw-keep", "some", CONTRACT), 2),
    (("check", *D, "--raw-max-file", "many", CONTRACT), 2),
    (("check", *D, "--diagnostics", "xml", CONTRACT), 2),
    (("check", *D, CONTRACT, "--input", "{dir}"), 2),
    (("check", *D, CONTRACT, "--audit-log", ""), 2),
    (("run", *D, "--timeout", "nan", CONTRACT, "true"), 2),
    (("run", "--bogus", *D, CONTRACT, "true"), 2),
    (("run", *D, CONTRACT), 2),
    (("run", *D, "--stdin-from", "{dir}", CONTRACT, "true"), 2),
    (("serve", "--bogus", CONTRACT), 2),  # serve's default is json
    (("serve",), 2),
    (("serve", "--busy-poll", "-1", CONTRACT), 2),
    (("mcp", "--bogus", *D, "--", "true"), 2),
    (("mcp", *D, "--call-timeout", "inf", "--contract", CONTRACT, "--", "true"), 2),
    (("mcp", *D), 2),
    (("test", "--bogus", *F), 2),
    (("test", *F), 2),
    (("lint", "--bogus", *F), 2),
    (("diff", "--bogus", *F), 2),
    (("explain", *F, "--audit-log", MISSING, "req.12345678"), 2),
    (("explain", "--bogus", *F), 2),
    (("audit", "summary", *F, MISSING), 2),
    (("audit", "prune", *F, "--raw-dir", "{dir}", "--raw-max-age", "0"), 2),
    (("validate", "--bogus", *F), 2),
    (("validate", *F), 2),
    # errors toolguard finds itself
    (("check", *D, MISSING), 3),
    (("check", *D, "{bad}"), 3),
    (("run", *D, MISSING, "true"), 3),
    (("serve", MISSING), 3),
    (("mcp", *D, "--contract", MISSING, "--", "true"), 3),
    (("test", *F, MISSING), 3),
    (("lint", *F, "{bad}"), 3),
    (("diff", *F, CONTRACT), 2),
    (("validate", *F, MISSING, SCHEMA), 3),
    (("validate", *F, "{bad}", SCHEMA), 3),
    (("validate", *F, "-", "-"), 2),
    (("validate", *F, "--refs", "nothing", SCHEMA, SCHEMA), 2),
    (("audit", "prune", *F), 2),
]
TEXT_CASES = [
    (("check", "--bogus", CONTRACT), 2),
    (("check", CONTRACT, *D[:1], "rich", "--bogus"), 2),
    (("lint", "--format", "sarif", "{bad}"), 3),  # SARIF is for stdout: stderr stays text
    (("validate", *F[:1], "yaml"), 2),
    (("validate", MISSING, SCHEMA), 3),
    (("validate", *F, "--format", "text", MISSING, SCHEMA), 3),  # click keeps the last
    (("run", CONTRACT, "echo", *D), 2),  # COMMAND's words are its own: not toolguard's mode
    (("--bogus", *F), 2),  # no command: nothing asked for JSON
]


def _cases(table: list[tuple[tuple[str, ...], int]]) -> list[object]:
    """One test id per case: its words, paths by their last part."""
    return [
        pytest.param(arguments, status, id=" ".join(Path(word).name or word for word in arguments))
        for arguments, status in table
    ]


def _arguments(arguments: tuple[str, ...], tmp_path: Path) -> list[str]:
    bad = tmp_path / "bad.toml"
    bad.write_text('tool = "x"\n')
    (tmp_path / "folder").mkdir(exist_ok=True)
    return [word.format(dir=tmp_path / "folder", bad=bad) for word in arguments]


def _json_lines(done: Run) -> list[dict[str, object]]:
    records = []
    for line in done.stderr.decode().splitlines():
        record = json.loads(line)
        assert isinstance(record, dict), line
        assert isinstance(record["outcome"], str)
        assert isinstance(record["message"], str)
        records.append(record)
    return records


def _is_json(line: str) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize(("arguments", "status"), _cases(JSON_CASES))
def test_every_stderr_line_is_one_json_object(
    run_toolguard: RunToolguard, tmp_path: Path, arguments: tuple[str, ...], status: int
) -> None:
    """Each line is an object; an error's `exit_status` is the status the process ends with."""
    done = run_toolguard(*_arguments(arguments, tmp_path))
    assert done.status == status
    records = _json_lines(done)
    assert records, "an error says why"
    assert [r["exit_status"] for r in records if r["outcome"] == "error"] == [status] * len(
        [r for r in records if r["outcome"] == "error"]
    )
    assert done.stdout == b""


@pytest.mark.parametrize(("arguments", "status"), _cases(TEXT_CASES))
def test_the_human_modes_write_no_json_line(
    run_toolguard: RunToolguard, tmp_path: Path, arguments: tuple[str, ...], status: int
) -> None:
    """Text for people, click's usage lines included: never a JSON fragment among them."""
    done = run_toolguard(*_arguments(arguments, tmp_path))
    assert done.status == status
    lines = done.stderr.decode().splitlines()
    assert lines
    assert [line for line in lines if _is_json(line)] == []


@pytest.mark.parametrize("arguments", [("lint", *F, CONTRACT), ("test", "--format=json", CONTRACT)])
def test_a_closed_stdout_is_said_in_json(
    run_toolguard: RunToolguard, arguments: tuple[str, ...]
) -> None:
    """`--format json` with stdout closed (`>&-`): exit 4 and one JSON record saying so."""
    done = run_toolguard(
        *arguments,
        command=["sh", "-c", 'exec "$0" -m toolguard "$@" >&-', sys.executable],
    )
    assert done.status == 4
    assert [(r["outcome"], r["exit_status"]) for r in _json_lines(done)] == [("error", 4)]


@pytest.mark.parametrize("mode", ["json", "rich"])
def test_an_untrusted_cache_is_warned_in_the_chosen_form(
    run_toolguard: RunToolguard, tmp_path: Path, mode: str
) -> None:
    """The compile cache's warning follows `--diagnostics`, beside the diagnostics record."""
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o777)
    done = run_toolguard(
        "check",
        CONTRACT,
        "--diagnostics",
        mode,
        "--context",
        "change_id=CR-1",
        stdin=b"{}",
        extra_env={"TOOLGUARD_CACHE_DIR": str(cache)},
    )
    assert done.status == 1
    lines = done.stderr.decode().splitlines()
    if mode == "json":
        assert [record["outcome"] for record in _json_lines(done)] == ["warning", "failure"]
    else:
        assert lines[0].startswith("toolguard: warning: compile cache not used")
        assert [line for line in lines if _is_json(line)] == []


@pytest.mark.parametrize(
    ("arguments", "mode"),
    [
        (["check", "--bogus", "--diagnostics", "json"], "json"),
        (["check", "--diagnostics=json", "--diagnostics", "rich"], "rich"),
        (["check", "--diagnostics", "json", "--diagnostics", "xml"], "json"),
        (["check", "--context", "--diagnostics", "json"], "rich"),  # a flag's value
        (["check", "C", "--", "--diagnostics", "json"], "rich"),
        (["serve", "C"], "json"),
        (["serve", "--diagnostics", "rich"], "rich"),
        (["run", "--diagnostics", "json", "C", "cmd"], "json"),
        (["run", "C", "cmd", "--diagnostics", "json"], "rich"),
        (["mcp", "--", "srv", "--diagnostics", "json"], "rich"),
        (["mcp", "srv", "--diagnostics", "json"], "rich"),
        (["lint", "--format", "sarif"], "rich"),
        (["lint", "--format", "json", "--format", "sarif"], "rich"),
        (["diff", "--format=json", "--format", "text"], "rich"),
        (["test", "--format", "json", "--format", "rich"], "rich"),
        (["test", "--format", "json", "--format", "sarif"], "json"),  # not test's: an error
        (["audit", "summary", "--format=json", "log"], "json"),
        (["audit", "--format", "json"], "rich"),
        (["init", "--format", "json"], "rich"),
        ([], "rich"),
    ],
)
def test_the_mode_is_read_from_the_raw_command_line(arguments: list[str], mode: str) -> None:
    """Before click parses a word: the last valid value of the command's own flag wins."""
    assert stderr_mode(arguments) == mode


# Words each command's line is made of, for the comparison with click below: its mode flag
# and values, flags that take a value or none, `--`, `-` and plain words (which click may
# take for a value, an argument or a run/mcp COMMAND).
_WORDS = {
    ("check", CONTRACT): ("--diagnostics", "json", "--diagnostics=json", "--now", "--", "rich"),
    ("run", CONTRACT): ("--diagnostics", "json", "--diagnostics=rich", "--now", "--", "cmd"),
    ("serve", CONTRACT): ("--diagnostics", "rich", "--diagnostics=json", "--fsync", "--"),
    ("mcp",): ("--diagnostics", "json", "--diagnostics=json", "--contract", "--", "srv"),
    ("lint", CONTRACT): ("--format", "json", "--format=sarif", "text", "--", "x"),
    ("test", CONTRACT): ("--format", "json", "--format=text", "--junit", "--now", "--"),
    ("diff", CONTRACT): ("--format", "json", "--format=rich", "--against", "--", CONTRACT),
    ("validate", SCHEMA): ("--format", "json", "--format=json", "--refs", "--", "rich"),
    ("explain", "--audit-log", CONTRACT): ("--format", "json", "--format=text", "--now", "--", "r"),
    ("audit", "summary", CONTRACT): ("--format", "json", "--format=json", "--since", "--", "x"),
    ("audit", "prune", "--raw-dir", str(REVIEW)): ("--format", "json", "--format=text", "--", "7"),
}


_ANSWERING = {"check", "run", "serve", "mcp"}


def _takes(word: str) -> bool:
    """Whether `word` is one of `_WORDS`' reporting flags that take a value (none are switches)."""
    return word.startswith("--") and "=" not in word


def _click_mode(arguments: list[str]) -> str | None:
    """The mode click's own parse gives (its callbacks run), or None where click refuses."""
    import click  # noqa: PLC0415

    from toolguard.cli.app import cli  # noqa: PLC0415

    words = 2 if arguments[0] == "audit" else 1
    command: click.Command = cli
    for word in arguments[:words]:
        assert isinstance(command, click.Group)
        command = command.commands[word]
    try:
        with command.make_context(" ".join(arguments[:words]), arguments[words:]) as context:
            values = context.params
    except (click.ClickException, click.exceptions.Exit):
        return None
    value = values.get("diagnostics", values.get("output"))
    return "json" if value == "json" else "rich"


@pytest.mark.parametrize(
    "start", list(_WORDS), ids=lambda start: " ".join(start[: 2 if start[0] == "audit" else 1])
)
def test_the_raw_reading_agrees_with_click(start: tuple[str, ...]) -> None:
    """Every line click parses is written in click's mode, which the raw reading foresaw.

    The raw reading may differ only where a reporting command's own flag (not in the answering
    commands' table) takes a word such as `--format` or `--` for its value; click's parse
    then decides, before any line is written.
    """
    from toolguard import operator_line  # noqa: PLC0415

    compared = 0
    try:
        for length in range(4):
            for rest in itertools.product(_WORDS[start], repeat=length):
                arguments = [*start, *rest]
                operator_line.choose(stderr_mode(arguments))
                mode = _click_mode(arguments)
                if mode is None:
                    continue
                compared += 1
                assert operator_line.chosen() == mode, arguments
                misread = start[0] not in _ANSWERING and any(  # a value the table lacks
                    before not in {"--format", "--"} and _takes(before) and word.startswith("--")
                    for before, word in itertools.pairwise(arguments)
                )
                assert misread or stderr_mode(arguments) == mode, arguments
    finally:
        operator_line.choose("rich")
    assert compared > 10


def test_the_reporting_commands_formats_are_clicks() -> None:
    """The raw reading knows each reporting command's `--format` values as click declares them."""
    import click  # noqa: PLC0415

    from toolguard.cli.app import cli  # noqa: PLC0415
    from toolguard.cli.flags import _REPORTING  # noqa: PLC0415

    declared = {}
    for name, command in cli.commands.items():
        subcommands = command.commands if isinstance(command, click.Group) else {"": command}
        for sub, leaf in subcommands.items():
            for param in leaf.params:
                if param.name == "output" and isinstance(param.type, click.Choice):
                    declared[tuple(word for word in (name, sub) if word)] = tuple(
                        param.type.choices
                    )
    assert declared == _REPORTING
