"""The audit trail end to end, through real subprocesses: records, raw copies, explain."""

from __future__ import annotations

import hashlib
import json
import os
import pwd
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, piped_environment

from toolguard.audit import record
from toolguard.version import __version__

REPO = Path(__file__).resolve().parents[2]
REVIEW = REPO / "examples" / "review_status"
DEPLOY = REPO / "examples" / "deploy_status"
ID = "req.cli.audit.0001"
OK = (REVIEW / "response.json").read_bytes()
DRIFTED = OK.replace(b'"approved"', b'"maybe"')
HOSTILE = "\x1b[31m[bold red]x[/]\u202eevil"
TOKEN = "tok-7f3a9c1e-Very.Secret"
UNAVAILABLE = {
    "tool": "review_status",
    "request_id": ID,
    "outcome": "failure",
    "error": {"code": "UPSTREAM_UNAVAILABLE", "retryable": True},
}
_ENV = piped_environment("TOOLGUARD_AUDIT", "TOOLGUARD_RAW")


def toolguard(*args: str | Path, stdin: bytes = b"", **env: str | Path) -> Run:
    """Run the CLI piped, without the caller's audit variables, plus `env`."""
    done = subprocess.run(  # noqa: PLW1510 - the status is what the tests assert
        [sys.executable, "-m", "toolguard", *map(str, args)],
        input=stdin,
        capture_output=True,
        cwd=REPO,
        env={**_ENV, **{key: str(value) for key, value in env.items()}},
        timeout=60,
    )
    return Run(done.returncode, done.stdout, done.stderr)


def review(folder: Path, audit: str = "") -> Path:
    """A copy of the review_status example (contract, schema, context, response) + `audit`."""
    for name in ("contract.toml", "response.schema.json", "context.json", "response.json"):
        shutil.copy(REVIEW / name, folder / name)
    contract = folder / "contract.toml"
    contract.write_text(contract.read_text() + audit)
    return contract


def check(contract: Path, response: bytes = OK, *flags: str | Path, **env: str | Path) -> Run:
    return toolguard(
        "check", contract, "--request-id", ID, "--context", "change_id=CR-1042", *flags,
        stdin=response, **env,
    )  # fmt: skip


def run_cat(contract: Path, *flags: str | Path) -> Run:
    """`toolguard run` with `cat` of the contract folder's response.json as the upstream."""
    return toolguard(
        "run", contract, "--request-id", ID, "--context", "change_id=CR-1042", *flags,
        "--", "cat", contract.with_name("response.json"),
    )  # fmt: skip


def records(log: Path) -> list[dict[str, Any]]:
    """Every line of the log, each a valid record."""
    decoded = [record.decode(line) for line in log.read_bytes().splitlines()]
    assert None not in decoded, f"invalid record in {log.read_bytes()!r}"
    return decoded  # type: ignore[return-value]


def only_record(log: Path) -> dict[str, Any]:
    (entry,) = records(log)
    return entry


@pytest.fixture
def contract(tmp_path: Path) -> Path:
    return review(tmp_path)


# --- where records go ---------------------------------------------------------------------------


def test_check_appends_one_valid_record_per_check(contract: Path, tmp_path: Path) -> None:
    """Two checks, two records, each holding the digest of the exact envelope line printed."""
    log = tmp_path / "audit.jsonl"
    runs = [check(contract, OK, "--audit-log", log), check(contract, DRIFTED, "--audit-log", log)]
    assert [run.status for run in runs] == [0, 1]
    entries = records(log)
    assert [entry["outcome"] for entry in entries] == ["success", "failure"]
    for run, entry in zip(runs, entries, strict=True):
        assert entry["envelope_sha256"] == hashlib.sha256(run.stdout).hexdigest()
        assert (entry["command"], entry["upstream"]["kind"]) == ("check", "stdin")
    assert log.stat().st_mode & 0o777 == 0o600


def test_run_appends_a_record_of_the_command(contract: Path, tmp_path: Path) -> None:
    """`toolguard run` records the argv and the attempt it made."""
    log = tmp_path / "audit.jsonl"
    run = run_cat(contract, "--audit-log", log)
    assert run.status == 0, run.stderr
    entry = only_record(log)
    assert entry["command"] == "run"
    assert entry["upstream"]["argv"] == ["cat", str(contract.with_name("response.json"))]
    assert [attempt["exit_status"] for attempt in entry["upstream"]["attempts"]] == [0]


@pytest.mark.parametrize(
    ("flag", "env", "winner"),
    [(False, False, "contract"), (False, True, "env"), (True, True, "flag")],
    ids=["contract-table", "env-over-contract", "flag-over-env"],
)
def test_flag_beats_environment_beats_contract(
    tmp_path: Path, flag: bool, env: bool, winner: str
) -> None:
    """The contract's log (relative to its folder) is the default; the env, then the flag win."""
    folder = tmp_path / "contract"
    folder.mkdir()
    contract = review(folder, '\n[audit]\nlog = "logs/contract.jsonl"\n')
    (folder / "logs").mkdir()
    logs = {
        "contract": folder / "logs" / "contract.jsonl",
        "env": tmp_path / "env.jsonl",
        "flag": tmp_path / "flag.jsonl",
    }
    flags = ("--audit-log", logs["flag"]) if flag else ()
    variables = {"TOOLGUARD_AUDIT_LOG": logs["env"]} if env else {}
    assert check(contract, OK, *flags, **variables).status == 0
    assert [name for name, path in logs.items() if path.exists()] == [winner]
    assert only_record(logs[winner])["outcome"] == "success"


def test_raw_dir_from_the_environment_keeps_a_rejected_response(
    contract: Path, tmp_path: Path
) -> None:
    """TOOLGUARD_RAW_DIR alone: the rejected bytes are kept under their SHA-256."""
    raw = tmp_path / "raw"
    assert check(contract, DRIFTED, TOOLGUARD_RAW_DIR=raw).status == 1
    assert (raw / hashlib.sha256(DRIFTED).hexdigest()).read_bytes() == DRIFTED


# --- never on the agent's stdout ----------------------------------------------------------------

STDOUT_NAMES = ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]


@pytest.mark.parametrize("name", STDOUT_NAMES)
@pytest.mark.parametrize("how", ["flag", "env"])
@pytest.mark.parametrize("command", ["check", "run", "serve", "mcp"])
def test_a_log_that_is_standard_output_is_a_usage_error(
    contract: Path, command: str, how: str, name: str
) -> None:
    """Records (which quote the rejected response) never reach the agent: exit 2, stdout empty."""
    flags = ("--audit-log", name) if how == "flag" else ()
    env = {"TOOLGUARD_AUDIT_LOG": name} if how == "env" else {}
    if command == "check":
        run = check(contract, DRIFTED, *flags, **env)
    elif command == "run":
        run = toolguard("run", contract, *flags, "--", "cat", contract, **env)
    elif command == "serve":
        line = json.dumps({"raw": DRIFTED.decode(), "context": {"change_id": "CR-1042"}})
        run = toolguard("serve", contract, *flags, stdin=line.encode() + b"\n", **env)
    else:
        run = toolguard("mcp", "--contract", contract, *flags, "--", "true", **env)
    assert (run.status, run.stdout) == (2, b"")
    assert b"is standard output" in run.stderr


# --- fail closed --------------------------------------------------------------------------------


def _dev_full(tmp_path: Path) -> tuple[str, Path]:
    return "--audit-log", Path("/dev/full")


def _missing_folder(tmp_path: Path) -> tuple[str, Path]:
    return "--audit-log", tmp_path / "missing" / "audit.jsonl"


def _raw_dir_under_a_file(tmp_path: Path) -> tuple[str, Path]:
    (tmp_path / "file").write_bytes(b"")
    return "--raw-dir", tmp_path / "file" / "raw"  # ENOTDIR when it is created


def _symlinked_log(tmp_path: Path) -> tuple[str, Path]:
    (tmp_path / ".profile").write_bytes(b"")
    (tmp_path / "audit.jsonl").symlink_to(tmp_path / ".profile")
    return "--audit-log", tmp_path / "audit.jsonl"


def _shared_log(tmp_path: Path) -> tuple[str, Path]:
    (tmp_path / "audit.jsonl").write_bytes(b"")
    (tmp_path / "audit.jsonl").chmod(0o666)
    return "--audit-log", tmp_path / "audit.jsonl"


def _folder_where_the_log_goes(tmp_path: Path) -> tuple[str, Path]:
    (tmp_path / "audit.jsonl").mkdir()  # in a shared folder, anyone can: not a usage error
    return "--audit-log", tmp_path / "audit.jsonl"


def _file_where_the_raw_folder_goes(tmp_path: Path) -> tuple[str, Path]:
    (tmp_path / "raw").write_bytes(b"")
    return "--raw-dir", tmp_path / "raw"


BROKEN = {
    "disk-full": (_dev_full, "No space left on device"),
    "folder-where-the-log-goes": (_folder_where_the_log_goes, "Is a directory"),
    "file-where-the-raw-folder-goes": (_file_where_the_raw_folder_goes, "Not a directory"),
    "missing-folder": (_missing_folder, "No such file or directory"),
    "raw-dir-under-a-file": (_raw_dir_under_a_file, "cannot keep raw response"),
    "symlinked-log": (_symlinked_log, "it is a symbolic link"),
    "log-others-can-write": (_shared_log, "has mode 0666, open to group or others"),
}


@pytest.mark.parametrize("command", ["check", "run"])
@pytest.mark.parametrize("case", BROKEN, ids=list(BROKEN))
def test_an_unwritable_trail_gives_the_agent_only_a_retryable_failure(
    contract: Path, tmp_path: Path, command: str, case: str
) -> None:
    """Whatever the response, the agent gets UPSTREAM_UNAVAILABLE (retryable), exit 1, and why."""
    make, why = BROKEN[case]
    flags = (*make(tmp_path), "--raw-keep", "all")
    run = check(contract, OK, *flags) if command == "check" else run_cat(contract, *flags)
    assert run.status == 1
    assert run.envelope() == UNAVAILABLE
    assert b"alice" not in run.stdout
    text = run.stderr.decode()
    assert "layer audit" in text
    assert why in text
    assert "the response itself was accepted" in text


@pytest.mark.parametrize("command", ["check", "run"])
def test_audit_optional_answers_and_warns(contract: Path, command: str) -> None:
    """--audit-optional: the original envelope is printed; stderr says the trail was lost."""
    flags = ("--audit-log", "/dev/full", "--audit-optional")
    run = check(contract, OK, *flags) if command == "check" else run_cat(contract, *flags)
    assert run.status == 0
    assert run.envelope()["data"]["reviewed_by"] == "alice@example.com"
    assert b"audit trail not written (--audit-optional)" in run.stderr
    assert b"No space left on device" in run.stderr


def _linked_to_the_null_device(log: Path) -> None:
    log.symlink_to(os.devnull)  # a link is never followed: no stream, a refused log


def _fifo_of_another_user(log: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give a FIFO to another uid")
    os.mkfifo(log, 0o600)
    os.chown(log, 65534, -1)


@pytest.mark.parametrize("optional", [False, True], ids=["fail-closed", "audit-optional"])
@pytest.mark.parametrize("plant", [_linked_to_the_null_device, _fifo_of_another_user])
def test_a_stream_lookalike_where_the_log_goes_fails_the_trail_not_the_command_line(
    tmp_path: Path, plant: Callable[[Path], None], optional: bool
) -> None:
    """With secret context, a stream log needs --audit-key (exit 2); one that is not the user's
    is no stream but a refused log: exit 1 (or the answer, with --audit-optional), as for any."""
    contract = review(tmp_path, '\n[audit]\nsecret_context = ["api_token"]\n')
    plant(tmp_path / "audit.jsonl")
    flags = ["--audit-log", tmp_path / "audit.jsonl", "--context", f"api_token={TOKEN}"]
    run = check(contract, OK, *flags, *(["--audit-optional"] if optional else []))
    assert run.status == (0 if optional else 1), run.stderr
    if optional:
        assert b"audit trail not written (--audit-optional)" in run.stderr
    else:
        assert run.envelope() == UNAVAILABLE


# --- raw copies ---------------------------------------------------------------------------------


def test_raw_copies_are_private_and_only_rejected_ones_by_default(
    contract: Path, tmp_path: Path
) -> None:
    """Default "rejected": no copy of the accepted response; the rejected one 0600 in a 0700 dir."""
    log, raw = tmp_path / "audit.jsonl", tmp_path / "raw"
    check(contract, OK, "--audit-log", log, "--raw-dir", raw)
    check(contract, DRIFTED, "--audit-log", log, "--raw-dir", raw)
    accepted, rejected = records(log)
    digest = hashlib.sha256(DRIFTED).hexdigest()
    assert "raw" not in accepted
    assert rejected["raw"] == [{"sha256": digest, "kept": True}]
    assert sorted(path.name for path in raw.iterdir() if not path.name.startswith(".")) == [digest]
    assert raw.stat().st_mode & 0o777 == 0o700
    assert (raw / digest).stat().st_mode & 0o777 == 0o600


def test_raw_keep_all_keeps_the_accepted_response(contract: Path, tmp_path: Path) -> None:
    """--raw-keep all: the accepted bytes are kept and the record names them."""
    log, raw = tmp_path / "audit.jsonl", tmp_path / "raw"
    check(contract, OK, "--audit-log", log, "--raw-dir", raw, "--raw-keep", "all")
    digest = hashlib.sha256(OK).hexdigest()
    assert only_record(log)["raw"] == [{"sha256": digest, "kept": True}]
    assert (raw / digest).read_bytes() == OK


def test_a_response_over_raw_max_file_is_not_kept_and_the_record_says_why(
    contract: Path, tmp_path: Path
) -> None:
    """--raw-max-file 10: only the digest is recorded, with the reason; no file is written."""
    log, raw = tmp_path / "audit.jsonl", tmp_path / "raw"
    check(contract, DRIFTED, "--audit-log", log, "--raw-dir", raw, "--raw-max-file", "10")
    (kept,) = only_record(log)["raw"]
    assert kept == {
        "sha256": hashlib.sha256(DRIFTED).hexdigest(),
        "kept": False,
        "why": "over raw_max_file_bytes=10",
    }
    assert not raw.exists() or not any(raw.glob("[0-9a-f]*"))


def test_a_response_over_raw_max_total_is_not_kept_and_the_folder_stays_within_it(
    contract: Path, tmp_path: Path
) -> None:
    """--raw-max-total 40 and a 70-byte response: only its digest, and no copy over the cap."""
    log, raw = tmp_path / "audit.jsonl", tmp_path / "raw"
    check(contract, DRIFTED, "--audit-log", log, "--raw-dir", raw, "--raw-max-total", "40")
    (kept,) = only_record(log)["raw"]
    assert kept == {
        "sha256": hashlib.sha256(DRIFTED).hexdigest(),
        "kept": False,
        "why": "over raw_max_total_bytes=40",
    }
    assert sum(path.stat().st_size for path in raw.glob("[0-9a-f]*")) <= 40


# --- what a record holds ------------------------------------------------------------------------


@pytest.mark.parametrize("key_flag", [False, True], ids=["key-beside-log", "audit-key"])
def test_secret_context_is_only_a_keyed_hash(tmp_path: Path, key_flag: bool) -> None:
    """[audit] secret_context: an HMAC in the record, never the value; the key file is 0600."""
    contract = review(tmp_path, '\n[audit]\nsecret_context = ["api_token"]\n')
    log = tmp_path / "audit.jsonl"
    key = tmp_path / "keys" / "audit.key" if key_flag else tmp_path / "audit.jsonl.key"
    key.parent.mkdir(exist_ok=True)
    flags = ("--audit-key", key) if key_flag else ()
    token = ("--context", f"api_token={TOKEN}")
    assert check(contract, OK, "--audit-log", log, *token, *flags).status == 0
    entry = only_record(log)
    assert list(entry["context"]["api_token"]) == ["hmac_sha256"]
    assert TOKEN.encode() not in log.read_bytes()
    assert key.stat().st_mode & 0o777 == 0o600
    assert key_flag != (tmp_path / "audit.jsonl.key").exists()


SECRET_ID = "CR-99999999"  # the secret: the change id, compared by a rule that fails


def leaky_run(tmp_path: Path, mode: str, *flags: str | Path) -> Run:
    """`run` passing the secret in argv, echoing it on stderr, with a rule failing on it."""
    contract = review(tmp_path, '\n[audit]\nsecret_context = ["change_id"]\nrecord_values = true\n')
    script = 'echo "calling with $0 (${0}x)" >&2; cat "$1"'
    return toolguard(
        "run", contract, "--request-id", ID, "--context", f"change_id={SECRET_ID}",
        "--diagnostics", mode, *flags, "--", "sh", "-c", script, SECRET_ID,
        contract.with_name("response.json"),
    )  # fmt: skip


@pytest.mark.parametrize("mode", ["rich", "json"])
def test_a_secret_is_redacted_from_stderr_and_the_record(tmp_path: Path, mode: str) -> None:
    """argv, the command's stderr and the rule's message say `[secret:change_id]`, not the value."""
    log, raw = tmp_path / "audit.jsonl", tmp_path / "raw"
    run = leaky_run(tmp_path, mode, "--audit-log", log, "--raw-dir", raw)
    assert run.status == 1, run.stderr
    assert run.envelope()["error"]["code"] == "INVALID_RESPONSE"
    assert SECRET_ID.encode() not in run.stderr
    assert run.stderr.count(b"[secret:change_id]") >= 3  # argv, stderr excerpt, message
    entry = only_record(log)
    assert SECRET_ID.encode() not in log.read_bytes()
    assert entry["upstream"]["argv"][3] == "[secret:change_id]"
    assert "[secret:change_id]" in entry["message"]
    assert "[secret:change_id]" in entry["upstream"]["attempts"][0]["stderr"]


@pytest.mark.parametrize("mode", ["rich", "json"])
def test_explain_shows_the_redacted_record(tmp_path: Path, mode: str) -> None:
    """explain reads back what was written: the secret is nowhere in its story."""
    log = tmp_path / "audit.jsonl"
    assert leaky_run(tmp_path, "json", "--audit-log", log).status == 1
    run = toolguard("explain", ID, "--audit-log", log, "--format", mode)
    assert run.status == 0, run.stderr
    assert b"[secret:change_id]" in run.stdout
    assert SECRET_ID.encode() not in run.stdout + run.stderr


def test_a_secret_in_a_path_is_nowhere_the_operator_reads(tmp_path: Path) -> None:
    """Contract and input in a folder named after the secret: redacted in the record, on
    stderr and in explain's story."""
    folder = tmp_path / SECRET_ID
    folder.mkdir()
    contract = review(folder, '\n[audit]\nsecret_context = ["change_id"]\n')
    log = tmp_path / "audit.jsonl"
    run = toolguard(
        "check", contract, "--request-id", ID, "--context", f"change_id={SECRET_ID}",
        "--input", folder / "response.json", "--audit-log", log,
    )  # fmt: skip
    assert run.status == 1, run.stderr  # the rule compares the change id with the secret
    assert SECRET_ID.encode() not in run.stderr + log.read_bytes()
    assert only_record(log)["contract"]["path"].endswith("/[secret:change_id]/contract.toml")
    story = toolguard("explain", ID, "--audit-log", log, "--format", "json")
    assert story.status == 0, story.stderr
    assert SECRET_ID.encode() not in story.stdout + story.stderr


@pytest.mark.parametrize("command", ["check", "serve"])
def test_audit_optional_warns_without_the_secret_in_the_paths_it_names(
    tmp_path: Path, command: str
) -> None:
    """The warning names the log, key and raw folder that failed: a secret in them is redacted."""
    contract = review(tmp_path, '\n[audit]\nsecret_context = ["change_id"]\n')
    missing = tmp_path / "missing" / SECRET_ID
    flags = (
        "--audit-log", missing / "audit.jsonl", "--audit-key", missing / "audit.key",
        "--raw-dir", missing / "raw", "--raw-keep", "all", "--audit-optional",
    )  # fmt: skip
    if command == "check":
        run = toolguard(
            "check", contract, "--request-id", ID, "--context", f"change_id={SECRET_ID}",
            *flags, stdin=OK,
        )  # fmt: skip
    else:
        line = {"contract": "review_status", "request_id": ID, "raw": OK.decode(),
                "context": {"change_id": SECRET_ID}}  # fmt: skip
        run = toolguard("serve", contract, *flags, stdin=json.dumps(line).encode() + b"\n")
    assert b"audit trail not written (--audit-optional)" in run.stderr
    assert b"[secret:change_id]" in run.stderr
    assert SECRET_ID.encode() not in run.stderr


def test_a_record_written_after_a_write_cut_short_is_not_lost(
    contract: Path, tmp_path: Path
) -> None:
    """`ulimit -f` cuts a record short: a retryable failure (no SIGXFSZ death); the next
    record is a line of its own, found by explain and counted by audit summary."""
    log = tmp_path / "audit.jsonl"
    log.write_bytes(b"\n" * 1000)
    log.chmod(0o600)

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, resource.RLIM_INFINITY))

    cut = subprocess.run(  # noqa: PLW1510 - the status is what the test asserts
        [sys.executable, "-m", "toolguard", "check", contract, "--request-id", ID,
         "--context", "change_id=CR-1042", "--audit-log", log],
        input=OK, capture_output=True, cwd=REPO, env=_ENV, timeout=60, preexec_fn=small_files,
    )  # fmt: skip
    assert cut.returncode == 1, cut.stderr
    assert json.loads(cut.stdout) == UNAVAILABLE
    assert b"short write" in cut.stderr
    assert 1000 < log.stat().st_size <= 1024  # part of the record is there, without a newline
    after = toolguard(
        "check", contract, "--request-id", "req.cli.audit.0002", "--context",
        "change_id=CR-1042", "--audit-log", log, stdin=OK,
    )  # fmt: skip
    assert after.status == 0, after.stderr
    story = toolguard("explain", "req.cli.audit.0002", "--audit-log", log, "--format", "json")
    assert story.status == 0, story.stderr
    assert len(json.loads(story.stdout)["records"]) == 1
    counted = json.loads(toolguard("audit", "summary", log, "--format", "json").stdout)
    assert (counted["records"], counted["malformed"]) == (1, 1)


def test_a_raw_copy_keeps_the_secret_byte_for_byte(tmp_path: Path) -> None:
    """The raw copy is the evidence: kept exactly as the command wrote it, secret included."""
    contract = review(tmp_path, '\n[audit]\nsecret_context = ["change_id"]\n')
    raw = tmp_path / "raw"
    response = OK.replace(b"CR-1042", SECRET_ID.encode())
    run = toolguard(
        "check", contract, "--request-id", ID, "--context", f"change_id={SECRET_ID}",
        "--audit-log", tmp_path / "audit.jsonl", "--raw-dir", raw, "--raw-keep", "all",
        stdin=response,
    )  # fmt: skip
    assert run.status == 0, run.stderr
    assert (raw / hashlib.sha256(response).hexdigest()).read_bytes() == response


@pytest.mark.parametrize("value", ["CR-1042", "1234567"], ids=["7-characters", "7-digits"])
def test_a_secret_too_short_to_redact_is_a_usage_error(tmp_path: Path, value: str) -> None:
    """Under 8 characters: exit 2 before anything is read; stderr names the key, not the value."""
    contract = review(tmp_path, '\n[audit]\nsecret_context = ["change_id"]\n')
    log = tmp_path / "audit.jsonl"
    run = toolguard(
        "check", contract, "--context", f"change_id={value}", "--audit-log", log, stdin=OK
    )
    assert (run.status, run.stdout) == (2, b"")
    assert b"secret context 'change_id' must be at least 8 characters" in run.stderr
    assert value.encode() not in run.stderr
    assert not log.exists()


@pytest.mark.parametrize("record_values", [False, True])
def test_projected_names_are_recorded_values_only_when_asked(
    tmp_path: Path, record_values: bool
) -> None:
    """projected_fields always; projected_values only with [audit] record_values = true."""
    table = "\n[audit]\nrecord_values = true\n" if record_values else ""
    log = tmp_path / "audit.jsonl"
    check(review(tmp_path, table), OK, "--audit-log", log)
    entry = only_record(log)
    assert entry["projected_fields"] == ["change_id", "decision", "reviewed_by"]
    assert ("projected_values" in entry) == record_values
    assert (b"alice@example.com" in log.read_bytes()) == record_values


REJECTIONS = {
    "limits": (b'{"reviewed_by": "' + b"a" * 5000 + b'"}', "CR-1042", "limits"),
    "parse": (b"Welcome!\n" + OK, "CR-1042", "parse"),
    "schema": (DRIFTED, "CR-1042", "schema"),
    "rule": (OK, "CR-7", "rule"),
}


@pytest.mark.parametrize("case", REJECTIONS)
def test_each_rejection_layer_leaves_a_valid_record(
    contract: Path, tmp_path: Path, case: str
) -> None:
    """Limits, parse, schema and rule rejections are recorded with their layer and code."""
    response, change_id, layer = REJECTIONS[case]
    log = tmp_path / "audit.jsonl"
    run = toolguard(
        "check", contract, "--request-id", ID, "--context", f"change_id={change_id}",
        "--audit-log", log, stdin=response,
    )  # fmt: skip
    assert run.status == 1
    entry = only_record(log)
    assert (entry["layer"], entry["error_code"], entry["retryable"]) == (
        layer,
        "INVALID_RESPONSE",
        False,
    )
    assert entry["input"]["sha256"] == hashlib.sha256(response[:4097]).hexdigest()


DEPLOY_ARGS = (
    "run",
    DEPLOY / "contract.toml",
    "--request-id",
    ID,
    "--context",
    "environment=staging",
)


def test_a_run_with_retries_records_every_attempt(tmp_path: Path) -> None:
    """Exit 255 three times: one record, three attempts with their stderr, retryable failure."""
    log = tmp_path / "audit.jsonl"
    raw = tmp_path / "raw"
    run = toolguard(
        *DEPLOY_ARGS, "--audit-log", log, "--raw-dir", raw,
        "--", sys.executable, DEPLOY / "upstream.py", "--fail", "255",
    )  # fmt: skip
    assert run.status == 1
    entry = only_record(log)
    attempts = entry["upstream"]["attempts"]
    assert [attempt["number"] for attempt in attempts] == [1, 2, 3]
    assert {attempt["exit_status"] for attempt in attempts} == {255}
    assert "backend unreachable" in attempts[0]["stderr"]
    assert (entry["error_code"], entry["retryable"], entry["layer"]) == (
        "UPSTREAM_UNAVAILABLE",
        True,
        "upstream",
    )
    assert len(entry["raw"]) == 3  # one per attempt (all empty: one file)


def test_the_error_document_is_recorded_as_not_found(tmp_path: Path) -> None:
    """The service's own error document: NOT_FOUND, recorded with its layer."""
    log = tmp_path / "audit.jsonl"
    toolguard(
        *DEPLOY_ARGS, "--audit-log", log, "--",
        sys.executable, DEPLOY / "upstream.py", "--not-found",
    )  # fmt: skip
    entry = only_record(log)
    assert (entry["error_code"], entry["layer"]) == ("NOT_FOUND", "upstream")


def test_an_interrupted_run_is_recorded(contract: Path, tmp_path: Path) -> None:
    """SIGTERM while the command runs: the agent gets a retryable failure, the log says why."""
    log = tmp_path / "audit.jsonl"
    started = tmp_path / "started"
    script = f"import pathlib, time; pathlib.Path({str(started)!r}).touch(); time.sleep(30)"
    argv = [
        sys.executable, "-m", "toolguard", "run", str(contract), "--request-id", ID,
        "--context", "change_id=CR-1042", "--audit-log", str(log),
        "--", sys.executable, "-I", "-c", script,
    ]  # fmt: skip
    with subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO, env=_ENV
    ) as process:
        deadline = time.monotonic() + 10
        while not started.exists():
            assert time.monotonic() < deadline, "the command never started"
            time.sleep(0.02)
        process.send_signal(signal.SIGTERM)
        stdout, _ = process.communicate(timeout=10)
    assert json.loads(stdout) == UNAVAILABLE
    entry = only_record(log)
    assert (entry["reason"], entry["error_code"], entry["retryable"]) == (
        "interrupted",
        "UPSTREAM_UNAVAILABLE",
        True,
    )


# --- explain ------------------------------------------------------------------------------------


def test_explain_finds_the_record_among_noise(contract: Path, tmp_path: Path) -> None:
    """Other ids, garbage and a 10 MB line around it: explain tells the one story, exit 0."""
    log = tmp_path / "audit.jsonl"
    toolguard(
        "check", contract, "--request-id", "req.cli.audit.other", "--context",
        f"change_id={ID}", "--audit-log", log, stdin=OK,
    )  # fmt: skip
    with log.open("ab") as stream:
        stream.write(b"{not a record}\n" + b"z" * 10_000_000 + b"\n")
    check(contract, DRIFTED, "--audit-log", log)
    run = toolguard("explain", ID, "--audit-log", log)
    assert run.status == 0, run.stderr
    text = run.stdout.decode()
    assert f"request {ID}: 1 record\n" in text
    assert "failure INVALID_RESPONSE (retryable: false)" in text
    assert "/properties/decision/enum" in text
    # where the record starts in the log, said so (a bare "byte N" read as a parse offset)
    start = log.read_bytes().index(b'{"format"', log.read_bytes().index(b"z" * 100))
    assert f"(log byte {start})\n" in text


def test_explain_tells_the_adapter_and_the_recorded_values(tmp_path: Path) -> None:
    """What made the payload, and the values the agent got when the contract records them."""
    contract = review(tmp_path, "\n[audit]\nrecord_values = true\n")
    log = tmp_path / "audit.jsonl"
    check(contract, OK, "--audit-log", log)
    run = toolguard("explain", ID, "--audit-log", log)
    assert run.status == 0, run.stderr
    text = run.stdout.decode()
    assert " adapter    json\n" in text
    assert '"reviewed_by": "alice@example.com"' in text


def test_an_input_file_is_recorded_by_its_absolute_path(contract: Path, tmp_path: Path) -> None:
    """`--input response.json` from the contract's folder: the record names the file wholly."""
    log = tmp_path / "audit.jsonl"
    done = subprocess.run(  # noqa: PLW1510 - the status is asserted
        [sys.executable, "-m", "toolguard", "check", "contract.toml", "--request-id", ID,
         "--context", "change_id=CR-1042", "--input", "./response.json", "--audit-log", log],
        capture_output=True, cwd=tmp_path, env=_ENV, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    upstream = only_record(log)["upstream"]
    assert upstream == {"kind": "file", "file": str(tmp_path / "response.json")}


def test_explain_of_an_absent_request_exits_1(contract: Path, tmp_path: Path) -> None:
    """A request the log does not hold: exit 1, and stderr says so."""
    log = tmp_path / "audit.jsonl"
    check(contract, OK, "--audit-log", log)
    run = toolguard("explain", "req.cli.audit.absent", "--audit-log", log)
    assert run.status == 1
    assert b"no record of req.cli.audit.absent" in run.stderr


def test_explain_of_a_malformed_request_id_exits_2(contract: Path, tmp_path: Path) -> None:
    """A request id that could never have been recorded is a usage error; nothing is printed."""
    log = tmp_path / "audit.jsonl"
    check(contract, OK, "--audit-log", log)
    run = toolguard("explain", "../etc/passwd", "--audit-log", log)
    assert (run.status, run.stdout) == (2, b"")
    assert b"is not a request id" in run.stderr


def test_recheck_reports_a_changed_contract_and_a_different_envelope(
    contract: Path, tmp_path: Path
) -> None:
    """Rejected then, the enum narrowed since: same bytes, contract changed, verdict still no."""
    log, raw = tmp_path / "audit.jsonl", tmp_path / "raw"
    check(contract, OK, "--audit-log", log, "--raw-dir", raw, "--raw-keep", "all")
    schema = contract.with_name("response.schema.json")
    schema.write_text(schema.read_text().replace('"approved", ', ""))
    run = toolguard(
        "explain", ID, "--audit-log", log, "--raw-dir", raw, "--recheck", "--format", "json"
    )
    assert run.status == 0, run.stderr
    (found,) = json.loads(run.stdout)["records"]
    assert found["recheck"] == {
        "done": True,
        "note": "re-checked with the recorded request id, context and clock",
        "contract_changed": True,
        "outcome": "failure",
        "error_code": "INVALID_RESPONSE",
        "same_envelope": False,
        "toolguard": __version__,
    }
    rich = toolguard("explain", ID, "--audit-log", log, "--raw-dir", raw, "--recheck")
    flat = " ".join(rich.stdout.decode().split())
    assert "contract changed since; then accepted, now failure INVALID_RESPONSE" in flat
    assert "a different envelope" in flat


def test_recheck_refuses_a_raw_copy_altered_on_disk(contract: Path, tmp_path: Path) -> None:
    """A kept copy whose bytes no longer hash to the record's digest is reported, not re-checked."""
    log, raw = tmp_path / "audit.jsonl", tmp_path / "raw"
    check(contract, DRIFTED, "--audit-log", log, "--raw-dir", raw)
    (raw / hashlib.sha256(DRIFTED).hexdigest()).write_bytes(OK)
    run = toolguard("explain", ID, "--audit-log", log, "--raw-dir", raw, "--recheck")
    assert run.status == 0
    flat = " ".join(run.stdout.decode().split())
    assert "re-check contract unchanged; not done:" in flat
    assert "does not match its digest: it was grown" in flat


def test_recheck_needs_a_raw_dir(contract: Path, tmp_path: Path) -> None:
    """--recheck without --raw-dir (or TOOLGUARD_RAW_DIR) is a usage error."""
    log = tmp_path / "audit.jsonl"
    check(contract, OK, "--audit-log", log)
    run = toolguard("explain", ID, "--audit-log", log, "--recheck")
    assert run.status == 2
    assert b"--recheck needs --raw-dir" in run.stderr


def assert_shown_safely(run: Run) -> None:
    assert run.status == 0, run.stderr
    assert b"\x1b" not in run.stdout
    assert "\u202e".encode() not in run.stdout
    assert "[bold red]x[/]" in run.stdout.decode()


def test_hostile_text_recorded_for_real_is_shown_escaped(tmp_path: Path) -> None:
    """A hostile context value quoted by the rule and a hostile stderr: escaped, markup literal."""
    contract = review(tmp_path)
    log = tmp_path / "audit.jsonl"
    toolguard(
        "run", contract, "--request-id", ID, "--context", f"change_id={HOSTILE}",
        "--audit-log", log, "--", "sh", "-c",
        f"printf '%s' '{HOSTILE}' >&2; cat {contract.with_name('response.json')}",
    )  # fmt: skip
    entry = only_record(log)
    assert entry["layer"] == "rule"
    assert "\\x1b[31m" in entry["message"]
    assert "\\x1b[31m" in entry["upstream"]["attempts"][0]["stderr"]
    for output in ("text", "json"):
        run = toolguard("explain", ID, "--audit-log", log, "--format", output)
        assert_shown_safely(run)
    assert b"\\\\x1b[31m[bold red]x[/]\\\\u202eevil" in run.stdout  # json: escaped twice over


def test_a_hostile_record_written_by_hand_is_shown_escaped_and_bounded(
    contract: Path, tmp_path: Path
) -> None:
    """Raw ESC, bidi and markup in a valid hand-written record; a 3,000-character message."""
    log = tmp_path / "audit.jsonl"
    check(contract, DRIFTED, "--audit-log", log)
    entry = only_record(log)
    entry.update(message=HOSTILE + "M" * 3000, reason=HOSTILE)
    entry["contract"]["tool"] = HOSTILE
    forged = json.dumps(entry, separators=(",", ":")).encode()
    assert b"\\u001b" in forged
    assert record.decode(forged) is not None
    log.write_bytes(forged + b"\n")
    rich = toolguard("explain", ID, "--audit-log", log)
    assert_shown_safely(rich)
    assert b"M" * 600 not in rich.stdout
    assert len(rich.stdout) < 4000
    as_json = toolguard("explain", ID, "--audit-log", log, "--format", "json")
    assert_shown_safely(as_json)
    shown = json.loads(as_json.stdout)["records"][0]["record"]
    assert shown["reason"] == "\\x1b[31m[bold red]x[/]\\u202eevil"
    assert len(shown["message"]) < 2200


# --- audit summary ------------------------------------------------------------------------------


def test_audit_summary_counts_the_log(contract: Path, tmp_path: Path) -> None:
    """Per tool, outcome, code and layer, with malformed lines counted, as one JSON line."""
    log = tmp_path / "audit.jsonl"
    check(contract, OK, "--audit-log", log)
    check(contract, DRIFTED, "--audit-log", log)
    with log.open("ab") as stream:
        stream.write(b"garbage\n")
    run = toolguard("audit", "summary", log, "--since", "1h", "--format", "json")
    assert run.status == 0, run.stderr
    document = json.loads(run.stdout)
    assert (document["records"], document["malformed"]) == (2, 1)
    assert document["totals"]["layer"] == {"-": 1, "schema": 1}
    rich = toolguard("audit", "summary", log, "--until", "2000-01-01T00:00:00Z")
    assert rich.status == 0
    assert rich.stdout.startswith(b"0 records from the start until 2000-01-01T00:00:00.000000Z;")


@pytest.mark.parametrize("flag", ["--since", "--until"])
def test_audit_summary_refuses_a_bad_bound(contract: Path, tmp_path: Path, flag: str) -> None:
    """A bound that is neither RFC 3339 nor a duration: exit 2, nothing on stdout."""
    log = tmp_path / "audit.jsonl"
    log.write_bytes(b"")
    run = toolguard("audit", "summary", log, flag, "last tuesday")
    assert (run.status, run.stdout) == (2, b"")
    assert b"neither an RFC 3339 date-time nor a duration" in run.stderr


# --- retention: every sealing, and `audit prune` -------------------------------------------------

DAY = 86_400


def old_copy(raw: Path, days: int, body: bytes = b"hostile bytes") -> Path:
    """A raw copy in `raw` (made 0700 if absent) whose age is `days`."""
    raw.mkdir(mode=0o700, exist_ok=True)
    copy = raw / hashlib.sha256(body).hexdigest()
    copy.write_bytes(body)
    then = time.time() - days * DAY
    os.utime(copy, (then, then))
    return copy


def test_an_accepted_check_prunes_old_copies(contract: Path, tmp_path: Path) -> None:
    """The issue's case: a 40-day-old copy does not survive an accepted check with max age 60."""
    copy = old_copy(tmp_path / "raw", 40)
    run = check(contract, OK, "--raw-dir", tmp_path / "raw", "--raw-max-age", "60")
    assert run.status == 0, run.stderr
    assert not copy.exists()


def test_audit_prune_applies_the_caps_now(tmp_path: Path) -> None:
    """`audit prune` deletes copies past the age cap, then the oldest past the total cap."""
    raw = tmp_path / "raw"
    gone = old_copy(raw, 40, b"a" * 10)
    oldest = old_copy(raw, 3, b"b" * 10)
    newest = old_copy(raw, 1, b"c" * 10)
    run = toolguard(
        "audit", "prune", "--raw-dir", raw, "--raw-max-age", str(30 * DAY),
        "--raw-max-total", "15", "--format", "json",
    )  # fmt: skip
    assert run.status == 0, run.stderr
    assert json.loads(run.stdout) == {
        "raw_dir": str(raw),
        "found": True,
        "removed": 2,
        "removed_bytes": 20,
        "left": 1,
        "left_bytes": 10,
    }
    assert (gone.exists(), oldest.exists(), newest.exists()) == (False, False, True)
    again = toolguard("audit", "prune", TOOLGUARD_RAW_DIR=raw)
    assert (
        again.stdout.decode()
        == f"{raw}: removed 0 raw copies (0 bytes), left 1 raw copy (10 bytes)\n"
    )


def test_audit_prune_of_a_folder_not_yet_made_says_so(tmp_path: Path) -> None:
    """No folder yet (no copy was ever kept): exit 0, and nothing is made."""
    run = toolguard("audit", "prune", "--raw-dir", tmp_path / "raw")
    assert run.status == 0
    assert run.stdout.decode() == f"no raw folder at {tmp_path / 'raw'}: nothing to prune\n"
    assert not (tmp_path / "raw").exists()


@pytest.mark.parametrize("case", ["no-folder-given", "untrusted"])
def test_audit_prune_refuses_what_it_cannot_prune(tmp_path: Path, case: str) -> None:
    """Without --raw-dir, or with a folder others could change: exit 2, nothing on stdout."""
    args: tuple[str | Path, ...] = ()
    if case == "untrusted":
        (tmp_path / "shared").mkdir()
        old_copy(tmp_path / "shared" / "raw", 40)
        (tmp_path / "shared").chmod(0o777)
        args = ("--raw-dir", tmp_path / "shared" / "raw")
    run = toolguard("audit", "prune", *args)
    assert (run.status, run.stdout) == (2, b"")
    expected = b"writable by group or others" if case == "untrusted" else b"needs --raw-dir"
    assert expected in run.stderr


def test_records_can_go_to_stderr(contract: Path) -> None:
    """--audit-log /dev/stderr: the record is a line of stderr, beside the diagnostics."""
    run = check(contract, OK, "--audit-log", "/dev/stderr", "--diagnostics", "json")
    assert run.status == 0, run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 2
    assert [record.decode(line) is not None for line in lines] == [True, False]


# --- reading someone else's log -------------------------------------------------------------------


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to chown to another uid")
def test_readers_say_whose_log_it_is_when_it_is_not_yours(contract: Path, tmp_path: Path) -> None:
    """explain and audit summary read another user's log, and say whose it is (JSON stays JSON)."""
    log = tmp_path / "audit.jsonl"
    check(contract, OK, "--audit-log", log)
    mine = [
        toolguard("explain", ID, "--audit-log", log, "--format", "json"),
        toolguard("audit", "summary", log, "--format", "json"),
    ]
    assert ["log_owner" in json.loads(run.stdout) for run in mine] == [False, False]
    os.chown(log, 65534, -1)
    theirs = [
        toolguard("explain", ID, "--audit-log", log, "--format", "json"),
        toolguard("audit", "summary", log, "--format", "json"),
    ]
    try:
        name: str | None = pwd.getpwuid(65534).pw_name
    except KeyError:
        name = None
    for run in theirs:
        assert run.status == 0, run.stderr
        assert json.loads(run.stdout)["log_owner"] == {"uid": 65534, "user": name}
    who = f"{name} (uid 65534)" if name else "uid 65534"
    note = f"note: this log belongs to {who}, not to you".encode()
    assert toolguard("explain", ID, "--audit-log", log).stdout.startswith(note)
    assert toolguard("audit", "summary", log).stdout.startswith(note)
