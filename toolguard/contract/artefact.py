"""Contracts compiled once: everything a load builds from, in one cached artefact.

The checked TOML, every compiled schema, and what the loader derives from them (the implied
envelope schema, the contract's digest). A hit skips the TOML parser, the contract-schema
check, reading, parsing and locating in each schema, every compile and every derivation:
loading a contract costs one marshal load and one SHA-256 per file it read. The key covers
toolguard's own sources, the contract's absolute path and its bytes; the schema and registry
files it read are re-hashed on every load, so an edited schema is a miss, never a stale
validator. Stored with the validator cache (`schema/cache.py`): private, atomic, verified.
"""

from __future__ import annotations

from toolguard.files import absolute_text
from toolguard.frozen import frozen
from toolguard.schema.cache import Entry, files_unchanged, key_of, load, store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from toolguard.schema import Validator

# 2: every file path absolute, so a load from another folder checks the same files;
# 3: what the loader derives (`Derived`) is stored too.
FORMAT = 3


@frozen
class Derived:
    """What a cold load derives from the document and its schemas, besides validators."""

    envelope_schema_json: str
    digest: str


@frozen
class Artefact:
    """What a contract compiled to: its checked document, each schema's entry, by label."""

    document: dict[str, Any]
    entries: Mapping[str, Entry]
    derived: Derived


def key(source: str, raw: bytes) -> str | None:
    """The artefact key of the contract at `source` holding `raw`."""
    return key_of("contract", FORMAT, absolute_text(source), raw)


def read(artefact_key: str) -> Artefact | None:
    """The artefact, if stored, intact, and built from files that have not changed since."""
    value = load(f"contract-{artefact_key}")
    try:
        version, document, stored, files, derived = value
        entries = {label: Entry(*fields) for label, fields in stored}
        derived = Derived(*derived)
    except (TypeError, ValueError):
        return None
    if version != FORMAT or not isinstance(document, dict) or not files_unchanged(files):
        return None
    if not all(files_unchanged(entry.files) for entry in entries.values()):
        return None
    return Artefact(document, entries, derived)


def write(
    artefact_key: str,
    document: dict[str, Any],
    validators: Mapping[str, Validator],
    files: list[tuple[str, str]],
    derived: Derived,
) -> None:
    """Store what `load_contract` built; a document marshal cannot hold is simply not stored."""
    stored = tuple(
        (
            label,
            (
                v.entry.name,
                v.entry.code,
                v.entry.bundled,
                v.entry.formats,
                _absolute(v.entry.files),
            ),
        )
        for label, v in validators.items()
    )
    body = (
        FORMAT,
        document,
        stored,
        _absolute(files),
        (derived.envelope_schema_json, derived.digest),
    )
    store(f"contract-{artefact_key}", body)


def _absolute(files: Sequence[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """(path, digest) pairs with each path made absolute: the key holds the contract's."""
    return tuple((absolute_text(path), digest) for path, digest in files)
