"""Where in a schema an instance location is declared, for projections and the envelope schema."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from toolguard.errors import SchemaError
from toolguard.pointer import MISSING, escape, is_index, lookup, tokens

_MAX_REF_HOPS = 64


def declared_location(schema: Any, pointer: str) -> str | None:
    """The schema pointer of the subschema that `properties`/`prefixItems`/`items` declare.

    Item N is declared by `prefixItems/N` when the array has that many, else by `items` (as
    the validator applies them). Follows local `$ref`s; returns None when the location is not
    declared that plainly (for example only through `allOf` or `additionalProperties`), so
    callers can refuse it.
    """
    node, location = _follow(schema, "")
    for token in tokens(pointer):
        if not isinstance(node, dict):
            return None
        step = _declaring(node, token)
        if step is None:
            return None
        location += step
        node, location = _follow(schema, location, lookup(node, step))
    return location


def _declaring(node: dict[str, Any], token: str) -> str | None:
    """The relative pointer of the subschema of `node` that declares its member `token`."""
    properties = node.get("properties")
    if isinstance(properties, dict) and token in properties:
        return "/properties/" + escape(token)
    if not is_index(token):
        return None
    prefix = node.get("prefixItems")
    if isinstance(prefix, list) and int(token) < len(prefix):
        return f"/prefixItems/{token}" if isinstance(prefix[int(token)], dict) else None
    return "/items" if isinstance(node.get("items"), dict) else None


def _follow(schema: Any, location: str, node: Any = None) -> tuple[Any, str]:
    node = schema if node is None and location == "" else node
    for _ in range(_MAX_REF_HOPS):
        if not (isinstance(node, dict) and isinstance(node.get("$ref"), str)):
            return node, location
        location = unquote(node["$ref"][1:])
        node = resolve_pointer(schema, location)
    return None, location


def resolve_pointer(document: Any, pointer: str) -> Any:
    """Follow an RFC 6901 JSON Pointer; a `SchemaError` if it leads nowhere."""
    node = lookup(document, pointer)
    if node is MISSING:
        raise SchemaError(f"reference '#{pointer}' points at nothing")
    return node
