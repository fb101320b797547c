"""`toolguard explain --recheck` of `toolguard mcp` records: a real session in front of the
hostile test server, its audit trail read back, each call's server line answered again.

The replay runs the relay's own way from a line to an outcome, so every verdict the session
gave (accepted, rejected by a rule, unreadable, over-long, isError, no payload, a text
payload) comes back the same, and a contract edited since changes it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_mcp_wire import DATA, REPO, WAIT, RawClient, call
from toolguard.explain import find as finder
from toolguard.mcp.replay import replay

STRUCTURED = ("ok", "mismatch", "nan", "error_text", "jsonrpc_error", "no_structured", "over_line")
TEXT = ("no_structured", "ok")  # a text payload: the one text block, JSON; then not JSON


@dataclass
class Session:
    """What one recorded session left: its folder, log, raw folder and records by call."""

    folder: Path
    log: Path
    raw: Path
    records: dict[str, dict[str, Any]]  # "probe:ok", "probe_text:ok": the call's record
    envelopes: dict[str, dict[str, Any]]  # the envelope each call's client got


def contracts(folder: Path) -> tuple[Path, Path]:
    """A copy of `probe`'s contract, and one of it as `probe_text`, reading a text payload."""
    structured = shutil.copytree(DATA / "probe", folder / "probe") / "contract.toml"
    text_folder = shutil.copytree(DATA / "probe", folder / "probe_text")
    text = text_folder / "contract.toml"
    source = text.read_text().replace('tool = "probe"', 'tool = "probe_text"')
    text.write_text(source.replace("[mcp]\n", '[mcp]\npayload = "text"\n'))
    return structured, text


def record_session(folder: Path, calls: list[tuple[str, str]]) -> Session:
    """`toolguard mcp` with an audit log and every raw line kept; each (tool, mode) called."""
    structured, text = contracts(folder)
    log, raw = folder / "audit.jsonl", folder / "raw"
    flags = ("--audit-log", log, "--raw-dir", raw, "--raw-keep", "all")
    # NOTE: an over-long line's copy is its first `--max-line-bytes + 1` bytes: keep it too.
    sizes = ("--max-line-bytes", "65536", "--raw-max-file", "1048576")
    client = RawClient("--contract", structured, "--contract", text, *flags, *sizes)
    client.initialize()
    envelopes = {}
    for number, (tool, mode) in enumerate(calls, start=1):
        request = call(number, {"zone": "Europe/Paris", "mode": mode})
        request["params"]["name"] = tool
        client.send(request)
        answer = client.receive()
        assert answer["id"] == number, answer
        envelopes[f"{tool}:{mode}"] = answer["result"]["structuredContent"]
    assert client.close() == 0, client.stderr
    by_id = {entry["request_id"]: entry for entry in map(json.loads, log.read_text().splitlines())}
    records = {name: by_id[envelope["request_id"]] for name, envelope in envelopes.items()}
    return Session(folder, log, raw, records, envelopes)


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Session:
    """One session: every structured mode of `probe`, and `probe_text`'s two answers."""
    calls = [("probe", mode) for mode in STRUCTURED] + [("probe_text", mode) for mode in TEXT]
    return record_session(tmp_path_factory.mktemp("recorded"), calls)


def explain(session: Session, name: str, *flags: str) -> subprocess.CompletedProcess[str]:
    """`toolguard explain REQUEST_ID --recheck` of the call `name`."""
    request_id = session.records[name]["request_id"]
    argv = [sys.executable, "-m", "toolguard", "explain", request_id, "--recheck"]
    argv += ["--audit-log", str(session.log), "--raw-dir", str(session.raw), *flags]
    return subprocess.run(argv, capture_output=True, text=True, cwd=REPO, timeout=WAIT, check=False)


def rechecked(session: Session, name: str) -> dict[str, Any]:
    """The `recheck` of the call `name`, from `explain --format json`."""
    done = explain(session, name, "--format", "json")
    assert done.returncode == 0, done.stderr
    (story,) = json.loads(done.stdout)["records"]
    assert story["record"] == session.records[name]
    recheck: dict[str, Any] = story["recheck"]
    return recheck


@pytest.mark.parametrize("name", [f"probe:{mode}" for mode in STRUCTURED])
def test_each_recorded_call_is_replayed_to_the_same_envelope(session: Session, name: str) -> None:
    """Accepted, rejected by a rule, unreadable, isError, a JSON-RPC error, no payload or an
    over-long line: the server's line, answered again, is the envelope the client got."""
    record = session.records[name]
    recheck = rechecked(session, name)
    assert recheck["done"] is True, recheck
    assert recheck["contract_changed"] is False
    assert recheck["same_envelope"] is True
    assert recheck["outcome"] == record["outcome"]
    assert recheck.get("error_code") == record.get("error_code")


def test_the_session_gave_the_verdicts_the_replays_are_held_to(session: Session) -> None:
    """The calls replayed above are the cases they stand for (else the test proves little)."""
    reasons = {name: entry.get("reason") for name, entry in session.records.items()}
    assert session.envelopes["probe:ok"]["outcome"] == "success"
    assert reasons["probe:mismatch"] == "mismatch"  # the rule: the zone is not the context's
    assert reasons["probe:nan"] == "non_finite_number"  # the whole line's strict parse
    assert reasons["probe:error_text"] == "tool_error"
    assert reasons["probe:no_structured"] == "no_payload"
    assert "input" not in session.records["probe:no_structured"]  # the line is all there is
    assert reasons["probe:over_line"] == "too_large"
    (kept,) = session.records["probe:over_line"]["raw"]
    assert len((session.raw / kept["sha256"]).read_bytes()) == 65536 + 1  # cut, no newline
    assert session.envelopes["probe_text:no_structured"]["outcome"] == "success"
    assert session.envelopes["probe_text:ok"]["outcome"] == "failure"


@pytest.mark.parametrize("mode", TEXT)
def test_a_text_payload_is_replayed_from_its_text_block(session: Session, mode: str) -> None:
    """`[mcp] payload = "text"`: the one text block is the payload again, not the line."""
    name = f"probe_text:{mode}"
    recheck = rechecked(session, name)
    assert recheck["done"] is True, recheck
    assert recheck["same_envelope"] is True
    assert recheck["outcome"] == session.envelopes[name]["outcome"]


def test_the_story_tells_the_replay(session: Session) -> None:
    """The rich story says the re-check ran, the contract unchanged, and the same envelope."""
    done = explain(session, "probe:mismatch")
    assert done.returncode == 0, done.stderr
    assert "contract unchanged" in done.stdout
    assert "the same envelope" in done.stdout
    assert "not re-checked" not in done.stdout


def test_a_contract_edited_since_gives_its_own_verdict(tmp_path: Path) -> None:
    """The payload accepted then is over today's limits: contract changed, a failure now."""
    session = record_session(tmp_path, [("probe", "ok")])
    contract = tmp_path / "probe" / "contract.toml"
    source = contract.read_text()
    contract.write_text(source.replace("max_container_items = 16", "max_container_items = 1"))
    recheck = rechecked(session, "probe:ok")
    assert recheck["done"] is True, recheck
    assert recheck["contract_changed"] is True
    assert recheck["outcome"] == "failure"
    assert recheck["error_code"] == "INVALID_RESPONSE"
    assert recheck["same_envelope"] is False
    story = explain(session, "probe:ok").stdout
    assert "contract changed since" in story
    assert "a different envelope" in story


def test_an_altered_line_is_not_replayed(tmp_path: Path) -> None:
    """The copy is named by the line's digest (the record's `raw` entry) and checked against it."""
    session = record_session(tmp_path, [("probe", "ok")])
    (kept,) = session.records["probe:ok"]["raw"]
    copy = session.raw / kept["sha256"]
    copy.write_bytes(copy.read_bytes().replace(b'"n": 1', b'"n": 2'))
    recheck = rechecked(session, "probe:ok")
    assert recheck["done"] is False
    assert "does not match its digest: it was altered" in recheck["note"]


def test_a_line_not_kept_is_said_so(session: Session) -> None:
    """No copy named (a success under `--raw-keep rejected`), or only a digest kept."""
    record = session.records["probe:ok"]
    unnamed = {key: value for key, value in record.items() if key != "raw"}
    recheck = finder.recheck(unnamed, session.raw, None, replay)
    assert recheck.done is False
    assert "names no copy of the server's line" in recheck.note
    over = [{"sha256": record["raw"][0]["sha256"], "kept": False, "why": "over raw_max_file"}]
    recheck = finder.recheck({**record, "raw": over}, session.raw, None, replay)
    assert recheck.note == "the server's line was not kept (over raw_max_file)"
    assert finder.recheck(record, session.raw).done is False  # no replay given: not re-checked
    truncated = {**unnamed, "truncated": True}  # truncating a record drops its `raw` list
    note = finder.recheck(truncated, session.raw, None, replay).note
    assert note == "the request cannot be rebuilt from a truncated record"


@pytest.mark.parametrize(
    ("line", "note"),
    [
        (b'[{"jsonrpc": "2.0", "id": 1, "result": {}}]\n', "the server's line named no call"),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n', "the server's line is a request"),
        (b"", "the copy is blank"),
        (b" \r\n", "the copy is blank"),
    ],
    ids=["batch", "request", "empty", "blank"],
)
def test_a_line_with_no_verdict_to_replay_is_told_as_such(
    session: Session, tmp_path: Path, line: bytes, note: str
) -> None:
    """A copy whose line gave no call its verdict says so, never that today's toolguard refuses
    the recorded request (which it takes); an empty copy is named, not read as a line."""
    digest = hashlib.sha256(line).hexdigest()
    (tmp_path / digest).write_bytes(line)
    entry = {**session.records["probe:ok"], "raw": [{"sha256": digest, "kept": True}]}
    recheck = finder.recheck(entry, tmp_path, None, replay)
    assert recheck.done is False
    assert recheck.note.startswith(note), recheck.note


def test_a_contract_that_reads_context_the_record_lacks_refuses_the_request(
    tmp_path: Path,
) -> None:
    """Today's contract has a rule on a context key the call never gave: the request is
    refused today, and said so (not replayed into an internal error)."""
    session = record_session(tmp_path, [("probe", "ok")])
    contract = tmp_path / "probe" / "contract.toml"
    rule = '\n[[rules]]\nname = "region"\nkind = "equals_context"\npointer = "/zone"\n'
    contract.write_text(contract.read_text() + rule + 'context = "region"\n')
    recheck = rechecked(session, "probe:ok")
    assert (recheck["done"], recheck["contract_changed"]) == (False, True)
    refused = "today's toolguard refuses the recorded request: missing request context: region"
    assert recheck["note"] == refused


def test_a_copy_longer_than_explain_reads_is_said_so_not_altered(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line's size is not recorded: a copy over `MAX_RAW_BYTES` (1 GiB) is read no further,
    and said to be too long to read, not to be altered (its digest was never compared)."""
    monkeypatch.setattr(finder, "MAX_RAW_BYTES", 16)
    recheck = finder.recheck(session.records["probe:ok"], session.raw, None, replay)
    assert recheck.done is False
    assert recheck.note.endswith("is larger than 16 bytes: it is not read"), recheck.note
