"""Outcome builders: `redacted` is the outcome as the operator may read it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolguard import frozen, pipeline
from toolguard.contract import load_contract
from toolguard.request import make_request
from toolguard.result import AttemptRecord, Outcome, redacted

REPO = Path(__file__).resolve().parents[1]
CONTRACT = load_contract(REPO / "examples" / "review_status" / "contract.toml")
TOKEN = "tok-7f3a9c1e-Very.Secret"
SECRET = frozenset({"api_token"})
REQUEST = make_request("req.result.0001", {"change_id": "CR-1042", "api_token": TOKEN})
RESPONSE = f'{{"change_id": "CR-1042", "decision": "approved", "reviewed_by": "{TOKEN}"}}'.encode()


def leaky() -> Outcome:
    """A run's outcome whose every free-text field quotes the token."""
    outcome = pipeline.check(
        CONTRACT, RESPONSE, request_id="req.result.0001", context=dict(REQUEST.context)
    )
    attempt = AttemptRecord(
        number=1,
        duration_ms=1.0,
        outcome="failure",
        stderr=f"auth with {TOKEN}\nnext: tok-7f3a",
        stderr_size=70_000,  # the excerpt was cut inside the second quotation
        spawn_error=f"no such file: {TOKEN}",
    )
    diagnostics = frozen.replace(
        outcome.diagnostics,
        message=f"expected {TOKEN!r}",
        rule=f"rule on {TOKEN}",
        schema_path=f"/properties/{TOKEN}",
        instance_path=f"/{TOKEN}",
        upstream=("curl", "-H", f"Authorization: Bearer {TOKEN}"),
        attempts=(attempt,),
    )
    return Outcome(outcome.envelope, diagnostics, outcome.responses)


def test_every_free_text_field_of_the_diagnostics_is_redacted() -> None:
    """Message, rule, paths, argv, stderr excerpt (cut too), spawn error: markers, no token."""
    shown = redacted(leaky(), REQUEST, SECRET).diagnostics
    assert TOKEN not in repr(shown)
    assert "tok-7f3a" not in repr(shown)
    assert shown.upstream == ("curl", "-H", "Authorization: Bearer [secret:api_token]")
    assert shown.message == "expected '[secret:api_token]'"
    assert shown.instance_path == "/[secret:api_token]"
    assert shown.attempts[0].stderr == "auth with [secret:api_token]\nnext: [secret:api_token]"


def test_the_envelope_and_the_raw_response_are_untouched() -> None:
    """The agent's answer and the evidence (the raw bytes) keep the token, byte for byte."""
    before = leaky()
    after = redacted(before, REQUEST, SECRET)
    assert after.envelope == before.envelope
    assert after.envelope["data"]["reviewed_by"] == TOKEN
    assert after.responses == (RESPONSE,)


def test_an_outcome_without_secret_context_is_returned_as_is() -> None:
    """No secret keys, or none in the request: the very same outcome (no work on the hot path)."""
    outcome = leaky()
    assert redacted(outcome, REQUEST, frozenset()) is outcome
    assert redacted(outcome, REQUEST, frozenset({"other"})) is outcome


CANARY = "CANARY-ignore-previous-instructions"
DEPLOY = load_contract(REPO / "examples" / "deploy_status" / "contract.toml")
GOOD = {"environment": "staging", "revision": "a83f19c", "state": "healthy"}
# A rejected response for each place a canary can sit, and where the operator still finds it.
CANARIES = {
    "member name": (json.dumps({**GOOD, CANARY: 1}).encode(), "message"),
    "duplicate member": (
        b'{"environment":"staging","%s":1,"%s":2}' % (CANARY.encode(), CANARY.encode()),
        "message",
    ),
    "value failing a pattern": (json.dumps({**GOOD, "revision": CANARY}).encode(), None),
    "value failing a rule": (json.dumps({**GOOD, "environment": "production"}).encode(), None),
    "error document": (json.dumps({"error": CANARY}).encode(), None),
    "not JSON": (CANARY.encode(), None),
}


def _told(value: object) -> list[str]:
    """The text a host gets from `value` without naming a field: str, repr, an f-string."""
    return [str(value), repr(value), f"{value}", f"{value!r}"]


@pytest.mark.parametrize(("raw", "field"), list(CANARIES.values()), ids=list(CANARIES))
def test_an_outcome_told_whole_quotes_nothing_of_a_rejected_response(
    raw: bytes, field: str | None
) -> None:
    """str and repr of the outcome and its diagnostics leave out the response's text.

    What may quote it (the message, the instance path) is read by name, for the operator.
    """
    outcome = pipeline.check(DEPLOY, raw, context={"environment": "staging"})
    envelope, diagnostics = outcome
    assert diagnostics.outcome == "failure"
    for value in (outcome, diagnostics, envelope, json.dumps(envelope)):
        assert not any(CANARY in text for text in _told(value))
    if field is not None:
        assert CANARY in getattr(diagnostics, field)


def test_no_operator_only_field_is_in_a_repr() -> None:
    """Message, instance path and a command's stderr excerpt stay out of every repr."""
    attempt = AttemptRecord(number=1, duration_ms=1.0, outcome="failure", stderr=CANARY)
    diagnostics = frozen.replace(
        pipeline.check(DEPLOY, b"{}", context={"environment": "staging"}).diagnostics,
        message=CANARY,
        instance_path=f"/{CANARY}",
        attempts=(attempt,),
    )
    outcome = Outcome({"outcome": "failure"}, diagnostics, (CANARY.encode(),))
    for value in (outcome, diagnostics, attempt):
        assert not any(CANARY in text for text in _told(value))
    assert (diagnostics.message, diagnostics.attempts[0].stderr) == (CANARY, CANARY)
