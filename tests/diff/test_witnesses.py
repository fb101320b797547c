"""Differential test of the schema diff against the engine: a witness must be reported.

A pair of schemas is a base schema and a few keyword edits to it. Whenever some small value
is valid under the new schema and not the old (a witness that it accepts more), the diff must
say so (`accepts-more` or `both`); and the other way round for `accepts-less`. Witnesses are
looked for among a fixed set of small values, validated by toolguard's own engine.
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from toolguard.diff.payload import schema_changes
from toolguard.schema import SchemaError, Validator, compile_schema

DIALECT = "https://json-schema.org/draft/2020-12/schema"
KEYS = ("a", "b", "c")
DEFS = {"d1": {"type": "string", "maxLength": 2}, "d2": {"enum": [0, 1, "a"]}}
_SCALARS = [
    None,
    True,
    False,
    -1,
    0,
    1,
    2,
    3,
    0.5,
    1.5,
    10,
    "",
    "a",
    "b",
    "ab",
    "aaa",
    "2020-01-01",
]
_SMALL = [None, 0, 1, 2, 0.5, "", "a", "ab", True]
# Keywords whose subschemas apply to the same value or a part of it (mutation sites).
_ONE = ("items", "not", "if", "then", "else", "contains", "additionalProperties")
_ONE += ("unevaluatedProperties", "unevaluatedItems", "propertyNames")
_MAP = ("properties", "$defs", "patternProperties", "dependentSchemas")
_MANY = ("allOf", "anyOf", "oneOf", "prefixItems")


def _candidates() -> list[Any]:
    values: list[Any] = [*_SCALARS, [], {}]
    values += [[value] for value in _SMALL]
    values += [[x, y] for x in (0, 1, "a", None) for y in (0, 1, "a", None)]
    values += [[0, 0, 0], [1, 2, 3], [0, 1, 2, 3]]
    values += [{key: value} for key in KEYS for value in [*_SMALL, [], {}, [0], {"a": 0}]]
    values += [
        {first: x, second: y}
        for first, second in itertools.combinations(KEYS, 2)
        for x in (0, 1, "a", None, "")
        for y in (0, 1, "a", 2)
    ]
    for value in (0, 1, "a"):
        values += [dict.fromkeys(KEYS, value), {"a": {"a": value}, "b": value}]
        values += [{"a": [value], "b": [value, value]}]
    return [*values, {"d": 0}, {"a": 0, "d": 1}]


CANDIDATES = _candidates()

_leaves = st.sampled_from(
    [
        {},
        True,
        False,
        {"type": "integer", "minimum": 0, "maximum": 2},
        {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5},
        {"type": "string", "minLength": 1, "maxLength": 2},
        {"enum": ["a", 0, None]},
        {"const": "a"},
        {"$ref": "#/$defs/d1"},
        {"$ref": "#/$defs/d2"},
    ]
)


def _object(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"type": st.just("object"), "properties": st.dictionaries(st.sampled_from(KEYS), inner)},
        optional={
            "required": st.lists(st.sampled_from(KEYS), unique=True, max_size=2),
            "additionalProperties": st.booleans(),
            "unevaluatedProperties": st.booleans(),
            "allOf": st.lists(inner, min_size=1, max_size=2),
            "anyOf": st.lists(inner, min_size=1, max_size=2),
        },
    )


def _array(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"type": st.just("array")},
        optional={
            "items": inner,
            "prefixItems": st.lists(inner, min_size=1, max_size=2),
            "contains": inner,
            "unevaluatedItems": st.booleans(),
            "allOf": st.lists(inner, min_size=1, max_size=2),
            "maxItems": st.integers(0, 3),
        },
    )


_subschemas = st.recursive(_leaves, lambda inner: _object(inner) | _array(inner), max_leaves=6)
_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "type": st.sampled_from(["integer", "number", "string", "object", "array", ["string", "null"]]),
    "enum": st.lists(st.sampled_from(["a", "b", 0, 1, None, 2]), min_size=1, max_size=3),
    "const": st.sampled_from(["a", 0, 1, None]),
    "required": st.lists(st.sampled_from(KEYS), unique=True, max_size=3),
    "dependentRequired": st.dictionaries(
        st.sampled_from(KEYS), st.lists(st.sampled_from(KEYS), unique=True), max_size=1
    ),
    "pattern": st.sampled_from(["^a", "b", "^[ab]+$"]),
    "format": st.sampled_from(["date", "email"]),
    "multipleOf": st.sampled_from([0.5, 1, 2, 3]),
    "uniqueItems": st.booleans(),
    **dict.fromkeys(
        ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"),
        st.sampled_from([-1, 0, 0.5, 1, 2]),
    ),
    **dict.fromkeys(
        (
            "minLength",
            "maxLength",
            "minItems",
            "maxItems",
            "minProperties",
            "maxProperties",
            "minContains",
            "maxContains",
        ),
        st.integers(0, 3),
    ),
    **dict.fromkeys(_ONE, _subschemas),
    **dict.fromkeys(
        ("properties", "dependentSchemas"),
        st.dictionaries(st.sampled_from(KEYS), _subschemas, max_size=2),
    ),
    **dict.fromkeys(_MANY, st.lists(_subschemas, min_size=1, max_size=2)),
    "$ref": st.sampled_from(["#/$defs/d1", "#/$defs/d2"]),
}


def _sites(schema: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every subschema that is an object (somewhere to edit)."""
    if not isinstance(schema, dict):
        return []
    found = [path]
    for keyword, value in schema.items():
        if keyword in _ONE:
            found += _sites(value, (*path, keyword))
        elif keyword in _MAP and isinstance(value, dict):
            for name, item in value.items():
                found += _sites(item, (*path, keyword, name))
        elif keyword in _MANY and isinstance(value, list):
            for index, item in enumerate(value):
                found += _sites(item, (*path, keyword, index))
    return found


@st.composite
def _edited(draw: st.DrawFn, schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with one keyword set or removed at one of its subschemas."""
    edited = copy.deepcopy(schema)
    node = edited
    for step in draw(st.sampled_from(_sites(edited))):
        node = node[step]
    keyword = draw(st.sampled_from(sorted(_VALUES)))
    if keyword in node and draw(st.booleans()):
        del node[keyword]
    else:
        node[keyword] = draw(_VALUES[keyword])
    return edited


@st.composite
def schema_pairs(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """A base payload schema and the same with one to three edits."""
    old = {"$schema": DIALECT, **draw(_object(_subschemas)), "$defs": copy.deepcopy(DEFS)}
    new = old
    for _ in range(draw(st.integers(1, 3))):
        new = draw(_edited(new))
    return old, new


def _compiled(schema: Any) -> Validator | None:
    try:
        return compile_schema(schema)
    except SchemaError:
        return None  # such a contract does not load: nothing to compare


def _pair(old: dict[str, Any], new: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    return {"$schema": DIALECT, **old}, {"$schema": DIALECT, **new}


_CLOSED = {"type": "object", "unevaluatedProperties": False}
_CLOSED_ARRAY = {"type": "array", "unevaluatedItems": False}
_INT = {"type": "integer"}
_DEFS_A = {"x": {"properties": {"a": _INT}}}


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(schema_pairs())
# Members or items other subschemas evaluate, which `unevaluated*` then no longer sees.
@example(_pair(_CLOSED, {**_CLOSED, "additionalProperties": {}}))
@example(_pair({**_CLOSED, "allOf": [{}]}, {**_CLOSED, "allOf": [{"properties": {"a": {}}}]}))
@example(_pair({**_CLOSED, "anyOf": [True]}, {**_CLOSED, "anyOf": [{"properties": {"b": _INT}}]}))
@example(_pair({**_CLOSED_ARRAY, "allOf": [{}]}, {**_CLOSED_ARRAY, "allOf": [{"contains": {}}]}))
@example(
    _pair(
        {**_CLOSED_ARRAY, "prefixItems": [{}]},
        {**_CLOSED_ARRAY, "prefixItems": [{}], "items": True},
    )
)
@example(
    _pair(
        {"properties": {"a": {**_CLOSED, "$ref": "#/$defs/x"}}, "$defs": {"x": {}}},
        {"properties": {"a": {**_CLOSED, "$ref": "#/$defs/x"}}, "$defs": _DEFS_A},
    )
)
def test_a_value_only_one_side_accepts_is_reported(pair: tuple[Any, Any]) -> None:
    """A value the new schema accepts and the old rejects means `accepts-more` or `both` is
    reported, and one the old accepts and the new rejects, `accepts-less` or `both`."""
    old, new = (_compiled(schema) for schema in pair)
    if old is None or new is None:
        return
    gained = [value for value in CANDIDATES if new.is_valid(value) and not old.is_valid(value)]
    lost = [value for value in CANDIDATES if old.is_valid(value) and not new.is_valid(value)]
    changes, _ = schema_changes(old.schema, new.schema)
    impacts = {item.upstream for item in changes}
    if gained:
        assert impacts & {"accepts-more", "both"}, (gained[:3], changes)
    if lost:
        assert impacts & {"accepts-less", "both"}, (lost[:3], changes)
