"""The signature algorithms a contract may pin, and which keys each can use.

Asymmetric only: `none` signs nothing and an HMAC key is a shared secret, which has no place
in a key set published beside a contract (and an HMAC "keyed" with a public key is the
classic forgery). `EdDSA` (RFC 8037) and `Ed25519`/`Ed448` (RFC 9864) name the same
computation on a key of that curve, so they are interchangeable wherever they meet one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Algorithm:
    """A JWS `alg`: the key type it needs and, for EC and OKP keys, the curves it signs with."""

    name: str
    kty: str
    curves: frozenset[str] = frozenset()  # empty: any key of the type (RSA)

    def fits(self, kty: str, crv: str | None) -> bool:
        """Whether a key of this type (and curve) can verify this algorithm."""
        return kty == self.kty and (not self.curves or crv in self.curves)

    def computation(self, crv: str | None) -> str:
        """What is computed on a key of curve `crv`: `EdDSA` on Ed25519 is `Ed25519`."""
        return crv if self.kty == "OKP" and crv is not None else self.name


def _rsa(name: str) -> Algorithm:
    return Algorithm(name, "RSA")


ALGORITHMS = {
    algorithm.name: algorithm
    for algorithm in (
        *(_rsa(f"RS{bits}") for bits in (256, 384, 512)),
        *(_rsa(f"PS{bits}") for bits in (256, 384, 512)),
        Algorithm("ES256", "EC", frozenset({"P-256"})),
        Algorithm("ES384", "EC", frozenset({"P-384"})),
        Algorithm("ES512", "EC", frozenset({"P-521"})),
        Algorithm("EdDSA", "OKP", frozenset({"Ed25519", "Ed448"})),
        Algorithm("Ed25519", "OKP", frozenset({"Ed25519"})),
        Algorithm("Ed448", "OKP", frozenset({"Ed448"})),
    )
}
_HMAC = frozenset({"HS256", "HS384", "HS512"})


def pinned(names: Iterable[str]) -> tuple[str, ...]:
    """The contract's `algorithms`, checked: `ValueError` for none, HMAC or an unknown name."""
    listed = tuple(names)
    if not listed:
        raise ValueError("algorithms is empty: pin at least one signature algorithm")
    for name in listed:
        if name.lower() == "none":
            raise ValueError("algorithms names 'none': an unsigned token proves nothing")
        if name in _HMAC:
            raise ValueError(
                f"algorithms names {name!r}: HMAC needs a shared secret, and the key set is "
                "public by design (use an asymmetric algorithm)"
            )
        if name not in ALGORITHMS:
            raise ValueError(
                f"algorithms names {name!r}, which toolguard does not verify "
                f"(one of {', '.join(ALGORITHMS)})"
            )
    return listed


def equivalent(alg: str, other: str, kty: str, crv: str | None) -> bool:
    """Whether `alg` and `other` are the same computation on a key of `kty`/`crv`."""
    first, second = ALGORITHMS.get(alg), ALGORITHMS.get(other)
    if first is None or second is None or not (first.fits(kty, crv) and second.fits(kty, crv)):
        return False
    return first.computation(crv) == second.computation(crv)


def could_be_listed(alg: str, listed: Iterable[str]) -> bool:
    """Whether `alg` is one of `listed`, or the same computation as one of them on some key."""
    algorithm = ALGORITHMS.get(alg)
    if algorithm is None:
        return False
    curves: frozenset[str | None] = algorithm.curves or frozenset({None})
    return any(equivalent(alg, name, algorithm.kty, crv) for name in listed for crv in curves)
