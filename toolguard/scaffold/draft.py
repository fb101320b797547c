"""A schema drafted from a sample response: closed, typed, bounded, with the decisions marked.

Every object is closed (`additionalProperties: false`) and requires the members the sample
has (in every element, for arrays of objects); every string has a `maxLength` and every
array a `maxItems`, from the sample with room to spare; a value of several types in the
sample becomes an `anyOf`. What only the author knows (an enum, a pattern, a range, a rule)
is left as a `$comment` starting with "decide:". Nothing is guessed into the schema itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from toolguard.pointer import escape
from toolguard.rfc3339 import is_date_time

DIALECT = "https://json-schema.org/draft/2020-12/schema"
DATE_TIME_LENGTH = 35  # `2026-03-14T09:30:00.123456789+05:30`
_IDENTIFIER_CHARACTERS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:@/+-"
)
_TYPE_ORDER = ("object", "array", "string", "integer", "number", "boolean", "null")
# NOTE: lint walks a schema one view per subschema here and refuses one of over 5000 views
# (`lint.walk.MAX_VIEWS`, which a test keeps equal): a draft must stay within what it lints.
MAX_SUBSCHEMAS = 5_000

DECIDE_TEXT = "decide: free text reaches the agent as data (lint TG019); a pattern? an enum?"
DECIDE_IDENTIFIER = "decide: a few values? an enum; an identifier? an anchored, bounded pattern"
DECIDE_DATE_TIME = "decide: a timestamp; if it says when this was true, a `fresh` rule keeps it new"
DECIDE_NUMBER = "decide: a range? add minimum and maximum"
DECIDE_NULL = "decide: null in the sample; what type is it when set? (a type list or an anyOf)"
DECIDE_ARRAY = "decide: maxItems is the sample's size with room to spare; set a real answer's"
DECIDE_EMPTY = "decide: empty in the sample, so no item is allowed: describe its items and maxItems"
DECIDE_TYPES = "decide: the sample holds several types here; keep only those a real answer has"


def json_type(value: Any) -> str:
    """The JSON type of a parsed value (`integer` for an int, never for a bool)."""
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def room(size: int, least: int) -> int:
    """A bound with room to spare: the power of two at least twice `size`, never below `least`."""
    bound = least
    while bound < 2 * size:
        bound *= 2
    return bound


def is_identifier(text: str) -> bool:
    """Looks like an identifier: short, no spaces, only the usual identifier characters."""
    return 0 < len(text) <= 128 and set(text) <= _IDENTIFIER_CHARACTERS


def draft_schema(sample: Any, title: str, description: str) -> dict[str, Any]:
    """The payload schema for `sample`, after the dialect, a title and a description."""
    return {"$schema": DIALECT, "title": title, "description": description, **schema_for([sample])}


def schema_for(values: list[Any]) -> dict[str, Any]:
    """A schema that accepts each of `values` (all found at one place of the sample)."""
    groups: dict[str, list[Any]] = {}
    for value in values:
        kind = json_type(value)
        groups.setdefault("number" if kind == "integer" else kind, []).append(value)
    if "number" in groups and all(json_type(value) == "integer" for value in groups["number"]):
        groups["integer"] = groups.pop("number")
    branches = [_typed(kind, groups[kind]) for kind in _TYPE_ORDER if kind in groups]
    if len(branches) == 1:
        return branches[0]
    return {"$comment": DECIDE_TYPES, "anyOf": branches}


def _typed(kind: str, values: list[Any]) -> dict[str, Any]:
    if kind == "object":
        return _object(values)
    if kind == "array":
        items = [item for value in values for item in value]
        if not items:
            return {"$comment": DECIDE_EMPTY, "type": "array", "maxItems": 0}
        longest = max(len(value) for value in values)
        return {
            "$comment": DECIDE_ARRAY,
            "type": "array",
            "maxItems": room(longest, 16),
            "items": schema_for(items),
        }
    if kind == "string":
        return _string(values)
    if kind in {"integer", "number"}:
        return {"$comment": DECIDE_NUMBER, "type": kind}
    if kind == "null":
        return {"$comment": DECIDE_NULL, "type": "null"}
    return {"type": kind}


def _object(values: list[dict[str, Any]]) -> dict[str, Any]:
    # NOTE: one pass over the members: elements with different names must not cost their product.
    found: dict[str, list[Any]] = {}
    for value in values:
        for key, item in value.items():
            found.setdefault(key, []).append(item)
    properties = {key: schema_for(items) for key, items in found.items()}
    required = [key for key, items in found.items() if len(items) == len(values)]
    schema: dict[str, Any] = {"type": "object"}
    if required:
        schema["required"] = required
    if properties:
        schema["properties"] = properties
    schema["additionalProperties"] = False
    return schema


def _string(values: list[str]) -> dict[str, Any]:
    longest = max(len(value) for value in values)
    if all(is_date_time(value) for value in values):
        return {
            "$comment": DECIDE_DATE_TIME,
            "type": "string",
            "format": "date-time",
            "maxLength": max(DATE_TIME_LENGTH, room(longest, 32) if longest > 35 else 0),
        }
    decide = DECIDE_IDENTIFIER if all(is_identifier(value) for value in values) else DECIDE_TEXT
    return {"$comment": decide, "type": "string", "maxLength": room(longest, 32)}


def subschemas(schema: dict[str, Any]) -> int:
    """How many subschemas a drafted schema holds, itself included (what lint walks)."""
    count, stack = 0, [schema]
    while stack:
        node = stack.pop()
        count += 1
        stack.extend(node.get("properties", {}).values())
        stack.extend(node.get("anyOf", []))
        if "items" in node:
            stack.append(node["items"])
    return count


@dataclass(frozen=True, slots=True)
class Leaf:
    """A value of the sample and the subschema that checks it, at a JSON Pointer."""

    pointer: str
    value: Any
    schema: dict[str, Any]


def leaves(sample: Any, schema: dict[str, Any], pointer: str = "") -> Iterator[Leaf]:
    """Each scalar of the sample with its subschema, in document order, outside any anyOf.

    A value checked under an `anyOf` fails as the `anyOf`, not as its own keyword, so it is
    no place for a near miss that names the keyword.
    """
    if "anyOf" in schema:
        return
    if isinstance(sample, dict):
        for key, value in sample.items():
            yield from leaves(value, schema["properties"][key], f"{pointer}/{escape(key)}")
    elif isinstance(sample, list):
        for index, value in enumerate(sample):
            yield from leaves(value, schema["items"], f"{pointer}/{index}")
    else:
        yield Leaf(pointer, sample, schema)


def depth(value: Any) -> int:
    """Container nesting, as the parser counts it against `max_depth` (`{"a": [1]}` is 2)."""
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


def containers(value: Any) -> Iterator[int]:
    """The size of each object and array in `value`."""
    if isinstance(value, dict | list):
        yield len(value)
        for item in value.values() if isinstance(value, dict) else value:
            yield from containers(item)


def strings(value: Any) -> Iterator[str]:
    """Every string in `value`, member names included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def max_lengths(schema: Any) -> Iterator[int]:
    """Every `maxLength` in a drafted schema."""
    if isinstance(schema, dict):
        if isinstance(schema.get("maxLength"), int):
            yield schema["maxLength"]
        for item in schema.values():
            yield from max_lengths(item)
    elif isinstance(schema, list):
        for item in schema:
            yield from max_lengths(item)
