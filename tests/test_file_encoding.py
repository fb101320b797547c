"""Files written elsewhere: a BOM or UTF-16 is named for what it is, in every file toolguard reads.

Contracts, schemas, key sets, context files and fixtures' TOML are the operator's: each is
refused with its encoding said (never an internal error, never a "response" it is not); a
golden saved with CRLF, a BOM or no final newline fails saying so. CRLF and a last line
without a newline are what TOML and JSON allow, and are accepted where they are read.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from toolguard import load_contract
from toolguard.errors import ContractError, SchemaError, UsageError
from toolguard.file_encoding import encoding_problem
from toolguard.fixtures.discover import discover
from toolguard.fixtures.expectation import Expectation, FixtureError
from toolguard.fixtures.run import SuiteResult, run_suite
from toolguard.request import read_context_file
from toolguard.schema.refs import read_schema
from toolguard.signed.keyset import read_key_set

TREES = Path(__file__).resolve().parent / "data" / "fixture_trees"
BOM = "starts with a UTF-8 byte-order mark"
UTF16LE = "is UTF-16LE (it starts with its byte-order mark)"


def utf16le(text: bytes) -> bytes:
    return b"\xff\xfe" + text.decode().encode("utf-16-le")


SAVED = {
    "bom": (lambda raw: b"\xef\xbb\xbf" + raw, BOM),
    "utf16le": (utf16le, UTF16LE),
    "utf16be": (lambda raw: b"\xfe\xff" + raw.decode().encode("utf-16-be"), "is UTF-16BE"),
}


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (b"\xef\xbb\xbf{}", BOM),
        (b"\xff\xfe{\x00}\x00", UTF16LE),
        (b"\xfe\xff\x00{\x00}", "is UTF-16BE"),
        (b"\xff\xfe\x00\x00{\x00\x00\x00", "is UTF-32LE"),
        (b"\x00\x00\xfe\xff\x00\x00\x00{", "is UTF-32BE"),
        (b'{"a": "\xe9"}', "is not UTF-8 (byte 7)"),
        (b'{"a": "\xc3\xa9"}\r\n', None),
    ],
)
def test_encoding_problem_names_how_a_file_was_saved(raw: bytes, why: str | None) -> None:
    """A byte-order mark, UTF-16/32 or bad UTF-8 is said; UTF-8 with CRLF is nothing to say."""
    found = encoding_problem(raw)
    assert found == why if why is None else found is not None and found.startswith(why)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    shutil.copytree(TREES, tmp_path / "trees")
    return tmp_path / "trees" / "pass"


def resave(path: Path, how: str) -> None:
    transform, _ = SAVED[how]
    path.write_bytes(transform(path.read_bytes()))


def is_response(path: Path) -> bool:
    folder = path.parent.name in {"accept", "reject"} or path.parent.parent.name == "history"
    return folder and path.suffix == ".json" and not path.name.endswith(".context.json")


def run(tree: Path) -> SuiteResult:
    contract = tree / "contract.toml"
    return run_suite(discover(contract), load_contract(contract, cache=False))


@pytest.mark.parametrize("how", SAVED)
def test_a_contract_saved_elsewhere_is_refused_naming_its_encoding(tree: Path, how: str) -> None:
    """Not "invalid statement at line 1" (a BOM) nor a bare "not UTF-8" (UTF-16)."""
    resave(tree / "contract.toml", how)
    with pytest.raises(ContractError, match=re.escape(f"contract {SAVED[how][1]}")):
        load_contract(tree / "contract.toml", cache=False)


@pytest.mark.parametrize("how", SAVED)
def test_a_schema_saved_elsewhere_is_refused_as_a_schema(tmp_path: Path, how: str) -> None:
    """The strict parser's "response starts with ..." is not said of a schema file."""
    path = tmp_path / "response.schema.json"
    path.write_bytes(SAVED[how][0](b'{"type": "object"}\n'))
    with pytest.raises(SchemaError, match=re.escape(f"schema {SAVED[how][1]}")) as raised:
        read_schema(path)
    assert "response" not in raised.value.message


@pytest.mark.parametrize("how", SAVED)
def test_a_context_file_saved_elsewhere_is_refused_naming_its_encoding(
    tmp_path: Path, how: str
) -> None:
    """`--context-file` and a fixture's context: the file, not a "response", is named."""
    path = tmp_path / "context.json"
    path.write_bytes(SAVED[how][0](b'{"project": "p"}\n'))
    with pytest.raises(UsageError, match=re.escape(f"context file {SAVED[how][1]}")) as raised:
        read_context_file(path)
    assert "response" not in str(raised.value)


@pytest.mark.parametrize("how", SAVED)
def test_a_key_set_saved_elsewhere_is_refused_naming_its_encoding(how: str) -> None:
    """A JWK set re-saved by another editor: its encoding is the refusal."""
    raw = SAVED[how][0](b'{"keys": []}\n')
    with pytest.raises(ValueError, match=re.escape(f"the file {SAVED[how][1]}")) as raised:
        read_key_set("keys.jwks.json", raw, ("EdDSA",))
    assert "response" not in str(raised.value)


@pytest.mark.parametrize("how", SAVED)
def test_an_expect_toml_saved_elsewhere_is_a_fixture_error(tmp_path: Path, how: str) -> None:
    """UTF-16 was an internal error (tomllib decodes UTF-8 itself), a BOM "Invalid statement"."""
    path = tmp_path / "NAME.expect.toml"
    path.write_bytes(SAVED[how][0](b'code = "INVALID_RESPONSE"\r\nlayer = "schema"\r\n'))
    why = f"NAME.expect.toml: the file {SAVED[how][1]}"
    with pytest.raises(FixtureError, match=re.escape(why)):
        Expectation.read(path)


@pytest.mark.parametrize("how", SAVED)
def test_a_fixtures_toml_saved_elsewhere_is_a_problem_naming_it(tree: Path, how: str) -> None:
    """The settings file: a problem of the suite, never an internal error."""
    resave(tree / "fixtures" / "fixtures.toml", how)
    problems = discover(tree / "contract.toml").problems
    assert [problem.where for problem in problems] == ["fixtures/fixtures.toml"]
    assert problems[0].message.startswith(f"the file {SAVED[how][1]}")


def test_crlf_and_no_final_newline_are_accepted_in_contract_side_files(tree: Path) -> None:
    """TOML and JSON allow both: a tree re-saved with CRLF and no last newline still passes."""
    for path in tree.rglob("*"):
        if not path.is_file() or path.name.endswith(".expected.json") or is_response(path):
            continue  # a golden is compared byte for byte; a response is raw bytes
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n").rstrip(b"\r\n"))
    assert run(tree).passed


@pytest.mark.parametrize(
    ("resaved", "why"),
    [
        (lambda raw: raw.replace(b"\n", b"\r\n"), "the golden has CRLF line endings"),
        (lambda raw: raw.rstrip(b"\n"), "the golden has no final newline"),
        (lambda raw: b"\xef\xbb\xbf" + raw, f"the golden {BOM}"),
        (utf16le, f"the golden {UTF16LE}"),
    ],
    ids=["crlf", "no_final_newline", "bom", "utf16le"],
)
def test_a_golden_saved_elsewhere_fails_saying_how(tree: Path, resaved: object, why: str) -> None:
    """Never compared loosely, never a bare "differs": the failure says how it was saved."""
    golden = tree / "fixtures" / "accept" / "failed_run.expected.json"
    golden.write_bytes(resaved(golden.read_bytes()))  # type: ignore[operator]
    failed = [case for case in run(tree).results if case.status != "pass"]
    assert [(case.case.id, case.status) for case in failed] == [("accept/failed_run", "fail")]
    assert failed[0].message.startswith(f"golden envelope differs: {why}")
