"""What `toolguard serve` adds to each check: a script, not a test.

Times CALLS checks of the review_status example's accepted response four ways: `check_bytes`
in process (the check itself), `Server.handle` in process (request line parse, envelope line,
no I/O), the JSON diagnostics line `check` writes too, and a real `toolguard serve`
subprocess: lock-step (write a line, wait for its answer, as a framework does) and a batch
read from a file (throughput, start-up subtracted). Diagnostics go to /dev/null in JSON, the
serve default; lock-step is also timed with stderr a pipe that the caller reads, and one that
nobody reads (it used to hang `serve` after a few hundred answers). Overhead = per-call time
minus `check_bytes`'s.

    .venv/bin/python benchmarks/serve_overhead.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from toolguard import load_contract, report
from toolguard.pipeline import check_bytes
from toolguard.request import make_request
from toolguard.serve import Server

REPO = Path(__file__).resolve().parent.parent
CONTRACT = REPO / "examples" / "review_status" / "contract.toml"
RAW = (CONTRACT.parent / "response.json").read_bytes()
CONTEXT = {"change_id": "CR-1042"}
CALLS = 10_000
LINE = (
    json.dumps({"raw": RAW.decode(), "context": CONTEXT, "request_id": "req.bench.0001"}).encode()
    + b"\n"
)


def per_call(seconds: float) -> float:
    return seconds / CALLS * 1e6


def in_process_check() -> float:
    contract = load_contract(CONTRACT)
    request = make_request("req.bench.0001", CONTEXT)
    started = time.perf_counter()
    for _ in range(CALLS):
        check_bytes(contract, RAW, request)
    return per_call(time.perf_counter() - started)


def in_process_handle() -> float:
    server = Server([load_contract(CONTRACT)])
    started = time.perf_counter()
    for _ in range(CALLS):
        server.handle(LINE)
    return per_call(time.perf_counter() - started)


def start(stderr: str = "devnull") -> subprocess.Popen[bytes]:
    """serve, with stderr to /dev/null, or a pipe drained by a thread, or a pipe never read."""
    child = subprocess.Popen(
        [sys.executable, "-m", "toolguard", "serve", str(CONTRACT)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL if stderr == "devnull" else subprocess.PIPE,
        cwd=REPO,
    )
    if stderr == "read":
        threading.Thread(target=child.stderr.read, daemon=True).start()  # type: ignore[union-attr]
    assert child.stdin is not None
    assert child.stdout is not None
    child.stdin.write(LINE)  # warm-up: start-up and contract loading are not per call
    child.stdin.flush()
    child.stdout.readline()
    return child


def stop(child: subprocess.Popen[bytes]) -> None:
    assert child.stdin is not None
    child.stdin.close()
    assert child.wait(timeout=10) == 0
    for stream in (child.stdout, child.stderr):
        if stream is not None:
            stream.close()


def lock_step(stderr: str = "devnull") -> float:
    child = start(stderr)
    assert child.stdin is not None
    assert child.stdout is not None
    started = time.perf_counter()
    for _ in range(CALLS):
        child.stdin.write(LINE)
        child.stdin.flush()
        assert child.stdout.readline().startswith(b'{"tool"')
    elapsed = time.perf_counter() - started
    stop(child)
    return per_call(elapsed)


def streamed() -> float:
    """A whole batch from a file: (time for CALLS + 1 lines - time for 1 line) / CALLS."""
    with tempfile.TemporaryDirectory() as folder:
        one, many = Path(folder, "one"), Path(folder, "many")
        one.write_bytes(LINE)
        many.write_bytes(LINE * (CALLS + 1))
        return per_call(best_run(many) - best_run(one))


def best_run(lines: Path, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        with lines.open("rb") as stdin:
            started = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "toolguard", "serve", str(CONTRACT)],
                stdin=stdin,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=True,
            )
            best = min(best, time.perf_counter() - started)
    return best


def render_diagnostics() -> float:
    """What `check` also pays per answer: one JSON diagnostics line (to /dev/null here)."""
    diagnostics = check_bytes(load_contract(CONTRACT), RAW, make_request(None, CONTEXT)).diagnostics
    with Path(os.devnull).open("w") as sink:
        started = time.perf_counter()
        for _ in range(CALLS):
            report.render(diagnostics, "json", sink)
        return per_call(time.perf_counter() - started)


def main() -> None:
    check = in_process_check()
    rows = [
        ("check_bytes, in process (the check itself)", check),
        ("Server.handle, in process", in_process_handle()),
        ("toolguard serve, lock-step over pipes", lock_step()),
        ("  the same, stderr a pipe the caller reads", lock_step("read")),
        ("  the same, stderr a pipe nobody reads", lock_step("unread")),
        ("toolguard serve, a batch from a file", streamed()),
    ]
    print(f"{'per call, ' + format(CALLS, ',') + ' calls':44} {'us/call':>9} {'overhead us':>12}")
    for name, micros in rows:
        print(f"{name:44} {micros:9.1f} {micros - check:12.1f}")
    render = render_diagnostics()
    print(f"the overhead includes one JSON diagnostics line, as check writes: {render:.1f} us")
    print(f"\n{sys.executable}; {os.uname().sysname} {os.uname().machine}, {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
