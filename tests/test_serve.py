"""`toolguard serve`: request lines in, one envelope line each, in order; `Server` in process."""

from __future__ import annotations

import array
import base64
import contextlib
import fcntl
import io
import json
import os
import signal
import subprocess
import sys
import termios
import textwrap
import threading
import time
from pathlib import Path
from typing import IO, Any

import pytest
from click.testing import CliRunner
from conftest import Run, run_fed_late

from toolguard import load_contract
from toolguard.audit import record
from toolguard.audit.trail import TrailOptions
from toolguard.cli.app import cli
from toolguard.contract import Contract
from toolguard.errors import ContractError, ExitStatus
from toolguard.schema import compile_schema
from toolguard.serve import Server

REPO = Path(__file__).resolve().parents[1]
REVIEW = REPO / "examples" / "review_status"
JOB = REPO / "examples" / "job_run"
REVIEW_PATH = "examples/review_status/contract.toml"
JOB_PATH = "examples/job_run/contract.toml"
OK = (REVIEW / "response.json").read_text()
CONTEXT = json.loads((REVIEW / "context.json").read_bytes())
JOB_OK = (JOB / "fixtures" / "accept" / "offset_timestamp.json").read_text()
JOB_CONTEXT = json.loads((JOB / "context.json").read_bytes())
JOB_NOW = "2026-03-14T09:30:00Z"
MARKER = "Zq9SERVEMARKERx"
BAD_REQUEST = {"outcome": "error", "request_id": None, "error": {"code": "BAD_REQUEST"}}
_DROPPED = ("FORCE_COLOR", "CLICOLOR_FORCE", "PY_COLORS", "TTY_COMPATIBLE", "TTY_INTERACTIVE")
_ENV = {
    key: value
    for key, value in os.environ.items()
    if key not in _DROPPED and not key.startswith(("TOOLGUARD_AUDIT", "TOOLGUARD_RAW"))
}


def request(raw: str, request_id: str | None = None, **members: Any) -> bytes:
    """One request line for review_status unless `members` say otherwise."""
    document: dict[str, Any] = {"raw": raw, "context": CONTEXT, **members}
    if request_id is not None:
        document["request_id"] = request_id
    return json.dumps(document).encode() + b"\n"


def job_request(contract: str, request_id: str) -> bytes:
    return request(JOB_OK, request_id, contract=contract, context=JOB_CONTEXT, now=JOB_NOW)


def serve_argv(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "toolguard", "serve", *map(str, args)]


def serve(*args: str | Path, stdin: bytes = b"") -> Run:
    done = subprocess.run(  # noqa: PLW1510 - the status is what the tests assert
        serve_argv(*args), input=stdin, capture_output=True, cwd=REPO, env=_ENV, timeout=60
    )
    return Run(done.returncode, done.stdout, done.stderr)


def answers(run: Run) -> list[dict[str, Any]]:
    return [json.loads(line) for line in run.stdout.splitlines()]


@pytest.fixture(scope="module")
def review() -> Contract:
    return load_contract(REVIEW / "contract.toml")


@pytest.fixture(scope="module")
def job() -> Contract:
    return load_contract(JOB / "contract.toml")


# --- the protocol, end to end --------------------------------------------------------------------


def test_every_line_gets_exactly_one_answer_in_order(review: Contract, job: Contract) -> None:
    """Accepted, rejected, bad, oversize, base64 and a second contract: one line each, in order."""
    hostile = json.dumps({"approved": False, "approved ": True, "note": MARKER})
    lines = [
        request(OK, "req.serve.0001", contract="review_status"),
        request(hostile, "req.serve.0002", contract=REVIEW_PATH),
        b"\n",  # ignored
        f'{{"raw": "{MARKER}", not json}}\n'.encode(),
        request(OK, "req.serve.0003", contract="review_status", extra=MARKER),
        request(OK.replace("alice", MARKER * 400), "req.serve.0004", contract="review_status"),
        request(
            base64.b64encode(OK.encode()).decode(),
            "req.serve.0005",
            contract="review_status",
            encoding="base64",
        ),
        job_request("job_run", "req.serve.0006"),
        job_request(f"./{JOB_PATH}", "req.serve.0007"),
        request(OK, "req.serve.0008", contract="no_such_tool"),
    ]
    run = serve(REVIEW_PATH, JOB_PATH, stdin=b"".join(lines))
    assert run.status == 0
    got = answers(run)
    assert len(got) == len(lines) - 1
    assert [item["outcome"] for item in got] == [
        "success", "failure", "error", "error", "failure", "success", "success", "success",
        "error",
    ]  # fmt: skip
    assert [item["request_id"] for item in got] == [
        "req.serve.0001", "req.serve.0002", None, "req.serve.0003", "req.serve.0004",
        "req.serve.0005", "req.serve.0006", "req.serve.0007", "req.serve.0008",
    ]  # fmt: skip
    assert got[2] == BAD_REQUEST
    assert got[3] == {**BAD_REQUEST, "request_id": "req.serve.0003"}
    assert got[4]["error"] == {"code": "INVALID_RESPONSE", "retryable": False}
    assert got[6]["tool"] == got[7]["tool"] == "job_run"
    for item in got:
        if item["outcome"] != "error":
            validator = review if item["tool"] == "review_status" else job
            compile_schema(dict(validator.envelope_schema), formats=False).validate(item)
    assert MARKER.encode() not in run.stdout
    assert b"Traceback" not in run.stderr


@pytest.mark.parametrize(
    "raw",
    [OK, '{"approved": false, "approved": true}', OK.replace("alice", "a" * 5000)],
    ids=["accepted", "duplicate-member", "over-max-bytes"],
)
def test_serve_answers_exactly_what_check_answers(raw: str) -> None:
    """Same bytes, same request: the envelope line of `serve` is the one `check` prints."""
    checked = subprocess.run(
        [sys.executable, "-m", "toolguard", "check", REVIEW_PATH, "--request-id", "req.same.0001",
         "--context", "change_id=CR-1042"],
        input=raw.encode(), capture_output=True, cwd=REPO, env=_ENV, check=False, timeout=60,
    )  # fmt: skip
    served = serve(REVIEW_PATH, stdin=request(raw, "req.same.0001"))
    assert served.stdout == checked.stdout
    assert served.status == 0


def test_diagnostics_go_to_stderr_as_json_lines() -> None:
    """By default one JSON record per answer on stderr; a bad request says why."""
    run = serve(REVIEW_PATH, stdin=request('{"a": 1}', "req.diag.0001") + b"[1]\n")
    first, second = (json.loads(line) for line in run.stderr.splitlines())
    assert first["request_id"] == "req.diag.0001"
    assert first["layer"] == "schema"
    assert second["message"] == "bad request: request line must be a JSON object"


@pytest.mark.parametrize(
    ("line", "echo"),
    [
        (b'{"raw": "{}", "request_id": "bad id!", "context": {"change_id": "x"}}', None),
        (b'{"raw": "{}", "request_id": "req.bad.0001"}', "req.bad.0001"),  # missing context
        (b'{"raw": "{}", "request_id": "req.bad.0002", "context": [1]}', "req.bad.0002"),
        (b'{"raw": "{}", "request_id": "req.bad.0003", "now": "yesterday"}', "req.bad.0003"),
        (b'{"raw": "!!", "request_id": "req.bad.0004", "encoding": "base64"}', "req.bad.0004"),
        (b'{"raw": "{}", "request_id": "req.bad.0005", "encoding": "hex"}', "req.bad.0005"),
        (b'{"raw": "{}", "request_id": "req.bad.0006", "contract": null}', "req.bad.0006"),
        (b'{"request_id": "req.bad.0007", "context": {"change_id": "x"}}', "req.bad.0007"),
        # null where omitting the member would do: refused, even when the rest is complete
        (
            b'{"raw": "{}", "request_id": "req.bad.0008", "contract": null,'
            b' "context": {"change_id": "x"}}',
            "req.bad.0008",
        ),
        (
            b'{"raw": "{}", "request_id": "req.bad.0009", "now": null,'
            b' "context": {"change_id": "x"}}',
            "req.bad.0009",
        ),
        (
            b'{"raw": "{}", "request_id": "req.bad.0010", "encoding": "",'
            b' "context": {"change_id": "x"}}',
            "req.bad.0010",
        ),
        (
            b'{"raw": "{}", "request_id": "req.bad.0011", "encoding": false,'
            b' "context": {"change_id": "x"}}',
            "req.bad.0011",
        ),
        (b'{"raw": 1, "raw": 2}', None),
        (b"\xff\xfe", None),
        (b'"just a string"', None),
    ],
)
def test_a_malformed_request_line_is_a_bad_request(line: bytes, echo: str | None) -> None:
    """One fixed line, the request id only if it was a valid one; the server goes on."""
    run = serve(REVIEW_PATH, stdin=line + b"\n" + request(OK, "req.after.0001"))
    assert run.status == 0
    bad, after = answers(run)
    assert bad == {**BAD_REQUEST, "request_id": echo}
    assert after["outcome"] == "success"


def test_eof_on_empty_input_exits_0_with_nothing_on_stdout() -> None:
    run = serve(REVIEW_PATH)
    assert (run.status, run.stdout, run.stderr) == (0, b"", b"")


def test_a_last_line_without_newline_is_answered() -> None:
    run = serve(REVIEW_PATH, stdin=request(OK, "req.last.0001").rstrip(b"\n"))
    assert [item["request_id"] for item in answers(run)] == ["req.last.0001"]


# --- hostile input and process life ---------------------------------------------------------------


def test_a_50_mb_line_is_refused_with_bounded_memory_and_the_next_is_answered() -> None:
    """The line cap is enforced while reading: peak RSS stays far below the line's size."""
    child = subprocess.Popen(
        serve_argv(REVIEW_PATH),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=REPO,
        env=_ENV,
    )  # fmt: skip
    assert child.stdin is not None
    assert child.stdout is not None

    def feed(stdin: IO[bytes]) -> None:
        block = b'{"raw": "' + MARKER.encode() * (1 << 16)
        for _ in range((50 << 20) // len(block)):
            stdin.write(block)
        stdin.write(b"\n" + request(OK, "req.big.0002"))
        stdin.flush()

    writer = threading.Thread(target=feed, args=(child.stdin,))
    writer.start()
    refused, answered = (json.loads(child.stdout.readline()) for _ in range(2))
    writer.join()
    # NOTE: read while the server still runs: a child's ru_maxrss from wait4 starts at its
    # parent's size at fork, which in a long pytest run is itself over any sane bound.
    peak_kib = int(
        next(
            line.split()[1]
            for line in Path(f"/proc/{child.pid}/status").read_text().splitlines()
            if line.startswith("VmHWM:")
        )
    )
    child.stdin.close()
    rest = child.stdout.read()
    assert child.wait(timeout=10) == 0
    child.stdout.close()
    assert refused == BAD_REQUEST
    assert answered["request_id"] == "req.big.0002"
    assert rest == b""
    assert MARKER.encode() not in json.dumps([refused, answered]).encode()
    assert peak_kib < 200 * 1024


# 0: blocked in read; a million: still polling stdin after the answer (`polled_input`).
@pytest.mark.parametrize("busy_poll", ["0", "1000000"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_sigterm_while_idle_exits_0_promptly(busy_poll: str, signum: signal.Signals) -> None:
    child = subprocess.Popen(
        serve_argv(REVIEW_PATH, "--busy-poll", busy_poll),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO, env=_ENV,
    )  # fmt: skip
    assert child.stdin is not None
    assert child.stdout is not None
    child.stdin.write(request(OK, "req.idle.0001"))
    child.stdin.flush()
    assert json.loads(child.stdout.readline())["outcome"] == "success"  # now blocked reading
    started = time.monotonic()
    child.send_signal(signum)
    _, stderr = child.communicate(timeout=5)
    assert time.monotonic() - started < 2
    assert child.returncode == 0
    assert b"Traceback" not in stderr
    child.stdin.close()


# NOTE: the second signal is sent by the process itself once the loop has returned (on its way
# out): deterministic, where one sent from outside would race the loop's end.
_TWICE = """
import os, signal, sys
from toolguard import serve
from toolguard.launch import run

loop = serve.Server.serve

def serve_then_signalled(*args, **kwargs):
    status = loop(*args, **kwargs)
    os.kill(os.getpid(), second)
    for _ in range(1000):  # the signal is handled between two instructions
        pass
    return status

serve.Server.serve = serve_then_signalled
second, sys.argv[:] = int(sys.argv[1]), ["toolguard", *sys.argv[2:]]
run(sys.argv)
"""


@pytest.mark.parametrize(
    ("first", "second"),
    [(signal.SIGTERM, signal.SIGHUP), (signal.SIGINT, signal.SIGTERM)],
    ids=["TERM-HUP", "INT-TERM"],
)
def test_a_second_signal_while_serve_stops_still_exits_0(
    first: signal.Signals, second: signal.Signals
) -> None:
    """serve.md: a stopping signal is exit 0; a second one on the way out changes nothing."""
    child = subprocess.Popen(
        [sys.executable, "-c", _TWICE, str(int(second)), "serve", REVIEW_PATH],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO, env=_ENV,
    )  # fmt: skip
    assert child.stdin is not None
    assert child.stdout is not None
    child.stdin.write(request(OK, "req.twice.0001"))
    child.stdin.flush()
    assert json.loads(child.stdout.readline())["outcome"] == "success"
    child.send_signal(first)
    child.send_signal(second)  # and again from inside, once the loop has returned
    _, stderr = child.communicate(timeout=10)
    assert child.returncode == 0, stderr
    assert b"Traceback" not in stderr
    assert b"interrupted" not in stderr
    child.stdin.close()


@pytest.mark.parametrize("busy_poll", ["0", "100"])
def test_a_non_blocking_stdin_with_nothing_yet_is_waited_on(busy_poll: str) -> None:
    """O_NONBLOCK set by the caller on its pipe: "nothing yet" is not the end of input."""
    run = run_fed_late(
        serve_argv(REVIEW_PATH, "--busy-poll", busy_poll),
        [request(OK, "req.late.0001")[:7], request(OK, "req.late.0001")[7:], request(OK)],
        env=_ENV,
    )
    assert run.status == 0, run.stderr
    assert [answer["outcome"] for answer in answers(run)] == ["success", "success"]


def test_a_closed_stdout_ends_the_server_with_exit_4_quietly() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)
    with os.fdopen(write_end, "wb") as closed:
        done = subprocess.run(
            serve_argv(REVIEW_PATH), input=request(OK) * 3, stdout=closed,
            stderr=subprocess.PIPE, cwd=REPO, env=_ENV, check=False, timeout=60,
        )  # fmt: skip
    assert done.returncode == ExitStatus.INTERNAL
    assert b"stdout was closed" in done.stderr
    assert b"Traceback" not in done.stderr
    assert b"Exception ignored" not in done.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_failing_stdout_is_told_as_failing_not_as_closed() -> None:
    """A stdout on a full disk (`/dev/full`): exit 4, and the operator learns what it met."""
    with Path("/dev/full").open("wb") as full:
        done = subprocess.run(
            serve_argv(REVIEW_PATH), input=request(OK) * 3, stdout=full,
            stderr=subprocess.PIPE, cwd=REPO, env=_ENV, check=False, timeout=60,
        )  # fmt: skip
    assert done.returncode == ExitStatus.INTERNAL
    assert b"stdout failed (No space left on device)" in done.stderr
    assert b"stdout was closed" not in done.stderr
    assert b"Traceback" not in done.stderr


def _full_or_ended(child: subprocess.Popen[bytes], read_end: int) -> None:
    """Wait, reading nothing, until `child` has ended or waits for room in the pipe `read_end`.

    NOTE: waiting is seen, not timed: the child sleeps (it reads a file and writes stderr to
    one, so only stdout can hold it) while the pipe holds more than half its capacity, twice
    in a row with nothing added in between.
    """
    capacity = fcntl.fcntl(read_end, fcntl.F_GETPIPE_SZ)
    held, before = array.array("i", [0]), -1
    deadline = time.monotonic() + 60
    while child.poll() is None and time.monotonic() < deadline:
        fcntl.ioctl(read_end, termios.FIONREAD, held)
        stat = Path(f"/proc/{child.pid}/stat").read_text()
        sleeping = stat[stat.rindex(")") + 2] == "S"
        if sleeping and held[0] > capacity // 2 and held[0] == before:
            return
        before = held[0] if sleeping else -1
        time.sleep(0.05)


def _drained(read_end: int) -> bytes:
    with os.fdopen(read_end, "rb") as stdout:
        return stdout.read()


@pytest.mark.parametrize("unbuffered", ["1", ""], ids=["raw-stdout", "buffered-stdout"])
def test_a_stdout_another_process_made_non_blocking_loses_no_answer(
    unbuffered: str, tmp_path: Path
) -> None:
    """O_NONBLOCK on the caller's pipe: a full pipe is waited on, never taken for a closed one
    (buffered) nor written in part with the rest dropped (raw, as `PYTHONUNBUFFERED` makes it)."""
    lines = [request(OK, f"req.nbout.{n:06d}") for n in range(2000)]  # 300 KiB of answers
    (tmp_path / "in").write_bytes(b"".join(lines))
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    with (tmp_path / "in").open("rb") as stdin:
        child = subprocess.Popen(
            serve_argv(REVIEW_PATH), stdin=stdin, stdout=write_end, stderr=subprocess.DEVNULL,
            cwd=REPO, env={**_ENV, "PYTHONUNBUFFERED": unbuffered},
        )  # fmt: skip
    os.close(write_end)
    _full_or_ended(child, read_end)
    got = [json.loads(line) for line in _drained(read_end).splitlines()]
    assert child.wait(timeout=60) == 0
    assert [answer["request_id"] for answer in got] == [f"req.nbout.{n:06d}" for n in range(2000)]


@pytest.mark.parametrize("unbuffered", ["1", ""], ids=["raw-stdout", "buffered-stdout"])
def test_sigterm_while_nobody_reads_stdout_exits_0_with_whole_answers(
    unbuffered: str, tmp_path: Path
) -> None:
    """Blocked on a full stdout, serve still stops: it gives the answer up (serve.md)."""
    (tmp_path / "in").write_bytes(b"".join(request(OK, f"req.full.{n:06d}") for n in range(3000)))
    read_end, write_end = os.pipe()
    with (tmp_path / "in").open("rb") as stdin, (tmp_path / "err").open("wb") as stderr:
        child = subprocess.Popen(
            serve_argv(REVIEW_PATH), stdin=stdin, stdout=write_end, stderr=stderr, cwd=REPO,
            env={**_ENV, "PYTHONUNBUFFERED": unbuffered},
        )  # fmt: skip
    os.close(write_end)
    _full_or_ended(child, read_end)
    child.send_signal(signal.SIGTERM)
    try:
        status = child.wait(timeout=30)
    finally:
        stdout = _drained(read_end)
    assert status == 0
    whole = stdout.splitlines(keepends=True)
    if whole and not whole[-1].endswith(b"\n"):
        whole.pop()  # the answer given up, cut short: a reader discards a line without newline
    assert [json.loads(line)["request_id"] for line in whole] == [
        f"req.full.{n:06d}" for n in range(len(whole))
    ]
    assert len(whole) < 3000
    assert b"Traceback" not in (tmp_path / "err").read_bytes()


@pytest.mark.parametrize(
    "contracts",
    [["examples/no_such/contract.toml"], [REVIEW_PATH, REVIEW_PATH]],
    ids=["missing", "ambiguous"],
)
def test_a_bad_contract_exits_3_before_reading_anything(contracts: list[str]) -> None:
    run = serve(*contracts, stdin=request(OK))
    assert run.status == ExitStatus.CONTRACT
    assert run.stdout == b""
    assert json.loads(run.stderr)["exit_status"] == 3


def test_the_audit_log_records_each_answer_as_serve(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    stdin = request(OK, "req.audit.0001") + request("{}", "req.audit.0002") + b"[]\n"
    run = serve(REVIEW_PATH, "--audit-log", log, stdin=stdin)
    assert run.status == 0
    entries = [record.decode(line) for line in log.read_bytes().splitlines()]
    assert [entry["request_id"] for entry in entries] == ["req.audit.0001", "req.audit.0002"]
    assert {entry["command"] for entry in entries} == {"serve"}
    assert {entry["upstream"]["kind"] for entry in entries} == {"stdin"}


def test_an_unwritable_audit_log_turns_the_answer_into_a_retryable_failure() -> None:
    run = serve(REVIEW_PATH, "--audit-log", "/dev/full", stdin=request(OK, "req.full.0001"))
    (answer,) = answers(run)
    assert answer["error"] == {"code": "UPSTREAM_UNAVAILABLE", "retryable": True}
    assert b"alice" not in run.stdout


def test_an_audit_log_on_stderr_never_blocks_a_caller_that_reads_only_stdout() -> None:
    """`--audit-log /dev/stderr`, stderr=PIPE never read: every request is answered; once the
    pipe is full, an answer whose record cannot be written is a retryable failure, and every
    accepted answer's record is in the pipe (none was queued, released, then dropped)."""
    child = subprocess.Popen(
        [*serve_argv(REVIEW_PATH, "--audit-log", "/dev/stderr"), "--diagnostics", "json"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO, env=_ENV,
    )  # fmt: skip
    assert child.stdin is not None
    assert child.stdout is not None
    assert child.stderr is not None
    got: list[dict[str, Any]] = []

    def converse() -> None:
        for number in range(1_000):
            child.stdin.write(request(OK, f"req.stderr.{number:04d}"))  # type: ignore[union-attr]
            child.stdin.flush()  # type: ignore[union-attr]
            got.append(json.loads(child.stdout.readline()))  # type: ignore[union-attr]
        child.stdin.close()  # type: ignore[union-attr]
        child.wait()

    with child:
        thread = threading.Thread(target=converse, daemon=True)
        thread.start()
        thread.join(120)
        blocked = thread.is_alive()
        child.kill()
        stderr = child.stderr.read()
    assert not blocked, f"blocked after {len(got)} answers"
    assert child.returncode == 0
    assert len(got) == 1_000
    failed = [answer for answer in got if answer["outcome"] != "success"]
    assert failed, "the channel never filled: the test proves nothing"
    assert {json.dumps(answer["error"]) for answer in failed} == {
        json.dumps({"code": "UPSTREAM_UNAVAILABLE", "retryable": True})
    }
    recorded = [record.decode(line) for line in stderr.splitlines()]
    ids = [entry["request_id"] for entry in recorded if entry is not None]
    assert ids, "no record reached stderr"
    accepted = {answer["request_id"] for answer in got if answer["outcome"] == "success"}
    assert sorted(ids) == sorted(accepted)


# --- the library ----------------------------------------------------------------------------------


def test_handle_answers_one_line_in_process(review: Contract) -> None:
    answer = Server([review]).handle(request(OK, "req.lib.0001"))
    assert json.loads(answer.line)["data"]["reviewed_by"] == "alice@example.com"
    assert answer.line.endswith(b"\n")
    assert answer.diagnostics is not None
    assert answer.diagnostics.outcome == "success"
    assert answer.refused is None


def test_handle_refuses_without_quoting_the_line(review: Contract) -> None:
    answer = Server([review]).handle(request(OK, "req.lib.0002", contract=MARKER))
    assert json.loads(answer.line) == {**BAD_REQUEST, "request_id": "req.lib.0002"}
    assert answer.diagnostics is None
    assert answer.refused is not None
    assert "unknown contract" in answer.refused


@pytest.mark.parametrize(
    "encoded",
    [
        base64.b64encode(OK.encode()).decode(),
        base64.b64encode(OK.encode()).decode().rstrip("="),  # padding left out
        base64.urlsafe_b64encode(b"\xfb\xff" + OK.encode()).decode(),  # the URL-safe alphabet
        base64.b64encode(OK.encode() + b" ").decode()[:-2] + "B=",  # unused bits set (iB= for iA=)
        "\n".join(textwrap.wrap(base64.b64encode(OK.encode()).decode(), 76)),  # MIME lines
    ],
    ids=["canonical", "unpadded", "url-safe", "non-canonical", "newline"],
)
def test_base64_is_read_only_as_b64encode_writes_it(review: Contract, encoded: str) -> None:
    """One spelling per response: the standard alphabet, padded, unused bits zero (serve.md)."""
    answer = Server([review]).handle(request(encoded, "req.b64.0001", encoding="base64"))
    canonical = encoded == base64.b64encode(OK.encode()).decode()
    assert (answer.refused is None) is canonical, answer.refused
    if not canonical:
        assert json.loads(answer.line) == {**BAD_REQUEST, "request_id": "req.b64.0001"}


def test_a_request_without_the_context_a_rule_reads_says_where_to_give_it(
    review: Contract,
) -> None:
    """The refusal names the request's `context` member, not a flag `serve` does not have."""
    answer = Server([review]).handle(request(OK, "req.lib.0003", context={}))
    assert json.loads(answer.line) == {**BAD_REQUEST, "request_id": "req.lib.0003"}
    assert answer.refused is not None
    assert answer.refused.endswith(
        'missing request context: change_id (give it in the request\'s "context")'
    )


def test_several_contracts_need_a_name(review: Contract, job: Contract) -> None:
    answer = Server([review, job]).handle(request(OK, "req.lib.0003"))
    assert answer.refused == "request names no contract, and several are loaded"


def test_two_contracts_with_one_tool_name_are_ambiguous(review: Contract) -> None:
    with pytest.raises(ContractError, match="ambiguous"):
        Server([review, load_contract(REVIEW / "contract.toml")])


def test_a_bug_during_a_check_is_a_non_retryable_failure_for_that_request(
    review: Contract, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("toolguard.serve.check_bytes", broken)
    answer = Server([review]).handle(request(OK, "req.lib.0004"))
    assert json.loads(answer.line)["error"] == {"code": "UPSTREAM_UNAVAILABLE", "retryable": False}
    assert answer.diagnostics is not None
    assert answer.diagnostics.outcome == "internal"


def secret_review(folder: Path) -> Contract:
    """review_status with its change id marked secret (the rule compares against it)."""
    for name in ("contract.toml", "response.schema.json"):
        (folder / name).write_bytes((REVIEW / name).read_bytes())
    contract = folder / "contract.toml"
    contract.write_text(contract.read_text() + '\n[audit]\nsecret_context = ["change_id"]\n')
    return load_contract(contract)


@pytest.mark.parametrize("mode", ["json", "rich"])
def test_serve_diagnostics_never_hold_a_secret(tmp_path: Path, mode: str) -> None:
    """A rule quoting a secret context value: stderr names `[secret:change_id]`, not the value."""
    server = Server([secret_review(tmp_path)], TrailOptions(log=tmp_path / "audit.jsonl"))
    line = request(OK, "req.secret.0001", context={"change_id": "CR-99999999"})
    stdout, stderr = io.BytesIO(), io.StringIO()
    assert server.serve(io.BytesIO(line), stdout, stderr, mode) == ExitStatus.SUCCESS
    assert json.loads(stdout.getvalue())["error"]["code"] == "INVALID_RESPONSE"
    assert "[secret:change_id]" in stderr.getvalue()
    assert "99999999" not in stderr.getvalue()
    assert b"99999999" not in (tmp_path / "audit.jsonl").read_bytes()


def test_a_secret_too_short_to_redact_is_a_bad_request(tmp_path: Path) -> None:
    """Under 8 characters: BAD_REQUEST, and the refusal names the key, never the value."""
    server = Server([secret_review(tmp_path)])
    answer = server.handle(request(OK, "req.secret.0002", context={"change_id": "CR-1042"}))
    assert json.loads(answer.line) == {**BAD_REQUEST, "request_id": "req.secret.0002"}
    assert answer.refused is not None
    assert "'change_id' must be at least 8 characters" in answer.refused
    assert "CR-1042" not in answer.refused


def test_the_library_trail_records_serve(review: Contract, tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    Server([review], TrailOptions(log=log)).handle(request(OK, "req.lib.0005"))
    (line,) = log.read_bytes().splitlines()
    assert json.loads(line)["command"] == "serve"


class _Lines:
    """A stdin giving a line per read, that can send a signal first (to stop mid-loop)."""

    def __init__(self, lines: list[bytes], before_read: int = -1) -> None:
        self.lines = lines
        self.reads = 0
        self.before_read = before_read

    def read1(self, size: int = -1) -> bytes:
        self.reads += 1
        if self.reads == self.before_read:
            os.kill(os.getpid(), signal.SIGTERM)
        return self.lines.pop(0) if self.lines else b""


class _Out:
    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> int:
        self.data += data
        return len(data)

    def flush(self) -> None:
        pass


@pytest.fixture
def handlers() -> Any:
    """The stopping signals' handlers, put back after a test that stops a loop in-process."""
    stopping = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    before = {signum: signal.getsignal(signum) for signum in stopping}
    yield before
    for signum, handler in before.items():
        signal.signal(signum, handler)


def test_a_loop_not_stopped_by_a_signal_puts_the_handlers_back(
    review: Contract, handlers: dict[int, Any]
) -> None:
    stdin = _Lines([request(OK, "req.sig.0000")])
    assert Server([review]).serve(stdin, _Out(), None) == ExitStatus.SUCCESS  # type: ignore[arg-type]
    assert {signum: signal.getsignal(signum) for signum in handlers} == handlers


def test_sigterm_while_answering_finishes_that_answer_then_stops(
    review: Contract, handlers: dict[int, Any]
) -> None:
    """The signal lands during `handle`: its answer is written, no further line is read; the
    stopping signals stay ignored (the process is on its way out)."""

    class Signalled(Server):
        def handle(self, line: bytes) -> Any:
            os.kill(os.getpid(), signal.SIGTERM)
            return super().handle(line)

    stdin = _Lines([request(OK, "req.sig.0001"), request(OK, "req.sig.0002")])
    out = _Out()
    status = Signalled([review]).serve(stdin, out, None)  # type: ignore[arg-type]
    assert status == ExitStatus.SUCCESS
    assert [json.loads(line)["request_id"] for line in out.data.splitlines()] == ["req.sig.0001"]
    assert all(signal.getsignal(signum) is signal.SIG_IGN for signum in handlers)


def test_sigterm_while_answering_leaves_the_lines_read_with_it_unanswered(
    review: Contract, handlers: dict[int, Any]
) -> None:
    """Three lines in one read, the signal during the first: the other two get no answer."""

    class Signalled(Server):
        def handle(self, line: bytes) -> Any:
            os.kill(os.getpid(), signal.SIGTERM)
            return super().handle(line)

    lines = [request(OK, f"req.sig.001{n}") for n in range(3)]
    stdin = _Lines([b"".join(lines)])
    out = _Out()
    status = Signalled([review]).serve(stdin, out, None)  # type: ignore[arg-type]
    assert status == ExitStatus.SUCCESS
    assert [json.loads(line)["request_id"] for line in out.data.splitlines()] == ["req.sig.0010"]
    assert stdin.reads == 1


def test_sigterm_while_reading_stops_at_once(review: Contract, handlers: dict[int, Any]) -> None:
    stdin = _Lines([request(OK, "req.sig.0003"), request(OK, "req.sig.0004")], before_read=2)
    out = _Out()
    status = Server([review]).serve(stdin, out, None)  # type: ignore[arg-type]
    assert status == ExitStatus.SUCCESS
    assert [json.loads(line)["request_id"] for line in out.data.splitlines()] == ["req.sig.0003"]


def test_an_over_long_line_that_starts_blank_is_still_refused(review: Contract) -> None:
    """Padding a request with whitespace past the line cap cannot get it answered."""
    server = Server([review])
    padded = b" " * (server.line_cap + 10) + request(OK, "req.pad.0001")
    stdin = io.BytesIO(padded + request(OK, "req.pad.0002"))
    out = io.BytesIO()
    status = server.serve(stdin, out, None)  # type: ignore[arg-type]
    assert status == ExitStatus.SUCCESS
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert answers[0] == BAD_REQUEST
    assert [answer["request_id"] for answer in answers[1:]] == ["req.pad.0002"]


def test_every_line_serve_writes_is_described_by_schema_serve(run_toolguard: Any) -> None:
    """`schema --serve` describes answers and bad requests, for toolguard and jsonschema alike."""
    import jsonschema  # noqa: PLC0415 - the Python MCP SDK's validator, a test dependency

    from toolguard.schema import compile_schema  # noqa: PLC0415

    printed = run_toolguard("schema", "--serve", REVIEW_PATH, JOB_PATH)
    assert printed.status == 0
    schema = json.loads(printed.stdout)
    lines = [
        request(OK, "req.serve.0001", contract="review_status"),
        request('{"approved": true}', "req.serve.0002", contract="review_status"),
        b"not json\n",
        request(OK, "req.serve.0003", contract="review_status", extra=MARKER),
        job_request("job_run", "req.serve.0004"),
    ]
    got = answers(serve(REVIEW_PATH, JOB_PATH, stdin=b"".join(lines)))
    assert [item["outcome"] for item in got] == ["success", "failure", "error", "error", "success"]
    ours = compile_schema(schema, formats=False)
    reference = jsonschema.Draft202012Validator(schema)
    jsonschema.Draft202012Validator.check_schema(schema)
    for item in got:
        ours.validate(item)
        reference.validate(item)
    for wrong in (
        {**got[0], "tool": "job_run"},  # a review_status answer under the other tool's name
        {**got[2], "error": {"code": "INVALID_RESPONSE"}},
        {**got[1], "error": {"code": "BAD_REQUEST", "retryable": False}},
    ):
        assert not ours.is_valid(wrong)
        assert not reference.is_valid(wrong)


def test_schema_takes_several_contracts_only_with_serve(run_toolguard: Any) -> None:
    """One contract's envelope schema is its own; several need --serve (a usage error)."""
    refused = run_toolguard("schema", REVIEW_PATH, JOB_PATH)
    assert (refused.status, refused.stdout) == (2, b"")
    single = json.loads(run_toolguard("schema", REVIEW_PATH).stdout)
    assert single == load_contract(REVIEW / "contract.toml").envelope_schema


@pytest.mark.parametrize(("flag", "window"), [([], 100), (["--busy-poll", "250"], 250)])
def test_the_busy_poll_flag_reaches_the_server(
    flag: list[str], window: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`serve` polls for 100 us unless told otherwise; the library's `Server.serve` never does."""
    seen = []

    def recorded(self: Server, *args: Any) -> ExitStatus:
        seen.append(args[4:])
        return ExitStatus.SUCCESS

    monkeypatch.setattr(Server, "serve", recorded)
    done = CliRunner().invoke(cli, ["serve", str(REVIEW_PATH), *flag])
    assert done.exit_code == 0, done.output
    assert seen == [(window,)]


def test_a_negative_busy_poll_is_a_usage_error(run_toolguard: Any) -> None:
    assert run_toolguard("serve", REVIEW_PATH, "--busy-poll", "-1").status == ExitStatus.USAGE


def test_a_stop_lost_before_the_loop_began_stops_it_and_later_stops_still_reach_it() -> None:
    """A stop whose interrupt was lost left the handlers only noting: the loop starts stopped,
    and a later stop is still its own (not ignored forever)."""
    import signal  # noqa: PLC0415

    from toolguard import signals  # noqa: PLC0415
    from toolguard.serve import _stop_on_signals  # noqa: PLC0415

    before = {signum: signal.getsignal(signum) for signum in signals.STOPPING}
    try:
        signals.listen()
        with contextlib.suppress(KeyboardInterrupt):  # as importlib's callback drops it
            signals.interrupt(signal.SIGTERM, None)
        with _stop_on_signals() as stop:
            assert stop.requested
            assert signal.getsignal(signal.SIGINT) is stop
    finally:
        signals._ASKED[0] = False
        for signum, handler in before.items():
            signal.signal(signum, handler)
