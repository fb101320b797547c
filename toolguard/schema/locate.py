"""Where in a schema an instance location is declared, for projections and the envelope schema."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from toolguard.errors import SchemaError
from toolguard.pointer import MISSING, escape, is_index, lookup, tokens

_MAX_REF_HOPS = 64


def declared_location(schema: Any, pointer: str) -> str | None:
    """The schema pointer of the subschema that `properties`/`items` declare for `pointer`.

    Follows local `$ref`s; returns None when the location is not declared that plainly (for
    example only through `allOf` or `additionalProperties`), so callers can refuse it.
    """
    node, location = _follow(schema, "")
    for token in tokens(pointer):
        if not isinstance(node, dict):
            return None
        properties = node.get("properties")
        if isinstance(properties, dict) and token in properties:
            location += "/properties/" + escape(token)
            node = properties[token]
        elif is_index(token) and isinstance(node.get("items"), dict):
            location += "/items"
            node = node["items"]
        else:
            return None
        node, location = _follow(schema, location, node)
    return location


def _follow(schema: Any, location: str, node: Any = None) -> tuple[Any, str]:
    node = schema if node is None and location == "" else node
    for _ in range(_MAX_REF_HOPS):
        if not (isinstance(node, dict) and isinstance(node.get("$ref"), str)):
            return node, location
        location = unquote(node["$ref"][1:])
        node = resolve_pointer(schema, location)
    return None, location


def resolve_pointer(document: Any, pointer: str, where: str = "") -> Any:
    """Follow an RFC 6901 JSON Pointer; a `SchemaError` if it leads nowhere."""
    node = lookup(document, pointer)
    if node is MISSING:
        raise SchemaError(f"reference '#{pointer}' points at nothing", field=where)
    return node
