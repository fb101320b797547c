"""Contract: a TOML file (+ its JSON Schema) -> a frozen `Contract`, or a `ContractError`.

The TOML is validated against the shipped `schemas/contract.schema.json` before anything is
built from it, so an unknown key or a wrong type is named with its file and field. The payload
schema is read with the same strict parser as responses and compiled fail-closed.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from toolguard.envelope import envelope_schema
from toolguard.errors import ContractError, Rejection, SchemaError, ValidationError
from toolguard.limits import Limits
from toolguard.parse import parse
from toolguard.pipeline import Outcome, check_bytes
from toolguard.projection import DisplayText, Projection
from toolguard.request import make_request
from toolguard.rules import RULE_BY_KIND, Rule
from toolguard.schema import Validator, compile_schema
from toolguard.schema.locate import declared_location
from toolguard.shipped import shipped_schema

# Schemas are configuration, not responses: generous budgets, same strictness.
SCHEMA_LIMITS = Limits(max_bytes=16 * 1024 * 1024, max_depth=256, max_container_items=1_000_000)


@dataclass(frozen=True, slots=True)
class Contract:
    """Everything needed to check one tool's responses; load once, check many."""

    path: Path
    tool: str
    version: str
    limits: Limits
    validator: Validator
    rules: tuple[Rule, ...]
    projection: Projection
    envelope_schema: Mapping[str, Any]
    envelope_validator: Validator

    def check(
        self,
        raw: bytes,
        *,
        request_id: str | None = None,
        context: Mapping[str, Any] | None = None,
        now: datetime | str | None = None,
    ) -> Outcome:
        """Check one response and return (envelope, diagnostics).

        Raises `UsageError` only for a bad request id, context or `now`, never because of
        anything in the response.
        """
        return check_bytes(self, raw, make_request(request_id, context, now))


def load_contract(path: str | Path) -> Contract:
    """Load, validate and compile a contract file; raise `ContractError` naming file and field."""
    path = Path(path)
    source = str(path)
    document = _read_toml(path)
    try:
        _contract_validator().validate(document)
    except ValidationError as exc:
        field = exc.instance_path.strip("/").replace("/", ".") if exc.instance_path else ""
        raise ContractError(_plain(exc.message), source=source, field=field) from None
    schema_file = path.parent / document["schema"]
    payload_schema = _read_schema(schema_file)
    try:
        validator = compile_schema(payload_schema)
    except SchemaError as exc:
        raise SchemaError(exc.message, source=str(schema_file), field=exc.field) from None
    rules = tuple(
        _rule(entry, index, source) for index, entry in enumerate(document.get("rules", []))
    )
    projection, locations = _projection(document, payload_schema, source)
    implied = envelope_schema(
        document["tool"], document["version"], payload_schema, locations, projection
    )
    return Contract(
        path=path,
        tool=document["tool"],
        version=document["version"],
        limits=Limits(**document.get("limits", {})),
        validator=validator,
        rules=rules,
        projection=projection,
        envelope_schema=implied,
        envelope_validator=compile_schema(implied),
    )


@cache
def _contract_validator() -> Validator:
    return compile_schema(_read_schema(shipped_schema("contract.schema.json")))


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_bytes().decode("utf-8")
        return tomllib.loads(text)
    except OSError as exc:
        raise ContractError(f"cannot read contract: {exc.strerror}", source=str(path)) from None
    except UnicodeDecodeError:
        raise ContractError("contract is not UTF-8", source=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ContractError(f"not valid TOML: {exc}", source=str(path)) from None


def _read_schema(path: Path) -> Any:
    try:
        return parse(path.read_bytes(), SCHEMA_LIMITS)
    except OSError as exc:
        raise SchemaError(f"cannot read schema: {exc.strerror}", source=str(path)) from None
    except Rejection as exc:
        where = f" at byte {exc.offset}" if exc.offset is not None else ""
        raise SchemaError(f"not strict JSON{where}: {exc.message}", source=str(path)) from None


def _rule(entry: dict[str, Any], index: int, source: str) -> Rule:
    options = {key: value for key, value in entry.items() if key != "kind"}
    try:
        return RULE_BY_KIND[entry["kind"]](**options)
    except ValueError as exc:
        raise ContractError(str(exc), source=source, field=f"rules.{index}") from None


def _projection(
    document: dict[str, Any], payload_schema: Any, source: str
) -> tuple[Projection, dict[str, str]]:
    locations: dict[str, str] = {}
    for name, pointer in document["projection"].items():
        location = declared_location(payload_schema, pointer)
        if location is None:
            raise ContractError(
                f"{pointer} is not declared by the schema's properties/items",
                source=source,
                field=f"projection.{name}",
            )
        locations[name] = location
    display = document.get("display_text")
    display_text = None
    if display:
        if declared_location(payload_schema, display["pointer"]) is None:
            raise ContractError(
                f"{display['pointer']} is not declared by the schema's properties/items",
                source=source,
                field="display_text.pointer",
            )
        display_text = DisplayText(display["pointer"], display["max_length"])
    return Projection(MappingProxyType(dict(document["projection"])), display_text), locations


def _plain(message: str) -> str:
    """Fastjsonschema says "data.limits must ..."; the field is reported separately."""
    return message.removeprefix("data").lstrip(".").lstrip() or message
