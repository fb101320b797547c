"""Fuzz target: `serve` request lines, through `Server.handle`, with every example contract.

The server holds the example contracts (`contract.toml` of each: serve answers to tool names)
and writes audit records to `/dev/null`, so that every answer is also recorded. For each
input line:

- `handle` returns, never raises, with exactly one line: ASCII JSON ending in one newline;
- the line is valid against the schema `toolguard schema --serve CONTRACT...` prints (read
  from that command, once, at start);
- a bad request says why without an internal error; a checked request never reports a
  toolguard bug (`internal`), and its audit record is written (no warning);
- no failure and no bad request line holds `seeds.CANARY`.

    python fuzz/serve_lines.py -max_total_time=60
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import harness
import seeds
from reference import same

with harness.instrumented():
    import toolguard
    from toolguard.audit.trail import TrailOptions
    from toolguard.serve import Server

PATHS = [
    example.contract for example in seeds.examples() if example.contract.name == "contract.toml"
]
_KEYS = harness.scratch("serve_lines")
SERVER = Server(
    [toolguard.load_contract(path) for path in PATHS],
    TrailOptions(log=Path("/dev/null"), key_file=_KEYS / "audit.key"),
)


def _serve_schema() -> toolguard.Validator:
    printed = subprocess.run(
        [sys.executable, "-m", "toolguard", "schema", "--serve", *map(str, PATHS)],
        check=True,
        capture_output=True,
        stdin=subprocess.DEVNULL,
    ).stdout
    return toolguard.compile_schema(json.loads(printed), formats=False)


SCHEMA = _serve_schema()


def test_one_input(data: bytes) -> None:
    """Answer one request line; an `AssertionError` is a finding."""
    answer = SERVER.handle(data)
    line = answer.line
    assert line.isascii(), "the answer line is not ASCII"
    assert line.endswith(b"\n") and line.count(b"\n") == 1, "not exactly one answer line"
    value = json.loads(line)
    assert same(json.loads(json.dumps(value)), value), "the answer is not plain JSON"
    SCHEMA.validate(value)
    if answer.diagnostics is None:
        assert value["outcome"] == "error", f"a bad request answered {value!r}"
        assert answer.refused and "internal error" not in answer.refused, answer.refused
    else:
        outcome = answer.diagnostics.outcome
        assert outcome != "internal", f"internal error: {answer.diagnostics.message}"
        assert answer.warning is None, f"the audit record was not written: {answer.warning}"
        assert value["outcome"] == outcome, "the line and the diagnostics differ"
    if value["outcome"] != "success":
        assert seeds.CANARY.encode() not in line, "the canary reached a failure line"


def main() -> None:
    """Fuzz, with a request line per example fixture, canary lines and bad lines as seeds."""
    harness.run(
        "serve_lines",
        test_one_input,
        seeds=seeds.request_lines,
        dictionary=(
            *seeds.JSON_TOKENS,
            b'"raw"',
            b'"encoding"',
            b'"base64"',
            b'"text"',
            b'"contract"',
            b'"request_id"',
            b'"context"',
            b'"now"',
            b'"review_status"',
            b'"disk_usage"',
            b'"2026-03-14T09:30:00Z"',
        ),
        max_len=8192,
    )


if __name__ == "__main__":
    main()
