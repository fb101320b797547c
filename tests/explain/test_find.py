"""`explain.find` and `explain.recheck`, and how `render.explain` shows what they return."""

from __future__ import annotations

import io
import json
import os
import shutil
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from conftest import without_waiting

from toolguard.audit import record
from toolguard.audit.trail import AuditTrail, TrailOptions
from toolguard.contract import load_contract
from toolguard.errors import UsageError
from toolguard.explain import find as explain
from toolguard.explain import render
from toolguard.pipeline import check_bytes
from toolguard.request import make_request

REPO = Path(__file__).resolve().parents[2]
REVIEW = REPO / "examples" / "review_status"
OK = (REVIEW / "response.json").read_bytes()
DRIFTED = OK.replace(b'"approved"', b'"maybe"')
ID = "req.explain.test.0001"
HOSTILE = "\x1b[31m[bold red]x[/]\u202eevil\u200b"


class Trail:
    """A copy of review_status, an audit log and a raw folder keeping every response."""

    def __init__(self, folder: Path, audit: str = "") -> None:
        for name in ("contract.toml", "response.schema.json"):
            shutil.copy(REVIEW / name, folder / name)
        self.contract = folder / "contract.toml"
        self.contract.write_text(self.contract.read_text() + audit)
        self.log = folder / "audit.jsonl"
        self.raw = folder / "raw"

    def check(
        self, raw: bytes, request_id: str = ID, context: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Check `raw` as `request_id`, record it, and return the record written."""
        contract = load_contract(self.contract)
        request = make_request(request_id, context or {"change_id": "CR-1042"})
        trail = AuditTrail.build(
            TrailOptions(log=self.log, raw_dir=self.raw, raw_keep="all"), contract
        )
        trail.seal(
            check_bytes(contract, raw, request), contract, request,
            command="check", source=record.Source("stdin"),
        )  # fmt: skip
        entry = record.decode(self.log.read_bytes().splitlines()[-1])
        assert entry is not None
        return entry

    def append(self, line: bytes) -> None:
        with self.log.open("ab") as stream:
            stream.write(line + b"\n")

    def find(self, request_id: str = ID) -> explain.Found:
        return explain.find(self.log, request_id)


@pytest.fixture
def trail(tmp_path: Path) -> Trail:
    return Trail(tmp_path)


def line(entry: dict[str, Any]) -> bytes:
    """A record as a log line, written by hand (no bounding): it must still be valid."""
    encoded = json.dumps(entry, separators=(",", ":")).encode()
    assert record.decode(encoded) is not None, "the hand-written record is not valid"
    return encoded


def test_find_returns_every_record_of_the_request_in_log_order(trail: Trail) -> None:
    """Two checks of one request among others: both, first one first, with their offsets."""
    first = trail.check(DRIFTED)
    trail.check(OK, "req.explain.other.0001")
    second = trail.check(OK)
    found = trail.find()
    assert [entry for _, entry in found.records] == [first, second]
    lines = trail.log.read_bytes().splitlines(keepends=True)
    assert [offset for offset, _ in found.records] == [0, len(lines[0]) + len(lines[1])]
    assert found.malformed == ()


def test_the_same_id_in_the_context_does_not_match(trail: Trail) -> None:
    """A record that only mentions the id in its context (even as "request_id") is another's."""
    trail.check(OK, "req.explain.other.0001", {"change_id": "CR-1042", "note": ID})
    trail.check(OK, "req.explain.other.0002", {"change_id": "CR-1042", "request_id": ID})
    assert f'"request_id":"{ID}"'.encode() in trail.log.read_bytes()
    assert trail.find() == explain.Found((), ())


def test_an_id_is_not_matched_by_a_longer_id_it_prefixes(trail: Trail) -> None:
    """req.x.0001 does not find req.x.00011."""
    trail.check(OK, ID + "1")
    assert trail.find().records == ()


def test_malformed_lines_that_name_the_id_are_reported_not_shown(trail: Trail) -> None:
    """An invalid line naming the id and a 10 MB line naming it are malformed; noise is not."""
    trail.append(b'{"request_id":"' + ID.encode() + b'","format":2}')
    trail.append(b"x" * 5_000_000 + b'"request_id":"' + ID.encode() + b'"' + b"y" * 5_000_000)
    trail.append(b"\xff\xfe garbage without the id " * 1000)
    entry = trail.check(OK)
    found = trail.find()
    assert [found_entry for _, found_entry in found.records] == [entry]
    first_length = len(trail.log.read_bytes().split(b"\n", 1)[0]) + 1
    assert found.malformed == (0, first_length)


def test_a_record_written_by_hand_is_found_however_it_spells_the_id(trail: Trail) -> None:
    """Spaces after the colons, or the id's letters as escapes: a record `audit summary`
    counts is one `explain` finds. A malformed line with escapes that does not name the id is
    no malformed line of this request."""
    entry = trail.check(OK, "req.explain.other.0001")
    entry["request_id"] = ID
    spaced = json.dumps(entry).encode()
    escaped = line(entry).replace(b"req.explain", b"req.\\u0065xpl\\u0061in")
    assert ID.encode() not in escaped
    for written in (spaced, escaped):
        assert record.decode(written) == entry
        trail.append(written)
    trail.append(b'{"request_id":"req.\\u0061nother.0001","format":2}')
    found = trail.find()
    assert [found_entry for _, found_entry in found.records] == [entry, entry]
    assert found.malformed == ()


def test_only_lines_naming_the_id_as_theirs_are_read(
    trail: Trail, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A longer id, the id in another member, a DEL (which toolguard writes escaped): none of
    these lines is decoded, and a malformed one among them is not this request's."""
    trail.check(OK, ID + "2", {"change_id": "CR-1042", "note": f"see {ID}\x7f"})
    written = trail.log.read_bytes()
    trail.log.write_bytes(written.replace(b"\\\\x7f", b"\\u007f"))  # DEL, as JSON writes it
    assert b"\\u007f" in trail.log.read_bytes()
    trail.append(b'{"request_id":"' + ID.encode() + b'2", broken')
    trail.append(b'{"note":"' + ID.encode() + b'", broken')
    decoded: list[bytes] = []
    real = record.decode
    monkeypatch.setattr(record, "decode", lambda line: decoded.append(line) or real(line))
    assert trail.find() == explain.Found((), ())
    assert decoded == []


def test_a_missing_record_finds_nothing(trail: Trail) -> None:
    """A log without the id: no records, no malformed lines."""
    trail.check(OK, "req.explain.other.0001")
    assert trail.find() == explain.Found((), ())


@pytest.mark.parametrize("request_id", ["short", "req/../../etc", '"req.x.0001"', ""])
def test_a_malformed_request_id_is_a_usage_error(trail: Trail, request_id: str) -> None:
    """The id is checked before the log is read."""
    trail.check(OK)
    with pytest.raises(UsageError, match="is not a request id"):
        trail.find(request_id)


def test_a_log_that_cannot_be_read_is_a_usage_error(tmp_path: Path) -> None:
    """A folder given as the log: a usage error naming it, not a traceback."""
    with pytest.raises(UsageError, match="cannot read audit log"):
        explain.find(tmp_path, ID)


def test_an_empty_log_finds_nothing(tmp_path: Path) -> None:
    """An empty file cannot be mapped; it is simply a log without the id."""
    log = tmp_path / "audit.jsonl"
    log.write_bytes(b"")
    assert explain.find(log, ID) == explain.Found((), ())


def test_recheck_with_an_unchanged_contract_gives_the_same_envelope(trail: Trail) -> None:
    """The kept bytes, re-checked as the recorded request, give the recorded envelope."""
    entry = trail.check(DRIFTED)
    result = explain.recheck(entry, trail.raw)
    assert result == explain.Recheck(
        done=True,
        note=result.note,
        contract_changed=False,
        outcome="failure",
        error_code="INVALID_RESPONSE",
        same_envelope=True,
    )


def test_recheck_after_a_contract_change_says_so(trail: Trail) -> None:
    """Widening the enum after the fact: the contract changed and the bytes now pass."""
    entry = trail.check(DRIFTED)
    schema = trail.contract.with_name("response.schema.json")
    schema.write_text(schema.read_text().replace('"pending"]', '"pending", "maybe"]'))
    result = explain.recheck(entry, trail.raw)
    assert (result.done, result.contract_changed, result.outcome) == (True, True, "success")
    assert result.same_envelope is False


def test_recheck_with_another_contract_uses_it(trail: Trail, tmp_path: Path) -> None:
    """--contract: today's bytes against a different contract file, not the recorded one."""
    entry = trail.check(OK)
    (tmp_path / "other").mkdir()
    other = Trail(tmp_path / "other")
    schema = other.contract.with_name("response.schema.json")
    schema.write_text(schema.read_text().replace('"approved", ', ""))
    result = explain.recheck(entry, trail.raw, other.contract)
    assert (result.contract_changed, result.error_code) == (True, "INVALID_RESPONSE")


def test_a_raw_copy_altered_on_disk_is_not_rechecked(trail: Trail) -> None:
    """Bytes that no longer match the recorded digest are reported, never re-checked."""
    entry = trail.check(DRIFTED)
    (trail.raw / entry["input"]["sha256"]).write_bytes(OK)
    result = explain.recheck(entry, trail.raw)
    assert result.done is False
    assert "does not match its digest" in result.note
    assert result.outcome is None


def test_a_missing_raw_copy_is_not_rechecked(trail: Trail, tmp_path: Path) -> None:
    """No copy under the digest: the note says so."""
    entry = trail.check(DRIFTED)
    result = explain.recheck(entry, tmp_path / "elsewhere")
    assert (result.done, result.note.startswith("no raw folder")) == (False, True)
    assert explain.recheck(entry, tmp_path).note.startswith("no raw copy")


def test_a_record_with_secret_context_cannot_be_rechecked(tmp_path: Path) -> None:
    """The request cannot be rebuilt from a keyed hash: the note names the key."""
    trail = Trail(tmp_path, '\n[audit]\nsecret_context = ["api_token"]\n')
    entry = trail.check(DRIFTED, context={"change_id": "CR-1042", "api_token": "tok-7f3a9c1e"})
    result = explain.recheck(entry, trail.raw)
    assert result.done is False
    assert "api_token" in result.note


def test_a_record_without_input_has_nothing_to_recheck(trail: Trail) -> None:
    """A record of a check that read no response (interrupted) has no bytes to re-check."""
    entry = trail.check(OK)
    del entry["input"]
    assert explain.recheck(entry, trail.raw).done is False


def hostile_record(trail: Trail) -> dict[str, Any]:
    """A valid record whose every free-text field is hostile, some of them huge."""
    entry = trail.check(DRIFTED)
    entry["message"] = HOSTILE + "M" * 2500
    entry["context"] = {"change_id": HOSTILE}
    entry["reason"] = HOSTILE
    entry["contract"]["tool"] = HOSTILE
    trail.append(line(entry))
    return entry


def rendered(trail: Trail, mode: str, rechecks: dict[int, explain.Recheck] | None = None) -> str:
    stream = io.StringIO()
    render.explain(trail.find(), rechecks or {}, mode, stream, ID)
    return stream.getvalue()


def test_rich_output_shows_hostile_text_escaped_literal_and_bounded(trail: Trail) -> None:
    """No ESC or bidi override reaches the terminal; markup is printed as text; 2,500 Ms are cut."""
    hostile_record(trail)
    text = rendered(trail, "text")
    assert "\x1b" not in text
    assert "\u202e" not in text
    assert "\u200b" not in text
    flat = "".join(text.split())
    assert "\\x1b[31m[boldred]x[/]\\u202eevil\\u200b" in flat
    assert "M" * 600 not in flat
    assert "morecharacters]" in flat


def test_json_output_holds_hostile_text_escaped_and_bounded(trail: Trail) -> None:
    """--format json: one ASCII line; hostile strings arrive escaped, long ones truncated."""
    hostile_record(trail)
    text = rendered(trail, "json")
    assert text.count("\n") == 1
    assert text.isascii()
    document = json.loads(text)
    hostile = document["records"][-1]["record"]
    assert hostile["reason"] == "\\x1b[31m[bold red]x[/]\\u202eevil\\u200b"
    assert len(hostile["message"]) < 2200


def test_rich_output_tells_the_recheck_and_the_raw_copy(trail: Trail) -> None:
    """The story names the kept copy and the re-check's verdict."""
    entry = trail.check(DRIFTED)
    offset = trail.find().records[0][0]
    text = rendered(trail, "text", {offset: explain.recheck(entry, trail.raw)})
    flat = " ".join(text.split())
    assert "contract unchanged; then INVALID_RESPONSE, now failure INVALID_RESPONSE" in flat
    assert "the same envelope" in flat
    assert "".join(f"kept as {entry['input']['sha256']}".split()) in "".join(text.split())


def test_a_leap_second_timestamp_replays_as_the_fresh_rule_reads_it(trail: Trail) -> None:
    """23:59:60 is valid RFC 3339 (and in the record schema) but no Python datetime: it is
    replayed as the next minute's first instant, as `--now` and the `fresh` rule read it."""
    entry = {**trail.check(DRIFTED), "timestamp": "2026-12-31T23:59:60.000000Z"}
    result = explain.recheck(entry, trail.raw)
    assert (result.done, result.note) == (
        True,
        "re-checked with the recorded request id, context and clock",
    )
    assert explain._instant(entry["timestamp"]) == explain._instant("2027-01-01T00:00:00Z")


def test_a_recorded_time_no_instant_can_hold_is_reported_not_a_crash(trail: Trail) -> None:
    """Year 0000 is valid RFC 3339 but no instant: the re-check says so."""
    entry = {**trail.check(DRIFTED), "timestamp": "0000-01-01T00:00:00.000000Z"}
    result = explain.recheck(entry, trail.raw)
    assert (result.done, "cannot be replayed" in result.note) == (False, True)


def test_a_recorded_contract_that_is_not_a_regular_file_is_not_opened(
    trail: Trail, tmp_path: Path
) -> None:
    """A log that names a FIFO (or a folder) as the contract cannot make explain block."""
    fifo = tmp_path / "contract.fifo"
    os.mkfifo(fifo)
    entry = trail.check(DRIFTED)
    entry = {**entry, "contract": {**entry["contract"], "path": str(fifo)}}
    result = explain.recheck(entry, trail.raw)
    assert (result.done, "not a regular file" in result.note) == (False, True)


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_raw_copy_that_is_not_a_regular_file_is_not_read(trail: Trail, kind: str) -> None:
    """A FIFO is not waited on, a device (a link to /dev/zero) is not read: the note says so."""
    entry = trail.check(DRIFTED)
    copy = trail.raw / entry["input"]["sha256"]
    copy.unlink()
    if kind == "fifo":
        os.mkfifo(copy, 0o600)
    else:
        copy.symlink_to("/dev/zero")
    result = without_waiting(lambda: explain.recheck(entry, trail.raw))
    assert isinstance(result, explain.Recheck)
    assert (result.done, "not a regular file" in result.note) == (False, True)


def test_a_raw_copy_is_read_no_further_than_the_size_recorded(trail: Trail) -> None:
    """A copy grown past the recorded size is altered, and found so without reading it all."""
    entry = trail.check(DRIFTED)

    def peak_of_recheck() -> tuple[explain.Recheck, int]:
        tracemalloc.start()
        try:
            result = explain.recheck(entry, trail.raw)
            return result, tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    _, loading = peak_of_recheck()  # the contract's load, the same with either copy
    with (trail.raw / entry["input"]["sha256"]).open("ab") as grown:
        grown.write(b" " * (64 << 20))
    result, peak = peak_of_recheck()
    assert (result.done, "does not match its digest" in result.note) == (False, True)
    assert peak < loading + (8 << 20)


def run_record(trail: Trail, last_attempt: dict[str, Any]) -> dict[str, Any]:
    """A `run` record of OK's bytes, as `run` writes it, whose last attempt ended so."""
    entry = trail.check(OK)
    attempt = {"number": 1, "outcome": "failure", "duration_ms": 1000.0, "stdout_size": len(OK)}
    entry["command"] = "run"
    entry["upstream"] = {
        "kind": "command",
        "argv": ["review"],
        **{key: last_attempt[key] for key in ("exit_status", "signal") if key in last_attempt},
        "attempts": [{**attempt, "stderr_size": 0, **last_attempt}],
    }
    return entry


@pytest.mark.parametrize(
    "last_attempt",
    [{"signal": 9}, {"timed_out": True}, {"exit_status": 3}],
    ids=["killed", "timed_out", "exit_status"],
)
def test_a_run_attempt_is_replayed_as_it_ended(trail: Trail, last_attempt: dict[str, Any]) -> None:
    """A killed or timed-out command's complete-looking output is never re-checked as an answer."""
    result = explain.recheck(run_record(trail, last_attempt), trail.raw)
    assert (result.done, result.outcome, result.error_code) == (
        True,
        "failure",
        "UPSTREAM_UNAVAILABLE",
    )


def test_a_recorded_empty_context_value_is_refused_today_and_said_so(trail: Trail) -> None:
    """A request recorded before empty values were refused: the note says today refuses it."""
    entry = trail.check(DRIFTED)
    entry["context"] = {"change_id": ""}
    result = explain.recheck(entry, trail.raw)
    assert (result.done, result.contract_changed) == (False, False)
    assert result.note.startswith("today's toolguard refuses the recorded request: ")
    assert "'change_id' is empty" in result.note


def test_a_changed_contract_is_told_even_when_the_recheck_cannot_run(trail: Trail) -> None:
    """The contract is compared first: a missing copy does not hide that it changed."""
    entry = trail.check(DRIFTED)
    trail.contract.write_text(trail.contract.read_text().replace("max_depth = 4", "max_depth = 5"))
    (trail.raw / entry["input"]["sha256"]).unlink()
    result = explain.recheck(entry, trail.raw)
    assert (result.done, result.contract_changed) == (False, True)
    shown = render._recheck_text(entry, result)
    assert shown.startswith("contract changed since; not done: no raw copy")


def test_a_contract_that_no_longer_loads_is_said_so(trail: Trail) -> None:
    """A contract today's toolguard refuses: the note says the contract, not the bytes."""
    entry = trail.check(DRIFTED)
    trail.contract.write_text("tool = \n")
    result = explain.recheck(entry, trail.raw)
    assert result.done is False
    assert result.note.startswith("the contract does not load today: ")


def test_a_raw_copy_replaced_by_a_link_is_not_followed(trail: Trail, tmp_path: Path) -> None:
    """toolguard never writes a link: one to the very bytes recorded is named, not read."""
    entry = trail.check(DRIFTED)
    copy = trail.raw / entry["input"]["sha256"]
    elsewhere = tmp_path / "elsewhere"
    copy.rename(elsewhere)
    copy.symlink_to(elsewhere)
    result = explain.recheck(entry, trail.raw)
    assert result.done is False
    assert "is a symbolic link" in result.note


def test_a_cut_short_raw_copy_is_said_so(trail: Trail) -> None:
    """A copy shorter than recorded no longer matches: the note says it was cut short."""
    entry = trail.check(DRIFTED)
    (trail.raw / entry["input"]["sha256"]).write_bytes(DRIFTED[:10])
    result = explain.recheck(entry, trail.raw)
    assert result.done is False
    assert result.note.endswith("does not match its digest: it was cut short")


def test_the_recheck_names_the_toolguard_that_ran_it(trail: Trail) -> None:
    """A record of another toolguard version: the story says both, before the verdicts."""
    entry = trail.check(DRIFTED)
    entry["toolguard"] = "0.0.1"
    result = explain.recheck(entry, trail.raw)
    assert "toolguard 0.0.1 then, " in render._recheck_text(entry, result)
    assert "toolguard" in render._recheck_json(result)  # type: ignore[operator]
