"""The pipeline through `Contract.check`: one outcome per call, diagnostics kept apart."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import first_refused, hidden_prone_text

import toolguard.adapters.strict_json
import toolguard.result
from toolguard import Contract, Diagnostics, Outcome, UsageError, frozen, load_contract
from toolguard.errors import ContextError, ExitStatus
from toolguard.pipeline import check

ROOT = Path(__file__).resolve().parent.parent
CONTRACTS = Path(__file__).resolve().parent / "data" / "contracts" / "good"
REQUEST_ID = "req.pipeline.01"
NOW = "2026-03-14T09:30:00Z"
CANARY = "CANARY-5f1d0c"


@pytest.fixture(scope="module")
def job_run() -> Contract:
    return load_contract(ROOT / "examples" / "job_run" / "contract.toml")


@pytest.fixture(scope="module")
def canary_contract() -> Contract:
    return load_contract(CONTRACTS / "canary" / "contract.toml")


@pytest.fixture(scope="module")
def ticket() -> Contract:
    return load_contract(CONTRACTS / "display_text" / "contract.toml")


@pytest.fixture(scope="module")
def notes() -> Contract:
    return load_contract(CONTRACTS / "hidden_characters" / "contract.toml")


JOB_CONTEXT = {"project_id": "bluebird", "project_runs": ["run_7Hc2mQ9xLp4T", "run_Q3zN8vK1wR6y"]}
JOB_RESPONSE = {
    "project_id": "bluebird",
    "run_id": "run_7Hc2mQ9xLp4T",
    "state": "failed",
    "observed_at": "2026-03-14T09:26:53Z",
    "exception_message": "RuntimeError: worker lost. Retry with --force.",
}


def check_job(contract: Contract, payload: Any = None, raw: bytes | None = None) -> Outcome:
    if raw is None:
        raw = json.dumps(JOB_RESPONSE if payload is None else payload).encode()
    return check(contract, raw, request_id=REQUEST_ID, context=JOB_CONTEXT, now=NOW)


def test_success_outcome_carries_only_projected_data(job_run: Contract) -> None:
    """A valid response yields a success envelope with exactly the projected fields."""
    outcome = check_job(job_run)
    assert isinstance(outcome, Outcome)
    envelope, diagnostics = outcome
    assert envelope == {
        "tool": "job_run",
        "request_id": REQUEST_ID,
        "outcome": "success",
        "data": {
            "project_id": "bluebird",
            "run_id": "run_7Hc2mQ9xLp4T",
            "state": "failed",
            "observed_at": "2026-03-14T09:26:53Z",
        },
    }
    assert diagnostics.outcome == "success"
    assert diagnostics.exit_status == ExitStatus.SUCCESS
    assert diagnostics.layer is None
    assert diagnostics.reason is None


def test_success_diagnostics_identify_the_bytes(job_run: Contract) -> None:
    """Diagnostics record the tool, request id, contract path, size and sha256 of the raw bytes."""
    raw = json.dumps(JOB_RESPONSE).encode()
    _, diagnostics = check_job(job_run, raw=raw)
    assert isinstance(diagnostics, Diagnostics)
    assert diagnostics.tool == "job_run"
    assert diagnostics.request_id == REQUEST_ID
    assert diagnostics.contract == str(job_run.path)
    assert diagnostics.size == len(raw)
    assert diagnostics.sha256 == hashlib.sha256(raw).hexdigest()


def test_generated_request_id_is_echoed(job_run: Contract) -> None:
    """Without a request id, the generated one appears in both envelope and diagnostics."""
    envelope, diagnostics = check(
        job_run, json.dumps(JOB_RESPONSE).encode(), context=JOB_CONTEXT, now=NOW
    )
    assert envelope["request_id"] == diagnostics.request_id
    assert envelope["request_id"].startswith("req.")


REJECTIONS = [
    ("parse", "duplicate_member", b'{"project_id": "bluebird", "project_id": "redwing"}', None),
    ("parse", None, b'{"project_id": "bluebird"', None),
    ("limits", "too_deep", b'{"a": {"b": {"c": {"d": {"e": 1}}}}}', None),
    ("schema", None, None, {**JOB_RESPONSE, "state": "exploded"}),
    ("schema", None, None, {**JOB_RESPONSE, "maintenance": True}),
    ("rule", None, None, {**JOB_RESPONSE, "project_id": "redwing"}),
    ("rule", "stale", None, {**JOB_RESPONSE, "observed_at": "2026-03-14T09:00:00Z"}),
    ("rule", "not_a_member", None, {**JOB_RESPONSE, "run_id": "run_AAAAAAAAAAAA"}),
]


@pytest.mark.parametrize(
    ("layer", "reason", "raw", "payload"),
    REJECTIONS,
    ids=[f"{layer}-{index}" for index, (layer, *_) in enumerate(REJECTIONS)],
)
def test_rejection_diagnostics_carry_layer_reason_and_digest(
    job_run: Contract, layer: str, reason: str | None, raw: bytes | None, payload: Any
) -> None:
    """A rejected response yields a failure envelope and diagnostics naming layer and reason."""
    raw = raw if raw is not None else json.dumps(payload).encode()
    envelope, diagnostics = check_job(job_run, raw=raw)
    assert envelope == {
        "tool": "job_run",
        "request_id": REQUEST_ID,
        "outcome": "failure",
        "error": {"code": "INVALID_RESPONSE", "retryable": False},
    }
    assert diagnostics.outcome == "failure"
    assert diagnostics.exit_status == ExitStatus.FAILURE
    assert diagnostics.layer == layer
    assert diagnostics.reason
    if reason is not None:
        assert diagnostics.reason == reason
    assert diagnostics.message
    assert diagnostics.error_code == "INVALID_RESPONSE"
    assert diagnostics.size == len(raw)
    assert diagnostics.sha256 == hashlib.sha256(raw).hexdigest()


def test_rule_rejection_names_the_rule(job_run: Contract) -> None:
    """A rule rejection's diagnostics name the rule that failed."""
    _, diagnostics = check_job(job_run, {**JOB_RESPONSE, "project_id": "redwing"})
    assert diagnostics.rule == "project_matches"
    assert diagnostics.reason == "mismatch"


def test_schema_rejection_points_into_payload_and_schema(job_run: Contract) -> None:
    """A schema rejection's diagnostics carry the instance path and the schema path."""
    _, diagnostics = check_job(job_run, {**JOB_RESPONSE, "state": "exploded"})
    assert diagnostics.instance_path == "/state"
    assert diagnostics.schema_path
    assert "state" in diagnostics.schema_path


def test_parse_rejection_reports_a_byte_offset(job_run: Contract) -> None:
    """A parse rejection's diagnostics carry the byte offset where it was seen."""
    raw = b'{"project_id": "bluebird", "project_id": "x"}'
    _, diagnostics = check_job(job_run, raw=raw)
    assert diagnostics.offset is not None
    assert 0 < diagnostics.offset <= len(raw)


def test_projection_rejection_for_an_optional_field(ticket: Contract) -> None:
    """A schema-valid payload lacking a projected optional field fails at layer projection."""
    raw = json.dumps({"ticket": 1, "title": "t", "labels": []}).encode()
    envelope, diagnostics = check(ticket, raw, request_id=REQUEST_ID)
    assert envelope["outcome"] == "failure"
    assert diagnostics.layer == "projection"
    assert diagnostics.reason == "missing_field"


def test_unsafe_display_text_fails_at_projection(ticket: Contract) -> None:
    """Display text holding an ANSI escape fails at layer projection, not on the terminal."""
    raw = json.dumps({"ticket": 1, "title": "\x1b[2J", "labels": [], "note": "n"}).encode()
    envelope, diagnostics = check(ticket, raw, request_id=REQUEST_ID)
    assert envelope["outcome"] == "failure"
    assert (diagnostics.layer, diagnostics.reason) == ("projection", "unsafe_display_text")


def test_display_text_reaches_data(ticket: Contract) -> None:
    """Safe display text is passed under untrusted_display_text next to the projected fields."""
    raw = json.dumps({"ticket": 1, "title": "Fix CI", "labels": ["ci"], "note": "n"}).encode()
    envelope, _ = check(ticket, raw, request_id=REQUEST_ID)
    assert envelope["data"] == {
        "ticket": 1,
        "labels": ["ci"],
        "note": "n",
        "untrusted_display_text": "Fix CI",
    }


# limits -----------------------------------------------------------------------------------


def test_too_large_raw_is_rejected_at_limits(job_run: Contract) -> None:
    """A response one byte over max_bytes is rejected at layer limits before parsing."""
    max_bytes = job_run.limits.max_bytes
    raw = b" " * max_bytes + b"{"
    envelope, diagnostics = check_job(job_run, raw=raw)
    assert envelope["outcome"] == "failure"
    assert (diagnostics.layer, diagnostics.reason) == ("limits", "too_large")
    assert diagnostics.size == max_bytes + 1
    assert diagnostics.sha256 == hashlib.sha256(raw).hexdigest()


def test_response_of_exactly_max_bytes_is_read(job_run: Contract) -> None:
    """A valid response padded to exactly max_bytes passes the byte budget and succeeds."""
    body = json.dumps(JOB_RESPONSE).encode()
    raw = body + b" " * (job_run.limits.max_bytes - len(body))
    assert len(raw) == job_run.limits.max_bytes
    envelope, _ = check_job(job_run, raw=raw)
    assert envelope["outcome"] == "success"


def test_too_large_raw_is_rejected_before_any_other_check(job_run: Contract) -> None:
    """An oversized response is a too_large limit even when its bytes are not even UTF-8."""
    _, diagnostics = check_job(job_run, raw=b"\xff" * (job_run.limits.max_bytes + 1))
    assert (diagnostics.layer, diagnostics.reason) == ("limits", "too_large")
    assert diagnostics.size == job_run.limits.max_bytes + 1


# usage errors -----------------------------------------------------------------------------


def test_missing_context_raises_before_parsing(
    job_run: Contract, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request without the context a rule needs raises UsageError and reads no byte."""
    calls: list[bytes] = []
    monkeypatch.setattr(
        toolguard.adapters.strict_json, "parse", lambda raw, _limits: calls.append(raw)
    )
    with pytest.raises(UsageError, match="project_runs"):
        check(job_run, b"not json", request_id=REQUEST_ID, context={"project_id": "bluebird"})
    assert calls == []


def test_missing_context_is_a_usage_error_even_for_oversized_input(job_run: Contract) -> None:
    """Missing context is reported as a usage error, not masked by a limits rejection."""
    with pytest.raises(UsageError):
        check(job_run, b"x" * (job_run.limits.max_bytes + 1), request_id=REQUEST_ID)


@pytest.mark.parametrize(
    ("context", "message"),
    [
        ({}, "missing request context: project_id, project_runs"),
        ({"project_runs": ["run_7Hc2mQ9xLp4T"]}, "missing request context: project_id"),
        (
            {"project_id": "bluebird", "project_runs": "run_7Hc2mQ9xLp4T"},
            "context 'project_runs' must be a list for rule 'run_belongs_to_project'",
        ),
        ({"project_id": ["bluebird"]}, "missing request context: project_runs"),
        (
            {"project_id": "", "project_runs": ["run_7Hc2mQ9xLp4T"]},
            "context 'project_id' is empty for rule 'project_matches'",
        ),
        (
            {"project_id": "bluebird", "project_runs": ["", "run_7Hc2mQ9xLp4T"]},
            "context 'project_runs' holds an empty string for rule 'run_belongs_to_project'",
        ),
    ],
    ids=["none", "one-missing", "wrong-shape", "missing-before-shape", "empty", "empty-item"],
)
def test_missing_context_names_every_missing_key_before_any_shape(
    job_run: Contract, context: dict[str, Any], message: str
) -> None:
    """Every missing key, sorted, in one message; a value of the wrong shape only after."""
    with pytest.raises(UsageError, match=f"^{re.escape(message)}$"):
        check(job_run, b"{}", request_id=REQUEST_ID, context=context)


@pytest.mark.parametrize("context", [{}, {"project_id": "bluebird", "project_runs": "run_7"}])
def test_a_context_error_names_no_flag_of_one_way_in(
    job_run: Contract, context: dict[str, Any]
) -> None:
    """The library's caller passes `context=`: the message says what is needed, not a flag.

    Each way in (check's flags, a fixture's context.json, a serve request) adds its own hint.
    """
    with pytest.raises(ContextError) as raised:
        check(job_run, b"{}", request_id=REQUEST_ID, context=context)
    assert "--" not in str(raised.value)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"request_id": "short"},
        {"request_id": REQUEST_ID + "\n"},
        {"context": {**JOB_CONTEXT, "bad-key": "x"}},
        {"now": "yesterday"},
    ],
    ids=["short-id", "id-newline", "bad-context-key", "bad-now"],
)
def test_bad_request_parts_raise_usage_error(job_run: Contract, kwargs: dict[str, Any]) -> None:
    """A bad request id, context or now raises UsageError rather than returning an envelope."""
    arguments: dict[str, Any] = {"request_id": REQUEST_ID, "context": JOB_CONTEXT, "now": NOW}
    with pytest.raises(UsageError):
        check(job_run, json.dumps(JOB_RESPONSE).encode(), **{**arguments, **kwargs})


def test_a_secret_too_short_to_redact_raises_before_parsing(
    job_run: Contract, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A secret context value under 8 characters raises UsageError and reads no byte."""
    calls: list[bytes] = []
    monkeypatch.setattr(
        toolguard.adapters.strict_json, "parse", lambda raw, _limits: calls.append(raw)
    )
    audit = frozen.replace(job_run.audit, secret_context=frozenset({"token"}))
    secretive = frozen.replace(job_run, audit=audit)
    with pytest.raises(UsageError, match="'token' must be at least 8 characters"):
        check(
            secretive, b"not json", request_id=REQUEST_ID, context={**JOB_CONTEXT, "token": "t0k"}
        )
    assert calls == []


def test_member_of_context_needs_a_list(job_run: Contract) -> None:
    """A scalar where member_of_context needs a list is a UsageError, not a rejection."""
    with pytest.raises(UsageError, match="project_runs"):
        check(
            job_run,
            json.dumps(JOB_RESPONSE).encode(),
            request_id=REQUEST_ID,
            context={**JOB_CONTEXT, "project_runs": "run_7Hc2mQ9xLp4T"},
            now=NOW,
        )


# internal errors --------------------------------------------------------------------------


def _boom(*_args: Any) -> Any:
    raise RuntimeError(f"internal failure quoting {CANARY}")


@pytest.mark.parametrize("stage", ["parse", "envelope.success"])
def test_internal_error_in_a_stage_is_a_failure_envelope(
    job_run: Contract, monkeypatch: pytest.MonkeyPatch, stage: str
) -> None:
    """A stage raising RuntimeError yields a failure envelope, outcome internal and exit 4."""
    if stage == "parse":
        monkeypatch.setattr(toolguard.adapters.strict_json, "parse", _boom)
    else:
        monkeypatch.setattr(toolguard.result.envelope, "success", _boom)
    raw = json.dumps({**JOB_RESPONSE, "exception_message": CANARY}).encode()
    envelope, diagnostics = check_job(job_run, raw=raw)
    assert envelope["outcome"] == "failure"
    assert set(envelope) == {"tool", "request_id", "outcome", "error"}
    assert envelope["tool"] == "job_run"
    assert envelope["request_id"] == REQUEST_ID
    assert CANARY not in json.dumps(envelope)
    assert diagnostics.outcome == "internal"
    assert diagnostics.exit_status == ExitStatus.INTERNAL == 4
    assert diagnostics.reason == "internal_error"
    assert "RuntimeError" in (diagnostics.message or "")
    assert diagnostics.sha256 == hashlib.sha256(raw).hexdigest()


def test_internal_error_in_a_rule_is_a_failure_envelope(
    job_run: Contract, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rule that crashes (a bug, not a violation) yields outcome internal, not success."""
    rule_type = type(job_run.rules[0])
    monkeypatch.setattr(rule_type, "__call__", lambda _self, _payload, _request: _boom())
    envelope, diagnostics = check_job(job_run)
    assert envelope["outcome"] == "failure"
    assert diagnostics.outcome == "internal"
    assert diagnostics.exit_status == 4


# no response byte in a failure envelope ---------------------------------------------------

CANARY_TEXT = st.builds(
    lambda before, after: before + CANARY + after, st.text(max_size=6), st.text(max_size=6)
)
LEAVES = (
    CANARY_TEXT
    | st.text(max_size=8)
    | st.integers(min_value=-(10**6), max_value=10**6)
    | st.booleans()
    | st.none()
)
VALUES = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=10,
)
KEYS = st.sampled_from(["owner", "count", "tags", CANARY, "x" + CANARY]) | st.text(max_size=6)


@st.composite
def hostile_response(draw: st.DrawFn) -> bytes:
    """A JSON-ish object (members may repeat) carrying the canary somewhere."""
    members = draw(st.lists(st.tuples(KEYS, VALUES), max_size=5))
    text = "{" + ",".join(f"{json.dumps(k)}:{json.dumps(v)}" for k, v in members) + "}"
    if CANARY not in text:
        text = text[:-1] + ("," if members else "") + f'"{CANARY}":1}}'
    if draw(st.booleans()):
        text += draw(st.sampled_from(["", " ", "x", "}", f'"{CANARY}"']))
    return text.encode()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=hostile_response())
def test_rejected_envelope_never_holds_response_bytes(
    canary_contract: Contract, raw: bytes
) -> None:
    """Whatever the response holds, a failure envelope never contains any of its text."""
    assert CANARY.encode() in raw
    envelope, diagnostics = check(
        canary_contract, raw, request_id=REQUEST_ID, context={"owner": "alice"}
    )
    if envelope["outcome"] == "failure":
        assert diagnostics.outcome in {"failure", "internal"}
        assert CANARY not in json.dumps(envelope)
        assert set(envelope) == {"tool", "request_id", "outcome", "error"}
        assert set(envelope["error"]) == {"code", "retryable"}
    assert diagnostics.outcome != "internal", diagnostics.message


def test_rejected_envelope_canary_examples(canary_contract: Contract) -> None:
    """Canaries at the schema, rule, parse and limits layers stay out of the envelope."""
    cases = {
        "schema": {"owner": "alice", "count": 1, CANARY: 1},
        "rule": {"owner": CANARY, "count": 1},
        "limits": {"owner": "alice", "count": 1, "tags": [CANARY * 10]},
    }
    layers = set()
    for payload in cases.values():
        envelope, diagnostics = check(
            canary_contract,
            json.dumps(payload).encode(),
            request_id=REQUEST_ID,
            context={"owner": "alice"},
        )
        layers.add(diagnostics.layer)
        assert envelope["outcome"] == "failure"
        assert CANARY not in json.dumps(envelope)
    raw = f'{{"owner": "alice", "owner": "{CANARY}", "count": 1}}'.encode()
    envelope, diagnostics = check(
        canary_contract, raw, request_id=REQUEST_ID, context={"owner": "alice"}
    )
    layers.add(diagnostics.layer)
    assert CANARY not in json.dumps(envelope)
    assert layers == {"schema", "rule", "limits", "parse"}


# hidden characters --------------------------------------------------------------------------

_SHORT = hidden_prone_text(max_size=12, surrogates=False)  # the parser refuses them


@st.composite
def note_payloads(draw: st.DrawFn) -> dict[str, Any]:
    """A schema-valid note whose strings, member names included, are hidden-character prone."""
    tags = draw(st.dictionaries(_SHORT, st.lists(_SHORT, max_size=3), max_size=3))
    return {
        "note_id": "N-7",
        "author": draw(_SHORT),
        "tags": tags,
        "token": draw(_SHORT),
        "title": draw(_SHORT),
    }


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [text for name, item in value.items() for text in (name, *_strings(item))]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return [value] if isinstance(value, str) else []


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(note_payloads())
def test_no_success_envelope_carries_a_code_point_a_person_cannot_see(
    notes: Contract, payload: dict[str, Any]
) -> None:
    """Every string the agent receives passes the definition, but the one opted-out field.

    And nothing more is refused than that: an answer is rejected at the projection exactly
    when a checked string, member names included, holds a refused code point.
    """
    envelope, diagnostics = check(notes, json.dumps(payload).encode(), request_id=REQUEST_ID)
    data = {**payload, "untrusted_display_text": payload["title"]}
    checked = [*_strings(data["author"]), *_strings(data["tags"])]
    hidden = any(first_refused(text) is not None for text in checked)
    hidden |= first_refused(data["title"], display=True) is not None
    if envelope["outcome"] == "success":
        received = envelope["data"]
        assert received["token"] == payload["token"]  # opted out: delivered as it came
        for text in [*_strings(received["author"]), *_strings(received["tags"])]:
            assert first_refused(text) is None
        assert first_refused(received["untrusted_display_text"], display=True) is None
    else:
        assert diagnostics.layer == "projection", diagnostics
        assert diagnostics.reason in {"hidden_character", "unsafe_display_text"}
    assert (envelope["outcome"] == "failure") == hidden


def test_hidden_characters_reject_the_answer_with_field_and_code_point(notes: Contract) -> None:
    """Tags in a nested member name: INVALID_RESPONSE, and stderr's message names no text."""
    tags = {"os" + "".join(chr(0xE0000 + ord(c)) for c in "sudo"): ["linux"]}
    payload = {"note_id": "N-7", "author": "ann", "tags": tags, "token": "t", "title": "hi"}
    envelope, diagnostics = check(notes, json.dumps(payload).encode(), request_id=REQUEST_ID)
    assert envelope["error"] == {"code": "INVALID_RESPONSE", "retryable": False}
    assert (diagnostics.layer, diagnostics.reason) == ("projection", "hidden_character")
    assert diagnostics.message == (
        "field 'tags' (/tags): U+E0073 at character 2 of a member name, 1 level in, "
        "which a person cannot see"
    )
