"""The envelope schema as published: what `toolguard schema` prints and MCP lists as `outputSchema`.

Other validators read it, above all python-jsonschema, the MCP Python SDK's. It runs each
`pattern` with Python's `re` as written, where toolguard runs an exact ECMA-262 translation;
it decides numbers on the doubles the JSON text parses to, where toolguard decides them on the
numbers written (`0.07` is no multiple of `0.01` in doubles; `0.10000000000000001` equals
`0.1`). Where its reading could refuse an envelope toolguard accepts, the schema is published
looser, never stricter: a numeric keyword is dropped or widened where a looser schema is safe
(`multipleOf` goes, `exclusiveMinimum` becomes `minimum`...), and a definition that needs an
exact reading (a pattern read otherwise; a number under `not`) is published as `{}` (any
value). toolguard itself still validates with the exact schema. For most contracts nothing
changes and the published schema is the envelope schema itself.

The MCP TypeScript SDK validates with ajv's default class, which reads every schema by
draft-07's rules, and asserts formats with ajv-formats' own definitions. So `format` is never
published (each validator that asserts one reads it its own way), and a definition draft-07
would read as refusing more (`items` beside `prefixItems`, `minContains: 0`, a keyword it does
not know, or one beside a `$ref`, which draft-07 ignores, under `not`, `if` or `oneOf`) is
published as `{}` too.
"""

from __future__ import annotations

import copy
from typing import Any

from toolguard.contract.advertised_numbers import loosen_numbers, reads_numbers
from toolguard.schema.regex import python_reading

_LOOSENED = "published as any value: a pattern or number here reads differently in other validators"
# Where a subschema stands, for its patterns: a looser reading there only accepts more...
_POSITIVE_MAPS = ("properties", "patternProperties", "dependentSchemas", "$defs")
_POSITIVE_LISTS = ("allOf", "anyOf", "prefixItems")
_POSITIVE = (
    "additionalProperties",
    "items",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "then",
    "else",
)
# ...while here it can also refuse: only an exact reading is safe.
_EXACT = ("not", "if")
# Assertions draft-07 does not know: it reads them as nothing, which under `not` refuses more.
_NEWER = (
    "prefixItems",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
    "unevaluatedItems",
    "minContains",
    "maxContains",
    "$dynamicRef",
)
# What a `$ref` may stand beside without asserting anything (draft-07 ignores its siblings).
_NOT_ASSERTING = frozenset(
    {"$ref", "$comment", "title", "description", "default", "examples", "deprecated"}
)


def advertised_schema(envelope_schema: dict[str, Any]) -> dict[str, Any]:
    """`envelope_schema`, loosened wherever another validator would misread it."""
    schema = copy.deepcopy(envelope_schema)  # numeric keywords are loosened in this copy
    defs: dict[str, Any] = schema.get("$defs", {})
    needs = {name: _Needs() for name in defs}
    for name, node in defs.items():
        _walk(node, exact=False, needs=needs[name])
    published_ok = _settle(needs)
    if all(published_ok.values()) and not any(item.changed for item in needs.values()):
        return envelope_schema
    for name, ok in published_ok.items():
        if not ok:
            defs[name] = {"$comment": _LOOSENED}
    return schema


class _Needs:
    """What one definition asks of patterns and of the definitions it references."""

    def __init__(self) -> None:
        self.looser = False  # a looser reading where a looser one is safe
        self.other = False  # a pattern read otherwise, or a looser reading where it is not safe
        self.loose_refs: set[str] = set()  # references where a looser target is safe
        self.exact_refs: set[str] = set()  # references that need an exact target
        self.changed = False  # a numeric keyword was loosened in place
        # `unevaluated*` in it: what its references evaluate (their `properties`, `items`...)
        # decides what stays unevaluated, so a target published as `{}` would refuse more
        self.annotated = False

    def note(self, reading: str, *, exact: bool) -> None:
        """One pattern's reading, where it stands."""
        self.looser |= reading == "looser"
        self.other |= reading == "other" or (reading == "looser" and exact)

    def reference(self, ref: str, *, exact: bool) -> None:
        """One reference: a published definition, or something not followed (never published)."""
        name = ref.removeprefix("#/$defs/")
        if name == ref or "/" in name:
            self.other = True
            return
        (self.exact_refs if exact else self.loose_refs).add(name)


def _walk(node: Any, *, exact: bool, needs: _Needs) -> None:
    """Record the patterns and references of one subschema, knowing where it stands."""
    if not isinstance(node, dict):
        return
    if reads_numbers(node):
        # NOTE: python-jsonschema reads a number looser or stricter than written: exact
        # positions cannot be published; elsewhere, what could refuse is loosened in place.
        needs.looser = True
        needs.other |= exact
        needs.changed |= not exact and loosen_numbers(node)
    needs.annotated |= "unevaluatedProperties" in node or "unevaluatedItems" in node
    needs.other |= _draft_7_refuses_more(node) or (exact and _draft_7_reads_less(node))
    if "format" in node:
        # NOTE: each validator that asserts formats reads them its own way (ajv-formats
        # refuses the email `a@localhost`): not published; where exactness matters, nothing is.
        needs.other |= exact
        needs.changed |= not exact and node.pop("format", None) is not None
    if isinstance(node.get("pattern"), str):
        needs.note(python_reading(node["pattern"]), exact=exact)
    for key in _members(node, "patternProperties"):
        # NOTE: a key also decides which members are "additional": it must read exactly.
        needs.note(python_reading(key), exact=True)
    for ref in (node.get("$ref"), node.get("$dynamicRef")):
        if isinstance(ref, str):
            needs.reference(ref, exact=exact)
    for key in _POSITIVE:
        _walk(node.get(key), exact=exact, needs=needs)
    # More items matching `contains` can break `maxContains`.
    _walk(node.get("contains"), exact=exact or "maxContains" in node, needs=needs)
    for key in _POSITIVE_MAPS:
        for child in _members(node, key).values():
            _walk(child, exact=exact, needs=needs)
    for key in _POSITIVE_LISTS:
        for child in _items(node, key):
            _walk(child, exact=exact, needs=needs)
    for key in _EXACT:
        _walk(node.get(key), exact=True, needs=needs)
    for child in _items(node, "oneOf"):  # a looser branch can make two branches match
        _walk(child, exact=True, needs=needs)


def _draft_7_refuses_more(node: dict[str, Any]) -> bool:
    """Whether draft-07's reading of `node` (ajv's default) refuses what 2020-12's accepts.

    Draft-07 holds every item to `items` (2020-12: the items after `prefixItems`), and does
    not know `minContains` (0 lets `contains` match nothing).
    """
    tuple_items = "prefixItems" in node and "items" in node
    return tuple_items or ("contains" in node and node.get("minContains") == 0)


def _draft_7_reads_less(node: dict[str, Any]) -> bool:
    """Whether draft-07 reads less of `node` than 2020-12: where it stands exact, it refuses more.

    Draft-07 does not know the newer keywords, and ignores every keyword beside a `$ref`
    (python-jsonschema's Draft7Validator does; ajv applies them).
    """
    beside_ref = "$ref" in node and any(key not in _NOT_ASSERTING for key in node)
    return beside_ref or any(key in node for key in _NEWER)


def _members(node: dict[str, Any], key: str) -> dict[str, Any]:
    value = node.get(key)
    return value if isinstance(value, dict) else {}


def _items(node: dict[str, Any], key: str) -> list[Any]:
    value = node.get(key)
    return value if isinstance(value, list) else []


def _settle(needs: dict[str, _Needs]) -> dict[str, bool]:
    """Which definitions may be published as they are.

    A definition is exact when nothing in it, or in what it references, reads differently
    (a fixed point over references). It may be published as is unless a pattern in it reads
    otherwise, or it references a definition that is not exact where only an exact one is
    safe. (A reference where a looser reading is safe needs nothing: the target, published as
    is or as `{}`, only accepts more; unless the definition uses `unevaluated*`, which a
    target published as `{}` would leave more to refuse: its references all need exact ones.)
    """
    exact = {name: not (item.looser or item.other) for name, item in needs.items()}
    changed = True
    while changed:
        changed = False
        for name, item in needs.items():
            refs = item.loose_refs | item.exact_refs
            if exact[name] and not all(exact.get(target, False) for target in refs):
                exact[name], changed = False, True
    return {
        name: not item.other and all(exact.get(target, False) for target in _needing_exact(item))
        for name, item in needs.items()
    }


def _needing_exact(item: _Needs) -> set[str]:
    return item.exact_refs | item.loose_refs if item.annotated else item.exact_refs
