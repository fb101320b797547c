"""The documented order of checks, walked from docs/signed.md's own table.

Each case fails one row of "Every check, in order" and, as far as one token can, every row
below it too; the rule must answer with that row's reason, never a later one. The rows are
read from the docs, so a row added there without a case here, or a reason renamed, fails.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from signing import EPOCH_NOW, ISSUER, NOW, b64, ed25519_signer, key_set

from toolguard.errors import RuleViolation
from toolguard.request import make_request
from toolguard.rules import signed

DOCS = Path(__file__).resolve().parents[2] / "docs" / "signed.md"
ED, ED_NEXT, STRANGER = ed25519_signer("ed"), ed25519_signer("ed-next"), ed25519_signer("x")
RULE = signed(
    "walk",
    "/attestation",
    key_set(ED.jwk(), ED_NEXT.jwk()),
    ["EdDSA", "ES256"],
    ISSUER,
    max_age_seconds=600,
    max_lifetime_seconds=900,
    claims={"change_id": "/change_id"},
    typ="at+jwt",
)
# A token of another kind: row 14 fails on it.
OTHER_KIND = {"typ": "JWT"}
# Every header check after row 7 fails on these (a key location, b64 false, a compressed
# payload, an unknown crit, another kind).
LATER_HEADER = {
    "jku": "https://evil.example/keys",
    "b64": False,
    "zip": "DEF",
    "crit": ["zz"],
    **OTHER_KIND,
}
# Rows 19-22 fail on these claims: too old and too long-lived, an aud, another change.
LATER_CLAIMS = {"iat": EPOCH_NOW - 5000, "aud": "someone", "change_id": "CR-9"}
GOOD_CLAIMS = {"iss": ISSUER, "exp": EPOCH_NOW + 540, "iat": EPOCH_NOW - 60, "change_id": "CR-1042"}


def _table() -> dict[int, set[str]]:
    """Row number -> the reasons its last column names, from the docs."""
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("## Every check, in order", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        match = re.fullmatch(r"\| (\d+) \| .* \| (.*) \|", line)
        if match:
            rows[int(match.group(1))] = set(re.findall(r"`([a-z_]+)`", match.group(2)))
    return rows


def _segment(text: str) -> str:
    return b64(text.encode())


def _token(
    header: Any, claims: Any, *, signer: Any = STRANGER, signature: str | None = None
) -> str:
    """A compact JWS of `header` and `claims` (JSON text if a str), signed by `signer`."""
    parts = [h if isinstance(h, str) else json.dumps(h) for h in (header, claims)]
    signing_input = f"{_segment(parts[0])}.{_segment(parts[1])}"
    if signature is None:
        signature = b64(signer.private.sign(signing_input.encode()))
    return f"{signing_input}.{signature}"


def _claims(**changes: Any) -> dict[str, Any]:
    merged = {**GOOD_CLAIMS, **changes}
    return {name: value for name, value in merged.items() if value is not None}


HEADER_ALL_WRONG = {"alg": "HS256", "kid": 5, **LATER_HEADER}
CLAIMS_ALL_WRONG = _claims(iss="https://evil.example", exp=EPOCH_NOW - 10, nbf=EPOCH_NOW + 99)
CLAIMS_ALL_WRONG |= LATER_CLAIMS
SIGNED = {"alg": "EdDSA", "kid": "ed", "typ": "application/AT+JWT"}
SIGNED_OTHER_KIND = SIGNED | OTHER_KIND
Case = tuple[int, str, Callable[[], Any]]
CASES: list[Case] = [
    (1, "a number", lambda: 5),
    (1, "absent", lambda: None),
    (2, "too long and no JWS", lambda: "!" * (16 << 10) + "!"),
    (3, "two segments", lambda: "e30.e30"),
    (3, "payload segment with +", lambda: f"{_segment('not json')}.a+b.AAAA"),
    (
        3,
        "signature padded, header and claims not JSON",
        lambda: f"{_segment('not json')}.{_segment('not json')}.AAAA==",
    ),
    (3, "signature with stray bits", lambda: f"{_segment('{')}.{_segment('{')}.AB"),
    (3, "empty payload", lambda: f"{_segment('{')}..AAAA"),
    (4, "duplicate alg", lambda: _token('{"alg":"EdDSA","alg":"EdDSA"}', "not json")),
    (4, "header not JSON", lambda: _token("{", "not json")),
    (5, "claims not JSON", lambda: _token(HEADER_ALL_WRONG, "[1")),
    (5, "claims an array", lambda: _token(HEADER_ALL_WRONG, "[]")),
    (6, "kid a number", lambda: _token(HEADER_ALL_WRONG, CLAIMS_ALL_WRONG)),
    (6, "kid null", lambda: _token({"alg": "EdDSA", "kid": None, "b64": False}, {})),
    (6, "no alg", lambda: _token({"kid": 5, **LATER_HEADER}, CLAIMS_ALL_WRONG)),
    (
        6,
        "cty a number",
        lambda: _token({"alg": "HS256", "cty": 7, **LATER_HEADER}, CLAIMS_ALL_WRONG),
    ),
    (7, "HS256", lambda: _token({"alg": "HS256", **LATER_HEADER}, CLAIMS_ALL_WRONG)),
    (7, "none", lambda: _token({"alg": "none", **LATER_HEADER}, {}, signature="")),
    (8, "jku", lambda: _token({**SIGNED, "kid": "nokey", **LATER_HEADER}, CLAIMS_ALL_WRONG)),
    (
        9,
        "b64 false",
        lambda: _token({**SIGNED_OTHER_KIND, "kid": "nokey", "b64": False, "crit": ["zz"]}, {}),
    ),
    (
        9,
        "zip",
        lambda: _token({**SIGNED_OTHER_KIND, "kid": "nokey", "zip": "DEF", "crit": ["zz"]}, {}),
    ),
    (
        10,
        "crit unknown",
        lambda: _token({**SIGNED_OTHER_KIND, "kid": "nokey", "crit": ["zz"]}, {}),
    ),
    (
        11,
        "kid of no key",
        lambda: _token({**SIGNED_OTHER_KIND, "kid": "nokey"}, CLAIMS_ALL_WRONG),
    ),
    (11, "no kid, two keys fit", lambda: _token({"alg": "EdDSA"}, CLAIMS_ALL_WRONG)),
    (12, "ES256 by an Ed25519 key", lambda: _token({**SIGNED_OTHER_KIND, "alg": "ES256"}, {})),
    (13, "another key's signature", lambda: _token(SIGNED_OTHER_KIND, CLAIMS_ALL_WRONG)),
    (14, "another kind", lambda: _token(SIGNED_OTHER_KIND, CLAIMS_ALL_WRONG, signer=ED)),
    (14, "no typ", lambda: _token({"alg": "EdDSA", "kid": "ed"}, CLAIMS_ALL_WRONG, signer=ED)),
    (15, "iss", lambda: _token(SIGNED, CLAIMS_ALL_WRONG, signer=ED)),
    (
        16,
        "no exp",
        lambda: _token(SIGNED, _claims(exp=None, nbf=EPOCH_NOW + 99, **LATER_CLAIMS), signer=ED),
    ),
    (16, "exp a string", lambda: _token(SIGNED, _claims(exp="soon", iat=None), signer=ED)),
    (
        16,
        "expired",
        lambda: _token(SIGNED, _claims(exp=EPOCH_NOW - 10, nbf="x", **LATER_CLAIMS), signer=ED),
    ),
    (
        17,
        "not yet valid",
        lambda: _token(SIGNED, _claims(nbf=EPOCH_NOW + 99, iat=EPOCH_NOW + 50), signer=ED),
    ),
    (17, "nbf a string", lambda: _token(SIGNED, _claims(nbf="x", iat=None), signer=ED)),
    (
        18,
        "no iat",
        lambda: _token(SIGNED, _claims(iat=None, aud="someone", change_id="CR-9"), signer=ED),
    ),
    (
        18,
        "issued in the future",
        lambda: _token(SIGNED, _claims(iat=EPOCH_NOW + 50, exp=EPOCH_NOW + 5000, aud=5), signer=ED),
    ),
    (19, "too old", lambda: _token(SIGNED, _claims(**LATER_CLAIMS), signer=ED)),
    (
        20,
        "lifetime too long",
        lambda: _token(SIGNED, _claims(exp=EPOCH_NOW + 5000, aud="x", change_id="C"), signer=ED),
    ),
    (21, "an aud", lambda: _token(SIGNED, _claims(aud="someone", change_id="C"), signer=ED)),
    (21, "aud a number", lambda: _token(SIGNED, _claims(aud=5, change_id="C"), signer=ED)),
    (22, "another change", lambda: _token(SIGNED, _claims(change_id="CR-9"), signer=ED)),
    (22, "no bound claim", lambda: _token(SIGNED, _claims(change_id=None), signer=ED)),
]


def test_every_documented_row_has_a_case() -> None:
    """The table has the rows the code checks, in order, and each one is walked here."""
    rows = _table()
    assert sorted(rows) == list(range(1, len(rows) + 1))
    assert {row for row, _, _ in CASES} == set(rows)


@pytest.mark.parametrize(
    ("row", "make"), [(row, make) for row, _, make in CASES], ids=[what for _, what, _ in CASES]
)
def test_a_token_failing_a_row_gets_that_rows_reason(row: int, make: Callable[[], Any]) -> None:
    """A token failing row N (and rows below it) is refused with one of row N's reasons."""
    token = make()
    payload = {"change_id": "CR-1042"} | ({} if token is None else {"attestation": token})
    with pytest.raises(RuleViolation) as info:
        RULE(payload, make_request("req.order.1", {}, NOW))
    assert info.value.reason in _table()[row], info.value.message
