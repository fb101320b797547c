"""Facts about one bundled payload schema that a diff needs: signs, equivalence, reach, presence.

Bundled schemas (see `refs.bundle`) hold only local `$ref`s, so every question here is a
walk over one document. Nothing is resolved outside it.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any
from urllib.parse import unquote

from toolguard.number import exact_number
from toolguard.pointer import MISSING, escape, is_index, lookup, tokens
from toolguard.schema.refs import MANY, MAP, ONE
from toolguard.schema.vocabulary import ANNOTATIONS

Signs = dict[str, set[int]]
_MAX_HOPS = 64
# How a subschema's verdict reaches its parent's: 1 as is, -1 inverted (`not`), 0 either way.
_UNKNOWN = frozenset({"if", "oneOf"})
_NOT_APPLIED = frozenset({"$defs", "contentSchema"})
# Subschemas applied to the very value their parent applies to (a `$ref` too).
_BESIDE_ONE = ("not", "if", "then", "else")
_BESIDE_MANY = ("allOf", "anyOf", "oneOf")


def json_key(value: Any) -> Hashable:
    """A hashable stand-in with JSON equality: 1 equals 1.0, true never equals 1.

    Numbers are their exact values: `0.10000000000000001` from a schema file is not 0.1.
    """
    if isinstance(value, bool) or value is None:
        return ("literal", value)
    if isinstance(value, int | float):
        return ("number", exact_number(value))
    if isinstance(value, list):
        return ("array", tuple(json_key(item) for item in value))
    if isinstance(value, dict):
        return ("object", frozenset((key, json_key(item)) for key, item in value.items()))
    return ("string", value)


def target(ref: str) -> str:
    """The pointer a bundled `$ref` ("#/..." percent-encoded) denotes."""
    return unquote(ref[1:])


def trivially_true(schema: Any) -> bool:
    """Whether `schema` accepts everything as written (true, or annotations only)."""
    return schema is True or (isinstance(schema, dict) and set(schema) <= ANNOTATIONS)


def signs(schema: Any) -> Signs:
    """Every reachable subschema location -> how its verdict reaches the root's (see `_UNKNOWN`).

    Locations only `$defs` hold and no `$ref` reaches are absent: they cannot change any
    verdict. With a `$dynamicRef` anywhere, every location is marked 0 (cannot tell).
    """
    seen: Signs = {}
    dynamic = False
    stack: list[tuple[Any, str, int]] = [(schema, "", 1)]
    while stack:
        node, where, sign = stack.pop()
        if sign in seen.setdefault(where, set()):
            continue
        seen[where].add(sign)
        if not isinstance(node, dict):
            continue
        for keyword, value in node.items():
            at = f"{where}/{escape(keyword)}"
            child = 0 if keyword in _UNKNOWN else -sign if keyword == "not" else sign
            if keyword == "contains" and "maxContains" in node:
                child = 0  # more matching items may now exceed maxContains
            if keyword == "$ref" and isinstance(value, str):
                pointer = target(value)
                stack.append((lookup(schema, pointer), pointer, sign))
            elif keyword == "$dynamicRef":
                dynamic = True
            elif keyword in _NOT_APPLIED:
                continue
            elif keyword in ONE:
                stack.append((value, at, child))
            elif keyword in MANY and isinstance(value, list):
                stack.extend((item, f"{at}/{n}", child) for n, item in enumerate(value))
            elif keyword in MAP and isinstance(value, dict):
                stack.extend((item, f"{at}/{escape(key)}", child) for key, item in value.items())
    if dynamic:
        return {where: {0} for where in seen}
    return seen


def deref(document: Any, node: Any) -> tuple[Any, str | None]:
    """Follow schemas that are nothing but a `$ref`; the node reached and its pointer."""
    where = None
    for _ in range(_MAX_HOPS):
        if not (isinstance(node, dict) and set(node) == {"$ref"} and isinstance(node["$ref"], str)):
            return node, where
        where = target(node["$ref"])
        node = lookup(document, where)
    return MISSING, where


def equivalent(old_doc: Any, old: Any, new_doc: Any, new: Any) -> bool:
    """Whether two subschemas say the same thing, annotations included, `$ref`s followed.

    A bisimulation: a pair of `$ref` targets under comparison is assumed equal, so recursive
    schemas terminate. `$defs` are compared only where a `$ref` leads.
    """
    assumed: set[tuple[str, str]] = set()

    def same(left: Any, right: Any) -> bool:
        left, left_at = deref(old_doc, left)
        right, right_at = deref(new_doc, right)
        if left_at is not None and right_at is not None:
            if (left_at, right_at) in assumed:
                return True
            assumed.add((left_at, right_at))
        left = {} if left is True else left
        right = {} if right is True else right
        if not (isinstance(left, dict) and isinstance(right, dict)):
            return json_key(left) == json_key(right)
        keys = set(left) - {"$defs"}
        if keys != set(right) - {"$defs"}:
            return False
        return all(_same_keyword(keyword, left[keyword], right[keyword]) for keyword in keys)

    def _same_keyword(keyword: str, left: Any, right: Any) -> bool:
        if keyword == "$ref" and isinstance(left, str) and isinstance(right, str):
            return same({"$ref": left}, {"$ref": right})
        if keyword in ONE:
            return same(left, right)
        if keyword in MANY and isinstance(left, list) and isinstance(right, list):
            return len(left) == len(right) and all(map(same, left, right))
        if keyword in MAP and isinstance(left, dict) and isinstance(right, dict):
            return left.keys() == right.keys() and all(same(left[k], right[k]) for k in left)
        return json_key(left) == json_key(right)

    return same(old, new)


def field_reach(schema: Any, pointer: str) -> set[str]:
    """The schema locations that shape what the agent receives for one projected `pointer`.

    Every subschema that applies to the value there, wherever it sits: the member's own
    (`properties`, `items`...) and, in place beside it or above it, `allOf`, `anyOf`, `oneOf`,
    `not`, `if`/`then`/`else`, `dependentSchemas` and `$ref` chains, so an `enum` in a root
    `allOf` branch counts as much as one in the field's own subschema; then everything those
    hold and reference. An ancestor's own `const` or `enum` constrains the value as well. A
    member's `patternProperties` are all counted (no pattern is matched here: fail closed);
    with a `$dynamicRef` on the way, the whole schema counts (its target cannot be told).
    """
    applied = _in_place(schema, [""])
    reach: set[str] = set()
    for token in tokens(pointer):
        if applied is None:
            return {""}
        reach |= {
            f"{where}/{keyword}"
            for where in applied
            for keyword in ("const", "enum")
            if isinstance(node := lookup(schema, where), dict) and keyword in node
        }
        applied = _in_place(schema, _members(schema, applied, token))
    if applied is None:
        return {""}
    return reach | _closure(schema, sorted(applied))


def _in_place(schema: Any, roots: list[str]) -> set[str] | None:
    """`roots` and every subschema applied to the same value beside them (None: `$dynamicRef`)."""
    seen: set[str] = set()
    pending = list(roots)
    while pending:
        where = pending.pop()
        if where in seen:
            continue
        seen.add(where)
        node = lookup(schema, where)
        if not isinstance(node, dict):
            continue
        if "$dynamicRef" in node:
            return None
        if isinstance(node.get("$ref"), str):
            pending.append(target(node["$ref"]))
        pending.extend(f"{where}/{keyword}" for keyword in _BESIDE_ONE if keyword in node)
        for keyword in _BESIDE_MANY:
            branches = node.get(keyword)
            if isinstance(branches, list):
                pending.extend(f"{where}/{keyword}/{index}" for index in range(len(branches)))
        dependent = node.get("dependentSchemas")
        if isinstance(dependent, dict):
            pending.extend(f"{where}/dependentSchemas/{escape(name)}" for name in dependent)
    return seen


def _members(schema: Any, applied: set[str], token: str) -> list[str]:
    """The subschemas of the `applied` ones that may apply to their member or item `token`."""
    found: list[str] = []
    for where in sorted(applied):
        node = lookup(schema, where)
        if not isinstance(node, dict):
            continue
        properties = node.get("properties")
        if isinstance(properties, dict) and token in properties:
            found.append(f"{where}/properties/{escape(token)}")
        elif "additionalProperties" in node:
            found.append(f"{where}/additionalProperties")
        patterns = node.get("patternProperties")
        if isinstance(patterns, dict):
            found.extend(f"{where}/patternProperties/{escape(pattern)}" for pattern in patterns)
        if is_index(token):
            prefix = node.get("prefixItems")
            if isinstance(prefix, list) and int(token) < len(prefix):
                found.append(f"{where}/prefixItems/{token}")
            elif "items" in node:
                found.append(f"{where}/items")
            found.extend(f"{where}/{keyword}" for keyword in ("contains",) if keyword in node)
        found.extend(
            f"{where}/{keyword}"
            for keyword in ("unevaluatedProperties", "unevaluatedItems")
            if keyword in node
        )
    return found


def _closure(schema: Any, roots: list[str]) -> set[str]:
    reach: set[str] = set()
    pending = list(roots)
    while pending:
        where = pending.pop()
        if where in reach:
            continue
        reach.add(where)
        stack = [lookup(schema, where)]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                ref = node.get("$ref")
                if isinstance(ref, str):
                    pending.append(target(ref))
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
    return reach


def under(where: str, locations: set[str]) -> bool:
    """Whether `where` is one of `locations` or lies inside one of them."""
    return any(where == at or where.startswith(f"{at}/") for at in locations)


def on_the_way(where: str, locations: set[str]) -> bool:
    """Whether `where` is one of `locations`, inside one, or holds one (an `allOf` changed).

    A change to the keyword that holds a subschema (branches added or reordered, a `$ref`
    retargeted, a condition added) changes whether that subschema still applies.
    """
    return under(where, locations) or any(at.startswith(f"{where}/") for at in locations)


def always_present(schema: Any, pointer: str) -> bool:
    """Whether every payload the schema accepts has a value at `pointer`.

    Only the plain case counts: each step an object that lists the member in `required`
    and `properties`. Anything else (arrays, composition, open types) is "maybe not".
    """
    node, _ = deref(schema, schema)
    for token in tokens(pointer):
        if not isinstance(node, dict) or node.get("type") not in ("object", ["object"]):
            return False
        properties = node.get("properties")
        if not isinstance(properties, dict) or token not in properties:
            return False
        if token not in node.get("required", []):
            return False
        node, _ = deref(schema, properties[token])
    return node is not MISSING
