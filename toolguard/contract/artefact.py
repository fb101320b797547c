"""Contracts compiled once: the checked TOML and every compiled schema, in one cached artefact.

A hit skips the TOML parser, the contract-schema check, reading and parsing each schema and
every compile: loading a contract costs one marshal load and one SHA-256 per file it read. The
key covers toolguard's own sources, the contract's absolute path and its bytes; the schema and
registry files it read are re-hashed on every load, so an edited schema is a miss, never a
stale validator. Stored with the validator cache (`schema/cache.py`): private, atomic, verified.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolguard.schema import Validator
from toolguard.schema.cache import Entry, files_unchanged, key_of, load, store

FORMAT = 2  # 2: every file path absolute, so a load from another folder checks the same files


@dataclass(frozen=True, slots=True)
class Artefact:
    """What a contract compiled to: its checked document and each schema's entry, by label."""

    document: dict[str, Any]
    entries: Mapping[str, Entry]


def key(path: Path, raw: bytes) -> str | None:
    """The artefact key of the contract at `path` holding `raw`."""
    return key_of("contract", FORMAT, str(path.absolute()), raw)


def read(artefact_key: str) -> Artefact | None:
    """The artefact, if stored, intact, and built from files that have not changed since."""
    value = load(f"contract-{artefact_key}")
    try:
        version, document, stored, files = value
        entries = {label: Entry(*fields) for label, fields in stored}
    except (TypeError, ValueError):
        return None
    if version != FORMAT or not isinstance(document, dict) or not files_unchanged(files):
        return None
    if not all(files_unchanged(entry.files) for entry in entries.values()):
        return None
    return Artefact(document, entries)


def write(
    artefact_key: str,
    document: dict[str, Any],
    validators: Mapping[str, Validator],
    files: list[tuple[str, str]],
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
    store(f"contract-{artefact_key}", (FORMAT, document, stored, _absolute(files)))


def _absolute(files: Sequence[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """(path, digest) pairs with each path made absolute: the key holds the contract's."""
    return tuple((str(Path(path).absolute()), digest) for path, digest in files)
