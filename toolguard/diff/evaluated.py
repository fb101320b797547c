"""What `unevaluatedProperties` and `unevaluatedItems` see: one subschema -> its footprint.

Those two keywords apply to the members (items) that no subschema applied in place has
evaluated: the node's own keywords and those of its `allOf`, `anyOf`, `oneOf`, `if`,
`then`, `else`, `dependentSchemas` and `$ref` targets, however deep. So a change that looks
like a tightening where it is written (`properties: {"a": {"type": "integer"}}` added to an
`allOf` branch) may let members through at the node that holds `unevaluatedProperties:
false`, and one that looks like nothing at all (`additionalProperties: true` added, which
the rest of the comparison reads as absent) lets every member through. The footprint lists
which subschema evaluates what; two that differ cannot be compared precisely (`both`).
"""

from __future__ import annotations

from typing import Any

from toolguard.diff.graph import target
from toolguard.pointer import escape, lookup

Footprint = tuple[tuple[str, tuple[object, ...]], ...]
_IN_PLACE_ONE = ("if", "then", "else")  # never `not`: its annotations are dropped
_IN_PLACE_MANY = ("allOf", "anyOf", "oneOf")
# What each subschema contributes: keywords whose member names (or length) matter, and
# keywords whose mere presence does (absent and `true` differ here, nowhere else).
_NAMED = {"unevaluatedProperties": ("properties", "patternProperties"), "unevaluatedItems": ()}
_COUNTED = {"unevaluatedProperties": (), "unevaluatedItems": ("prefixItems",)}
_PRESENT = {
    "unevaluatedProperties": ("additionalProperties", "unevaluatedProperties"),
    "unevaluatedItems": ("items", "contains", "unevaluatedItems"),
}


def footprint(document: Any, node: dict[str, Any], keyword: str) -> Footprint:
    """What decides the members (or items) `keyword` in `node` sees: (path, what it evaluates).

    Paths lead from `node` through the subschemas applied in place. The node's own
    `properties`, `patternProperties` and `prefixItems` are left out: the comparison of
    those already judges them against `keyword` (`schema.py`). A `$ref` is followed once
    (cycles end) and written `$ref` in a path, so a schema reorganised through `$defs`
    keeps its footprint.
    """
    found: list[tuple[str, tuple[object, ...]]] = []
    seen: set[str] = set()
    pending: list[tuple[Any, str]] = [(node, "")]
    while pending:
        current, path = pending.pop()
        if not isinstance(current, dict):
            continue
        own = _contribution(current, keyword, whole=bool(path))
        if any(own):
            found.append((path, own))
        ref = current.get("$ref")
        if isinstance(ref, str) and (pointer := target(ref)) not in seen:
            seen.add(pointer)
            pending.append((lookup(document, pointer), f"{path}/$ref"))
        pending.extend(
            (current[name], f"{path}/{name}") for name in _IN_PLACE_ONE if name in current
        )
        for name in _IN_PLACE_MANY:
            branches = current.get(name)
            if isinstance(branches, list):
                pending.extend((item, f"{path}/{name}/{n}") for n, item in enumerate(branches))
        dependent = current.get("dependentSchemas")
        if isinstance(dependent, dict):
            pending.extend(
                (item, f"{path}/dependentSchemas/{escape(name)}")
                for name, item in dependent.items()
            )
    return tuple(sorted(found, key=lambda entry: entry[0]))


def _contribution(node: dict[str, Any], keyword: str, *, whole: bool) -> tuple[object, ...]:
    named = tuple(
        tuple(sorted(node[name])) if whole and isinstance(node.get(name), dict) else ()
        for name in _NAMED[keyword]
    )
    counted = tuple(
        len(node[name]) if whole and isinstance(node.get(name), list) else 0
        for name in _COUNTED[keyword]
    )
    present = tuple(name in node for name in _PRESENT[keyword])
    return (*named, *counted, *present)
