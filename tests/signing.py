"""Signed tokens for the tests: made with PyJWT, a second JOSE library, or by hand.

toolguard verifies with joserfc; every token here is signed by PyJWT (or, for what JOSE
libraries refuse to make, assembled by hand and signed with `cryptography` directly), so a
pass means the two libraries agree on the standard, not that one agrees with itself.
Keys are throwaway: made once per test session, never written anywhere.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from jwt.algorithms import ECAlgorithm, OKPAlgorithm, RSAAlgorithm

from toolguard.rules import ContractFile

NOW = datetime(2026, 3, 14, 9, 30, 0, tzinfo=UTC)
EPOCH_NOW = int(NOW.timestamp())
ISSUER = "https://review.example.invalid"


@dataclass(frozen=True)
class Signer:
    """A throwaway private key, the `alg` PyJWT signs with, and the public JWK to publish."""

    private: Any
    alg: str
    kid: str | None

    def jwk(self, **members: Any) -> dict[str, Any]:
        """The public JWK (with `kid` if any), plus `members`."""
        public = self.private.public_key()
        exporter = {"EdDSA": OKPAlgorithm, "ES256": ECAlgorithm}.get(self.alg, RSAAlgorithm)
        document: dict[str, Any] = exporter.to_jwk(public, as_dict=True)
        if self.kid is not None:
            document["kid"] = self.kid
        return {**document, **members}

    def token(self, payload: dict[str, Any], **header: Any) -> str:
        """`payload` signed by PyJWT, with the `kid` and any other `header` members."""
        headers = {"kid": self.kid, **header} if self.kid is not None else header
        return jwt.encode(payload, self.private, algorithm=self.alg, headers=headers or None)


@cache
def ed25519_signer(kid: str | None = "ed") -> Signer:
    """An Ed25519 key (EdDSA)."""
    return Signer(ed25519.Ed25519PrivateKey.generate(), "EdDSA", kid)


@cache
def es256_signer(kid: str | None = "ec") -> Signer:
    """A P-256 key (ES256)."""
    return Signer(ec.generate_private_key(ec.SECP256R1()), "ES256", kid)


@cache
def rs256_signer(kid: str | None = "rsa", bits: int = 2048) -> Signer:
    """An RSA key (RS256) of `bits` bits."""
    return Signer(rsa.generate_private_key(public_exponent=65537, key_size=bits), "RS256", kid)


def key_set(*keys: dict[str, Any], name: str = "keys.jwks.json") -> ContractFile:
    """A JWK Set file holding `keys`, as the loader hands it to the `signed` factory."""
    return ContractFile(name, json.dumps({"keys": list(keys)}).encode())


def claims(**changes: Any) -> dict[str, Any]:
    """Claims that pass the default test policy at NOW, with `changes` (None drops a claim)."""
    base = {
        "iss": ISSUER,
        "sub": "alice@example.com",
        "iat": EPOCH_NOW - 60,
        "exp": EPOCH_NOW + 540,
        "change_id": "CR-1042",
    }
    merged = {**base, **changes}
    return {name: value for name, value in merged.items() if value is not None}


def b64(data: bytes) -> str:
    """Unpadded base64url."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def by_hand(header: str, payload: str, sign: Callable[[bytes], bytes]) -> str:
    """A compact JWS whose header and payload are written as text, so they can say anything."""
    signing_input = f"{b64(header.encode())}.{b64(payload.encode())}"
    return f"{signing_input}.{b64(sign(signing_input.encode()))}"
