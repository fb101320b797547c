"""`toolguard validate`: strict parse, then the schema, one line per instance, exit 0/1/3."""

from __future__ import annotations

import errno
import io
import json
import os
from pathlib import Path

import pytest
from conftest import RunToolguard, without_waiting

from toolguard import validate
from toolguard.errors import ParseError
from toolguard.parse import parse
from toolguard.schema import compile_schema
from toolguard.validate import validate_files

SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "integer"}},
    "unevaluatedProperties": False,
}


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "ok.json").write_text('{"a": 1}')
    (tmp_path / "extra.json").write_text('{"a": 1, "b": 2}')
    (tmp_path / "dup.json").write_bytes(b'{"a": 1, "a": 2}')
    return tmp_path


def test_all_valid_instances_exit_0(run_toolguard: RunToolguard, files: Path) -> None:
    """Every instance valid: exit 0 and one 'valid' line each."""
    run = run_toolguard("validate", files / "schema.json", files / "ok.json", files / "ok.json")
    assert run.status == 0
    assert run.stdout.decode().splitlines() == [f"{files / 'ok.json'}: valid"] * 2


def test_any_invalid_instance_exits_1_naming_layer_and_keyword(
    run_toolguard: RunToolguard, files: Path
) -> None:
    """A schema failure names its keyword and path; a duplicate member fails at the parse."""
    run = run_toolguard(
        "validate",
        files / "schema.json",
        files / "ok.json",
        files / "extra.json",
        files / "dup.json",
        files / "missing.json",
    )
    assert run.status == 1
    lines = run.stdout.decode().splitlines()
    assert lines[0].endswith("ok.json: valid")
    assert "schema: unevaluatedProperties" in lines[1]
    assert "/unevaluatedProperties" in lines[1]
    assert "parse: duplicate_member" in lines[2]
    assert "input: read_failed" in lines[3]


def test_json_output_is_one_object_per_instance(run_toolguard: RunToolguard, files: Path) -> None:
    """--format json prints one JSON object per instance, in order."""
    run = run_toolguard(
        "validate",
        "--format",
        "json",
        files / "schema.json",
        files / "ok.json",
        files / "extra.json",
    )
    records = [json.loads(line) for line in run.stdout.splitlines()]
    assert [record["valid"] for record in records] == [True, False]
    assert records[1]["schema_path"] == "/unevaluatedProperties"
    assert run.status == 1


def test_unenforceable_schema_exits_3_with_nothing_on_stdout(
    run_toolguard: RunToolguard, files: Path
) -> None:
    """A schema toolguard refuses (here, a remote $ref) is exit 3 and a one-line error."""
    (files / "remote.json").write_text('{"$ref": "https://example.invalid/s.json"}')
    run = run_toolguard("validate", files / "remote.json", files / "ok.json")
    assert (run.status, run.stdout) == (3, b"")
    assert b"unknown reference" in run.stderr


@pytest.mark.parametrize(
    ("name", "why"),
    [
        pytest.param("missing.json", b"No such file or directory", id="missing"),
        pytest.param("lib", b"not a regular file (a folder)", id="folder"),
        pytest.param("dangling.json", b"No such file or directory", id="dangling link"),
    ],
)
def test_a_schema_that_cannot_be_read_exits_3_whatever_the_reason(
    run_toolguard: RunToolguard, files: Path, name: str, why: bytes
) -> None:
    """A missing schema, a folder or a dangling link is a bad schema (3), as a pipe is."""
    (files / "lib").mkdir()
    (files / "dangling.json").symlink_to(files / "nowhere.json")
    run = run_toolguard("validate", files / name, files / "ok.json")
    assert (run.status, run.stdout) == (3, b"")
    assert b"cannot read schema" in run.stderr
    assert why in run.stderr


def test_refs_serve_a_registry_directory(run_toolguard: RunToolguard, files: Path) -> None:
    """--refs PREFIX=DIR lets a $ref under PREFIX read DIR, and nothing else."""
    (files / "lib").mkdir()
    (files / "lib" / "int.json").write_text('{"type": "integer"}')
    (files / "main.json").write_text('{"$ref": "https://example.invalid/lib/int.json"}')
    (files / "one.json").write_text("1")
    run = run_toolguard(
        "validate",
        "--refs",
        f"https://example.invalid/lib/={files / 'lib'}",
        files / "main.json",
        files / "one.json",
    )
    assert run.status == 0, run.stderr


def test_malformed_refs_flag_is_a_usage_error(run_toolguard: RunToolguard, files: Path) -> None:
    """--refs without '=' is exit 2."""
    run = run_toolguard("validate", "--refs", "nonsense", files / "schema.json", files / "ok.json")
    assert run.status == 2


def test_a_refs_prefix_given_twice_is_a_usage_error(
    run_toolguard: RunToolguard, files: Path
) -> None:
    """Two folders for one prefix: exit 2, not the last one silently."""
    run = run_toolguard(
        "validate",
        *("--refs", f"https://example.invalid/={files}"),
        *("--refs", f"https://example.invalid/={files / 'lib'}"),
        files / "schema.json",
        files / "ok.json",
    )
    assert run.status == 2
    assert b"twice" in run.stderr


def _jsontestsuite() -> Path:
    """JSONTestSuite's test_parsing/: the copy under tests/conformance/, or JSONTESTSUITE_DIR's."""
    configured = os.environ.get("JSONTESTSUITE_DIR")
    root = (
        Path(configured) if configured else Path(__file__).parent / "conformance" / "jsontestsuite"
    )
    return root / "test_parsing"


def test_schema_true_is_a_strict_parser_check(run_toolguard: RunToolguard, tmp_path: Path) -> None:
    """With the schema `true`, every y_ file passes (but duplicate keys), every n_ fails."""
    (tmp_path / "true.json").write_text("true")
    folder = _jsontestsuite()
    assert folder.is_dir(), f"no JSONTestSuite test_parsing/ folder at {folder}"
    files = sorted(folder.glob("*.json"))
    assert files, "the JSONTestSuite folder is empty"
    run = run_toolguard("validate", "--format", "json", tmp_path / "true.json", *files)
    verdicts = {
        Path(r["instance"]).name: r["valid"] for r in map(json.loads, run.stdout.splitlines())
    }
    assert len(verdicts) == len(files)
    duplicates = {"y_object_duplicated_key.json", "y_object_duplicated_key_and_value.json"}
    wrong = [
        name
        for name, valid in verdicts.items()
        if (name.startswith("y_") and valid == (name in duplicates))
        or (name.startswith("n_") and valid)
    ]
    assert wrong == []


def test_a_named_pipe_nobody_writes_to_reads_as_empty_at_once(tmp_path: Path) -> None:
    """A FIFO instance is opened without waiting for a writer: with none, it is empty (invalid)."""
    fifo = tmp_path / "instance.fifo"
    os.mkfifo(fifo, 0o600)
    validator = compile_schema(True)
    results = without_waiting(lambda: list(validate_files(validator, [fifo])))
    assert isinstance(results, list)
    assert [(r.valid, r.layer, r.reason) for r in results] == [(False, "parse", "empty")]


def test_a_named_pipe_a_writer_filled_is_read_to_its_end(tmp_path: Path) -> None:
    """What a writer put in a FIFO before validate opened it is read and validated."""
    fifo = tmp_path / "instance.fifo"
    os.mkfifo(fifo, 0o600)
    holder = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # keeps what is written in the pipe
    try:
        writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.write(writer, b'{"a": 1}')
        os.close(writer)
        results = without_waiting(lambda: list(validate_files(compile_schema(SCHEMA), [fifo])))
    finally:
        os.close(holder)
    assert isinstance(results, list)
    assert [r.valid for r in results] == [True]


def test_folders_given_as_instances_leave_no_descriptor_open(tmp_path: Path) -> None:
    """Each folder fails to read; none keeps a descriptor (a long list would run out)."""
    before = sum(1 for _ in Path("/proc/self/fd").iterdir())
    results = list(validate_files(compile_schema(True), [tmp_path] * 50))
    assert {r.message for r in results} == {"cannot read: Is a directory"}
    assert sum(1 for _ in Path("/proc/self/fd").iterdir()) == before


@pytest.mark.parametrize(
    ("content", "reason", "message"),
    [
        (
            b"\xef\xbb\xbf{}",
            "bom",
            "instance starts with a UTF-8 byte-order mark (save it as UTF-8 without a BOM)",
        ),
        (
            b"\xff\xfe{\x00}\x00",
            "invalid_utf8",
            "instance is UTF-16LE (it starts with its byte-order mark): save it as UTF-8",
        ),
        (b"", "empty", "instance is empty"),
        (b'{"a": "x', "truncated", "instance ends inside a string"),
        (b'{"a": 1', "truncated", "instance ends inside the JSON value"),
        (b" " * (1 << 20) + b"{}", "too_large", "instance is larger than max_bytes=1048576"),
    ],
    ids=["utf-8 bom", "utf-16", "empty", "in a string", "in a value", "too large"],
)
def test_a_refused_instance_is_said_of_the_instance_not_of_a_response(
    tmp_path: Path, content: bytes, reason: str, message: str
) -> None:
    """validate reads an instance: its messages name it (and a BOM or UTF-16 as such)."""
    (tmp_path / "instance.json").write_bytes(content)
    [result] = validate_files(compile_schema(SCHEMA), [tmp_path / "instance.json"])
    assert (result.valid, result.reason) == (False, reason)
    assert result.message is not None
    assert result.message.startswith(message)


def test_check_still_says_response_of_a_response_with_a_bom() -> None:
    """The parser `check` uses keeps its wording: what it reads is a tool's response."""
    with pytest.raises(ParseError) as caught:
        parse(b"\xef\xbb\xbf{}")
    assert caught.value.message == "response starts with a UTF-8 byte-order mark"


def test_an_instance_whose_read_fails_is_said_as_one_that_cannot_be_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An I/O error while reading (not opening) is "cannot read", never "the response"."""

    class Failing(io.BytesIO):
        def read(self, size: int | None = -1) -> bytes:
            raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(validate, "open_data", lambda path: Failing())
    [result] = validate_files(compile_schema(True), [tmp_path / "instance.json"])
    assert (result.valid, result.reason) == (False, "read_failed")
    assert result.message == "cannot read: Input/output error"
