"""Verify a compact JWS against the contract's policy -> its claims, or a `RuleViolation`.

In order: the token's parts (`token.py`); the header (a pinned `alg`, no key or key location,
a payload that is the claims as they are, no unknown `crit`); the key (`kid` selects one, or
exactly one key fits); the signature; the token's kind (`typ`, if the contract pins one); then
the claims: `iss`, the clock (`exp`, `nbf`, `iat`,
age and lifetime, each with the skew) and `aud`. Nothing the token says about itself is
believed before the step that checks it. The `signed` rule then binds the verified claims to
the payload.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

from toolguard.errors import RuleViolation
from toolguard.signed import jose
from toolguard.signed.algorithms import ALGORITHMS, could_be_listed
from toolguard.signed.keyset import Key, KeySet
from toolguard.signed.token import read_compact

# RFC 7515 §4.1.2-§4.1.6: the token would name the key that verifies it.
KEY_IN_HEADER = ("jwk", "jku", "x5u", "x5c")
# The extensions toolguard understands when `crit` names them: RFC 7797's `b64`, as `true`.
UNDERSTOOD = frozenset({"b64"})
# Registered members that are strings when present (RFC 7515 §4.1.4, §4.1.9, §4.1.10).
STRINGS = ("kid", "typ", "cty")
# What the payload would be if the header were believed: it is read as the claims, or refused.
NOT_CLAIMS = {
    "zip": "compressed (zip, a JWE member: RFC 7516 §4.1.3)",
    "enc": "encrypted (enc makes the header a JWE's: RFC 7516 §9)",
}


class Policy(Protocol):
    """What the contract pins (the `signed` rule's own fields)."""

    @property
    def keys(self) -> KeySet: ...  # noqa: D102
    @property
    def algorithms(self) -> tuple[str, ...]: ...  # noqa: D102
    @property
    def issuer(self) -> str: ...  # noqa: D102
    @property
    def audience(self) -> str | None: ...  # noqa: D102
    @property
    def max_age_seconds(self) -> int | None: ...  # noqa: D102
    @property
    def clock_skew_seconds(self) -> int: ...  # noqa: D102
    @property
    def max_lifetime_seconds(self) -> int | None: ...  # noqa: D102
    @property
    def typ(self) -> tuple[str, ...] | None: ...  # noqa: D102


def verify(token: Any, now: datetime, policy: Policy) -> dict[str, Any]:
    """The verified claims of `token` at `now`, or `RuleViolation` naming the check that failed."""
    compact = read_compact(token)
    alg = _header(compact.header, policy)
    key, imported = _select(compact.header, alg, policy)
    computation = ALGORITHMS[alg].computation(key.crv)
    if not jose.signature_verifies(computation, compact.signing_input, compact.signature, imported):
        raise RuleViolation(
            "signature_invalid", f"the {alg} signature does not verify with key {key.label}"
        )
    _typ(compact.header, policy.typ)
    _claims(compact.claims, now.timestamp(), policy)
    return compact.claims


def pinned_types(typ: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """The contract's `typ` (one media type or a list) as `media_type`s; None: not read.

    `ValueError` for an empty or non-string value, or two that name one media type.
    """
    if typ is None:
        return None
    listed = [typ] if isinstance(typ, str) else list(typ)
    if not listed or not all(isinstance(each, str) and each for each in listed):
        raise ValueError("typ must be a non-empty media type or a non-empty list of them")
    types = tuple(map(media_type, listed))
    if len(set(types)) != len(types):
        raise ValueError(f"typ names one media type twice: {', '.join(map(repr, listed))}")
    return types


def media_type(value: str) -> str:
    """A `typ`/`cty` value as RFC 7515 §4.1.9 compares it, in its short form.

    Case-insensitive, with `application/` implied where no other `/` appears: `at+jwt` is
    `application/at+JWT`. Nothing else is folded (parameters and spaces stay).
    """
    # NOTE: ASCII case only: `str.lower` would fold the Kelvin sign U+212A to `k`.
    lowered = value.lower() if value.isascii() else value
    rest = lowered.removeprefix("application/")
    return rest if "/" not in rest else lowered


def _typ(header: dict[str, Any], typ: tuple[str, ...] | None) -> None:
    """RFC 8725 §3.11: a token of another kind (`typ`) is refused where the contract pins one."""
    if typ is None:
        return
    if "typ" not in header:
        raise RuleViolation("typ_mismatch", f"the token has no typ; the contract wants {_or(typ)}")
    if media_type(header["typ"]) not in typ:
        raise RuleViolation("typ_mismatch", f"the token's typ is {header['typ']!r}, not {_or(typ)}")


def _or(types: tuple[str, ...]) -> str:
    return " or ".join(map(repr, types))


def _header(header: dict[str, Any], policy: Policy) -> str:
    """The header's `alg`, once the header asks for nothing the contract does not allow."""
    alg = header.get("alg")
    if not isinstance(alg, str):
        raise RuleViolation("header_malformed", "the token's header has no 'alg' string")
    for member in STRINGS:
        if member in header and not isinstance(header[member], str):
            raise RuleViolation("header_malformed", f"the token's {member} is not a string")
    if not could_be_listed(alg, policy.algorithms):
        raise RuleViolation(
            "algorithm_refused",
            f"the token is signed with {alg!r}; the contract allows {', '.join(policy.algorithms)}",
        )
    named = [member for member in KEY_IN_HEADER if member in header]
    if named:
        raise RuleViolation(
            "key_in_header",
            f"the token's header carries {', '.join(named)}: the key comes from the contract, "
            "never from the token",
        )
    _payload_is_claims(header)
    if "crit" in header:
        crit = header["crit"]
        if (
            not isinstance(crit, list)
            or not crit
            or not all(isinstance(c, str) for c in crit)
            or len(set(crit)) != len(crit)
        ):
            raise RuleViolation(
                "crit_unknown", "the token's crit is not a non-empty array of distinct strings"
            )
        unknown = [name for name in crit if name not in UNDERSTOOD or name not in header]
        if unknown:
            raise RuleViolation(
                "crit_unknown",
                f"the token's crit names {', '.join(map(repr, unknown))}, which toolguard "
                "does not understand",
            )
    return alg


def _payload_is_claims(header: dict[str, Any]) -> None:
    """Refuse a header that says the payload is anything but the claims, base64url-encoded."""
    if "b64" in header and header["b64"] is not True:
        raise RuleViolation(
            "unencoded_payload", "the token's header sets b64 (RFC 7797): only b64: true is read"
        )
    transformed = [why for member, why in NOT_CLAIMS.items() if member in header]
    if _names_a_jwt(header.get("cty")):
        transformed.append(f"a nested JWT (cty {header['cty']!r}: RFC 7519 §5.2)")
    if transformed:
        raise RuleViolation(
            "payload_not_claims",
            f"the token's header says its payload is {'; '.join(transformed)}: toolguard "
            "reads a compact JWS whose payload is the claims, and nothing else",
        )


def _names_a_jwt(cty: str | None) -> bool:
    """Whether a `cty` media type is JWT's: any case, `application/` implied (RFC 7515 §4.1.10)."""
    if cty is None:
        return False
    return media_type(cty.split(";", 1)[0].strip()) == "jwt"


def _select(header: dict[str, Any], alg: str, policy: Policy) -> tuple[Key, Any]:
    """The key `kid` names (or the one key that fits `alg`) with its library object."""
    keys = policy.keys
    if "kid" in header:
        found = [index for index, key in enumerate(keys) if key.kid == header["kid"]]
        if not found:
            raise RuleViolation(
                "key_unknown", f"the token's kid {header['kid']!r} names no key in {keys.file}"
            )
        key = keys.keys[found[0]]
        if not key.accepts(alg, policy.algorithms):
            raise RuleViolation(
                "algorithm_refused",
                f"the token is signed with {alg!r}, which key {key.label} ({key.kty}"
                f"{' ' + key.crv if key.crv else ''}"
                f"{', alg ' + key.alg if key.alg else ''}) cannot verify",
            )
        return key, _imported(keys, found[0])
    fitting = keys.fitting(alg, policy.algorithms)
    if len(fitting) != 1:
        reason = "key_unknown" if not fitting else "key_ambiguous"
        raise RuleViolation(
            reason,
            f"the token has no kid and {len(fitting)} keys in {keys.file} fit {alg!r}: "
            "without a kid exactly one must",
        )
    return keys.keys[fitting[0]], _imported(keys, fitting[0])


def _imported(keys: KeySet, index: int) -> Any:
    if not keys.imported:
        raise RuntimeError("this signed rule was built without the signed extra (lint only)")
    return keys.imported[index]


def _claims(claims: dict[str, Any], now: float, policy: Policy) -> None:
    """The registered claims: issuer, clock and audience."""
    issuer = claims.get("iss")
    if issuer != policy.issuer or not isinstance(issuer, str):
        raise RuleViolation(
            "issuer_mismatch", f"the token's iss is {issuer!r}, not {policy.issuer!r}"
        )
    skew = policy.clock_skew_seconds
    expires = _instant(claims, "exp", required=True)
    if now >= expires + skew:
        raise RuleViolation(
            "token_expired", f"the token expired at {_shown(expires)} (now {_shown(now)})"
        )
    not_before = _instant(claims, "nbf", required=False)
    if not_before is not None and now + skew < not_before:
        raise RuleViolation(
            "token_not_yet_valid",
            f"the token is not valid before {_shown(not_before)} (now {_shown(now)})",
        )
    issued = _instant(claims, "iat", required=True)
    if issued > now + skew:
        raise RuleViolation(
            "issued_in_future", f"the token was issued at {_shown(issued)}, after {_shown(now)}"
        )
    if policy.max_age_seconds is not None and now - issued > policy.max_age_seconds + skew:
        raise RuleViolation(
            "token_too_old",
            f"the token was issued at {_shown(issued)}, over {policy.max_age_seconds}s "
            f"before {_shown(now)}",
        )
    lifetime = policy.max_lifetime_seconds
    if lifetime is not None and expires - issued > lifetime:
        raise RuleViolation(
            "lifetime_too_long",
            f"the token lives {expires - issued:g}s (iat to exp), over {lifetime}s",
        )
    _audience(claims, policy.audience)


def _audience(claims: dict[str, Any], audience: str | None) -> None:
    """RFC 7519 §4.1.3: an `aud` the verifier is not in rejects the token."""
    if "aud" not in claims:
        if audience is not None:
            raise RuleViolation(
                "audience_mismatch", f"the token has no aud claim; {audience!r} is required"
            )
        return
    aud = claims["aud"]
    listed = [aud] if isinstance(aud, str) else aud
    if not isinstance(listed, list) or not all(isinstance(item, str) for item in listed):
        raise RuleViolation("claim_malformed", "the token's aud is not a string or string array")
    if audience is None:
        raise RuleViolation(
            "audience_mismatch",
            "the token has an aud claim and the contract names no audience: it is meant for "
            "someone in particular, and toolguard cannot tell that it is meant for it",
        )
    if audience not in listed:
        raise RuleViolation(
            "audience_mismatch", f"the token's aud {aud!r} does not include {audience!r}"
        )


def _instant(claims: dict[str, Any], name: str, *, required: bool) -> Any:
    """A NumericDate claim (RFC 7519 §2): a finite JSON number of seconds since the epoch."""
    if name not in claims:
        if required:
            raise RuleViolation("claim_missing", f"the token has no {name!r} claim")
        return None
    value = claims[name]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise RuleViolation("claim_malformed", f"the token's {name!r} is not a NumericDate")
    return value


def _shown(instant: float) -> str:
    try:
        return datetime.fromtimestamp(instant, UTC).isoformat().replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return f"{instant:g} (epoch seconds)"
