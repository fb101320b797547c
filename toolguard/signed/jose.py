"""The JOSE library's part (joserfc, the `signed` extra): key material and signature arithmetic.

It never sees a token's JSON: toolguard parses the header and claims itself and decides
every policy question, the soundness of each key's material included (`material.py`, so
lint judges it without the extra); joserfc imports each public key (refusing whatever else
it finds wrong) and checks signatures over the exact signing input. Imported only when a
contract holds a `signed` rule, so no other check pays for it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from toolguard.errors import MissingExtra
from toolguard.signed.keyset import KeySet


def import_keys(keys: KeySet) -> KeySet:
    """`keys` with each key imported by the library; `ValueError` if a key is bad.

    `MissingExtra` if joserfc is not installed.
    """
    try:
        # NOTE: the extra, loaded only for signed rules; `jws` registers the algorithms.
        import joserfc.jws  # noqa: PLC0415, F401
        from joserfc import jwk  # noqa: PLC0415
    except ImportError:
        raise MissingExtra.needed_by("a signed rule", "signed") from None
    imported = []
    for key in keys:
        try:
            members: dict[str, str | list[str]] = dict(key.members)  # `kty` says the type
            library_key = jwk.import_key(members)
            library_key.get_op_key("verify")  # builds (and so checks) the key now, not later
        except Exception as exc:  # noqa: BLE001 - joserfc and cryptography raise many kinds
            raise ValueError(
                f"keys {keys.file!r}: key {key.label} is not a valid {key.kty} public key: {exc}"
            ) from None
        imported.append(library_key)
    return dataclasses.replace(keys, imported=tuple(imported))


def signature_verifies(computation: str, signing_input: bytes, signature: bytes, key: Any) -> bool:
    """Whether `signature` is `computation`'s (`ES256`, `Ed25519`...) over `signing_input`.

    Any error inside the library is a signature that does not verify: fail closed.
    """
    from joserfc.jws import JWSRegistry  # noqa: PLC0415 - loaded already by `import_keys`

    # NOTE: the registry's dict, not `get_alg`: that warns on `EdDSA` (RFC 9864 deprecates the
    # name), and `computation` is always the fully specified name on an OKP key anyway.
    model = JWSRegistry.algorithms[computation]
    try:
        return bool(model.verify(signing_input, signature, key))
    except Exception:  # noqa: BLE001 - a library error must never verify a signature
        return False
