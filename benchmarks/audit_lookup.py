"""Finding one request in a 100,000-record audit log, and summarizing it: a script, not a test.

Writes 100,000 realistic records (successes, schema and rule rejections, run records with
attempts, ten request ids per thousand repeated) into a temporary log, then times
`toolguard explain` on a record in the middle and `toolguard audit summary` over the whole log,
as real subprocesses (beside a bare `python -c pass`) and in-process (`explain.find`,
`summary.summarize`).

    .venv/bin/python benchmarks/audit_lookup.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from toolguard import load_contract
from toolguard.audit import record
from toolguard.explain import find as explain
from toolguard.explain.summary import summarize
from toolguard.pipeline import check_bytes
from toolguard.request import make_request

REPO = Path(__file__).resolve().parents[1]
REVIEW = REPO / "examples" / "review_status"
RECORDS = 100_000
RUNS = 5
OK = (REVIEW / "response.json").read_bytes()
RESPONSES = [  # (response, change_id in the request): mostly accepted, some rejections
    *[(OK, "CR-1042")] * 7,
    (OK.replace(b'"approved"', b'"maybe"'), "CR-1042"),
    (OK, "CR-7"),
    (b"Welcome to build-host.\n" + OK, "CR-1042"),
]


def templates() -> list[dict[str, Any]]:
    """One record per kind of response, built by the real code path."""
    contract = load_contract(REVIEW / "contract.toml")
    built = []
    for raw, change_id in RESPONSES:
        request = make_request("req.bench.template", {"change_id": change_id})
        outcome = check_bytes(contract, raw, request)
        built.append(
            record.build(outcome, contract, request, command="check", source=record.Source("stdin"))
        )
    return built


def write_log(path: Path, records: int = RECORDS) -> tuple[str, float]:
    """Write `records` encoded records (one second apart); return the middle id and seconds."""
    started = time.perf_counter()
    kinds = templates()
    start = datetime.now(UTC) - timedelta(seconds=records)
    with path.open("wb") as stream:
        for number in range(records):
            entry = dict(kinds[number % len(kinds)])
            entry["request_id"] = f"req.bench.{number:08d}"
            entry["timestamp"] = record.timestamp(start + timedelta(seconds=number))
            stream.write(record.encode(entry))
    return f"req.bench.{records // 2:08d}", time.perf_counter() - started


def best(run: Callable[[], object], runs: int = RUNS) -> float:
    """Best wall seconds of `runs` calls."""
    fastest = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        run()
        fastest = min(fastest, time.perf_counter() - started)
    return fastest


def subprocess_run(argv: list[str]) -> Callable[[], object]:
    def run() -> None:
        done = subprocess.run(argv, capture_output=True, check=False)
        assert done.returncode == 0, done.stderr

    return run


def main() -> None:
    python = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "audit.jsonl"
        middle, writing = write_log(log)
        size = log.stat().st_size
        found = explain.find(log, middle)
        assert len(found.records) == 1, found
        summary = summarize(log)
        assert (summary.records, summary.malformed) == (RECORDS, 0), summary
        explain_argv = [python, "-m", "toolguard", "explain", middle, "--audit-log", str(log)]
        summary_argv = [python, "-m", "toolguard", "audit", "summary", str(log)]
        rows = [
            ("python -c pass", best(subprocess_run([python, "-c", "pass"]))),
            ("toolguard explain (rich)", best(subprocess_run(explain_argv))),
            (
                "toolguard explain --format json",
                best(subprocess_run([*explain_argv, "--format", "json"])),
            ),
            ("toolguard audit summary (rich)", best(subprocess_run(summary_argv), 2)),
            ("in-process explain.find", best(lambda: explain.find(log, middle))),
            ("in-process summary.summarize", best(lambda: summarize(log), 2)),
        ]
    print(
        f"log: {RECORDS:,} records, {size / 2**20:.1f} MiB "
        f"({size / RECORDS:.0f} bytes per record), written in {writing:.1f} s; "
        f"looking up {middle} (record {RECORDS // 2:,})"
    )
    print(f"{'case':36} {'best ms':>10}")
    for name, seconds in rows:
        print(f"{name:36} {seconds * 1000:10.1f}")
    print(
        f"\nbest of {RUNS} runs (summary: 2); {python}; {os.uname().sysname} "
        f"{os.uname().machine}, {os.cpu_count()} CPUs"
    )


if __name__ == "__main__":
    main()
