"""A compact JWS (RFC 7515 §7.1) -> its header, its claims and what the signature covers.

The length is checked before any byte is decoded; each segment must be canonical, unpadded
base64url (one token, one byte string: no second spelling verifies); the header and the claims
must each be one JSON object that toolguard's strict parser accepts within its limits. A JOSE
library would read them with `json.loads`, which keeps the last of two `alg` or `iss` members:
the parser disagreement toolguard exists to stop. Every refusal is a `RuleViolation`.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from toolguard.errors import Rejection, RuleViolation
from toolguard.limits import Limits
from toolguard.parse import parse

MAX_TOKEN_LENGTH = 16 << 10  # characters; an RSA-4096 signature alone is 683
HEADER_LIMITS = Limits(
    max_bytes=2 << 10, max_depth=2, max_string_length=1 << 10, max_container_items=32
)
CLAIMS_LIMITS = Limits(
    max_bytes=MAX_TOKEN_LENGTH, max_depth=8, max_string_length=4 << 10, max_container_items=256
)
_BASE64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


@dataclass(frozen=True, slots=True)
class Compact:
    """A token taken apart: nothing in it is trusted until the signature verifies."""

    header: dict[str, Any]
    claims: dict[str, Any]
    signing_input: bytes  # ASCII(header segment "." payload segment), what was signed
    signature: bytes


def read_compact(token: Any) -> Compact:
    """The parts of `token`, or `RuleViolation` naming what makes it no compact JWS."""
    if not isinstance(token, str):
        raise RuleViolation("not_a_token", f"the token is a {type(token).__name__}, not a string")
    if len(token) > MAX_TOKEN_LENGTH:
        raise RuleViolation(
            "token_too_long",
            f"the token is {len(token)} characters long, over {MAX_TOKEN_LENGTH}",
        )
    segments = token.split(".")
    if len(segments) != 3:
        raise RuleViolation(
            "token_malformed",
            f"a compact JWS has 3 segments (header.payload.signature); this has {len(segments)}",
        )
    header_segment, payload_segment, signature_segment = segments
    # NOTE: all three segments are decoded before any JSON is read (docs/signed.md, check 3
    # before 4 and 5). An empty signature (`alg: none`) is read, so it is refused for its
    # `alg`; it could never verify.
    header_bytes = _decoded(header_segment, "header")
    payload_bytes = _decoded(payload_segment, "payload")
    signature = _decoded(signature_segment, "signature") if signature_segment else b""
    header = _json(header_bytes, HEADER_LIMITS, "header")
    claims = _json(payload_bytes, CLAIMS_LIMITS, "claims")
    signing_input = f"{header_segment}.{payload_segment}".encode("ascii")
    return Compact(header, claims, signing_input, signature)


def _decoded(segment: str, what: str) -> bytes:
    if not segment or len(segment) % 4 == 1 or not set(segment) <= _BASE64URL:
        raise RuleViolation("token_malformed", f"the {what} segment is not unpadded base64url")
    decoded = base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
    if base64.urlsafe_b64encode(decoded).rstrip(b"=").decode("ascii") != segment:
        raise RuleViolation(
            "token_malformed", f"the {what} segment is not canonical base64url (stray bits)"
        )
    return decoded


def _json(raw: bytes, limits: Limits, what: str) -> dict[str, Any]:
    try:
        value = parse(raw, limits)
    except Rejection as exc:
        raise RuleViolation(
            f"{what}_malformed", f"the token's {what} is not strict JSON: {exc.message}"
        ) from None
    if not isinstance(value, dict):
        raise RuleViolation(f"{what}_malformed", f"the token's {what} is not a JSON object")
    return value
