"""Semantic rules: each factory's pass and fail cases, type strictness, and readable reprs."""

from __future__ import annotations

import inspect
import re
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from signing import ISSUER, claims, ed25519_signer, key_set

from toolguard.errors import MissingExtra, RuleViolation
from toolguard.parse import parse
from toolguard.request import Request, make_request
from toolguard.rules import (
    RULE_BY_KIND,
    context_problem,
    equals_context,
    equals_request_id,
    fresh,
    matches_context_pattern,
    member_of_context,
    signed,
)

NOW = datetime(2026, 3, 14, 9, 30, 0, tzinfo=UTC)
REQUEST_ID = "req.rules.0001"
# One value for every option any registered factory requires.
OPTIONS = {
    "context": "c",
    "max_age_seconds": 1,
    "pattern": "{c}",
    "keys": key_set(ed25519_signer().jwk()),
    "algorithms": ["EdDSA"],
    "issuer": ISSUER,
}


def request(**context: Any) -> Request:
    return make_request(REQUEST_ID, context, NOW)


def violation(rule: Any, payload: Any, req: Request) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        rule(payload, req)
    error = info.value
    assert error.rule == rule.name
    assert error.layer == "rule"
    assert error.message
    return error


def stamp(offset_seconds: float) -> str:
    """The RFC 3339 text of NOW shifted by `offset_seconds` (negative is the past)."""
    return (NOW + timedelta(seconds=offset_seconds)).isoformat().replace("+00:00", "Z")


# equals_context ---------------------------------------------------------------------------


def test_equals_context_passes_on_the_same_value() -> None:
    """equals_context accepts a field equal to the named context value."""
    rule = equals_context("project_matches", "/project", "project")
    assert rule({"project": "bluebird"}, request(project="bluebird")) is None


def test_equals_context_rejects_another_value() -> None:
    """equals_context rejects a different value with reason mismatch, naming the rule."""
    rule = equals_context("project_matches", "/project", "project")
    error = violation(rule, {"project": "redwing"}, request(project="bluebird"))
    assert error.reason == "mismatch"


@pytest.mark.parametrize("field", [42, 4.5, True, None])
def test_equals_context_says_why_a_typed_field_never_equals_a_string(field: Any) -> None:
    """A non-string field against a string context value: the message names --context-json."""
    rule = equals_context("ticket_matches", "/id", "ticket_id")
    error = violation(rule, {"id": field}, request(ticket_id=str(field)))
    assert "--context passes strings only" in error.message
    assert "--context-json ticket_id=" in error.message


def test_the_typed_hint_holds_wherever_the_string_came_from() -> None:
    """The rule cannot tell a --context flag from a quoted value in a context file or a serve
    request: the hint names both fixes, never claims the value came from a flag."""
    rule = equals_context("ticket_matches", "/id", "ticket_id")
    message = violation(rule, {"id": 42}, request(ticket_id="42")).message
    assert "--context values are always strings" not in message
    assert 'in a context file or request, write 42, not "42"' in message


def test_equals_context_gives_no_hint_when_the_types_agree() -> None:
    """Two different strings, or a number against a number, get no --context-json hint."""
    rule = equals_context("ticket_matches", "/id", "ticket_id")
    assert "--context-json" not in violation(rule, {"id": "a"}, request(ticket_id="b")).message
    assert "--context-json" not in violation(rule, {"id": 1}, request(ticket_id=2)).message


def test_member_of_context_hints_at_typed_values_too() -> None:
    """A number field against a list of strings (from a file) gets the same hint."""
    rule = member_of_context("known", "/id", "ids")
    error = violation(rule, {"id": 42}, request(ids=["41", "42"]))
    assert "--context-json ids=" in error.message


def test_equals_context_reads_nested_pointers() -> None:
    """equals_context follows a multi-token pointer into nested objects and arrays."""
    rule = equals_context("owner_matches", "/meta/owners/1", "owner")
    assert rule({"meta": {"owners": ["a", "bob"]}}, request(owner="bob")) is None
    assert violation(rule, {"meta": {"owners": ["bob", "a"]}}, request(owner="bob"))


@pytest.mark.parametrize(
    ("field", "context"),
    [
        (True, 1),
        (1, True),
        (False, 0),
        (0, False),
        ("1", 1),
        (1, "1"),
        (None, "null"),
        ("true", True),
        ([1], [True]),
        ([0, 1], [False, True]),
        ([1], ["1"]),
    ],
    ids=repr,
)
def test_equals_context_is_type_strict(field: Any, context: Any) -> None:
    """Booleans, numbers and strings never equal each other, at top level or inside lists."""
    rule = equals_context("strict", "/value", "expected")
    error = violation(rule, {"value": field}, request(expected=context))
    assert error.reason == "mismatch"


@pytest.mark.parametrize(
    ("field", "context"), [(1, 1.0), (1.0, 1), (0, -0.0), ([1, 2], [1.0, 2.0])], ids=repr
)
def test_equals_context_treats_equal_numbers_as_equal(field: Any, context: Any) -> None:
    """JSON numbers compare by value: 1 equals 1.0."""
    rule = equals_context("numeric", "/value", "expected")
    assert rule({"value": field}, request(expected=context)) is None


@pytest.mark.parametrize(
    ("field", "context"),
    [
        (b"1.0000000000000001", b"1"),
        (b"9007199254740992.9", b"9007199254740992"),
        (b"1.152921504606847e18", b"1152921504606846976"),  # the float is 2**60; the text not
    ],
    ids=repr,
)
def test_equals_context_compares_numbers_as_written(field: bytes, context: bytes) -> None:
    """Two numbers whose floats are equal but whose texts are not are different values."""
    rule = equals_context("numeric", "/value", "expected")
    payload, expected = parse(b'{"value":%s}' % field), parse(context)
    error = violation(rule, payload, request(expected=expected))
    assert error.reason == "mismatch"
    assert rule(payload, request(expected=parse(field))) is None


@pytest.mark.parametrize(
    ("field", "context"),
    [
        (b"9007199254740993.0", b"9007199254740993"),  # equal as written; delivered ...992.0
        (b"9007199254740993e0", b"9007199254740993"),
        (b"[9007199254740993.0]", b"[9007199254740993]"),
    ],
    ids=repr,
)
def test_equals_context_never_vouches_for_a_float_the_request_did_not_name(
    field: bytes, context: bytes
) -> None:
    """Equal as written is not enough: the agent receives the field's nearest float."""
    rule = equals_context("numeric", "/value", "expected")
    payload = parse(b'{"value":%s}' % field)
    error = violation(rule, payload, request(expected=parse(context)))
    assert error.reason == "mismatch"
    if not field.startswith(b"["):
        assert "9007199254740993 (delivered as 9007199254740992.0)" in error.message


def test_equals_context_missing_field() -> None:
    """equals_context rejects a payload without the field with reason missing_field."""
    rule = equals_context("project_matches", "/project", "project")
    error = violation(rule, {"name": "bluebird"}, request(project="bluebird"))
    assert error.reason == "missing_field"


def test_equals_context_null_field_is_present() -> None:
    """A field holding JSON null is present (a mismatch), not missing."""
    rule = equals_context("project_matches", "/project", "project")
    assert violation(rule, {"project": None}, request(project="x")).reason == "mismatch"


# equals_request_id ------------------------------------------------------------------------


def test_equals_request_id_passes_on_the_echo() -> None:
    """equals_request_id accepts a field that echoes the request id."""
    rule = equals_request_id("echoes_request", "/request_id")
    assert rule({"request_id": REQUEST_ID}, request()) is None


@pytest.mark.parametrize("value", ["req.rules.0002", REQUEST_ID.upper(), REQUEST_ID + " ", None])
def test_equals_request_id_rejects_another_id(value: Any) -> None:
    """equals_request_id rejects any other value with reason mismatch."""
    rule = equals_request_id("echoes_request", "/request_id")
    assert violation(rule, {"request_id": value}, request()).reason == "mismatch"


@pytest.mark.parametrize("value", [12345678, 12345678.0, ["12345678"]], ids=repr)
def test_equals_request_id_is_a_string_never_what_prints_as_one(value: Any) -> None:
    """An all-digit request id is still a string: a number (or anything) whose text is the
    id is a mismatch."""
    rule = equals_request_id("echoes_request", "/request_id")
    digits = make_request("12345678", {}, NOW)
    assert rule({"request_id": "12345678"}, digits) is None
    assert violation(rule, {"request_id": value}, digits).reason == "mismatch"


def test_equals_request_id_missing_field() -> None:
    """equals_request_id rejects a payload without the field with reason missing_field."""
    rule = equals_request_id("echoes_request", "/request_id")
    assert violation(rule, {}, request()).reason == "missing_field"


def test_equals_request_id_reads_no_context() -> None:
    """equals_request_id needs no request context."""
    assert equals_request_id("echoes_request", "/request_id").context_keys == ()


# fresh ------------------------------------------------------------------------------------


@pytest.mark.parametrize("offset", [0, -1, -299, -300, 1, 30], ids=lambda s: f"{s:+}s")
def test_fresh_passes_inside_the_window(offset: int) -> None:
    """A timestamp up to max_age_seconds old or max_future_seconds ahead passes (bounds too)."""
    rule = fresh("observation_fresh", "/observed_at", max_age_seconds=300, max_future_seconds=30)
    assert rule({"observed_at": stamp(offset)}, request()) is None


@pytest.mark.parametrize("offset", [-301, -300.001, -86400])
def test_fresh_rejects_stale(offset: float) -> None:
    """A timestamp older than max_age_seconds, even by a fraction of a second, is stale."""
    rule = fresh("observation_fresh", "/observed_at", max_age_seconds=300, max_future_seconds=30)
    error = violation(rule, {"observed_at": stamp(offset)}, request())
    assert error.reason == "stale"


@pytest.mark.parametrize("offset", [31, 30.001, 86400])
def test_fresh_rejects_future(offset: float) -> None:
    """A timestamp further ahead than max_future_seconds is rejected as future."""
    rule = fresh("observation_fresh", "/observed_at", max_age_seconds=300, max_future_seconds=30)
    error = violation(rule, {"observed_at": stamp(offset)}, request())
    assert error.reason == "future"


def test_fresh_rejects_a_timestamp_a_fraction_of_a_microsecond_ahead() -> None:
    """A timestamp 100 ns past the window's end is outside it: the future bound is checked
    against the instant rounded up, never truncated back into the window."""
    rule = fresh("observation_fresh", "/observed_at", max_age_seconds=300)
    assert violation(rule, {"observed_at": "2026-03-14T09:30:00.0000001Z"}, request()).reason == (
        "future"
    )
    assert rule({"observed_at": "2026-03-14T09:30:00.0000000Z"}, request()) is None


def test_fresh_default_allows_no_future() -> None:
    """Without max_future_seconds, a timestamp one second ahead is rejected as future."""
    rule = fresh("observation_fresh", "/observed_at", max_age_seconds=300)
    assert rule({"observed_at": stamp(0)}, request()) is None
    assert violation(rule, {"observed_at": stamp(1)}, request()).reason == "future"


def test_fresh_honours_offsets() -> None:
    """A timestamp with a non-UTC offset is compared as the instant it denotes."""
    rule = fresh("observation_fresh", "/observed_at", max_age_seconds=300)
    assert rule({"observed_at": "2026-03-14T10:30:00+01:00"}, request()) is None
    assert violation(rule, {"observed_at": "2026-03-14T09:30:00+01:00"}, request()).reason == (
        "stale"
    )


@pytest.mark.parametrize(
    "value",
    [
        "2026-03-14T09:29:00",  # naive: no offset
        "2026-03-14 09:29:00Z",  # space, not T
        "2026-02-30T09:29:00Z",  # no such day
        "2026-03-14T24:00:00Z",
        "2026-03-14",
        "yesterday",
        "",
        1773480540,  # epoch seconds are not RFC 3339
        None,
        True,
        ["2026-03-14T09:29:00Z"],
    ],
    ids=repr,
)
def test_fresh_rejects_non_timestamps(value: Any) -> None:
    """Anything but an RFC 3339 date-time with an offset is rejected as not_a_timestamp."""
    rule = fresh("observation_fresh", "/observed_at", max_age_seconds=10**9)
    error = violation(rule, {"observed_at": value}, request())
    assert error.reason == "not_a_timestamp"


def test_fresh_missing_field() -> None:
    """fresh rejects a payload without the field with reason missing_field."""
    rule = fresh("observation_fresh", "/observed_at", max_age_seconds=300)
    assert violation(rule, {"seen": stamp(0)}, request()).reason == "missing_field"


# member_of_context ------------------------------------------------------------------------


def test_member_of_context_passes_for_a_member() -> None:
    """member_of_context accepts a value listed in the context list."""
    rule = member_of_context("run_belongs", "/run_id", "runs")
    assert rule({"run_id": "run_b"}, request(runs=["run_a", "run_b"])) is None


def test_member_of_context_rejects_a_stranger() -> None:
    """member_of_context rejects a value not in the list with reason not_a_member."""
    rule = member_of_context("run_belongs", "/run_id", "runs")
    error = violation(rule, {"run_id": "run_c"}, request(runs=["run_a", "run_b"]))
    assert error.reason == "not_a_member"


def test_member_of_context_rejects_everything_for_an_empty_list() -> None:
    """An empty context list admits no value."""
    rule = member_of_context("run_belongs", "/run_id", "runs")
    assert violation(rule, {"run_id": "run_a"}, request(runs=[])).reason == "not_a_member"


@pytest.mark.parametrize(
    ("field", "allowed"),
    [(True, [1]), (1, [True]), (0, [False]), ("1", [1]), (1, ["1"]), (None, ["null"])],
    ids=repr,
)
def test_member_of_context_is_type_strict(field: Any, allowed: list[Any]) -> None:
    """Membership never confuses booleans, numbers and strings."""
    rule = member_of_context("strict", "/value", "allowed")
    error = violation(rule, {"value": field}, request(allowed=allowed))
    assert error.reason == "not_a_member"


def test_member_of_context_treats_equal_numbers_as_equal() -> None:
    """Membership compares numbers by value: 2 is a member of [1.0, 2.0]."""
    rule = member_of_context("numeric", "/value", "allowed")
    assert rule({"value": 2}, request(allowed=[1.0, 2.0])) is None


def test_member_of_context_missing_field() -> None:
    """member_of_context rejects a payload without the field with reason missing_field."""
    rule = member_of_context("run_belongs", "/run_id", "runs")
    assert violation(rule, {}, request(runs=["run_a"])).reason == "missing_field"


# matches_context_pattern ------------------------------------------------------------------


def test_matches_context_pattern_passes_a_full_match() -> None:
    """matches_context_pattern accepts a field matching the pattern built from context."""
    rule = matches_context_pattern("build_of_project", "/build", "{project}-[0-9]{1,6}")
    assert rule({"build": "bluebird-42"}, request(project="bluebird")) is None


@pytest.mark.parametrize(
    "value",
    [
        "bluebird-42x",
        "xbluebird-42",
        "bluebird-42\n",
        "redwing-42",
        "bluebird-",
        "bluebird-1234567",
    ],
)
def test_matches_context_pattern_requires_a_full_match(value: str) -> None:
    """A prefix, suffix or trailing-newline match is not a match (reason no_match)."""
    rule = matches_context_pattern("build_of_project", "/build", "{project}-[0-9]{1,6}")
    error = violation(rule, {"build": value}, request(project="bluebird"))
    assert error.reason == "no_match"


@pytest.mark.parametrize(
    ("context", "value"),
    [(".*", "anything-1"), (".*", "x-1"), ("a+", "aaa-1"), ("[a-z]", "q-1"), ("a|b", "b-1")],
)
def test_matches_context_pattern_escapes_context_values(context: str, value: str) -> None:
    """A context value is matched literally: `.*` or `a+` in context is no wildcard."""
    rule = matches_context_pattern("build_of_project", "/build", "{project}-[0-9]+")
    error = violation(rule, {"build": value}, request(project=context))
    assert error.reason == "no_match"
    assert rule({"build": f"{context}-1"}, request(project=context)) is None


def test_matches_context_pattern_substitutes_every_placeholder() -> None:
    """Each {key} is replaced by its own context value, and repeated keys are read once."""
    rule = matches_context_pattern("path", "/path", "{org}/{repo}@{org}")
    assert rule.context_keys == ("org", "repo")
    assert rule({"path": "acme/tools@acme"}, request(org="acme", repo="tools")) is None
    assert violation(rule, {"path": "acme/tools@evil"}, request(org="acme", repo="tools"))


@pytest.mark.parametrize("value", [42, None, True, ["bluebird-1"]], ids=repr)
def test_matches_context_pattern_rejects_non_strings(value: Any) -> None:
    """A non-string field never matches."""
    rule = matches_context_pattern("build_of_project", "/build", "{project}-.*")
    assert violation(rule, {"build": value}, request(project="bluebird")).reason == "no_match"


def test_matches_context_pattern_uses_ascii_classes() -> None:
    """\\d matches ASCII digits only, so Arabic-Indic digits do not pass."""
    rule = matches_context_pattern("digits", "/build", r"b-\d+")
    assert rule({"build": "b-12"}, request()) is None
    assert violation(rule, {"build": "b-\u0661\u0662"}, request()).reason == "no_match"


def test_matches_context_pattern_refuses_an_invalid_regex() -> None:
    """A pattern that does not compile is refused when the rule is built."""
    with pytest.raises(ValueError, match="regular expression"):
        matches_context_pattern("broken", "/build", "{project}-(")


def test_matches_context_pattern_answers_hostile_values_at_once() -> None:
    """`{project}-(a|a){1,64}` and nested quantifiers, hours for a backtracker on 35 bytes,
    answer at once on RE2, right both ways."""
    rule = matches_context_pattern("build", "/build", "{project}-(a|a){1,64}")
    assert rule({"build": "p-" + "a" * 64}, request(project="p")) is None
    hostile = {"build": "p-" + "a" * 34 + "!"}
    assert violation(rule, hostile, request(project="p")).reason == "no_match"
    nested = matches_context_pattern("build", "/build", "{project}-(a+)+")
    huge = {"build": "p-" + "a" * 65536 + "!"}
    assert violation(nested, huge, request(project="p")).reason == "no_match"


@pytest.mark.parametrize(
    ("pattern", "needle"),
    [
        (r"(CR)-{project}-\1", "backreference"),
        (r"{project}(?=-)-[0-9]+", "lookaround"),
        (r"{project}-[0-9]++", "possessive"),
        (r"{project}$\n", "`$`"),
        (r"{project}-[0-9]{1,5000}", "1000"),
        (r"(?:{project}-[0-9]{1,100}){1,100}", "1000"),
    ],
)
def test_matches_context_pattern_refuses_what_re2_cannot_run_alike(
    pattern: str, needle: str
) -> None:
    """Constructs RE2 cannot run in linear time, or would read unlike Python, are refused when
    the rule is built (a contract error), not met at run time."""
    with pytest.raises(ValueError, match=re.escape(needle)):
        matches_context_pattern("build", "/build", pattern)


def test_matches_context_pattern_keeps_python_case_folding_and_spaces() -> None:
    """`(?i)` folds ASCII letters only (not the Kelvin sign) and `\\s` holds `\\v`, as in
    Python's `re` with `re.ASCII`."""
    rule = matches_context_pattern("build", "/build", r"(?i){project}\sk")
    assert rule({"build": "P\x0bK"}, request(project="p")) is None
    assert violation(rule, {"build": "p \u212a"}, request(project="p")).reason == "no_match"


def test_matches_context_pattern_missing_field() -> None:
    """matches_context_pattern rejects a payload without the field with reason missing_field."""
    rule = matches_context_pattern("build_of_project", "/build", "{project}")
    assert violation(rule, {}, request(project="p")).reason == "missing_field"


# shared behaviour -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "text"),
    [
        (
            equals_context("project_matches", "/project_id", "project_id"),
            "project_matches: /project_id == context['project_id']",
        ),
        (equals_request_id("echoes", "/request_id"), "echoes: /request_id == request id"),
        (
            fresh("observation_fresh", "/observed_at", 300, 30),
            "observation_fresh: /observed_at within -300s/+30s of now",
        ),
        (
            member_of_context("run_belongs", "/run_id", "project_runs"),
            "run_belongs: /run_id in context['project_runs']",
        ),
        (
            matches_context_pattern("build", "/build", "{project}-[0-9]+"),
            "build: /build matches '{project}-[0-9]+'",
        ),
    ],
    ids=lambda value: getattr(value, "name", None) or "text",
)
def test_rule_repr_is_readable(rule: Any, text: str) -> None:
    """A rule's repr is the one-line summary diagnostics print: name, pointer, condition."""
    assert repr(rule) == text


@pytest.mark.parametrize(
    ("rule", "keys"),
    [
        (equals_context("a", "/x", "project"), ("project",)),
        (equals_request_id("a", "/x"), ()),
        (fresh("a", "/x", 1), ()),
        (member_of_context("a", "/x", "runs"), ("runs",)),
        (matches_context_pattern("a", "/x", "{org}-{team}"), ("org", "team")),
    ],
    ids=lambda value: type(value).__name__,
)
def test_rule_declares_the_context_it_reads(rule: Any, keys: tuple[str, ...]) -> None:
    """context_keys lists exactly the request context each rule reads."""
    assert rule.context_keys == keys


@pytest.mark.parametrize("kind", sorted(RULE_BY_KIND))
def test_rules_are_frozen(kind: str) -> None:
    """A built rule cannot be reconfigured by assigning to it."""
    factory = RULE_BY_KIND[kind].build
    accepted = inspect.signature(factory).parameters
    rule = factory(name="r", pointer="/x", **{k: v for k, v in OPTIONS.items() if k in accepted})
    with pytest.raises(AttributeError):
        rule.pointer = "/y"


@pytest.mark.parametrize("kind", sorted(RULE_BY_KIND))
def test_factory_documents_the_rule(kind: str) -> None:
    """Each registered factory is named after its kind and has a docstring (the rule's doc)."""
    factory = RULE_BY_KIND[kind].build
    assert factory.__name__ == kind
    assert factory.__doc__
    assert factory.__doc__.strip()


@pytest.mark.parametrize("kind", sorted(RULE_BY_KIND))
def test_a_built_rule_names_its_registry_entry(kind: str) -> None:
    """lint and diff find a rule's entry through `rule.kind`: it is the registry key."""
    factory = RULE_BY_KIND[kind].build
    accepted = inspect.signature(factory).parameters
    rule = factory(name="r", pointer="/x", **{k: v for k, v in OPTIONS.items() if k in accepted})
    assert rule.kind == kind
    entry = RULE_BY_KIND[kind]
    named = entry.wider_when_higher | entry.wider_when_more | entry.narrower_when_more
    named |= entry.judged_together | entry.files
    assert named | ({entry.binds} if entry.binds else set()) <= set(accepted)


# signed: the verifier is tested check by check in tests/signed/; here, the rule around it.

SIGNER = ed25519_signer()
ANSWER = {"change_id": "CR-1042", "decision": "approved", "reviewed_by": "alice@example.com"}


def signed_rule(**options: Any) -> Any:
    claims_map = {"sub": "/reviewed_by", "change_id": "/change_id", "decision": "/decision"}
    return signed(
        "approval_is_signed",
        "/attestation",
        key_set(SIGNER.jwk()),
        ["EdDSA"],
        ISSUER,
        **{"claims": claims_map, **options},
    )


def attested(**claim_changes: Any) -> dict[str, Any]:
    attestation = SIGNER.token(claims(**{"decision": "approved", **claim_changes}))
    return {**ANSWER, "attestation": attestation}


def test_signed_passes_when_the_token_verifies_and_binds_every_claim() -> None:
    """A genuine token whose claims equal the answer's fields: the rule passes."""
    signed_rule()(attested(), request())


def test_signed_refuses_a_field_changed_beside_a_genuine_token() -> None:
    """The service signed 'rejected'; the answer says 'approved': claim_mismatch."""
    payload = attested(decision="rejected")
    error = violation(signed_rule(), payload, request())
    assert error.reason == "claim_mismatch"
    assert "'decision'" in error.message
    assert "/decision" in error.message


def test_signed_refuses_a_token_of_another_change() -> None:
    """A genuine token about CR-1043 beside an answer about CR-1042: claim_mismatch."""
    assert violation(signed_rule(), attested(change_id="CR-1043"), request()).reason == (
        "claim_mismatch"
    )


def test_signed_refuses_a_token_without_a_bound_claim() -> None:
    """A claim the contract binds must be in the token: claim_missing."""
    assert violation(signed_rule(), attested(change_id=None), request()).reason == ("claim_missing")


def test_signed_binds_with_json_equality() -> None:
    """1 equals 1.0, true never equals 1, an object equals itself at every depth."""
    rule = signed_rule(claims={"n": "/n", "flag": "/flag", "detail": "/detail"})
    detail = {"a": [1, {"b": None}]}
    payload = {**attested(n=1.0, flag=True, detail=detail), "n": 1, "flag": True, "detail": detail}
    rule(payload, request())
    payload["flag"] = 1
    assert violation(rule, payload, request()).reason == "claim_mismatch"


@pytest.mark.parametrize(
    ("signed_value", "answered"),
    [
        (["read"], ["read", "admin"]),
        (["read", "admin"], ["read"]),
        ({"role": "viewer"}, {"role": "viewer", "admin": True}),
        ({"role": "viewer", "admin": False}, {"role": "viewer"}),
    ],
    ids=["array-grown", "array-shrunk", "object-grown", "object-shrunk"],
)
def test_signed_binds_arrays_and_objects_whole(signed_value: Any, answered: Any) -> None:
    """A signed array or object binds all of the field: an item or a member more, or fewer,
    in the answer is claim_mismatch, never a match on the part the two share."""
    rule = signed_rule(claims={"scope": "/scope"})
    payload = {**attested(scope=signed_value), "scope": answered}
    assert violation(rule, payload, request()).reason == "claim_mismatch"


def test_signed_names_itself_on_a_verifier_refusal() -> None:
    """Every verifier reason comes back as this rule's violation."""
    error = violation(signed_rule(), attested(iss="https://evil.example"), request())
    assert (error.reason, error.rule) == ("issuer_mismatch", "approval_is_signed")


def test_signed_reads_the_token_at_its_pointer() -> None:
    """No token at the pointer: missing_field; a bound pointer absent: missing_field."""
    assert violation(signed_rule(), dict(ANSWER), request()).reason == "missing_field"
    partial = {key: value for key, value in attested().items() if key != "decision"}
    assert violation(signed_rule(), partial, request()).reason == "missing_field"


def test_signed_uses_the_requests_clock() -> None:
    """--now decides expiry: the same token expires ten minutes later."""
    later = make_request(REQUEST_ID, {}, NOW + timedelta(minutes=10))
    assert violation(signed_rule(), attested(), later).reason == "token_expired"


def test_signed_repr_names_the_policy() -> None:
    """Diagnostics print the pointer, algorithms, issuer, key set and the bound claims."""
    text = repr(signed_rule())
    assert text.startswith("approval_is_signed: /attestation signed (EdDSA) by ")
    assert ISSUER in text
    assert "keys.jwks.json (1 key, sha256:" in text
    assert "binding sub=/reviewed_by, change_id=/change_id, decision=/decision" in text


def test_signed_refuses_an_empty_issuer_and_hmac() -> None:
    """The factory refuses what the contract schema would, for callers from Python."""
    with pytest.raises(ValueError, match="issuer is empty"):
        signed("s", "/t", key_set(SIGNER.jwk()), ["EdDSA"], "")
    with pytest.raises(ValueError, match="HMAC"):
        signed("s", "/t", key_set(SIGNER.jwk()), ["HS256"], ISSUER)


def test_signed_without_the_library_is_refused_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With joserfc hidden, building the rule says which extra to install."""
    monkeypatch.setitem(sys.modules, "joserfc", None)
    with pytest.raises(MissingExtra, match=r"pip install 'toolguard-cli\[signed\]'") as caught:
        signed_rule()
    assert caught.value.extra == "signed"
    lint_only = signed_rule(need_library=False)  # lint's build: the set is still judged
    assert len(lint_only.keys.keys) == 1


# context_problem: what a rule's context value may be, judged before any byte is read --------

EQUALS = equals_context("project_matches", "/project", "project")
MEMBER = member_of_context("run_belongs", "/run_id", "runs")
PATTERN = matches_context_pattern("build_of_project", "/build", "{project}-[0-9]{1,6}")


@pytest.mark.parametrize(
    ("rule", "value", "problem"),
    [
        (EQUALS, "", "is empty"),
        (PATTERN, "", "is empty"),
        (MEMBER, ["run_a", ""], "holds an empty string"),
        (PATTERN, True, "must be a string or an integer"),
        (PATTERN, 1e16, "must be a string or an integer"),
        (PATTERN, parse(b"9007199254740992.9"), "must be a string or an integer"),
        (PATTERN, None, "must be a string or an integer"),
        (EQUALS, ["bluebird"], "must be a scalar"),
        (MEMBER, "run_a", "must be a list"),
    ],
    ids=repr,
)
def test_a_context_value_no_rule_can_use_is_named(rule: Any, value: Any, problem: str) -> None:
    """An empty string (`--context key=$UNSET`) vouches for nothing; a pattern takes no float
    or boolean, whose text is not what the request wrote (`True`, `1e+16`, a nearer float)."""
    assert context_problem(rule, value) == problem


@pytest.mark.parametrize(
    ("rule", "value"),
    [
        (EQUALS, "bluebird"),
        (EQUALS, True),
        (EQUALS, None),
        (EQUALS, 1.5),
        (PATTERN, 42),
        (PATTERN, "bluebird"),
        (MEMBER, []),
        (MEMBER, ["run_a", 7, None]),
    ],
    ids=repr,
)
def test_a_context_value_of_the_rules_shape_passes(rule: Any, value: Any) -> None:
    """Values of each rule's shape pass: a boolean or null for equality, an int in a pattern."""
    assert context_problem(rule, value) is None


def test_an_empty_context_value_would_let_a_pattern_match_other_values() -> None:
    """Why an empty value is refused up front: `{project}` would vanish from the pattern."""
    assert PATTERN({"build": "-42"}, request(project="")) is None


def test_a_leap_second_stamp_is_not_read_as_younger_than_it_is() -> None:
    """23:59:60.9Z came before 00:00:00Z, so at 00:00:01.5Z it is over a second old."""
    rule = fresh("observation_fresh", "/at", max_age_seconds=1)
    now = datetime(2017, 1, 1, 0, 0, 1, 500000, tzinfo=UTC)
    stale = violation(rule, {"at": "2016-12-31T23:59:60.9Z"}, make_request(REQUEST_ID, {}, now))
    assert stale.reason == "stale"
