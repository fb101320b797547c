"""A JWK Set beside the contract -> the public keys a `signed` rule may verify with.

Read by toolguard's strict parser within `KEYSET_LIMITS`, and judged whole before any key is
used: a private or secret key, two keys with one `kid`, an RSA modulus under 2048 bits, or
a usable key whose material is no key (`material.py`) refuses the contract. Keys that no
listed algorithm can use, or whose `use`/`key_ops` is not signature verification, are set
aside (so an identity provider's published set works as it is) and named in `ignored`,
which lint reports. Nothing here needs the JOSE library.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from toolguard.errors import Rejection
from toolguard.file_encoding import encoding_problem
from toolguard.limits import Limits
from toolguard.parse import parse
from toolguard.signed.algorithms import ALGORITHMS, equivalent
from toolguard.signed.material import refusal

# NOTE: every refusal is a ValueError (TRY004 notwithstanding): the loader turns ValueErrors
# from a rule factory into a `ContractError` naming the rule.

# A published key set is a few kilobytes; certificate chains (`x5c`) make it longer.
KEYSET_LIMITS = Limits(
    max_bytes=256 << 10, max_depth=4, max_string_length=32 << 10, max_container_items=256
)
MIN_RSA_BITS = 2048
# RFC 7518 §6.2.2, §6.3.2 and §6.4 (oct's `k`): any of these makes a key private or secret.
_PRIVATE = ("d", "p", "q", "dp", "dq", "qi", "oth", "k")
# RFC 7638 §3.2: the members that make a key's thumbprint, which are also all it needs.
_PUBLIC = {"RSA": ("e", "kty", "n"), "EC": ("crv", "kty", "x", "y"), "OKP": ("crv", "kty", "x")}
_BASE64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


@dataclass(frozen=True, slots=True)
class Key:
    """One usable public key: what selects it, what it is, and its RFC 7638 thumbprint."""

    kid: str | None
    kty: str
    crv: str | None
    alg: str | None  # the key's own `alg`, if the set gives one: it may verify only that
    thumbprint: str
    members: tuple[tuple[str, str], ...] = field(compare=False, repr=False)  # the public JWK

    @property
    def label(self) -> str:
        """How diagnostics name the key: its `kid`, else the start of its thumbprint."""
        return repr(self.kid) if self.kid is not None else f"thumbprint {self.thumbprint[:12]}"

    def accepts(self, alg: str, listed: tuple[str, ...]) -> bool:
        """Whether a token signed with `alg` may be verified with this key under `listed`."""
        own = self.alg is None or equivalent(alg, self.alg, self.kty, self.crv)
        return own and any(equivalent(alg, name, self.kty, self.crv) for name in listed)


@dataclass(frozen=True, slots=True)
class Route:
    """Tokens signed `alg` that name `kid` (None: no kid) reach the key with `thumbprint`."""

    alg: str
    kid: str | None
    thumbprint: str
    key_kid: str | None = field(default=None, compare=False)  # the key's own, for people

    def __str__(self) -> str:
        kid = f"kid {self.kid!r}" if self.kid is not None else "no kid"
        key = f"{self.key_kid!r} " if self.key_kid is not None else ""
        return f"{self.alg} with {kid} -> key {key}(thumbprint {self.thumbprint[:12]})"


@dataclass(frozen=True, slots=True)
class KeySet:
    """The usable keys of one key set file, as the contract names it, and what was set aside.

    Equal when the same file holds the same usable keys; iterating gives the keys (`diff`
    compares their `routes`). `imported` are the JOSE library's key objects, one per key.
    """

    file: str
    sha256: str
    keys: tuple[Key, ...]
    ignored: tuple[str, ...] = field(default=(), compare=False)
    imported: tuple[Any, ...] = field(default=(), compare=False, repr=False)

    def __iter__(self) -> Iterator[Key]:
        return iter(self.keys)

    def fitting(self, alg: str, listed: tuple[str, ...]) -> tuple[int, ...]:
        """The indexes of the keys that may verify a token signed `alg` under `listed`."""
        return tuple(index for index, key in enumerate(self.keys) if key.accepts(alg, listed))

    def routes(self, listed: tuple[str, ...]) -> frozenset[Route]:
        """Every way a token can reach a signature check with this set under `listed`.

        A token naming a `kid` reaches the key with that kid, if that key accepts its `alg`;
        a token without one reaches the one key that fits its `alg`, and no key when two
        do. So a key added beside one that fits the same algorithm takes away the kid-less
        route to it: what `diff` compares is these sets, not the keys.
        """
        found: set[Route] = set()
        for alg in ALGORITHMS:
            fitting = [self.keys[index] for index in self.fitting(alg, listed)]
            found.update(
                Route(alg, key.kid, key.thumbprint, key.kid)
                for key in fitting
                if key.kid is not None
            )
            if len(fitting) == 1:
                found.add(Route(alg, None, fitting[0].thumbprint, fitting[0].kid))
        return frozenset(found)

    def __repr__(self) -> str:
        count = len(self.keys)
        return f"{self.file} ({count} key{'s' * (count != 1)}, sha256:{self.sha256[:12]})"


def read_key_set(file: str, raw: bytes, listed: tuple[str, ...]) -> KeySet:
    """The key set in `raw` (the file the contract calls `file`); `ValueError` if refused."""
    try:
        document = parse(raw, KEYSET_LIMITS)
    except Rejection as exc:
        if exc.reason in {"bom", "invalid_utf8"} and (problem := encoding_problem(raw)):
            raise ValueError(f"keys {file!r}: the file {problem}") from None
        raise ValueError(f"keys {file!r} is not a strict JSON JWK Set: {exc.message}") from None
    entries = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise ValueError(f"keys {file!r} is not a JWK Set: no 'keys' array")  # noqa: TRY004
    usable: list[Key] = []
    ignored: list[str] = []
    kids: set[str] = set()
    for index, entry in enumerate(entries):
        where = f"keys {file!r}, key {index}"
        if not isinstance(entry, dict):
            raise ValueError(f"{where} is not a JSON object")  # noqa: TRY004
        _refuse(entry, where, kids)
        why = _unusable(entry, listed)
        if why is not None:
            ignored.append(f"key {index} ({_named(entry)}) is ignored: {why}")  # lint: TG020
            continue
        usable.append(_key(entry, where))
    if not usable:
        raise ValueError(
            f"keys {file!r} holds no key that can verify {', '.join(listed)}"
            + "".join(f"; {note}" for note in ignored)
        )
    return KeySet(file, hashlib.sha256(raw).hexdigest(), tuple(usable), tuple(ignored))


def _refuse(entry: dict[str, Any], where: str, kids: set[str]) -> None:
    """What no key in the set may be, used or not."""
    for member in ("kty", "kid", "use", "alg", "crv"):
        if member in entry and not isinstance(entry[member], str):
            raise ValueError(f"{where}: {member!r} is not a string")
    if not isinstance(entry.get("kty"), str):
        raise ValueError(f"{where} has no 'kty'")  # noqa: TRY004
    ops = entry.get("key_ops")
    if ops is not None and not (
        isinstance(ops, list) and all(isinstance(o, str) for o in ops) and len(set(ops)) == len(ops)
    ):
        # RFC 7517 §4.3: "Duplicate key operation values MUST NOT be present in the array."
        raise ValueError(f"{where}: 'key_ops' is not an array of distinct strings")
    private = [member for member in _PRIVATE if member in entry]
    if entry["kty"] == "oct" or private:
        what = "a shared secret (kty oct)" if entry["kty"] == "oct" else "a private key"
        raise ValueError(
            f"{where} ({_named(entry)}) is {what}: a key set beside a contract holds public "
            "keys only"
        )
    kid = entry.get("kid")
    if kid is not None:
        if kid in kids:
            raise ValueError(f"{where}: kid {kid!r} names two keys; a kid must select one")
        kids.add(kid)
    if entry["kty"] == "RSA":
        bits = int.from_bytes(_decoded(entry, "n", where), "big").bit_length()
        if bits < MIN_RSA_BITS:
            raise ValueError(
                f"{where} ({_named(entry)}) is a {bits}-bit RSA key; at least {MIN_RSA_BITS} "
                "bits are needed"
            )


def _unusable(entry: dict[str, Any], listed: tuple[str, ...]) -> str | None:
    """Why a sound key can verify none of the listed algorithms, or None if it can."""
    use, ops = entry.get("use"), entry.get("key_ops")
    if use is not None and use != "sig":
        return f"its use is {use!r}, not 'sig'"
    if ops is not None and "verify" not in ops:
        return "its key_ops do not include 'verify'"
    kty, crv, alg = entry["kty"], entry.get("crv"), entry.get("alg")
    if not any(ALGORITHMS[name].fits(kty, crv) for name in listed):
        curve = f" on {crv}" if crv is not None else ""
        return f"no listed algorithm ({', '.join(listed)}) can use a key of type {kty}{curve}"
    if alg is not None and not any(equivalent(alg, name, kty, crv) for name in listed):
        return f"its own alg {alg!r} is not listed ({', '.join(listed)})"
    return None


def _key(entry: dict[str, Any], where: str) -> Key:
    members, decoded = {}, {}
    for member in _PUBLIC[entry["kty"]]:
        value = entry.get(member)
        if not isinstance(value, str) or not value:
            raise ValueError(f"{where}: {entry['kty']} key without {member!r}")
        if member not in ("kty", "crv"):
            decoded[member] = _decoded(entry, member, where)
        members[member] = value
    why = refusal(entry["kty"], entry.get("crv"), decoded)
    if why is not None:
        raise ValueError(f"{where} ({_named(entry)}) is not a valid {entry['kty']} key: {why}")
    canonical = json.dumps(members, sort_keys=True, separators=(",", ":")).encode()
    thumbprint = base64.urlsafe_b64encode(hashlib.sha256(canonical).digest()).rstrip(b"=")
    return Key(
        entry.get("kid"),
        entry["kty"],
        entry.get("crv"),
        entry.get("alg"),
        thumbprint.decode(),
        tuple(sorted(members.items())),
    )


def _decoded(entry: dict[str, Any], member: str, where: str) -> bytes:
    """A base64url member's bytes (unpadded, canonical), or `ValueError`."""
    value = entry.get(member)
    if not isinstance(value, str) or len(value) % 4 == 1 or not set(value) <= _BASE64URL:
        raise ValueError(f"{where}: {member!r} is not base64url")
    decoded = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    if base64.urlsafe_b64encode(decoded).rstrip(b"=").decode() != value:
        raise ValueError(f"{where}: {member!r} is not canonical base64url")
    return decoded


def _named(entry: dict[str, Any]) -> str:
    kid = entry.get("kid")
    return f"kid {kid!r}" if isinstance(kid, str) else f"kty {entry.get('kty')!r}, no kid"
