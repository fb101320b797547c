"""The click-free `check` parser reads every flag exactly as click does, or defers to click."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from toolguard.cli import respond
from toolguard.cli.app import cli as click_main
from toolguard.cli.fast import parse_check

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "review_status"
EXISTING = str(EXAMPLE / "response.json")
FOLDER = str(EXAMPLE)
MISSING = str(EXAMPLE / "no-such-file.json")
ENVIRONMENT = ("TOOLGUARD_AUDIT_LOG", "TOOLGUARD_RAW_DIR", "TOOLGUARD_AUDIT_KEY")


class _Called(Exception):
    def __init__(self, parameters: dict[str, Any]) -> None:
        super().__init__("called")
        self.parameters = parameters


def _clicks(arguments: list[str], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any] | None:
    """What click hands the check command, or None if click refuses the command line."""

    def capture(contract: Path, flags: dict[str, Any]) -> None:
        raise _Called({"contract": contract, **flags})

    monkeypatch.setattr(respond, "check", capture)
    result = CliRunner().invoke(click_main, ["check", *arguments])
    if isinstance(result.exception, _Called):
        return _as_text(result.exception.parameters)
    return None


def _as_text(parameters: dict[str, Any]) -> dict[str, Any]:
    """Click's parameters with each `Path` as its text: the fast parser gives paths as text."""
    return {
        name: str(value) if isinstance(value, Path) else value for name, value in parameters.items()
    }


VALUES = st.sampled_from(
    ["x", "req.00000001", "K=V", "rich", "json", "all", "rejected", "0", "1", "12", "+3", "-1",
     "1_0", "\u0661\u0662", " 5 ", "1073741825", "9" * 400, "", "-", "--", EXISTING, FOLDER,
     MISSING, "2026-01-01T00:00:00Z"]
)  # fmt: skip
FLAGS = st.sampled_from(
    ["--input", "--request-id", "--context", "--context-json", "--context-file", "--now",
     "--diagnostics",
     "--audit-log", "--raw-dir", "--raw-keep", "--raw-max-file", "--raw-max-total",
     "--raw-max-age", "--audit-key", "--fsync", "--audit-optional", "--inpu", "-h", "--help",
     "--version", "--"]
)  # fmt: skip
GOOD = st.sampled_from(
    [["--input", EXISTING], ["--request-id", "req.00000001"], ["--context", "K=V"],
     ["--context", "a=b=c"], ["--context-file", EXISTING], ["--now", "2026-01-01T00:00:00Z"],
     ["--diagnostics", "json"], ["--audit-log", MISSING], ["--audit-log", EXISTING],
     ["--raw-dir", FOLDER], ["--raw-dir", MISSING], ["--raw-keep", "all"],
     ["--raw-max-file", "12"], ["--raw-max-total", "1"], ["--raw-max-age", "60"],
     ["--audit-key", MISSING], ["--fsync"], ["--audit-optional"], [f"--input={EXISTING}"],
     ["--request-id=req.00000002"], ["--context=x=1"], ["--input", "-"], ["--input=-"],
     ["--context-file", "-"], ["--context-json", "n=42"], ["--context-json=ok=true"]]
)  # fmt: skip
TOKENS = st.one_of(
    GOOD,
    GOOD,
    GOOD,
    st.tuples(FLAGS, VALUES).map(list),
    st.tuples(FLAGS, VALUES).map(lambda pair: [f"{pair[0]}={pair[1]}"]),
    FLAGS.map(lambda flag: [flag]),
    VALUES.map(lambda value: [value]),
)


@settings(max_examples=300, deadline=None)
@given(
    tokens=st.lists(GOOD, max_size=6, unique_by=lambda token: token[0].split("=")[0])
    | st.lists(TOKENS, max_size=6),
    contract=st.sampled_from(["contract.toml", "contract.toml", "-c"]),
    at=st.integers(0, 6),
    environment=st.dictionaries(st.sampled_from(ENVIRONMENT), VALUES, max_size=2),
)
def test_the_fast_parser_agrees_with_click_whenever_it_answers(
    tokens: list[list[str]], contract: str, at: int, environment: dict[str, str]
) -> None:
    """Where the fast parser answers, click gives the command exactly the same parameters."""
    arguments = [token for group in tokens for token in group]
    arguments.insert(min(at, len(arguments)), contract)
    with pytest.MonkeyPatch.context() as monkeypatch:
        for name in ENVIRONMENT:
            monkeypatch.delenv(name, raising=False)
        for name, value in environment.items():
            monkeypatch.setenv(name, value)
        fast = parse_check(arguments)
        if fast is None:
            return  # deferred: click decides, with its own messages
        clicked = _clicks(arguments, monkeypatch)
    assert clicked is not None, f"click refuses what the fast parser accepted: {arguments}"
    assert fast == clicked


@pytest.mark.parametrize(
    "arguments",
    [
        ["contract.toml"],
        ["contract.toml", "--context", "a=1", "--context", "b=2", "--diagnostics", "json"],
        ["--request-id=req.00000001", "contract.toml", f"--input={EXISTING}"],
        ["contract.toml", "--raw-max-age", "60", "--fsync", "--audit-optional"],
        ["contract.toml", "--input", "-", "--context-json", "ticket_id=42"],
    ],
)
def test_common_command_lines_take_the_fast_path(
    arguments: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command lines agents run are parsed here, and as click would parse them."""
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    fast = parse_check(arguments)
    assert fast is not None
    clicked = _clicks(arguments, monkeypatch)
    assert clicked is not None
    assert fast == clicked


@pytest.mark.parametrize(
    "arguments",
    [
        ["contract.toml", "--help"],
        ["contract.toml", "--input", MISSING],
        ["contract.toml", "--input", FOLDER],
        ["contract.toml", "--raw-max-file", "0"],
        ["contract.toml", "--diagnostics", "yaml"],
        ["contract.toml", "--now", "1", "--now", "2"],
        ["a.toml", "b.toml"],
        [],
    ],
)
def test_anything_unusual_is_left_to_click(arguments: list[str]) -> None:
    """Help, a missing file, a bad choice or count, a repeat, two contracts: click decides."""
    assert parse_check(arguments) is None


def test_a_count_too_long_for_int_is_left_to_click(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 5,000-digit --raw-max-file is click's to refuse (exit 2), not a crash in the parser."""
    arguments = ["contract.toml", "--raw-max-file", "9" * 5000]
    assert parse_check(arguments) is None
    assert _clicks(arguments, monkeypatch) is None


def test_a_file_named_dash_is_a_file_not_standard_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--input ./-` reads the file `-` (its absolute path), as click reads it: never stdin."""
    (tmp_path / "-").write_bytes(b"{}")
    monkeypatch.chdir(tmp_path)
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    arguments = ["contract.toml", "--input", "./-"]
    fast = parse_check(arguments)
    assert fast is not None
    assert fast["input_file"] == str(tmp_path / "-")
    assert fast == _clicks(arguments, monkeypatch)


def test_a_fifo_or_an_unreadable_file_is_left_to_click(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a regular file this user may read is taken here; anything else is click's call."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert parse_check(["contract.toml", "--input", str(fifo)]) is None
    unreadable = str(tmp_path / "unreadable.json")
    Path(unreadable).write_bytes(b"{}")
    # NOTE: os.access, as click asks it too: root may read any file, so the test stands in.
    allowed = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: path != unreadable and allowed(path, mode))
    arguments = ["contract.toml", "--input", unreadable]
    assert parse_check(arguments) is None
    assert _clicks(arguments, monkeypatch) is None


def test_a_nul_in_a_trail_path_is_left_to_click(monkeypatch: pytest.MonkeyPatch) -> None:
    """The trail's paths are not looked at here, but a NUL (never valid in a path) is click's."""
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    arguments = ["contract.toml", "--audit-log", "trail\0.log"]
    assert parse_check(arguments) is None
    assert _clicks(arguments, monkeypatch) is None


def test_a_flag_given_beside_its_environment_variable_takes_the_fast_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The command line wins over TOOLGUARD_AUDIT_LOG, here as in click: no detour through it."""
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TOOLGUARD_AUDIT_LOG", MISSING)
    arguments = ["contract.toml", "--audit-log", EXISTING]
    fast = parse_check(arguments)
    assert fast is not None
    assert fast["log"] == EXISTING
    assert fast == _clicks(arguments, monkeypatch)


def test_an_empty_contract_path_is_left_to_click() -> None:
    """`check ""` would read the current folder as the contract (exit 3): click refuses it (2)."""
    assert parse_check(["", "--input", __file__]) is None
    assert parse_check(["contract.toml", "--input", __file__]) is not None
