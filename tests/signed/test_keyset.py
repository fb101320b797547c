"""Key sets: judged whole (private, duplicate, short keys refuse), unusable keys set aside."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519
from joserfc import jwk
from jwt.algorithms import ECAlgorithm, OKPAlgorithm
from signing import ed25519_signer, es256_signer, key_set, rs256_signer

from toolguard.signed.jose import import_keys
from toolguard.signed.keyset import read_key_set

# RFC 7638 §3.1: a key and its thumbprint, computed by the RFC's authors.
RFC7638_KEY = {
    "kty": "RSA",
    "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc"
    "_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0"
    "_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI"
    "4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
    "e": "AQAB",
    "alg": "RS256",
    "kid": "2011-04-29",
}
RFC7638_THUMBPRINT = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"


def read(*keys: dict[str, Any], listed: tuple[str, ...] = ("EdDSA",)) -> Any:
    file = key_set(*keys)
    return read_key_set(file.name, file.raw, listed)


def test_a_public_set_gives_its_keys_with_rfc7638_thumbprints() -> None:
    """Each usable key keeps its kid, type and own alg; the thumbprint is RFC 7638's."""
    keys = read(RFC7638_KEY, ed25519_signer().jwk(), listed=("RS256", "EdDSA"))
    rsa, ed = keys
    assert (rsa.kid, rsa.kty, rsa.crv, rsa.alg) == ("2011-04-29", "RSA", None, "RS256")
    assert rsa.thumbprint == RFC7638_THUMBPRINT
    assert (ed.kid, ed.kty, ed.crv) == ("ed", "OKP", "Ed25519")
    assert keys.ignored == ()
    assert "2 keys" in repr(keys)


@pytest.mark.parametrize("member", ["d", "p", "q", "dp", "dq", "qi", "oth", "k"])
def test_a_private_member_refuses_the_set(member: str) -> None:
    """Any private (or secret) member, in any key, used or not, refuses the contract."""
    private = ed25519_signer().jwk(**{member: "AAAA"})
    with pytest.raises(ValueError, match="a private key"):
        read(private)
    with pytest.raises(ValueError, match="a private key"):
        read(ed25519_signer().jwk(), es256_signer().jwk(use="enc", **{member: "AAAA"}))


def test_a_shared_secret_refuses_the_set() -> None:
    """An oct key is a shared secret: it has no place beside a contract."""
    with pytest.raises(ValueError, match=r"shared secret \(kty oct\)"):
        read(ed25519_signer().jwk(), {"kty": "oct", "kid": "hmac", "use": "sig"})


def test_two_keys_with_one_kid_refuse_the_set() -> None:
    """A kid must select exactly one key, whatever the keys' use."""
    with pytest.raises(ValueError, match="kid 'same' names two keys"):
        read(ed25519_signer().jwk(kid="same"), es256_signer().jwk(kid="same", use="enc"))


def test_an_rsa_key_under_2048_bits_refuses_the_set() -> None:
    """A 1024-bit modulus refuses the contract; 2048 bits pass."""
    short = rs256_signer(kid="short", bits=1024).jwk()
    with pytest.raises(ValueError, match="1024-bit RSA key; at least 2048"):
        read(short, ed25519_signer().jwk())
    assert len(read(rs256_signer().jwk(), listed=("RS256",)).keys) == 1


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        (es256_signer().jwk(use="enc"), "its use is 'enc', not 'sig'"),
        (es256_signer().jwk(key_ops=["encrypt"]), "key_ops do not include 'verify'"),
        (es256_signer().jwk(), "no listed algorithm (EdDSA) can use a key of type EC on P-256"),
        (rs256_signer().jwk(), "no listed algorithm (EdDSA) can use a key of type RSA"),
        ({"kty": "AKP", "kid": "pq", "pub": "AAAA"}, "can use a key of type AKP"),
        (ed25519_signer(kid="other").jwk(alg="Ed448"), "its own alg 'Ed448' is not listed"),
    ],
)
def test_unusable_keys_are_set_aside_and_named(extra: dict[str, Any], why: str) -> None:
    """A key no listed algorithm can use, or not for signatures, is ignored, with its reason."""
    keys = read(ed25519_signer().jwk(), extra)
    assert [key.kid for key in keys] == ["ed"]
    (note,) = keys.ignored
    assert note.startswith("key 1 (")
    assert why in note


def test_a_set_with_no_usable_key_is_refused() -> None:
    """If every key is set aside, no token could ever pass: the contract is refused."""
    with pytest.raises(ValueError, match=r"holds no key that can verify EdDSA.*use is 'enc'"):
        read(ed25519_signer().jwk(use="enc"))


@pytest.mark.parametrize(
    ("raw", "refusal"),
    [
        (b'{"keys": [], "keys": []}', "not a strict JSON JWK Set.*duplicate"),
        (b"[]", "no 'keys' array"),
        (b'{"keys": {}}', "no 'keys' array"),
        (b'{"keys": [1]}', "not a JSON object"),
        (b'{"keys": [{"kid": "x"}]}', "no 'kty'"),
        (b'{"keys": [{"kty": "OKP", "kid": 7}]}', "'kid' is not a string"),
        (b'{"keys": [{"kty": "OKP", "key_ops": "verify"}]}', "not an array of distinct strings"),
        (
            b'{"keys": [{"kty": "OKP", "key_ops": ["verify", "verify"]}]}',
            "not an array of distinct strings",
        ),
        (b'{"keys": [{"kty": "OKP", "crv": "Ed25519"}]}', "OKP key without 'x'"),
        (b'{"keys": [{"kty": "OKP", "crv": "Ed25519", "x": "a+b/"}]}', "'x' is not base64url"),
        (b'{"keys": [{"kty": "OKP", "crv": "Ed25519", "x": "AB"}]}', "not canonical base64url"),
        (b'{"keys": [{"kty": "RSA", "n": "A", "e": "AQAB"}]}', "'n' is not base64url"),
    ],
)
def test_a_malformed_set_is_refused(raw: bytes, refusal: str) -> None:
    """The set is read by the strict parser and each key's members are checked for type."""
    with pytest.raises(ValueError, match=refusal):
        read_key_set("keys.jwks.json", raw, ("EdDSA",))


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _bytes(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


EC = es256_signer().jwk()
RSA = rs256_signer().jwk()
# What the JOSE library refuses too, each judged here first (so lint, without it, refuses it).
BAD_MATERIAL = [
    (
        {"kty": "EC", "crv": "P-256", "kid": "zero", "x": "A" * 43, "y": "A" * 43},
        ("ES256",),
        "the point is not on P-256",
    ),
    ({**EC, "y": _b64(bytes(31) + b"\x01")}, ("ES256",), "the point is not on P-256"),
    ({**EC, "y": _b64(b"\xff" * 32)}, ("ES256",), "the point is not on P-256"),  # y >= p
    (
        {"kty": "OKP", "crv": "Ed25519", "kid": "short", "x": _b64(b"\x01" * 31)},
        ("EdDSA",),
        "an Ed25519 public key is 32 bytes long, this one 31",
    ),
    (
        {"kty": "OKP", "crv": "Ed448", "kid": "short", "x": _b64(b"\x01" * 56)},
        ("Ed448",),
        "an Ed448 public key is 57 bytes long, this one 56",
    ),
    ({**RSA, "e": "AQ"}, ("RS256",), "public exponent"),
    ({**RSA, "e": _b64((65536).to_bytes(3, "big"))}, ("RS256",), "public exponent"),
]
P25519, P448 = 2**255 - 19, 2**448 - 2**224 - 1
# The y of an Ed25519 point of order 8 (libsodium's list of small-order points).
Y8 = 2707385501144840649318225287225658788936804267575313519463743609750303402022


def _edwards(crv: str, y: int, sign: int = 0) -> dict[str, Any]:
    """An OKP key whose encoding holds `y` (and x's sign bit), as RFC 8032 spells it."""
    size = 32 if crv == "Ed25519" else 57
    encoded = (y | sign << (8 * size - 1)).to_bytes(size, "little")
    return {"kty": "OKP", "crv": crv, "kid": "weak", "x": _b64(encoded)}


# Ed25519 keys of small order, spelled canonically or not: OpenSSL imports them all, and with
# the identity a signature (R = identity, S = 0) verifies for any claims.
SMALL_ORDER_ED25519 = [
    pytest.param(_edwards("Ed25519", y, sign), id=f"Ed25519-{name}")
    for name, y, sign in [
        ("identity", 1, 0),
        ("order-2", P25519 - 1, 0),
        ("order-4", 0, 1),
        ("order-8", Y8, 0),
        ("order-8-negated", P25519 - Y8, 1),
        ("identity-spelled-as-p+1", P25519 + 1, 0),
    ]
]
# What the library lets through and RFC 7518 or RFC 8032 does not: refused here as well.
STRICTER = [
    *(
        (param.values[0], ("EdDSA",), "public key is (a point of small order|not canonical)")
        for param in SMALL_ORDER_ED25519
    ),
    (_edwards("Ed448", 1), ("Ed448",), "an Ed448 public key is a point of small order"),
    (_edwards("Ed448", P448 - 1), ("Ed448",), "an Ed448 public key is a point of small order"),
    (_edwards("Ed448", 5 | 1 << 448), ("Ed448",), "an Ed448 public key is not canonical"),
    (_edwards("Ed25519", P25519 + 2), ("EdDSA",), "an Ed25519 public key is not canonical"),
    (
        {**EC, "x": _b64(b"\0" + _bytes(EC["x"]))},
        ("ES256",),
        r"coordinate is 32 bytes long, not \[32, 33\] \(.*zero-padded on the left\)",
    ),
    (
        {
            **RSA,
            "n": _b64(((int.from_bytes(_bytes(RSA["n"]), "big") | 1) - 1).to_bytes(256, "big")),
        },
        ("RS256",),
        "the modulus is even",
    ),
    # RFC 7518 §2: a Base64urlUInt has no leading zero octets (another spelling, thumbprint).
    ({**RSA, "n": _b64(b"\0" + _bytes(RSA["n"]))}, ("RS256",), "n starts with a zero byte"),
    ({**RSA, "e": _b64(b"\0" + _bytes(RSA["e"]))}, ("RS256",), "e starts with a zero byte"),
]


@pytest.mark.parametrize(("key", "listed", "why"), BAD_MATERIAL + STRICTER)
def test_key_material_that_is_no_key_refuses_the_set_without_the_library(
    key: dict[str, Any], listed: tuple[str, ...], why: str
) -> None:
    """An EC point off its curve, an Edwards key of the wrong length, an unusable exponent."""
    with pytest.raises(ValueError, match=f"is not a valid {key['kty']} key: .*{why}"):
        read(key, listed=listed)


@pytest.mark.parametrize(("key", "listed", "why"), BAD_MATERIAL)
def test_the_library_refuses_the_same_material(
    key: dict[str, Any], listed: tuple[str, ...], why: str
) -> None:
    """Nothing refused here for its material is a key the JOSE library would have taken."""
    del listed, why
    with pytest.raises(Exception):  # noqa: B017 - joserfc and cryptography raise many kinds
        jwk.import_key(key).get_op_key("verify")


@pytest.mark.parametrize("key", SMALL_ORDER_ED25519[:1])
def test_a_small_order_ed25519_key_would_verify_a_forgery(key: dict[str, Any]) -> None:
    """Why such keys are refused: the library, given the identity, verifies any claims."""
    imported = jwk.import_key(key)
    forged = _bytes(key["x"]) + bytes(32)  # R = the identity, S = 0
    assert imported.get_op_key("verify").verify(forged, b"any claims at all") is None


@pytest.mark.parametrize("private", [ed25519.Ed25519PrivateKey, ed448.Ed448PrivateKey])
def test_real_edwards_keys_pass(private: Any) -> None:
    """The canonical and small-order checks let through keys the library makes."""
    listed = ("Ed25519",) if private is ed25519.Ed25519PrivateKey else ("Ed448",)
    for _ in range(8):
        key = OKPAlgorithm.to_jwk(private.generate().public_key(), as_dict=True)
        assert len(import_keys(read(key, listed=listed)).keys) == 1


@pytest.mark.parametrize("curve", [ec.SECP256R1(), ec.SECP384R1(), ec.SECP521R1()])
def test_real_keys_of_every_curve_pass(curve: ec.EllipticCurve) -> None:
    """The curve constants are right: keys the library makes are on their curves."""
    name = {"secp256r1": "P-256", "secp384r1": "P-384", "secp521r1": "P-521"}[curve.name]
    alg = {"P-256": "ES256", "P-384": "ES384", "P-521": "ES512"}[name]
    for _ in range(8):
        public = ec.generate_private_key(curve).public_key()
        key = ECAlgorithm.to_jwk(public, as_dict=True)
        assert len(import_keys(read(key, listed=(alg,))).keys) == 1


def test_sets_are_equal_when_their_usable_keys_are() -> None:
    """Equality (what diff compares) ignores what was set aside and the library objects."""
    plain = read(ed25519_signer().jwk())
    published = read(ed25519_signer().jwk(), es256_signer().jwk(use="enc"))
    assert set(plain) == set(published)
    assert plain != published  # another file: its digest differs
    assert import_keys(plain) == plain
