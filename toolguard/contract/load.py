"""Load a contract: a TOML file (+ its JSON Schemas) -> a frozen `Contract`, or a `ContractError`.

The TOML is validated against the shipped `schemas/contract.schema.json` before anything is
built from it, so an unknown key or a wrong type is named with its file and field. The payload
schema is read with the same strict, bounded parser as responses and compiled fail-closed.
A warm load takes everything compiled from the contract's artefact (`artefact.py`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from toolguard.adapters import build_adapter, kind_of
from toolguard.contract import artefact
from toolguard.contract.audit_policy import AuditPolicy
from toolguard.contract.envelope_schema import envelope_schema
from toolguard.contract.model import Contract
from toolguard.error_documents import ErrorDocument, Mapped
from toolguard.errors import ContractError, Rejection, SchemaError, ValidationError
from toolguard.limits import Limits, read_bounded
from toolguard.projection import DisplayText, Projection
from toolguard.rules import RULE_BY_KIND, Rule
from toolguard.run.policy import DEFAULT_TIMEOUT, RunPolicy
from toolguard.run.retry import RetryPolicy
from toolguard.schema import Validator, compile_schema
from toolguard.schema.locate import declared_location
from toolguard.schema.refs import read_schema
from toolguard.shipped import shipped_schema

# Contracts are configuration, not responses: a generous budget, the same strictness.
CONTRACT_MAX_BYTES = 1 << 20
_VALIDATOR_NAME = re.compile(r"^data[^ ]* ")  # fastjsonschema's "data.rules[0].x " prefix


def load_contract(path: str | Path, *, need_extras: bool = True) -> Contract:
    """Load, validate and compile a contract file; raise `ContractError` naming file and field.

    `need_extras=False` builds an adapter that needs an optional extra without it (lint).
    """
    path = Path(path)
    raw = _read_toml_bytes(path)
    artefact_key = artefact.key(path, raw)
    stored = artefact.read(artefact_key) if artefact_key is not None else None
    document = stored.document if stored else _checked(_decode_toml(raw, path), path)
    schemas = _Schemas(path.parent, stored)
    contract = _build(path, raw, document, schemas, need_extras)
    if stored is None and artefact_key is not None:
        artefact.write(artefact_key, document, schemas.validators, schemas.files)
    return contract


def _build(
    path: Path, raw: bytes, document: dict[str, Any], schemas: _Schemas, need_extras: bool
) -> Contract:
    source = str(path)
    for field, named in named_paths(document):
        # NOTE: checked on every load, warm or cold: a path no file can have is a bad contract
        # now, not a ValueError from deep inside the audit trail later.
        if "\0" in named:
            raise ContractError("a path cannot hold a NUL", source=source, field=field)
    try:
        limits = Limits(**document.get("limits", {}))
    except ValueError as exc:
        raise ContractError(str(exc), source=source, field="limits") from None
    validator = schemas.file("schema", document["schema"])
    # From here on, the bundled form: every $ref a local pointer, whatever $id/$anchor it used.
    payload_schema = validator.schema
    rules = tuple(
        _rule(entry, index, payload_schema, source)
        for index, entry in enumerate(document.get("rules", []))
    )
    projection, locations = _projection(document, payload_schema, source)
    implied = envelope_schema(
        document["tool"], document["version"], payload_schema, locations, projection
    )
    try:
        # NOTE: formats were asserted on the payload; under the envelope's oneOf they would be
        # refused (a false reject there could accept), so here they are annotations.
        envelope_validator = schemas.implied("envelope", implied)
    except SchemaError as exc:
        raise ContractError(f"implied envelope schema: {exc}", source=source) from None
    run_table = document.get("run", {})
    documents = _error_documents(run_table, schemas)
    return Contract(
        path=path,
        tool=document["tool"],
        version=document["version"],
        limits=limits,
        adapter=build_adapter(document, source, need_extras=need_extras),
        adapter_kind=kind_of(document),
        validator=validator,
        rules=rules,
        projection=projection,
        envelope_validator=envelope_validator,
        envelope_schema_json=json.dumps(implied),
        digest=_digest(raw, payload_schema, *(entry.validator.schema for entry in documents)),
        error_documents=documents,
        audit=AuditPolicy.from_table(document.get("audit", {}), path.parent),
        run=_run_policy(run_table),
        retry=_retry_policy(document.get("retry", {})),
    )


def named_paths(document: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """Every path a contract names, with its field: schema files and the `[audit]` paths.

    (The contract schema's `$defs/path` and `$defs/schema_file`; a test keeps them in step.)
    """
    yield "schema", document["schema"]
    for index, entry in enumerate(document.get("run", {}).get("error_documents", [])):
        yield f"run.error_documents.{index}.schema", entry["schema"]
    audit = document.get("audit", {})
    yield from ((f"audit.{key}", audit[key]) for key in ("log", "raw_dir") if key in audit)


def read_contract_document(path: Path) -> dict[str, Any]:
    """The contract's TOML, checked against the contract schema (`[lint]` included), as data.

    What `load_contract` builds from, and what `toolguard lint` reads (it lints what the
    loader would refuse, such as an undeclared projection pointer, as findings).
    """
    return _checked(_decode_toml(_read_toml_bytes(path), path), path)


def _checked(document: dict[str, Any], path: Path) -> dict[str, Any]:
    try:
        _contract_validator().validate(document)
    except ValidationError as exc:
        field = (exc.instance_path or "").strip("/").replace("/", ".")
        message = _VALIDATOR_NAME.sub("", exc.message)
        raise ContractError(message, source=str(path), field=field) from None
    return document


class _Schemas:
    """Compiles a contract's schemas, or takes them from its artefact, keeping what it did."""

    def __init__(self, folder: Path, stored: artefact.Artefact | None) -> None:
        self.folder = folder
        self.stored = stored
        self.validators: dict[str, Validator] = {}
        self.files: list[tuple[str, str]] = []

    def file(self, label: str, relative: str) -> Validator:
        """The schema file at `relative` (to the contract), compiled."""
        if self.stored is not None:
            return Validator.from_entry(self.stored.entries[label])
        schema_file = self.folder / relative
        try:
            validator = compile_schema(read_schema(schema_file, self.files))
        except SchemaError as exc:
            raise SchemaError(exc.message, source=str(schema_file), field=exc.field) from None
        self.validators[label] = validator
        return validator

    def implied(self, label: str, schema: Any) -> Validator:
        """A schema toolguard derived (the envelope's), with formats as annotations."""
        if self.stored is not None:
            return Validator.from_entry(self.stored.entries[label])
        validator = compile_schema(schema, formats=False)
        self.validators[label] = validator
        return validator


def _digest(raw: bytes, *schemas: Any) -> str:
    """Covers what decides an answer: the TOML and each schema as compiled (refs included)."""
    digest = hashlib.sha256(raw)
    for schema in schemas:
        digest.update(b"\0" + json.dumps(schema, sort_keys=True).encode())
    return digest.hexdigest()


def _error_documents(table: dict[str, Any], schemas: _Schemas) -> tuple[ErrorDocument, ...]:
    """`[[run.error_documents]]`, compiled (the spelling is historical: `check` uses them too)."""
    return tuple(
        ErrorDocument(
            schemas.file(f"run.error_documents.{index}", entry["schema"]),
            Mapped(entry["code"], entry.get("retryable", False)),
            entry["schema"],
        )
        for index, entry in enumerate(table.get("error_documents", []))
    )


def _run_policy(table: dict[str, Any]) -> RunPolicy:
    exits = {
        entry["status"]: Mapped(entry["code"], entry.get("retryable", False))
        for entry in table.get("exit_status", [])
    }
    env = table.get("env")
    return RunPolicy(
        timeout_seconds=table.get("timeout_seconds", DEFAULT_TIMEOUT),
        env=tuple(env) if env is not None else None,
        exit_statuses=MappingProxyType({**RunPolicy().exit_statuses, **exits}),
    )


def _retry_policy(table: dict[str, Any]) -> RetryPolicy:
    options = dict(table)
    if "retry_on" in options:
        options["retry_on"] = frozenset(options["retry_on"])
    return RetryPolicy(**options)


@cache
def _contract_validator() -> Validator:
    return compile_schema(read_schema(shipped_schema("contract.schema.json")))


def _read_toml_bytes(path: Path) -> bytes:
    """Read the contract within a byte budget (`/dev/zero` is not a contract)."""
    try:
        with path.open("rb") as stream:
            raw = read_bounded(stream, CONTRACT_MAX_BYTES)
    except OSError as exc:
        raise ContractError(f"cannot read contract: {exc.strerror}", source=str(path)) from None
    except Rejection:
        raise ContractError(
            f"contract is larger than {CONTRACT_MAX_BYTES} bytes", source=str(path)
        ) from None
    return raw


def _decode_toml(raw: bytes, path: Path) -> dict[str, Any]:
    import tomllib  # noqa: PLC0415 - a warm artefact never parses TOML

    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ContractError("contract is not UTF-8", source=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ContractError(f"not valid TOML: {exc}", source=str(path)) from None


def _declared(payload_schema: Any, pointer: str, source: str, field: str) -> str:
    location = declared_location(payload_schema, pointer)
    if location is None:
        raise ContractError(
            f"{pointer} is not declared by the schema's properties/items",
            source=source,
            field=field,
        )
    return location


def _rule(entry: dict[str, Any], index: int, payload_schema: Any, source: str) -> Rule:
    _declared(payload_schema, entry["pointer"], source, f"rules.{index}.pointer")
    options = {key: value for key, value in entry.items() if key != "kind"}
    try:
        return RULE_BY_KIND[entry["kind"]].build(**options)
    except ValueError as exc:
        raise ContractError(str(exc), source=source, field=f"rules.{index}") from None


def _projection(
    document: dict[str, Any], payload_schema: Any, source: str
) -> tuple[Projection, dict[str, str]]:
    locations = {
        name: _declared(payload_schema, pointer, source, f"projection.{name}")
        for name, pointer in document["projection"].items()
    }
    display = document.get("display_text")
    display_text = None
    if display:
        _declared(payload_schema, display["pointer"], source, "display_text.pointer")
        display_text = DisplayText(display["pointer"], display["max_length"])
    return Projection(MappingProxyType(dict(document["projection"])), display_text), locations
