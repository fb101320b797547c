"""Whether a public key's material is a key at all: the one place that says, without the library.

The loader and `toolguard lint` (which runs without the `signed` extra) both judge a key set
through `keyset.py`, which asks here: an Ed25519 or Ed448 key of the wrong length, spelled
non-canonically, or of small order; an EC point whose coordinates are not the curve's full
size or that is not on the curve; an RSA exponent or modulus spelled with leading zero bytes,
or one the arithmetic cannot use. Pure integer arithmetic on the curve equations (RFC 8032,
FIPS 186-5 / SEC 2 constants), so lint needs no JOSE library to refuse what the library would
refuse. The library still imports each key when the rule is built.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class _Edwards:
    """An Edwards curve's public key encoding (RFC 8032 §5.1.2, §5.2.2) and its weak points."""

    size: int  # bytes: the y coordinate, little-endian, with x's sign in the top bit
    p: int
    small_order: frozenset[int]  # the y of each point of order 1 to 8 (the cofactor's)

    def refusal(self, encoded: bytes) -> str | None:
        """Why `encoded` is no usable public key of this curve, or None."""
        if len(encoded) != self.size:
            return f"public key is {self.size} bytes long, this one {len(encoded)}"
        y = int.from_bytes(encoded, "little") & ~(1 << (8 * self.size - 1))
        if y >= self.p:
            return "public key is not canonical: its y is not below the field prime"
        # NOTE: with a key of small order, a signature (R = identity, S = 0) verifies for a
        # share of all messages (for the identity, all of them), and OpenSSL's Ed25519 does
        # not check: such a "key" would accept forged tokens, so it is no key.
        if y in self.small_order:
            return "public key is a point of small order, which verifies forged signatures"
        return None


_P25519 = 2**255 - 19
_P448 = 2**448 - 2**224 - 1
# The y of Ed25519's order-8 points (libsodium's blacklist); 0, 1 and p - 1 are orders 4, 1, 2.
_Y8 = 2707385501144840649318225287225658788936804267575313519463743609750303402022
_EDWARDS = {
    "Ed25519": _Edwards(32, _P25519, frozenset({0, 1, _P25519 - 1, _Y8, _P25519 - _Y8})),
    # Ed448 holds its y in 56 bytes and x's sign in the top bit of the 57th (whose other bits
    # are zero, so they count towards y here and make it too large); cofactor 4.
    "Ed448": _Edwards(57, _P448, frozenset({0, 1, _P448 - 1})),
}


@dataclass(frozen=True, slots=True)
class _Curve:
    """A short Weierstrass curve y² = x³ - 3x + b over the prime field p (NIST P curves)."""

    p: int
    b: int

    @property
    def size(self) -> int:
        """The bytes of one coordinate (RFC 7518 §6.2.1.2: always the full size)."""
        return (self.p.bit_length() + 7) // 8

    def holds(self, x: int, y: int) -> bool:
        """Whether (x, y) is a point of the curve (cofactor 1: then of the group, too)."""
        if not (0 <= x < self.p and 0 <= y < self.p):
            return False
        return (y * y - (x * x * x - 3 * x + self.b)) % self.p == 0


_CURVES = {
    "P-256": _Curve(
        2**256 - 2**224 + 2**192 + 2**96 - 1,
        int("5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b", 16),
    ),
    "P-384": _Curve(
        2**384 - 2**128 - 2**96 + 2**32 - 1,
        int(
            "b3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875a"
            "c656398d8a2ed19d2a85c8edd3ec2aef",
            16,
        ),
    ),
    "P-521": _Curve(
        2**521 - 1,
        int(
            "0051953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef1"
            "09e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b50"
            "3f00",
            16,
        ),
    ),
}


def refusal(kty: str, crv: str | None, members: dict[str, bytes]) -> str | None:
    """Why the decoded public `members` of a key of `kty`/`crv` are no key, or None if sound."""
    if kty == "OKP":
        edwards = _EDWARDS.get(crv or "")
        why = edwards.refusal(members["x"]) if edwards is not None else None
        if why is not None:
            return f"an {crv} {why}"
    elif kty == "EC":
        curve = _CURVES.get(crv or "")
        if curve is None:
            return None
        lengths = {len(members["x"]), len(members["y"])}
        if lengths != {curve.size}:
            # NOTE: an exporter that drops leading zero bytes (Authlib's does) writes a
            # shorter coordinate for about 3 in 4 P-521 keys and 1 in 100 P-256 keys. Refused,
            # not padded (one key, one spelling, one thumbprint); the message says the fix.
            return (
                f"a {crv} coordinate is {curve.size} bytes long, not {sorted(lengths)} "
                "(RFC 7518 §6.2.1.2: exactly that many, zero-padded on the left)"
            )
        x, y = (int.from_bytes(members[name], "big") for name in ("x", "y"))
        if not curve.holds(x, y):
            return f"the point is not on {crv}"
    elif kty == "RSA":
        # NOTE: RFC 7518 §2's Base64urlUInt is the minimum number of octets: a leading zero
        # byte (some exporters keep ASN.1's sign byte) is a second spelling of the same key,
        # with another RFC 7638 thumbprint. Refused, not stripped, as for EC coordinates.
        padded = [name for name in ("n", "e") if members[name][:1] == b"\x00"]
        if padded:
            return (
                f"{' and '.join(padded)} starts with a zero byte (RFC 7518 §2: a "
                "Base64urlUInt uses the fewest octets; drop the leading zeros)"
            )
        n, e = (int.from_bytes(members[name], "big") for name in ("n", "e"))
        if n % 2 == 0:
            return "the modulus is even"
        if e < 3 or e % 2 == 0 or e >= n:
            return "the public exponent is not an odd number from 3 to below the modulus"
    return None
