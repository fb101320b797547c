"""Verification, check by check: every reason a token is refused, and the tokens that pass.

Tokens are PyJWT's (or hand-made and signed with `cryptography`); toolguard verifies with
joserfc, so each pass is two independent libraries agreeing.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import timedelta
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from hypothesis import given, settings
from hypothesis import strategies as st
from signing import (
    EPOCH_NOW,
    ISSUER,
    NOW,
    Signer,
    by_hand,
    claims,
    ed25519_signer,
    es256_signer,
    key_set,
    rs256_signer,
)
from strategies import json_values

from toolguard.errors import RuleViolation
from toolguard.rules import signed
from toolguard.signed.verify import media_type, verify

ED, EC, RSA = ed25519_signer(), es256_signer(), rs256_signer()


def policy(*keys: dict[str, Any], algorithms: tuple[str, ...] = ("EdDSA",), **options: Any) -> Any:
    """A signed rule (the verifier's policy) over `keys`, issuer ISSUER."""
    jwks = keys or (ED.jwk(),)
    return signed("approval", "/attestation", key_set(*jwks), list(algorithms), ISSUER, **options)


DEFAULT = policy()


def refused(token: Any, rule: Any = DEFAULT, **now: int) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        verify(token, NOW + timedelta(**now), rule)
    return info.value


def reason(token: Any, rule: Any = DEFAULT, **now: int) -> str:
    return refused(token, rule, **now).reason


def header_of(signer: Signer, **members: Any) -> str:
    return json.dumps({"alg": signer.alg, "kid": signer.kid, **members})


# Passing tokens, one per algorithm family.


@pytest.mark.parametrize(
    ("signer", "algorithms"),
    [(ED, ("EdDSA",)), (EC, ("ES256",)), (RSA, ("RS256",)), (ED, ("Ed25519",))],
    ids=["EdDSA", "ES256", "RS256", "EdDSA-token-Ed25519-pinned"],
)
def test_a_token_from_another_library_verifies(signer: Signer, algorithms: tuple[str, ...]) -> None:
    """PyJWT's EdDSA, ES256 and RS256 tokens verify with joserfc; their claims come back."""
    rule = policy(signer.jwk(), algorithms=algorithms)
    assert verify(signer.token(claims()), NOW, rule) == claims()


def test_a_token_naming_ed25519_verifies_where_eddsa_is_pinned() -> None:
    """RFC 9864's `Ed25519` and RFC 8037's `EdDSA` are the same computation on the key."""
    token = by_hand(header_of(ED, alg="Ed25519"), json.dumps(claims()), ED.private.sign)
    assert verify(token, NOW, DEFAULT) == claims()


def test_without_a_kid_the_one_fitting_key_is_used() -> None:
    """No kid: accepted when exactly one key of the set fits the algorithm."""
    anonymous = ed25519_signer(kid=None)
    rule = policy(anonymous.jwk(), EC.jwk(), algorithms=("EdDSA", "ES256"))
    assert verify(anonymous.token(claims()), NOW, rule)["sub"] == "alice@example.com"


def test_a_key_with_several_sets_of_keys_picks_by_kid() -> None:
    """The kid selects among keys of every type; each verifies its own tokens only."""
    rule = policy(ED.jwk(), EC.jwk(), RSA.jwk(), algorithms=("EdDSA", "ES256", "RS256"))
    for signer in (ED, EC, RSA):
        assert verify(signer.token(claims()), NOW, rule) == claims()


# The token's structure and its JSON (details in test_token.py).


def test_structure_reasons_reach_the_verifier() -> None:
    """not_a_token, token_too_long, token_malformed, header_malformed, claims_malformed."""
    good = ED.token(claims())
    assert reason(42) == "not_a_token"
    assert reason("e30." * 5000) == "token_too_long"
    assert reason(good + ".x") == "token_malformed"
    duplicate_alg = by_hand('{"alg":"EdDSA","kid":"ed","alg":"none"}', "{}", ED.private.sign)
    assert reason(duplicate_alg) == "header_malformed"
    payload = '{"iss":"https://evil.example","iss":"' + ISSUER + '"}'
    assert reason(by_hand(header_of(ED), payload, ED.private.sign)) == "claims_malformed"


@pytest.mark.parametrize(
    "header",
    [
        '{"kid":"ed"}',
        '{"alg":null,"kid":"ed"}',
        '{"alg":["EdDSA"]}',
        '{"alg":"EdDSA","kid":7}',
        '{"alg":"EdDSA","kid":"ed","typ":["JWT"]}',
        '{"alg":"EdDSA","kid":"ed","cty":null}',
    ],
)
def test_alg_must_be_a_string_and_kid_typ_and_cty_too(header: str) -> None:
    """A header without an `alg` string, or a `kid`, `typ` or `cty` not a string, is malformed."""
    assert reason(by_hand(header, json.dumps(claims()), ED.private.sign)) == "header_malformed"


# The algorithm: pinned by the contract, never taken from the token.


def test_alg_none_is_refused() -> None:
    """An unsigned token is refused for its algorithm, whatever it claims."""
    for alg in ("none", "None", "NONE"):
        unsigned = by_hand(json.dumps({"alg": alg}), json.dumps(claims()), lambda _: b"")
        assert reason(unsigned) == "algorithm_refused"


def test_hmac_keyed_with_the_public_key_is_refused() -> None:
    """The classic forgery: HS256 with the public key as the secret (built by hand)."""
    for public in (
        ED.private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ),
        json.dumps(ED.jwk()).encode(),
    ):
        forged = by_hand(
            '{"alg":"HS256","kid":"ed"}',
            json.dumps(claims()),
            lambda data, key=public: hmac.new(key, data, hashlib.sha256).digest(),
        )
        assert reason(forged) == "algorithm_refused"


def test_an_algorithm_the_contract_does_not_list_is_refused() -> None:
    """A genuine RS256 token, under a contract that pins EdDSA only, is refused."""
    rule = policy(ED.jwk(), RSA.jwk(), algorithms=("EdDSA", "ES256"))
    assert reason(RSA.token(claims()), rule) == "algorithm_refused"


def test_an_algorithm_the_selected_key_cannot_use_is_refused() -> None:
    """The kid names an Ed25519 key; the header says ES256: the key's type decides."""
    rule = policy(ED.jwk(), EC.jwk(), algorithms=("EdDSA", "ES256"))
    mismatched = by_hand(header_of(ED, alg="ES256"), json.dumps(claims()), ED.private.sign)
    assert reason(mismatched, rule) == "algorithm_refused"


def test_a_keys_own_alg_limits_it() -> None:
    """A key published with alg Ed25519... accepts EdDSA (the same) but not a PS256 key's RS256."""
    rule = policy(ED.jwk(alg="Ed25519"))
    assert verify(ED.token(claims()), NOW, rule) == claims()
    rsa_rule = policy(RSA.jwk(alg="PS256"), algorithms=("RS256", "PS256"))
    assert reason(RSA.token(claims()), rsa_rule) == "algorithm_refused"


# The header may not bring its own key, payload encoding or extensions.


@pytest.mark.parametrize(
    ("member", "value"),
    [
        ("jwk", ED.jwk()),
        ("jku", "https://evil.example/jwks.json"),
        ("x5u", "https://evil.example/cert.pem"),
        ("x5c", ["MIIB"]),
    ],
)
def test_a_key_or_key_location_in_the_header_is_refused(member: str, value: Any) -> None:
    """The key comes from the contract: a token naming its own key is refused, even if valid."""
    assert reason(ED.token(claims(), **{member: value})) == "key_in_header"


def test_an_unencoded_payload_is_refused() -> None:
    """b64: false (RFC 7797) changes what was signed: refused; b64: true is the default."""
    unencoded = by_hand(header_of(ED, b64=False, crit=["b64"]), "{}", ED.private.sign)
    assert reason(unencoded) == "unencoded_payload"
    encoded = by_hand(header_of(ED, b64=True, crit=["b64"]), json.dumps(claims()), ED.private.sign)
    assert verify(encoded, NOW, DEFAULT) == claims()


@pytest.mark.parametrize("value", [1, "true", [True]], ids=["one", "string", "array"])
def test_b64_is_read_only_as_the_boolean_true(value: Any) -> None:
    """A b64 that is merely truthy is not `true`: refused, however well the rest verifies."""
    token = by_hand(header_of(ED, b64=value, crit=["b64"]), json.dumps(claims()), ED.private.sign)
    assert reason(token) == "unencoded_payload"


@pytest.mark.parametrize(
    "members",
    [
        {"zip": "DEF"},  # compressed: a JWE member (RFC 7516 §4.1.3)
        {"enc": "A256GCM"},  # a JWE header (RFC 7516 §9)
        {"cty": "JWT"},  # a nested JWT (RFC 7519 §5.2), in any spelling of its media type
        {"cty": "jwt"},
        {"cty": "application/JWT"},
        {"cty": "application/jwt; charset=utf-8"},
    ],
)
def test_a_header_saying_the_payload_is_not_the_claims_is_refused(members: dict[str, Any]) -> None:
    """Compressed, encrypted or nested: toolguard reads none of these, so it believes none."""
    token = by_hand(header_of(ED, **members), json.dumps(claims()), ED.private.sign)
    assert reason(token) == "payload_not_claims"


@pytest.mark.parametrize("members", [{"typ": "JWT"}, {"typ": "at+jwt"}, {"cty": "json"}])
def test_typ_and_other_content_types_are_not_read(members: dict[str, Any]) -> None:
    """Without a pinned `typ` it is not checked; a `cty` that is no JWT's leaves the payload."""
    token = by_hand(header_of(ED, **members), json.dumps(claims()), ED.private.sign)
    assert verify(token, NOW, DEFAULT) == claims()


# Explicit typing: RFC 8725 §3.11, compared as RFC 7515 §4.1.9 says.

AT_JWT = policy(typ="at+jwt")


@pytest.mark.parametrize(
    ("typ", "pinned"),
    [
        ("at+jwt", "at+jwt"),
        ("application/at+JWT", "at+jwt"),  # `application/` implied, case-insensitive
        ("AT+JWT", "application/at+jwt"),
        ("JWT", ["at+jwt", "jwt"]),  # any of a list
        ("text/x-kind", "TEXT/X-Kind"),  # another top-level type is compared whole
    ],
)
def test_a_typ_the_contract_pins_passes_in_any_spelling_of_its_media_type(
    typ: str, pinned: Any
) -> None:
    """Case and an implied `application/` prefix do not matter; nothing else is folded."""
    token = by_hand(header_of(ED, typ=typ), json.dumps(claims()), ED.private.sign)
    assert verify(token, NOW, policy(typ=pinned)) == claims()


@pytest.mark.parametrize(
    "members",
    [
        {},  # no typ at all
        {"typ": "JWT"},  # another kind of token from the same issuer: an ID token, say
        {"typ": "logout+jwt"},
        {"typ": "application/at+jwt; charset=utf-8"},  # parameters are not stripped
        {"typ": "at+jwt "},
        {"typ": "text/at+jwt"},  # `application/` is implied only without a `/`
        {"typ": "application/application/at+jwt"},
        {"typ": ""},
    ],
)
def test_a_token_of_another_kind_is_refused_where_typ_is_pinned(members: dict[str, Any]) -> None:
    """A genuine token whose `typ` is absent or another media type: `typ_mismatch`."""
    token = by_hand(header_of(ED, **members), json.dumps(claims()), ED.private.sign)
    refusal = refused(token, AT_JWT)
    assert refusal.reason == "typ_mismatch"
    assert "'at+jwt'" in refusal.message


def test_only_ascii_letters_are_case_folded_in_typ() -> None:
    """The Kelvin sign (U+212A) lowercases to `k` in Unicode, never in a media type."""
    token = by_hand(header_of(ED, typ="\u212aind+jwt"), json.dumps(claims()), ED.private.sign)
    assert reason(token, policy(typ="kind+jwt")) == "typ_mismatch"


def test_typ_is_checked_after_the_signature_and_before_the_claims() -> None:
    """A forged token of the wrong kind is a bad signature; a genuine one fails typ first."""
    impostor = Signer(ed25519_signer(kid="x").private, "EdDSA", "ed")
    forged = by_hand(header_of(impostor, typ="JWT"), json.dumps(claims()), impostor.private.sign)
    assert reason(forged, AT_JWT) == "signature_invalid"
    genuine = by_hand(header_of(ED, typ="JWT"), json.dumps(claims(iss="x")), ED.private.sign)
    assert reason(genuine, AT_JWT) == "typ_mismatch"


@pytest.mark.parametrize(
    ("typ", "why"),
    [
        ("", "non-empty"),
        ([], "non-empty"),
        (["at+jwt", ""], "non-empty"),
        ([7], "non-empty"),
        (["at+jwt", "application/AT+JWT"], "twice"),
    ],
)
def test_a_typ_option_that_names_no_media_type_once_is_refused(typ: Any, why: str) -> None:
    """The factory refuses what the contract schema would, for callers of the Python API."""
    with pytest.raises(ValueError, match=why):
        policy(typ=typ)


@pytest.mark.parametrize(
    "members",
    [
        {"crit": ["b64", "b64"], "b64": True},  # RFC 7515 §4.1.11: no duplicate names
        {"crit": ["exp"], "exp": 1},  # a name toolguard does not understand as an extension
        {"crit": ["alg"]},  # registered names may not be listed
        {"crit": ["b64"]},  # listed but absent
        {"crit": []},
        {"crit": "b64", "b64": True},
    ],
)
def test_crit_naming_anything_unknown_is_refused(members: dict[str, Any]) -> None:
    """An extension the verifier must understand and does not: refused (RFC 7515 §4.1.11)."""
    token = by_hand(header_of(ED, **members), json.dumps(claims()), ED.private.sign)
    assert reason(token) == "crit_unknown"


# The key.


def test_a_kid_naming_no_key_is_refused() -> None:
    """A kid that names no usable key of the set: key_unknown."""
    assert reason(ED.token(claims(), kid="elsewhere")) == "key_unknown"


def test_a_kid_naming_an_ignored_key_is_refused() -> None:
    """A key set aside (use: enc) is not in the set at all for verification."""
    rule = policy(ED.jwk(), EC.jwk(use="enc"), algorithms=("EdDSA", "ES256"))
    assert reason(EC.token(claims()), rule) == "key_unknown"


def test_without_a_kid_no_fitting_key_or_several_are_refused() -> None:
    """No kid: zero fitting keys is key_unknown, two is key_ambiguous."""
    anonymous = ed25519_signer(kid=None)
    other = ed25519_signer(kid="other")
    only_ec = policy(EC.jwk(), algorithms=("EdDSA", "ES256"))
    assert reason(anonymous.token(claims()), only_ec) == "key_unknown"
    two = policy(anonymous.jwk(kid="first"), other.jwk())
    assert reason(anonymous.token(claims()), two) == "key_ambiguous"


# The signature.


def test_a_signature_by_another_key_is_refused() -> None:
    """A token signed by a key not in the set, claiming a kid in it: signature_invalid."""
    impostor = Signer(ed25519_signer(kid="x").private, "EdDSA", "ed")
    assert reason(impostor.token(claims())) == "signature_invalid"


def test_a_changed_claim_breaks_the_signature() -> None:
    """Any byte of the claims changed after signing: signature_invalid."""
    header, _, signature = ED.token(claims()).split(".")
    _, payload, _ = ED.token(claims(sub="mallory@example.com")).split(".")
    assert reason(f"{header}.{payload}.{signature}") == "signature_invalid"


@pytest.mark.parametrize("signature", ["", "AAAA", "A" * 86])
def test_a_signature_of_the_wrong_length_or_bytes_is_refused(signature: str) -> None:
    """Empty, short, or all zero: the library says no, and nothing raises."""
    header, payload, _ = ED.token(claims()).split(".")
    assert reason(f"{header}.{payload}.{signature}") == "signature_invalid"
    ec_header, ec_payload, _ = EC.token(claims()).split(".")
    rule = policy(EC.jwk(), algorithms=("ES256",))
    assert reason(f"{ec_header}.{ec_payload}.{signature}", rule) == "signature_invalid"


# The issuer.


@pytest.mark.parametrize(
    "issuer",
    [
        "https://review.example.invalid.evil",
        "https://review.example.invalid/",
        "https://REVIEW.example.invalid",
        "https://review.example",
        "",
        None,
        ["https://review.example.invalid"],
    ],
)
def test_the_issuer_must_be_exactly_the_contracts(issuer: Any) -> None:
    """Exact equality: no prefix, no case folding, no trailing slash, present and a string."""
    payload = json.dumps(claims(iss=issuer))  # PyJWT refuses to sign a list as iss
    assert reason(by_hand(header_of(ED), payload, ED.private.sign)) == "issuer_mismatch"


# The clock: exp, nbf, iat, age, lifetime, each with the skew.


def test_an_expired_token_is_refused_and_the_skew_applies() -> None:
    """exp must be after now; within the skew it still passes."""
    token = ED.token(claims(exp=EPOCH_NOW - 10))
    assert reason(token) == "token_expired"
    assert reason(ED.token(claims(exp=EPOCH_NOW))) == "token_expired"  # RFC 7519: before exp
    assert verify(token, NOW, policy(clock_skew_seconds=30)) == claims(exp=EPOCH_NOW - 10)


def test_a_token_used_before_nbf_is_refused() -> None:
    """nbf, if present, must be past (by the skew)."""
    token = ED.token(claims(nbf=EPOCH_NOW + 60))
    assert reason(token) == "token_not_yet_valid"
    assert verify(token, NOW, policy(clock_skew_seconds=60))["nbf"] == EPOCH_NOW + 60
    assert verify(ED.token(claims(nbf=EPOCH_NOW)), NOW, DEFAULT)


def test_a_token_issued_in_the_future_is_refused() -> None:
    """iat may not be ahead of now (by more than the skew)."""
    token = ED.token(claims(iat=EPOCH_NOW + 5))
    assert reason(token) == "issued_in_future"
    assert verify(token, NOW, policy(clock_skew_seconds=5))
    assert reason(ED.token(claims(iat=EPOCH_NOW + 0.5))) == "issued_in_future"
    assert verify(ED.token(claims(iat=EPOCH_NOW)), NOW, DEFAULT)


def test_a_token_older_than_max_age_is_refused() -> None:
    """max_age_seconds bounds now - iat (plus the skew), even if exp is far away."""
    token = ED.token(claims(iat=EPOCH_NOW - 601, exp=EPOCH_NOW + 3600))
    assert verify(token, NOW, DEFAULT)  # no max_age: any age before exp
    assert reason(token, policy(max_age_seconds=600)) == "token_too_old"
    assert verify(token, NOW, policy(max_age_seconds=600, clock_skew_seconds=1))


def test_a_token_living_longer_than_max_lifetime_is_refused() -> None:
    """max_lifetime_seconds bounds exp - iat: a ten-year token is refused at its first use."""
    token = ED.token(claims(iat=EPOCH_NOW - 1, exp=EPOCH_NOW + 10 * 365 * 86400))
    assert reason(token, policy(max_lifetime_seconds=3600)) == "lifetime_too_long"
    assert verify(ED.token(claims()), NOW, policy(max_lifetime_seconds=600))
    # claims(): iat 60 s ago, exp in 540 s: it lives exactly 600 s
    assert reason(ED.token(claims(exp=EPOCH_NOW + 540.5)), policy(max_lifetime_seconds=600)) == (
        "lifetime_too_long"
    )


@pytest.mark.parametrize("claim", ["exp", "iat"])
def test_exp_and_iat_are_required(claim: str) -> None:
    """A token without exp never expires; without iat its age is unknown: both refused."""
    assert reason(ED.token(claims(**{claim: None}))) == "claim_missing"


@pytest.mark.parametrize("value", ["1773480600", True, None, [1], {"t": 1}])
@pytest.mark.parametrize("claim", ["exp", "nbf", "iat"])
def test_time_claims_must_be_numbers(claim: str, value: Any) -> None:
    """A NumericDate is a JSON number: strings, booleans, null and containers are malformed."""
    payload = {**claims(), claim: value}
    assert reason(by_hand(header_of(ED), json.dumps(payload), ED.private.sign)) == (
        "claim_malformed"
    )


def test_a_fractional_numeric_date_is_a_number() -> None:
    """RFC 7519 NumericDates may be non-integer."""
    assert verify(ED.token(claims(exp=EPOCH_NOW + 0.5)), NOW, DEFAULT)
    assert reason(ED.token(claims(exp=EPOCH_NOW + 0.5)), seconds=1) == "token_expired"


# The audience: RFC 7519 §4.1.3.


def test_an_aud_claim_is_refused_when_the_contract_names_no_audience() -> None:
    """A token meant for someone in particular is not taken by a verifier who is no one."""
    assert reason(ED.token(claims(aud="toolguard"))) == "audience_mismatch"


@pytest.mark.parametrize("aud", ["toolguard", ["other", "toolguard"]])
def test_an_aud_listing_the_audience_passes(aud: Any) -> None:
    """A string or an array that holds the configured audience."""
    assert verify(ED.token(claims(aud=aud)), NOW, policy(audience="toolguard"))["aud"] == aud


@pytest.mark.parametrize("aud", ["other", ["other"], [], "toolguard-prod", None])
def test_an_aud_without_the_audience_is_refused(aud: Any) -> None:
    """Not listed (no prefix match), empty, or absent when an audience is configured."""
    assert reason(ED.token(claims(aud=aud)), policy(audience="toolguard")) == "audience_mismatch"


@pytest.mark.parametrize("aud", [7, ["toolguard", 7], {"a": "toolguard"}])
def test_an_aud_of_the_wrong_type_is_malformed(aud: Any) -> None:
    """aud is a string or an array of strings."""
    payload = json.dumps({**claims(), "aud": aud})
    rule = policy(audience="toolguard")
    assert reason(by_hand(header_of(ED), payload, ED.private.sign), rule) == "claim_malformed"


def test_the_checks_run_in_order_signature_before_claims() -> None:
    """A forged token with perfect claims says signature_invalid, never a claim's reason."""
    impostor = Signer(ed25519_signer(kid="x").private, "EdDSA", "ed")
    assert reason(impostor.token(claims(iss="wrong", exp=1))) == "signature_invalid"


def test_messages_name_the_check_and_the_values() -> None:
    """The operator sees what failed: the issuer, the expiry instant, the key."""
    message = refused(ED.token(claims(iss="https://evil.example"))).message
    assert "'https://evil.example'" in message
    assert ISSUER in message
    expired = refused(ED.token(claims(exp=EPOCH_NOW - 60))).message
    assert "2026-03-14T09:29:00Z" in expired
    assert "kid 'elsewhere'" in refused(ED.token(claims(), kid="elsewhere")).message


HEADER_MEMBERS = st.dictionaries(
    st.sampled_from(["alg", "kid", "typ", "crit", "b64", "jwk", "cty", "x5t", "zip", "enc"]),
    st.one_of(
        st.sampled_from(["EdDSA", "Ed25519", "ES256", "none", "HS256", "ed", "b64", "AT+jwt"]),
        json_values(max_depth=1),
    ),
)
CLAIM_MEMBERS = st.dictionaries(
    st.sampled_from(["iss", "sub", "aud", "exp", "nbf", "iat", "change_id"]),
    st.one_of(
        st.sampled_from([ISSUER, "toolguard"]),
        st.integers(EPOCH_NOW - 900, EPOCH_NOW + 900),
        json_values(),
    ),
)


ANY_HEADER = policy(
    ED.jwk(), EC.jwk(), algorithms=("EdDSA", "ES256"), audience="toolguard", typ="at+jwt"
)


@settings(max_examples=300)
@given(HEADER_MEMBERS, CLAIM_MEMBERS)
def test_any_signed_header_and_claims_get_a_defined_answer(
    header: dict[str, Any], payload: dict[str, Any]
) -> None:
    """Genuinely signed but arbitrary header and claims: verified claims or a RuleViolation."""
    token = by_hand(json.dumps(header), json.dumps(payload), ED.private.sign)
    verified: dict[str, Any] | None = None
    try:
        verified = verify(token, NOW, ANY_HEADER)
    except RuleViolation as violation:
        refusal = violation.reason
    else:
        refusal = None
    assert refusal is None or refusal in REASONS
    if verified is not None:  # what passed, passed every check
        assert verified["iss"] == ISSUER
        assert header.get("alg") in {"EdDSA", "Ed25519"}
        assert "jwk" not in header
        assert header.get("b64", True) is True
        assert "zip" not in header
        assert "enc" not in header
        assert media_type(header["typ"]) == "at+jwt"


REASONS = {
    "not_a_token",
    "token_too_long",
    "token_malformed",
    "header_malformed",
    "claims_malformed",
    "algorithm_refused",
    "key_in_header",
    "unencoded_payload",
    "payload_not_claims",
    "crit_unknown",
    "key_unknown",
    "key_ambiguous",
    "signature_invalid",
    "typ_mismatch",
    "issuer_mismatch",
    "token_expired",
    "token_not_yet_valid",
    "issued_in_future",
    "token_too_old",
    "lifetime_too_long",
    "claim_missing",
    "claim_malformed",
    "audience_mismatch",
}


# What `diff` compares: a key set's routes are exactly the tokens that reach a signature check.

ROUTE_SIGNERS = (ed25519_signer("a"), ed25519_signer("b"), es256_signer("c"))


@pytest.mark.parametrize(
    ("held", "algorithms"),
    [
        ((0,), ("EdDSA",)),
        ((0, 1), ("EdDSA",)),
        ((0, 2), ("EdDSA",)),
        ((0, 2), ("EdDSA", "ES256")),
        ((0, 1, 2), ("EdDSA", "ES256")),
        ((2,), ("ES256",)),
    ],
)
def test_routes_are_the_tokens_the_key_set_lets_through(
    held: tuple[int, ...], algorithms: tuple[str, ...]
) -> None:
    """A token (with its kid or without one) verifies exactly when its route is listed."""
    rule = policy(*(ROUTE_SIGNERS[index].jwk() for index in held), algorithms=algorithms)
    routes = {(route.alg, route.kid, route.thumbprint) for route in rule.keys.routes(algorithms)}
    thumbprints = {key.kid: key.thumbprint for key in rule.keys}
    seen = 0
    for signer in ROUTE_SIGNERS:
        thumbprint = thumbprints.get(signer.kid, "not in the set")
        for kid in (signer.kid, None):
            token = Signer(signer.private, signer.alg, kid).token(claims())
            try:
                verify(token, NOW, rule)
                passes = True
            except RuleViolation:
                passes = False
            assert passes is ((signer.alg, kid, thumbprint) in routes), (signer.kid, kid)
            seen += passes
    assert seen == sum(1 for alg, _, _ in routes if alg in {"EdDSA", "ES256"})
