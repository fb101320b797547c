"""The algorithms a contract may pin: asymmetric only, and EdDSA the same as Ed25519."""

from __future__ import annotations

import pytest

from toolguard.signed.algorithms import ALGORITHMS, could_be_listed, equivalent, pinned


@pytest.mark.parametrize(
    ("listed", "refusal"),
    [
        ([], "empty"),
        (["none"], "'none'"),
        (["EdDSA", "None"], "'none'"),
        (["HS256"], "HMAC"),
        (["ES256", "HS512"], "HMAC"),
        (["ES256K"], "does not verify"),
        (["eddsa"], "does not verify"),
    ],
)
def test_pinned_refuses_none_hmac_and_unknown_names(listed: list[str], refusal: str) -> None:
    """An empty list, none, an HMAC or an unknown algorithm refuses the contract."""
    with pytest.raises(ValueError, match=refusal):
        pinned(listed)


def test_pinned_keeps_the_contract_order() -> None:
    """Every asymmetric algorithm toolguard verifies can be pinned, as written."""
    assert pinned(["ES256", "EdDSA"]) == ("ES256", "EdDSA")
    assert pinned(ALGORITHMS) == tuple(ALGORITHMS)


@pytest.mark.parametrize(
    ("alg", "other", "kty", "crv", "same"),
    [
        ("EdDSA", "Ed25519", "OKP", "Ed25519", True),
        ("Ed25519", "EdDSA", "OKP", "Ed25519", True),
        ("EdDSA", "Ed448", "OKP", "Ed448", True),
        ("EdDSA", "Ed25519", "OKP", "Ed448", False),  # Ed25519 cannot use an Ed448 key
        ("Ed25519", "Ed448", "OKP", "Ed25519", False),
        ("ES256", "ES256", "EC", "P-256", True),
        ("ES256", "ES256", "EC", "P-384", False),  # the curve is part of the algorithm
        ("ES256", "ES384", "EC", "P-384", False),
        ("RS256", "PS256", "RSA", None, False),
        ("RS256", "RS256", "OKP", "Ed25519", False),
        ("HS256", "HS256", "oct", None, False),
    ],
)
def test_equivalent_means_the_same_computation_on_that_key(
    alg: str, other: str, kty: str, crv: str | None, same: bool
) -> None:
    """EdDSA and Ed25519 meet on an Ed25519 key; nothing else is renamed."""
    assert equivalent(alg, other, kty, crv) is same


def test_could_be_listed_accepts_synonyms_and_refuses_the_rest() -> None:
    """A header alg passes the first check only if a listed name could be the same."""
    assert could_be_listed("Ed25519", ("EdDSA",))
    assert could_be_listed("EdDSA", ("Ed448",))
    assert not could_be_listed("ES256", ("EdDSA", "RS256"))
    assert not could_be_listed("none", ("EdDSA",))
    assert not could_be_listed("HS256", ("EdDSA",))
