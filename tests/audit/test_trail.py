"""`AuditTrail`: flags over the contract's `[audit]` table, and sealing an outcome fail-closed."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from toolguard.audit import record
from toolguard.audit.trail import AuditTrail, TrailOptions
from toolguard.contract import Contract, load_contract
from toolguard.errors import UsageError
from toolguard.pipeline import check_bytes
from toolguard.request import make_request
from toolguard.result import Outcome, internal, interrupted

REPO = Path(__file__).resolve().parents[2]
REVIEW = REPO / "examples" / "review_status"
OK = (REVIEW / "response.json").read_bytes()
DRIFTED = OK.replace(b'"approved"', b'"maybe"')
REQUEST_ID = "req.trail.test.0001"
UNAVAILABLE = {"code": "UPSTREAM_UNAVAILABLE", "retryable": True}
# A secret context value is at least 8 characters long: a change id long enough to be one.
SECRET_CONTEXT = {"change_id": "CR-10420001"}
SECRET_OK = OK.replace(b"CR-1042", b"CR-10420001")


def review(folder: Path, audit: str = "") -> Contract:
    """A copy of the review_status example with `audit` appended to its contract."""
    for name in ("contract.toml", "response.schema.json"):
        shutil.copy(REVIEW / name, folder / name)
    contract = folder / "contract.toml"
    contract.write_text(contract.read_text() + audit)
    return load_contract(contract)


def checked(contract: Contract, raw: bytes, **context: Any) -> Outcome:
    request = make_request(REQUEST_ID, context or {"change_id": "CR-1042"})
    return check_bytes(contract, raw, request)


def seal(trail: AuditTrail, outcome: Outcome, contract: Contract) -> tuple[Outcome, str | None]:
    request = make_request(REQUEST_ID, {"change_id": "CR-1042"})
    return trail.seal(outcome, contract, request, command="check", source=record.Source("stdin"))


def records(log: Path) -> list[dict[str, Any]]:
    decoded = [record.decode(line) for line in log.read_bytes().splitlines()]
    assert None not in decoded, "a line of the log is not a valid record"
    return decoded  # type: ignore[return-value]


def test_options_override_the_contract_table(tmp_path: Path) -> None:
    """A flag's log and raw folder win over the contract's; unset ones fall back to it."""
    contract = review(tmp_path, '\n[audit]\nlog = "c.log"\nraw_dir = "c.raw"\nraw_keep = "all"\n')
    default = AuditTrail.build(TrailOptions(), contract)
    assert default.log == tmp_path / "c.log"
    assert default.raw is not None
    assert default.raw.folder == tmp_path / "c.raw"
    assert default.raw_keep == "all"
    chosen = AuditTrail.build(
        TrailOptions(log=tmp_path / "f.log", raw_dir=tmp_path / "f.raw", raw_keep="rejected"),
        contract,
    )
    assert (chosen.log, chosen.raw_keep) == (tmp_path / "f.log", "rejected")
    assert chosen.raw is not None
    assert chosen.raw.folder == tmp_path / "f.raw"


def test_key_file_defaults_to_the_log_path_plus_key(tmp_path: Path) -> None:
    """Without --audit-key the key lives beside the log, named FILE.key."""
    trail = AuditTrail.build(TrailOptions(log=tmp_path / "audit.jsonl"), review(tmp_path))
    assert trail.key_file == tmp_path / "audit.jsonl.key"


@pytest.mark.parametrize("log", ["/dev/stderr", "/dev/fd/2", "/dev/null", "fifo"])
def test_a_stream_log_has_no_key_beside_it(tmp_path: Path, log: str) -> None:
    """A log that is not a regular file gets no FILE.key; secret context then needs a key."""
    if log == "fifo":
        os.mkfifo(tmp_path / "fifo", 0o600)
        log = str(tmp_path / "fifo")
    assert AuditTrail.build(TrailOptions(log=Path(log)), review(tmp_path)).key_file is None
    secret = review(tmp_path, '\n[audit]\nsecret_context = ["change_id"]\n')
    with pytest.raises(UsageError, match="secret context needs --audit-key"):
        AuditTrail.build(TrailOptions(log=Path(log)), secret)
    key = tmp_path / "audit.key"
    trail = AuditTrail.build(TrailOptions(log=Path(log), key_file=key), secret)
    assert trail.key_file == key


@pytest.mark.parametrize("exists", [False, True])
@pytest.mark.parametrize("spelling", ["same", "relative", "linked"])
def test_the_key_may_not_be_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exists: bool, spelling: str
) -> None:
    """A key that is the log would hand it to every reader of the log: a usage error."""
    log = tmp_path / "audit.jsonl"
    if exists or spelling == "linked":
        log.write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    key = {"same": log, "relative": Path("audit.jsonl"), "linked": tmp_path / "key"}[spelling]
    if spelling == "linked":
        key.symlink_to(log)
    with pytest.raises(UsageError, match="is the audit log"):
        AuditTrail.build(TrailOptions(log=log, key_file=key), review(tmp_path))


def test_largest_raw_copy_defaults_to_the_contract_max_bytes(tmp_path: Path) -> None:
    """No raw_max_file anywhere: a raw copy may be as large as a response may be."""
    contract = review(tmp_path)
    trail = AuditTrail.build(TrailOptions(raw_dir=tmp_path / "raw"), contract)
    assert trail.raw is not None
    assert trail.raw.max_file_bytes == contract.limits.max_bytes


def test_a_trail_with_nowhere_to_write_changes_nothing(tmp_path: Path) -> None:
    """No log and no raw folder: the outcome passes through and no file is created."""
    contract = review(tmp_path)
    outcome = checked(contract, OK)
    assert seal(AuditTrail.build(TrailOptions(), contract), outcome, contract) == (outcome, None)
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "contract.toml",
        "response.schema.json",
    ]


def test_an_unwritable_log_turns_an_accepted_answer_into_a_retryable_failure(
    tmp_path: Path,
) -> None:
    """Fail closed: the agent gets UPSTREAM_UNAVAILABLE; the operator gets why and the verdict."""
    contract = review(tmp_path)
    trail = AuditTrail.build(TrailOptions(log=tmp_path / "missing" / "audit.jsonl"), contract)
    sealed, warning = seal(trail, checked(contract, OK), contract)
    assert warning is None
    assert sealed.envelope["error"] == UNAVAILABLE
    assert "data" not in sealed.envelope
    assert sealed.diagnostics.layer == "audit"
    assert sealed.diagnostics.message is not None
    assert "cannot open audit log" in sealed.diagnostics.message
    assert "the response itself was accepted" in sealed.diagnostics.message


def test_optional_audit_keeps_the_answer_and_warns(tmp_path: Path) -> None:
    """--audit-optional: the original outcome stands and the warning says what was lost."""
    contract = review(tmp_path)
    trail = AuditTrail.build(
        TrailOptions(log=tmp_path / "missing" / "audit.jsonl", optional=True), contract
    )
    outcome = checked(contract, OK)
    sealed, warning = seal(trail, outcome, contract)
    assert sealed is outcome
    assert warning is not None
    assert "audit trail not written" in warning


def test_raw_folder_that_is_a_file_fails_closed(tmp_path: Path) -> None:
    """A raw copy that cannot be kept is as fatal as a record that cannot be written."""
    contract = review(tmp_path)
    (tmp_path / "raw").write_bytes(b"")
    trail = AuditTrail.build(TrailOptions(raw_dir=tmp_path / "raw"), contract)
    sealed, _ = seal(trail, checked(contract, DRIFTED), contract)
    assert sealed.envelope["error"] == UNAVAILABLE
    assert sealed.diagnostics.reason == "raw_unwritable"


def test_a_raw_copy_that_cannot_be_kept_is_still_recorded(tmp_path: Path) -> None:
    """The record says the copy was lost and holds the digest of the failure the agent got."""
    contract = review(tmp_path)
    (tmp_path / "file").write_bytes(b"")
    log = tmp_path / "audit.jsonl"
    trail = AuditTrail.build(TrailOptions(log=log, raw_dir=tmp_path / "file" / "raw"), contract)
    sealed, _ = seal(trail, checked(contract, DRIFTED), contract)
    (entry,) = records(log)
    assert (entry["layer"], entry["reason"]) == ("audit", "raw_unwritable")
    assert entry["envelope_sha256"] == record.envelope_digest(sealed.envelope)
    assert "the response itself was schema: enum" in entry["message"]


def test_a_raw_copy_and_a_record_both_lost_are_both_told(tmp_path: Path) -> None:
    """A full disk fails both: the operator learns why each failed, and the first verdict."""
    contract = review(tmp_path)
    (tmp_path / "file").write_bytes(b"")
    trail = AuditTrail.build(
        TrailOptions(log=tmp_path / "missing" / "audit.jsonl", raw_dir=tmp_path / "file" / "raw"),
        contract,
    )
    sealed, _ = seal(trail, checked(contract, DRIFTED), contract)
    assert sealed.envelope["error"] == UNAVAILABLE
    assert sealed.diagnostics.reason == "audit_unwritable"
    message = sealed.diagnostics.message
    assert message is not None
    assert "cannot open audit log" in message
    assert "cannot keep raw response" in message
    assert "the response itself was schema: enum" in message


def test_by_default_only_rejected_responses_are_kept(tmp_path: Path) -> None:
    """raw_keep "rejected": the accepted response leaves no copy, the rejected one does."""
    contract = review(tmp_path)
    log, raw = tmp_path / "audit.jsonl", tmp_path / "raw"
    trail = AuditTrail.build(TrailOptions(log=log, raw_dir=raw), contract)
    seal(trail, checked(contract, OK), contract)
    seal(trail, checked(contract, DRIFTED), contract)
    accepted, rejected = records(log)
    assert "raw" not in accepted
    assert rejected["raw"] == [{"sha256": rejected["input"]["sha256"], "kept": True}]
    assert (raw / rejected["input"]["sha256"]).read_bytes() == DRIFTED
    assert not (raw / accepted["input"]["sha256"]).exists()


def test_raw_keep_all_keeps_the_accepted_response_too(tmp_path: Path) -> None:
    """raw_keep "all": the accepted response's bytes are kept under their digest."""
    contract = review(tmp_path)
    log, raw = tmp_path / "audit.jsonl", tmp_path / "raw"
    trail = AuditTrail.build(TrailOptions(log=log, raw_dir=raw, raw_keep="all"), contract)
    seal(trail, checked(contract, OK), contract)
    (entry,) = records(log)
    assert (raw / entry["input"]["sha256"]).read_bytes() == OK


def test_secret_context_is_recorded_as_a_keyed_hash(tmp_path: Path) -> None:
    """A secret context key holds an HMAC in the record; the clear value is nowhere in the log."""
    contract = review(tmp_path, '\n[audit]\nsecret_context = ["change_id"]\n')
    log = tmp_path / "audit.jsonl"
    trail = AuditTrail.build(TrailOptions(log=log), contract)
    outcome = checked(contract, SECRET_OK, **SECRET_CONTEXT)
    assert outcome.diagnostics.outcome == "success"
    request = make_request(REQUEST_ID, SECRET_CONTEXT)
    trail.seal(outcome, contract, request, command="check", source=record.Source("stdin"))
    (entry,) = records(log)
    assert set(entry["context"]["change_id"]) == {"hmac_sha256"}
    assert b"CR-10420001" not in log.read_bytes()
    assert (tmp_path / "audit.jsonl.key").stat().st_mode & 0o777 == 0o600


def test_secret_context_with_an_unusable_key_fails_closed(tmp_path: Path) -> None:
    """A key that cannot be created (its folder is missing) makes the answer a failure."""
    contract = review(tmp_path, '\n[audit]\nsecret_context = ["change_id"]\n')
    trail = AuditTrail.build(
        TrailOptions(log=tmp_path / "audit.jsonl", key_file=tmp_path / "no" / "key"), contract
    )
    request = make_request(REQUEST_ID, SECRET_CONTEXT)
    outcome = checked(contract, SECRET_OK, **SECRET_CONTEXT)
    sealed, _ = trail.seal(
        outcome, contract, request, command="check", source=record.Source("stdin")
    )
    assert sealed.envelope["error"] == UNAVAILABLE
    assert sealed.diagnostics.reason == "key_unreadable"
    assert not (tmp_path / "audit.jsonl").exists()


def test_secret_context_without_any_key_file_fails_closed(tmp_path: Path) -> None:
    """`build` always finds a key for secret context; a trail made without one (by hand, or
    built for another contract) records nothing rather than a value it cannot hash."""
    contract = review(tmp_path, '\n[audit]\nsecret_context = ["change_id"]\n')
    log = tmp_path / "audit.jsonl"
    trail = AuditTrail(
        log=log, raw=None, raw_keep="rejected", key_file=None, fsync=False, optional=False
    )
    request = make_request(REQUEST_ID, SECRET_CONTEXT)
    outcome = checked(contract, SECRET_OK, **SECRET_CONTEXT)
    sealed, _ = trail.seal(
        outcome, contract, request, command="check", source=record.Source("stdin")
    )
    assert sealed.envelope["error"] == UNAVAILABLE
    assert sealed.diagnostics.reason == "key_unreadable"
    assert not log.exists()


def test_a_rejection_message_never_holds_a_secret_context_value(tmp_path: Path) -> None:
    """The rule that compares against a secret context key must not put its value in the log."""
    contract = review(tmp_path, '\n[audit]\nsecret_context = ["change_id"]\n')
    log = tmp_path / "audit.jsonl"
    trail = AuditTrail.build(TrailOptions(log=log), contract)
    request = make_request(REQUEST_ID, {"change_id": "CR-77665544"})
    outcome = check_bytes(contract, OK, request)
    assert outcome.diagnostics.layer == "rule"
    trail.seal(outcome, contract, request, command="check", source=record.Source("stdin"))
    assert b"CR-77665544" not in log.read_bytes()


@pytest.mark.parametrize(
    ("why", "outcome"),
    [
        ("interrupted before the response was checked", "failure"),
        ("internal error: Traceback (most recent call last): boom", "internal"),
    ],
    ids=["interrupted", "internal"],
)
def test_abandoned_outcomes_are_recorded_as_valid_records(
    tmp_path: Path, why: str, outcome: str
) -> None:
    """An interrupted or broken check still leaves a record that validates, with the reason."""
    contract = review(tmp_path)
    log = tmp_path / "audit.jsonl"
    request = make_request(REQUEST_ID, {"change_id": "CR-1042"})
    given_up = (interrupted if outcome == "failure" else internal)(contract, request, why)
    trail = AuditTrail.build(TrailOptions(log=log), contract)
    sealed, _ = trail.seal(
        given_up, contract, request, command="check", source=record.Source("stdin")
    )
    (entry,) = records(log)
    assert entry["outcome"] == outcome
    assert entry["error_code"] == "UPSTREAM_UNAVAILABLE"
    assert entry["envelope_sha256"] == record.envelope_digest(sealed.envelope)
    assert json.dumps(entry).count("boom") == (outcome == "internal")


def test_an_accepted_answer_that_keeps_no_copy_still_prunes_old_ones(tmp_path: Path) -> None:
    """Retention happens on every sealing: a 40-day-old copy goes with --raw-max-age 60."""
    contract = review(tmp_path)
    raw = tmp_path / "raw"
    raw.mkdir(mode=0o700)
    old = raw / ("0" * 64)
    old.write_bytes(b"hostile bytes kept 40 days ago")
    forty_days = time.time() - 40 * 86_400
    os.utime(old, (forty_days, forty_days))
    trail = AuditTrail.build(TrailOptions(raw_dir=raw, raw_max_age_seconds=60), contract)
    sealed, warning = seal(trail, checked(contract, OK), contract)
    assert (sealed.diagnostics.outcome, warning) == ("success", None)
    assert not old.exists()


def test_an_untrusted_raw_folder_fails_closed_even_when_nothing_is_kept(tmp_path: Path) -> None:
    """Pruning walks the raw folder's path too: an open ancestor fails the accepted answer."""
    contract = review(tmp_path)
    (tmp_path / "shared" / "raw").mkdir(parents=True)
    (tmp_path / "shared").chmod(0o777)
    trail = AuditTrail.build(TrailOptions(raw_dir=tmp_path / "shared" / "raw"), contract)
    sealed, _ = seal(trail, checked(contract, OK), contract)
    assert sealed.envelope["error"] == UNAVAILABLE
    assert sealed.diagnostics.reason == "raw_unwritable"
