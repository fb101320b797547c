"""`summary.summarize`: counts per tool, outcome, error code and layer over a time window."""

from __future__ import annotations

import io
import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from toolguard.audit import record
from toolguard.contract import load_contract
from toolguard.errors import UsageError
from toolguard.explain import render
from toolguard.explain.summary import Row, Summary, summarize
from toolguard.pipeline import check_bytes
from toolguard.request import make_request

REPO = Path(__file__).resolve().parents[2]
REVIEW = REPO / "examples" / "review_status"
OK = (REVIEW / "response.json").read_bytes()
DRIFTED = OK.replace(b'"approved"', b'"maybe"')
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def entry(raw: bytes, at: datetime, tool: str = "review_status") -> dict[str, Any]:
    """The record of checking `raw` at instant `at`, as tool `tool`."""
    contract = load_contract(REVIEW / "contract.toml")
    request = make_request("req.summary.0001", {"change_id": "CR-1042"})
    built = record.build(
        check_bytes(contract, raw, request),
        contract,
        request,
        command="check",
        source=record.Source("stdin"),
        now=at,
    )
    built["contract"]["tool"] = tool
    return built


def write(path: Path, *lines: dict[str, Any] | bytes) -> Path:
    path.write_bytes(
        b"".join(item if isinstance(item, bytes) else record.encode(item) for item in lines)
    )
    return path


@pytest.fixture
def log(tmp_path: Path) -> Path:
    """Six records over three hours: two tools, successes, a schema and a rule rejection."""
    return write(
        tmp_path / "audit.jsonl",
        entry(OK, T0),
        entry(DRIFTED, T0 + timedelta(minutes=30)),
        entry(OK, T0 + timedelta(hours=1), "deploy_status"),
        entry(OK.replace(b"CR-1042", b"CR-9"), T0 + timedelta(hours=1, minutes=1)),
        entry(DRIFTED, T0 + timedelta(hours=2)),
        entry(OK, T0 + timedelta(hours=3), "deploy_status"),
    )


def test_counts_every_record_per_tool_outcome_code_and_layer(log: Path) -> None:
    """Without a window every record counts, each in its row and in the column totals."""
    result = summarize(log)
    assert (result.records, result.malformed) == (6, 0)
    assert result.rows == {
        ("review_status", "success", "-", "-"): 1,
        ("review_status", "failure", "INVALID_RESPONSE", "schema"): 2,
        ("review_status", "failure", "INVALID_RESPONSE", "rule"): 1,
        ("deploy_status", "success", "-", "-"): 2,
    }
    assert result.totals(0) == {"review_status": 4, "deploy_status": 2}
    assert result.totals(1) == {"success": 3, "failure": 3}
    assert result.totals(3) == {"-": 3, "schema": 2, "rule": 1}


def test_the_window_includes_since_and_excludes_until(log: Path) -> None:
    """[since, until): a record exactly at `since` counts, one exactly at `until` does not."""
    result = summarize(log, "2026-03-01T12:30:00Z", "2026-03-01T14:00:00Z")
    assert result.records == 3
    assert result.totals(3) == {"schema": 1, "-": 1, "rule": 1}


def test_bounds_with_an_offset_are_compared_as_instants(log: Path) -> None:
    """13:00+01:00 is 12:00Z: everything from the first record on counts."""
    assert summarize(log, since="2026-03-01T13:00:00+01:00").records == 6
    assert summarize(log, since="2026-03-01T13:00:00.000001+01:00").records == 5


def test_a_duration_counts_back_from_now(tmp_path: Path) -> None:
    """--since 24h: yesterday morning's record is in, last week's is not."""
    now = datetime.now(UTC)
    path = write(
        tmp_path / "audit.jsonl",
        entry(OK, now - timedelta(days=7)),
        entry(DRIFTED, now - timedelta(hours=23)),
        entry(OK, now - timedelta(minutes=1)),
    )
    assert summarize(path, since="24h").records == 2
    assert summarize(path, since="30m").records == 1
    assert summarize(path, since="8d", until="1d").records == 1
    assert summarize(path, since="1s").records == 0


@pytest.mark.parametrize(
    "bound",
    [
        *("yesterday", "24", "24w", "2026-03-01", "2026-03-01T12:00:00", "-1h"),
        *("2026-13-01T00:00:00Z", "\u0661h", "\uff12\uff14h", "1h\n", "\U0001d7d9d"),
    ],
)
def test_a_bad_bound_is_a_usage_error(log: Path, bound: str) -> None:
    """Neither RFC 3339 nor a duration (ASCII digits only, nothing after): refused."""
    with pytest.raises(UsageError, match="neither an RFC 3339 date-time nor a duration"):
        summarize(log, since=bound)


def test_malformed_lines_are_counted_never_guessed(tmp_path: Path) -> None:
    """Bad JSON, an invalid record and a 10 MB line count as malformed; blank lines do not."""
    valid = entry(OK, T0)
    invalid = {**valid, "outcome": "maybe"}
    path = write(
        tmp_path / "audit.jsonl",
        valid,
        b"not json\n",
        json.dumps(invalid).encode() + b"\n",
        b"\n",
        b"x" * 10_000_000 + b"\n",
        valid,
        b'{"format":1',  # a torn last line, without its newline
    )
    result = summarize(path)
    assert (result.records, result.malformed) == (2, 4)


def test_a_missing_log_is_a_usage_error(tmp_path: Path) -> None:
    """The log's absence is reported, not raised."""
    with pytest.raises(UsageError, match="cannot read audit log"):
        summarize(tmp_path / "missing.jsonl")


def test_json_rendering_lists_totals_and_rows(log: Path) -> None:
    """--format json: one line with the window, the counts and sorted rows."""
    stream = io.StringIO()
    render.summary(summarize(log, since="2026-03-01T13:00:00Z"), "json", stream)
    document = json.loads(stream.getvalue())
    assert document["since"] == "2026-03-01T13:00:00.000000Z"
    assert document["until"] is None
    assert (document["records"], document["malformed"]) == (4, 0)
    assert document["totals"]["tool"] == {"deploy_status": 2, "review_status": 2}
    assert document["rows"][0] == {
        "tool": "deploy_status",
        "outcome": "success",
        "error_code": "-",
        "layer": "-",
        "count": 2,
    }


def test_json_totals_add_up_when_two_tool_names_read_alike(tmp_path: Path) -> None:
    """An ESC and the four characters of its escape are two tools: neither count is lost."""
    path = write(
        tmp_path / "audit.jsonl",
        entry(OK, T0, "x\x1b"),
        entry(OK, T0, "x\\x1b"),
        entry(OK, T0, "x\\x1b"),
    )
    stream = io.StringIO()
    render.summary(summarize(path), "json", stream)
    document = json.loads(stream.getvalue())
    assert document["records"] == 3
    assert document["totals"]["tool"] == {"x\\x1b": 1, "x\\x1b (2)": 2}


def test_rich_rendering_escapes_a_hostile_tool_name(tmp_path: Path) -> None:
    """A tool name written into the log by hand is shown escaped, markup and all."""
    path = write(tmp_path / "audit.jsonl", entry(OK, T0, "\x1b[31m[bold red]x[/]\u202e"))
    stream = io.StringIO()
    render.summary(summarize(path), "text", stream)
    text = stream.getvalue()
    assert "\x1b" not in text
    assert "\u202e" not in text
    assert "\\x1b[31m[bold red]x[/]\\u202e" in text


def test_a_hand_written_timestamp_without_fraction_is_compared_as_an_instant(
    tmp_path: Path,
) -> None:
    """12:00:00Z is before 12:00:00.5Z, though "Z" sorts after "." as text."""
    valid = entry(OK, T0)
    path = write(tmp_path / "audit.jsonl", {**valid, "timestamp": "2026-03-01T12:00:00Z"})
    assert summarize(path).records == 1
    assert summarize(path, since="2026-03-01T12:00:00.5Z").records == 0
    assert summarize(path, until="2026-03-01T12:00:00.5Z").records == 1


@pytest.mark.parametrize(
    ("stamp", "instant"),
    [
        ("2026-03-01t11:00:00.000000Z", "2026-03-01T11:00:00Z"),  # a lowercase `t`
        ("2026-12-31T23:59:60.000000Z", "2027-01-01T00:00:00Z"),  # a leap second
        ("2026-12-31T23:59:60Z", "2027-01-01T00:00:00Z"),
    ],
)
def test_a_hand_written_spelling_of_toolguard_width_is_compared_as_an_instant(
    tmp_path: Path, stamp: str, instant: str
) -> None:
    """A record's timestamp is the instant it spells, whatever the spelling: a `t` must not
    sort after every `T` of its day, nor one spelling of a leap second differ from another."""
    path = write(tmp_path / "audit.jsonl", {**entry(OK, T0), "timestamp": stamp})
    later = (datetime.fromisoformat(instant) + timedelta(hours=1)).isoformat()
    assert summarize(path, since=instant).records == 1
    assert summarize(path, until=instant).records == 0
    assert summarize(path, since=later).records == 0
    assert summarize(path, until=later).records == 1


@pytest.mark.parametrize("bound", ["999999999d", "0001-01-01T00:00:00+23:59"])
def test_a_bound_out_of_the_date_range_is_a_usage_error(tmp_path: Path, bound: str) -> None:
    """A window far beyond what datetime holds is the caller's error (exit 2), not a crash."""
    log = tmp_path / "audit.jsonl"
    log.write_bytes(b"")
    with pytest.raises(UsageError, match="out of the range"):
        summarize(log, since=bound)


def test_the_text_table_shows_the_largest_rows_and_says_how_many_it_left_out() -> None:
    """A log of thousands of tool names (forged, say) gets a table of bounded length, largest
    counts first, and a line naming the rows and records left out; JSON still lists all."""
    rows: Counter[Row] = Counter({(f"tool{n:05d}", "success", "-", "-"): 1 for n in range(5000)})
    rows["busy", "failure", "INVALID_RESPONSE", "schema"] = 7
    result = Summary(since=None, until=None, records=5007, malformed=0, rows=rows)
    stream = io.StringIO()
    render.summary(result, "text", stream)
    text = stream.getvalue()
    assert text.index("busy") < text.index("tool00000")
    shown = render.MAX_TABLE_ROWS
    assert text.count("tool0") == shown - 1
    assert f"{5001 - shown} more rows ({5001 - shown} records)" in text
    stream = io.StringIO()
    render.summary(result, "json", stream)
    assert len(json.loads(stream.getvalue())["rows"]) == 5001
