"""Fuzz target: the audit readers, `explain` and `audit summary`, over a log of fuzzed bytes.

Each input is written as the whole audit log (a private file); then `explain.find` looks in
it for `seeds.REQUEST_ID`, `explain.summary.summarize` counts it (over all time, and over a
window), and each result is rendered as `toolguard explain` and `toolguard audit summary`
render it, as text and as JSON. For each input:

- finding and counting return, or raise `UsageError` (a log they cannot read), nothing else;
- every found record is a record of that request id, and no more records are counted than
  the log has lines;
- the output, text or JSON, holds no raw control character, nor any code point a terminal
  would act on or hide (the log is anyone's writing: everything from it is escaped);
- each JSON output is one line of JSON.

Time and memory are bounded by libFuzzer's `-timeout` and `-rss_limit_mb`.

    python fuzz/audit_log.py -max_total_time=60
"""

from __future__ import annotations

import io
import json

import harness
import seeds

with harness.instrumented():
    from toolguard.errors import UsageError
    from toolguard.explain import find, render
    from toolguard.explain.summary import summarize

LOG = harness.scratch("audit_log") / "audit.jsonl"
WINDOWS = ((None, None), ("2026-03-14T09:00:00Z", "2026-03-14T10:00:00.5+01:00"))


def test_one_input(data: bytes) -> None:
    """Read one log with both readers; an `AssertionError` is a finding."""
    LOG.write_bytes(data)
    lines = data.count(b"\n") + 1
    try:
        found = find.find(LOG, seeds.REQUEST_ID)
    except UsageError:
        found = None
    if found is not None:
        assert all(entry["request_id"] == seeds.REQUEST_ID for _, entry in found.records)
        assert len(found.records) + len(found.malformed) <= lines, "more records than lines"
        for mode in ("text", "json"):
            stream = io.StringIO()
            render.explain(found, {}, mode, stream, seeds.REQUEST_ID)
            _check_output(stream.getvalue(), mode, "explain")
    for since, until in WINDOWS:
        try:
            summary = summarize(LOG, since, until)
        except UsageError:
            continue
        assert summary.records + summary.malformed <= lines, "more records than lines"
        assert sum(summary.rows.values()) == summary.records, "rows and records disagree"
        for mode in ("text", "json"):
            stream = io.StringIO()
            render.summary(summary, mode, stream)
            _check_output(stream.getvalue(), mode, "audit summary")


def _check_output(shown: str, mode: str, command: str) -> None:
    where = f"{command} ({mode})"
    assert shown.endswith("\n"), f"{where}: no output"
    harness.assert_escaped(shown, where)
    if mode == "json":
        assert shown.count("\n") == 1, f"{where}: not one line"
        json.loads(shown)


def main() -> None:
    """Fuzz, with logs of the examples' records (and hand-edited ones) as seeds."""
    harness.run(
        "audit_log",
        test_one_input,
        seeds=seeds.audit_logs,
        dictionary=(
            *seeds.JSON_TOKENS,
            f'"{seeds.REQUEST_ID}"'.encode(),
            b'"request_id":',
            b'"timestamp":',
            b'"tool":',
            b'"outcome":',
            b'"error_code":',
            b'"layer":',
            b"\\u0072",
            b"\\u001b",
            b"\\u0085",
            b"\\u202e",
            b"2026-03-14T09:30:00Z",
            b"2026-03-14T09:30:60Z",
            b"9999-12-31T23:59:59.999999Z",
        ),
        max_len=16384,
    )


if __name__ == "__main__":
    main()
