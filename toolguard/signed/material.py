"""Whether a public key's material is a key at all: the one place that says, without the library.

The loader and `toolguard lint` (which runs without the `signed` extra) both judge a key set
through `keyset.py`, which asks here: an Ed25519 or Ed448 key of the wrong length, an EC
point whose coordinates are not the curve's full size or that is not on the curve, an RSA
exponent or modulus the arithmetic cannot use. Pure integer arithmetic on the curve
equations (FIPS 186-5 / SEC 2 constants), so lint needs no JOSE library to refuse what the
library would refuse. The library still imports each key when the rule is built.
"""

from __future__ import annotations

from dataclasses import dataclass

# RFC 8032 §5.1.5 and §5.2.5: the encoded public key's length.
_EDWARDS_BYTES = {"Ed25519": 32, "Ed448": 57}


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
        size = _EDWARDS_BYTES.get(crv or "")
        found = len(members["x"])
        if size is not None and found != size:
            return f"an {crv} public key is {size} bytes long, this one {found}"
    elif kty == "EC":
        curve = _CURVES.get(crv or "")
        if curve is None:
            return None
        lengths = {len(members["x"]), len(members["y"])}
        if lengths != {curve.size}:
            return f"a {crv} coordinate is {curve.size} bytes long, not {sorted(lengths)}"
        x, y = (int.from_bytes(members[name], "big") for name in ("x", "y"))
        if not curve.holds(x, y):
            return f"the point is not on {crv}"
    elif kty == "RSA":
        n, e = (int.from_bytes(members[name], "big") for name in ("n", "e"))
        if n % 2 == 0:
            return "the modulus is even"
        if e < 3 or e % 2 == 0 or e >= n:
            return "the public exponent is not an odd number from 3 to below the modulus"
    return None
