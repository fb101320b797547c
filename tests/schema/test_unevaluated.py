"""Annotations kept only where an instance location's set may be read (`schema.unevaluated`)."""

from __future__ import annotations

from typing import Any

import pytest

from toolguard.schema import compile_schema

BEHIND_A_REF = {
    "$defs": {"a": {"properties": {"x": {}}}},
    "$ref": "#/$defs/a",
    "unevaluatedProperties": False,
}
IN_A_CHILD = {"properties": {"c": {"properties": {"x": {}}, "unevaluatedProperties": False}}}
IN_EACH_ITEM = {"items": {"allOf": [{"properties": {"a": {}}}], "unevaluatedProperties": False}}
BESIDE_A_PLAIN_CHILD = {"properties": {"p": {"type": "object"}}, "unevaluatedProperties": False}
UNDER_A_PLAIN_PARENT = {
    "properties": {"p": {"items": {"anyOf": [{"properties": {"a": {}}}, {}]}}},
    "items": {"unevaluatedItems": False, "prefixItems": [{}]},
}


@pytest.mark.parametrize(
    ("schema", "instance", "valid"),
    [
        (BEHIND_A_REF, {"x": 1}, True),
        (BEHIND_A_REF, {"y": 1}, False),
        (IN_A_CHILD, {"c": {"x": 1}}, True),
        (IN_A_CHILD, {"c": {"y": 1}}, False),
        (IN_EACH_ITEM, [{"a": 1}, {"a": 2}], True),
        (IN_EACH_ITEM, [{"a": 1}, {"b": 2}], False),
        (BESIDE_A_PLAIN_CHILD, {"p": {"z": 1}}, True),
        (BESIDE_A_PLAIN_CHILD, {"p": {}, "q": 1}, False),
        (UNDER_A_PLAIN_PARENT, [[1]], True),
        (UNDER_A_PLAIN_PARENT, [[1, 2]], False),
    ],
)
def test_annotations_reach_every_reader(schema: Any, instance: Any, valid: bool) -> None:
    """A referenced function returns what it evaluated; a reader below a plain parent sees its own.

    (Locations no keyword reads keep no set; these are the ones that must.)
    """
    assert compile_schema(schema, formats=False).is_valid(instance) is valid


# `not`'s subschema fails part way (`dependentRequired` runs after `properties`): what it had
# evaluated before failing must not count, or `x` would pass as evaluated.
HALF_EVALUATED = {"properties": {"x": {}}, "dependentRequired": {"x": ["y"]}}


@pytest.mark.parametrize(
    ("schema", "valid"),
    [
        ({"not": HALF_EVALUATED}, True),  # `not` itself passes: `x` without `y`
        ({"not": HALF_EVALUATED, "unevaluatedProperties": False}, False),
        ({"not": HALF_EVALUATED, "properties": {"x": {}}, "unevaluatedProperties": False}, True),
    ],
)
def test_not_never_contributes_annotations(schema: Any, valid: bool) -> None:
    """A subschema under `not` that failed after evaluating a member leaves it unevaluated."""
    assert compile_schema(schema, formats=False).is_valid({"x": 1}) is valid
