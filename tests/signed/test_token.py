"""A token taken apart: bounded before decoding, canonical base64url, strict JSON inside."""

from __future__ import annotations

import base64
import contextlib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from signing import b64, by_hand, claims, ed25519_signer

from toolguard.errors import RuleViolation
from toolguard.signed import token as token_module
from toolguard.signed.token import MAX_TOKEN_LENGTH, read_compact

GOOD = ed25519_signer().token(claims())


def reason(value: Any) -> str:
    with pytest.raises(RuleViolation) as info:
        read_compact(value)
    return info.value.reason


def test_a_token_is_taken_apart_into_what_was_signed() -> None:
    """Header and claims are the strict parser's objects; the signing input is the bytes."""
    compact = read_compact(GOOD)
    assert compact.header == {"alg": "EdDSA", "kid": "ed", "typ": "JWT"}
    assert compact.claims == claims()
    assert compact.signing_input == GOOD.rsplit(".", 1)[0].encode()
    assert len(compact.signature) == 64


@pytest.mark.parametrize("value", [None, 7, ["a.b.c"], {"token": GOOD}])
def test_a_value_that_is_not_a_string_is_not_a_token(value: Any) -> None:
    """Only a string can be a compact JWS."""
    assert reason(value) == "not_a_token"


def test_the_length_is_checked_before_any_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    """An over-long token is refused without a byte of it decoded."""

    def refuse(*args: Any) -> Any:
        raise AssertionError("decoded an over-long token")

    monkeypatch.setattr(token_module.base64, "urlsafe_b64decode", refuse)
    assert reason("a" * (MAX_TOKEN_LENGTH + 1)) == "token_too_long"
    assert reason(GOOD + "." * MAX_TOKEN_LENGTH) == "token_too_long"


@pytest.mark.parametrize(
    "value",
    [
        "",
        "abc",
        "a.b",
        "a.b.c.d",
        "a.b.c.d.e",  # a JWE has five segments
        GOOD.replace(".", "..", 1),
        "." + GOOD,
        GOOD.split(".")[0] + "==." + ".".join(GOOD.split(".")[1:]),  # padding
        GOOD.replace("e", "+", 1),  # base64, not base64url
        GOOD.replace("e", " ", 1),
        GOOD[:1] + "\u0430" + GOOD[2:],  # a Cyrillic a
        ".".join([GOOD.split(".")[0], "", GOOD.split(".")[2]]),  # detached payload
        "AAAAA." + ".".join(GOOD.split(".")[1:]),  # 5 characters: not a base64url length
    ],
)
def test_anything_but_three_base64url_segments_is_malformed(value: str) -> None:
    """Three non-empty unpadded base64url segments (the signature may be empty), no more."""
    assert reason(value) == "token_malformed"


def test_stray_bits_make_a_segment_non_canonical() -> None:
    """A second spelling of the same bytes is refused: one token, one byte string."""
    header, payload, signature = GOOD.split(".")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    # 64 bytes in 86 characters: the last one carries 2 bits and 4 zero bits; set one of these
    stray = signature[:-1] + alphabet[alphabet.index(signature[-1]) ^ 1]
    assert base64.urlsafe_b64decode(stray + "==") == base64.urlsafe_b64decode(signature + "==")
    assert reason(f"{header}.{payload}.{stray}") == "token_malformed"


def test_an_empty_signature_is_read_so_its_alg_can_be_refused() -> None:
    """`alg: none` tokens end in a dot: taken apart, with an empty signature."""
    unsigned = by_hand('{"alg":"none"}', '{"iss":"x"}', lambda _: b"")
    assert unsigned.endswith(".")
    assert read_compact(unsigned).signature == b""


@pytest.mark.parametrize(
    ("header", "payload", "expected"),
    [
        ('{"alg":"EdDSA","alg":"none"}', "{}", "header_malformed"),
        ('{"alg":"EdDSA","al\\u0067":"none"}', "{}", "header_malformed"),
        ('["alg","EdDSA"]', "{}", "header_malformed"),
        ('{"alg":"EdDSA"} {}', "{}", "header_malformed"),
        ('{"alg":"EdDSA","x":[[1]]}', "{}", "header_malformed"),  # deeper than the header limit
        ("\ufeff{}", "{}", "header_malformed"),
        ('{"alg":"EdDSA"}', '{"iss":"a","iss":"b"}', "claims_malformed"),
        ('{"alg":"EdDSA"}', '{"exp":NaN}', "claims_malformed"),
        ('{"alg":"EdDSA"}', '{"exp":1e400}', "claims_malformed"),
        ('{"alg":"EdDSA"}', '{"exp":99999999999999999999}', "claims_malformed"),
        ('{"alg":"EdDSA"}', '"claims"', "claims_malformed"),
        ('{"alg":"EdDSA"}', "{" * 9 + "}" * 9, "claims_malformed"),
    ],
)
def test_header_and_claims_must_pass_the_strict_parser(
    header: str, payload: str, expected: str
) -> None:
    """Duplicate members (escaped too), trailing data, non-objects and over-budget nesting."""
    assert reason(by_hand(header, payload, lambda _: b"sig")) == expected


def test_bad_utf8_in_the_claims_is_malformed() -> None:
    """The claims are UTF-8 JSON; other bytes are refused by the parser, not decoded loosely."""
    claims_bytes = b'{"sub":"\xff"}'
    value = ".".join([b64(b"{}"), b64(claims_bytes), b64(b"sig")])
    assert reason(value) == "claims_malformed"


@given(st.text(max_size=300))
def test_any_text_is_a_compact_jws_or_a_rule_violation(text: str) -> None:
    """Hostile text gets a defined answer: parts, or a RuleViolation, never another error."""
    with contextlib.suppress(RuleViolation):
        read_compact(text)


@given(st.binary(max_size=200), st.binary(max_size=200))
def test_any_decoded_bytes_are_parts_or_a_rule_violation(header: bytes, payload: bytes) -> None:
    """Whatever the segments decode to, the parser answers: objects, or a RuleViolation."""
    with contextlib.suppress(RuleViolation):
        read_compact(f"{b64(header) or 'e30'}.{b64(payload) or 'e30'}.{b64(b'x')}")
