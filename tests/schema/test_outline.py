"""Deeply nested subschemas compile and validate as the spec says (`schema/outline.py`).

Generated code used to nest a Python block per schema level: ten nested `contains`, twenty
`not` or 49 `properties` made CPython refuse the module (an internal error, exit 4) though the
schema was well within the limits. Each schema here nests past that; python-jsonschema is the
reference for the verdicts.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

# NOTE: python-jsonschema ships no type information and types-jsonschema is not a dependency.
import jsonschema  # type: ignore[import-untyped]
import pytest

from toolguard.schema import compile_schema

Wrap = Callable[[Any], Any]
# keyword -> (the schema around a subschema, the instance around the subschema's instance)
NESTINGS: dict[str, tuple[Wrap, Wrap]] = {
    "not": (lambda s: {"not": {"not": s}}, lambda i: i),
    "allOf": (lambda s: {"allOf": [s, True]}, lambda i: i),
    "anyOf": (lambda s: {"anyOf": [{"type": "null"}, s]}, lambda i: i),
    "oneOf": (lambda s: {"oneOf": [s, {"type": "null"}]}, lambda i: i),
    "if": (lambda s: {"if": {"type": "null"}, "else": s}, lambda i: i),
    "dependentSchemas": (lambda s: {"dependentSchemas": {"k": s}}, lambda i: i),
    "items": (lambda s: {"items": s}, lambda i: [i]),
    "prefixItems": (lambda s: {"prefixItems": [s]}, lambda i: [i]),
    "contains": (lambda s: {"contains": s, "maxContains": 1}, lambda i: [i, None]),
    "properties": (lambda s: {"properties": {"k": s}}, lambda i: {"k": i}),
    "additionalProperties": (lambda s: {"additionalProperties": s}, lambda i: {"k": i}),
    "patternProperties": (lambda s: {"patternProperties": {"^k": s}}, lambda i: {"k": i}),
    "unevaluatedItems": (lambda s: {"unevaluatedItems": s}, lambda i: [i]),
}
DEPTH = 40  # past every bound CPython set on the old code (contains: 10, properties: 49)
# Innermost schemas with instances on both sides of them (objects, for `dependentSchemas`).
LEAVES: list[tuple[Any, list[Any]]] = [
    ({"type": "object", "required": ["k"]}, [{"k": 1}, {}, 5]),
    (
        {"properties": {"k": True}, "unevaluatedProperties": False},
        [{"k": 1}, {"k": 1, "x": 2}],
    ),
]


def _nested(keywords: list[str], leaf: Any, instance: Any) -> tuple[Any, Any]:
    schema = leaf
    for keyword in keywords:
        wrap_schema, wrap_instance = NESTINGS[keyword]
        schema, instance = wrap_schema(schema), wrap_instance(instance)
    return schema, instance


def _chains() -> list[list[str]]:
    cycle = list(NESTINGS)
    mixed = list(itertools.islice(itertools.cycle(cycle), DEPTH))
    return [[keyword] * DEPTH for keyword in NESTINGS] + [mixed, mixed[::-1]]


@pytest.mark.parametrize("keywords", _chains(), ids=lambda chain: "-".join(sorted(set(chain))))
@pytest.mark.parametrize("collect", [False, True])
def test_a_deeply_nested_schema_compiles_and_agrees_with_the_reference(
    keywords: list[str], collect: bool
) -> None:
    """Every nesting compiles, and its verdicts are the reference's, valid and invalid alike."""
    for leaf, instances in LEAVES:
        for leaf_instance in instances:
            schema, instance = _nested(keywords, leaf, leaf_instance)
            validator = compile_schema(schema, collect=collect)
            expected = jsonschema.Draft202012Validator(schema).is_valid(instance)
            assert validator.is_valid(instance) is expected
            assert (validator.errors(instance) == []) is expected


def test_a_deep_error_names_the_failing_subschema_and_instance_location() -> None:
    """An error found in a subschema given a function of its own reports where it is."""
    schema, instance = _nested(["properties"] * DEPTH, {"type": "string"}, 5)
    errors = compile_schema(schema, collect=True).errors(instance)
    assert [(error.reason, error.instance_path) for error in errors] == [("type", "/k" * DEPTH)]
    assert errors[0].schema_path == "/properties/k" * DEPTH + "/type"


def test_a_deep_dynamic_reference_still_follows_the_dynamic_scope() -> None:
    """A `$dynamicRef` deep inside nested subschemas resolves through the scope it runs in."""
    inner, _ = _nested(["items"] * 30, {"$dynamicRef": "#node"}, None)
    schema = {
        "$id": "https://example.invalid/outer",
        "$ref": "tree",
        "$defs": {
            "tree": {"$id": "tree", "$dynamicAnchor": "node", **inner},
            "node": {"$dynamicAnchor": "node", "type": "string"},
        },
    }
    _, good = _nested(["items"] * 30, [], None)
    _, bad = _nested(["items"] * 30, [5], None)
    validator = compile_schema(schema)
    reference = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid(good) is reference.is_valid(good)
    assert validator.is_valid(bad) is reference.is_valid(bad)
