"""Fuzz target: the `signed` rule's token reading and verification (`signed/verify.py`).

The policies are those of the real JOSE libraries' cases in `tests/data/signed/interop/`
(their key sets, algorithms, issuer, audience and options; the cases whose key set a
contract refuses left out), at those files' `now`. An input's first byte picks the policy;
the rest is the token (UTF-8, or each byte a character when it is not). For each input:

- `verify` returns the claims or raises `RuleViolation`, never another exception, and the
  reason is one `docs/signed.md`'s table of checks names;
- a token that verifies is genuine: its signed part (header and payload segments) is byte
  for byte that of a token a library signed (a seed not altered after signing), whatever
  else was mutated (an ECDSA signature has a second valid spelling, the high-S twin), and
  its claims are that payload's.

    python fuzz/signed_token.py -max_total_time=60
"""

from __future__ import annotations

import base64
import json
import re
from datetime import datetime
from typing import Any

import harness
import seeds

with harness.instrumented():
    from toolguard.errors import RuleViolation
    from toolguard.signed.verify import verify

_REASON_CELL = re.compile(r"^\| [0-9]+ \|.*\| ([^|]+) \|$", re.MULTILINE)
REASONS = frozenset(
    word
    for cell in _REASON_CELL.findall((harness.REPO / "docs" / "signed.md").read_text("utf-8"))
    for word in re.findall(r"`([a-z_]+)`", cell)
)


def _policies() -> list[tuple[Any, datetime]]:
    """Each interop case's policy and clock, in a fixed order (the seeds' first bytes)."""
    return [
        (seeds.signed_policy(document, case), datetime.fromisoformat(document["now"]))
        for document, case in seeds.signed_cases()
    ]


POLICIES = _policies()
# NOTE: every token a library (or the hand that assembled one) signed, whatever its own case
# refuses it for (its clock, its audience, an `alg` its policy does not allow): under another
# case's policy it may verify. Not those altered after signing (`signature_invalid`).
GENUINE = frozenset(
    case["token"].rsplit(".", 1)[0]
    for _, case in seeds.signed_cases()
    if isinstance(case["token"], str) and case["expect"] != "signature_invalid"
)


def token_of(data: bytes) -> tuple[int, str]:
    """The policy an input picks, and its token."""
    index = data[0] % len(POLICIES) if data else 0
    raw = data[1:]
    try:
        return index, raw.decode("utf-8")
    except UnicodeDecodeError:
        return index, raw.decode("latin-1")


def test_one_input(data: bytes) -> None:
    """Verify one token with the policy it picks; an `AssertionError` is a finding."""
    index, token = token_of(data)
    policy, now = POLICIES[index]
    try:
        claims = verify(token, now, policy)
    except RuleViolation as refusal:
        assert refusal.reason in REASONS, f"an undocumented reason {refusal.reason!r}"
        return
    signed_part = token.rsplit(".", 1)[0]
    assert signed_part in GENUINE, f"a token no library signed verified: {token!r}"
    payload = signed_part.split(".")[1]
    decoded = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert claims == decoded, "the claims are not the signed payload's"


def main() -> None:
    """Fuzz, with every interop token under each policy that verifies it, and the refused."""
    harness.run(
        "signed_token",
        test_one_input,
        seeds=seeds.signed_tokens,
        dictionary=(b".", b"-", b"_", b"eyJ", b"eyJhbGciOi", b"=", b"+", b"/", b"A", b"AA"),
        max_len=seeds.SIGNED_MAX_LEN,
    )


if __name__ == "__main__":
    main()
