"""`-` is standard input wherever a data file is read; two readers of stdin are a usage error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, RunToolguard, run_fed_late

REVIEW = REPO / "examples" / "review_status"
CONTRACT = REVIEW / "contract.toml"
RESPONSE = (REVIEW / "response.json").read_bytes()
CONTEXT = (REVIEW / "context.json").read_bytes()
SCHEMA = REVIEW / "response.schema.json"


def test_check_input_dash_reads_the_response_from_stdin(run_toolguard: RunToolguard) -> None:
    """`check --input -` is the same as no --input: the response comes from stdin."""
    run = run_toolguard(
        "check", CONTRACT, "--input", "-", "--context", "change_id=CR-1042", stdin=RESPONSE
    )
    assert run.status == 0, run.stderr
    assert run.envelope()["outcome"] == "success"


def test_context_file_dash_reads_the_context_from_stdin(run_toolguard: RunToolguard) -> None:
    """`--context-file -` beside `--input FILE` reads the context object from stdin."""
    run = run_toolguard(
        "check", CONTRACT, "--input", REVIEW / "response.json", "--context-file", "-", stdin=CONTEXT
    )
    assert run.status == 0, run.stderr
    assert run.envelope()["data"]["change_id"] == "CR-1042"


@pytest.mark.parametrize(
    "arguments",
    [
        pytest.param(["--context-file", "-"], id="response-and-context"),
        pytest.param(["--input", "-", "--context-file", "-"], id="two-dashes"),
        pytest.param(["--input=-", "--context-file=-"], id="two-dashes-inline"),
    ],
)
def test_two_readers_of_stdin_are_a_usage_error(
    run_toolguard: RunToolguard, arguments: list[str]
) -> None:
    """The response and the context cannot both come from stdin: exit 2, nothing on stdout."""
    run = run_toolguard("check", CONTRACT, *arguments, stdin=CONTEXT)
    assert run.status == 2
    assert run.stdout == b""
    assert b"standard input" in run.stderr


@pytest.mark.parametrize(
    ("arguments", "stdin"),
    [
        pytest.param([SCHEMA, "-"], RESPONSE, id="instance"),
        pytest.param(["-", REVIEW / "response.json"], SCHEMA.read_bytes(), id="schema"),
    ],
)
def test_validate_reads_the_schema_or_one_instance_from_stdin(
    run_toolguard: RunToolguard, arguments: list[object], stdin: bytes
) -> None:
    """`validate SCHEMA -` and `validate - INSTANCE` read the dash from stdin."""
    run = run_toolguard("validate", "--format", "json", *arguments, stdin=stdin)
    assert run.status == 0, run.stderr
    assert json.loads(run.stdout)["valid"] is True


def test_validate_with_two_dashes_is_a_usage_error(run_toolguard: RunToolguard) -> None:
    """SCHEMA and an INSTANCE cannot both be stdin: exit 2."""
    run = run_toolguard("validate", "-", "-", stdin=SCHEMA.read_bytes())
    assert run.status == 2
    assert run.stdout == b""


@pytest.mark.parametrize("spelling", ["./-", ".//-"])
def test_a_file_named_dash_spelled_otherwise_is_that_file_not_stdin(
    run_toolguard: RunToolguard, tmp_path: Path, spelling: str
) -> None:
    """Only `-` itself is stdin: `./-` (the usual way to name a file called `-`) is the file,
    for validate's SCHEMA and INSTANCE, `audit summary` and `check --context-file`."""
    (tmp_path / "-").write_text("[1")  # stdin holds valid JSON: the file does not
    (tmp_path / "true.json").write_text("true")
    validated = run_toolguard("validate", "true.json", spelling, stdin=b"{}", cwd=tmp_path)
    assert (validated.status, b"truncated" in validated.stdout) == (1, True), validated.stdout
    schema = run_toolguard("validate", spelling, "true.json", stdin=b"true", cwd=tmp_path)
    assert schema.status == 3, schema.stderr
    summary = run_toolguard("audit", "summary", "--format", "json", spelling, cwd=tmp_path)
    assert json.loads(summary.stdout)["malformed"] == 1
    checked = run_toolguard(
        "check", CONTRACT, "--context-file", spelling, stdin=RESPONSE, cwd=tmp_path
    )
    assert (checked.status, b"not strict JSON" in checked.stderr) == (2, True), checked.stderr


def test_audit_summary_reads_the_log_from_stdin(
    run_toolguard: RunToolguard, tmp_path: Path
) -> None:
    """`audit summary -` counts the records piped in (e.g. from zcat of a rotated log)."""
    log = tmp_path / "audit.log"
    checked = run_toolguard(
        "check", CONTRACT, "--context", "change_id=CR-1042", "--audit-log", log, stdin=RESPONSE
    )
    assert checked.status == 0
    run = run_toolguard("audit", "summary", "--format", "json", "-", stdin=log.read_bytes())
    assert run.status == 0, run.stderr
    assert json.loads(run.stdout)["records"] == 1


def test_check_waits_for_a_non_blocking_stdin_to_end() -> None:
    """A response on a pipe the caller set O_NONBLOCK is read whole, not cut at a pause."""
    argv = [
        sys.executable,
        "-m",
        "toolguard",
        "check",
        str(CONTRACT),
        "--context",
        "change_id=CR-1042",
    ]
    run = run_fed_late(argv, [RESPONSE[:9], RESPONSE[9:]])
    assert run.status == 0, run.stderr
    assert run.envelope()["data"]["change_id"] == "CR-1042"


def test_audit_summary_waits_for_a_non_blocking_stdin_to_end(
    run_toolguard: RunToolguard, tmp_path: Path
) -> None:
    """A log piped in through a pipe set O_NONBLOCK is counted whole, not to its first pause."""
    log = tmp_path / "audit.log"
    for _ in range(2):
        checked = run_toolguard(
            "check", CONTRACT, "--context", "change_id=CR-1042", "--audit-log", log, stdin=RESPONSE
        )
        assert checked.status == 0
    text = log.read_bytes()
    argv = [sys.executable, "-m", "toolguard", "audit", "summary", "--format", "json", "-"]
    run = run_fed_late(argv, [text[:20], text[20:]])
    assert run.status == 0, run.stderr
    assert json.loads(run.stdout)["records"] == 2


def test_check_input_that_is_a_named_pipe_nobody_writes_to_is_answered_at_once(
    tmp_path: Path,
) -> None:
    """`--input FIFO` is a data file like `--context-file`: with no writer it reads as empty
    (a failure envelope), where `open` waited for a writer for ever."""
    fifo = tmp_path / "response.fifo"
    os.mkfifo(fifo, 0o600)
    argv = [sys.executable, "-m", "toolguard", "check", str(CONTRACT), "--input", str(fifo)]
    done = subprocess.run(
        [*argv, "--context", "change_id=CR-1042"], capture_output=True, timeout=60, check=False
    )
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["error"]["code"] == "INVALID_RESPONSE"
