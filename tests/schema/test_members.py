"""`required`, `properties` and `additionalProperties` generated without a set per object.

The generated code looks members up in the object itself (`toolguard.schema.members`); these
tests hold it to fastjsonschema's own code for the same keywords: the same verdicts and the
same first error (rule, message and instance location) on generated schemas and objects.
"""

from __future__ import annotations

import ast
import re
from typing import Any

import fastjsonschema

# NOTE: python-jsonschema ships no type information and types-jsonschema is not a dependency.
import jsonschema  # type: ignore[import-untyped]
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from toolguard.errors import ValidationError
from toolguard.schema import compile_schema

NAMES = ("a", "b", "c", "a.b", 'q"', "{x}")
# Patterns both dialects read alike on `NAMES` (ECMA-262 for toolguard, `re` for the reference).
PATTERNS = ("^a", "b", "^[ab]+$", "x")
LEAVES: tuple[Any, ...] = (
    True,
    False,
    {"type": "integer"},
    {"type": "string"},
    {"type": ["string", "null"]},
    {"enum": ["a", "b", 1, None]},
    {"type": "number", "minimum": 0},
)


def schemas(depth: int = 2) -> st.SearchStrategy[Any]:
    """Object schemas over `NAMES`: every combination of the member keywords."""
    leaf = st.sampled_from(LEAVES)
    child = leaf if depth <= 0 else st.one_of(leaf, schemas(depth - 1))
    return st.fixed_dictionaries(
        {},
        optional={
            "type": st.just("object"),
            "properties": st.dictionaries(st.sampled_from(NAMES), child, max_size=3),
            "patternProperties": st.dictionaries(st.sampled_from(PATTERNS), child, max_size=2),
            "additionalProperties": st.one_of(st.booleans(), st.just({}), child),
            "required": st.lists(st.sampled_from(NAMES), unique=True, max_size=3),
        },
    )


def _requires_a_banned_name(schema: Any) -> bool:
    """Whether an object schema in `schema` is closed and requires a name it does not allow."""
    if not isinstance(schema, dict):
        return False
    patterns = schema.get("patternProperties", {})
    if schema.get("additionalProperties", True) is False and any(
        name not in schema.get("properties", {})
        and not any(re.search(pattern, name) for pattern in patterns)
        for name in schema.get("required", [])
    ):
        return True
    children = [*schema.get("properties", {}).values(), *patterns.values()]
    children.append(schema.get("additionalProperties"))
    return any(_requires_a_banned_name(child) for child in children)


def instances(depth: int = 2) -> st.SearchStrategy[Any]:
    """Objects over `NAMES`, with values that pass and fail the leaves."""
    scalar = st.one_of(st.none(), st.booleans(), st.sampled_from([0, -1, 1.5, "a", "z", ""]))
    if depth <= 0:
        return scalar
    return st.one_of(scalar, st.dictionaries(st.sampled_from(NAMES), instances(depth - 1)))


def first_error(schema: Any, instance: Any) -> tuple[str, str, str] | None:
    """toolguard's first error as (rule, message, instance path), or None if valid."""
    try:
        compile_schema(schema, formats=False).validate(instance)
    except ValidationError as exc:
        return exc.reason, exc.message, exc.instance_path or ""
    return None


_EXTRA_MEMBERS = re.compile(r"^(.* must not contain )(\{.*\})( properties)$", re.DOTALL)


def unordered(error: tuple[str, ...]) -> tuple[str, ...]:
    """The error with the set of extra member names in its message sorted.

    Both messages print a set (`str(set)`); two equal sets built in different ways may iterate
    in different orders (hash collisions), so only the names are compared, not their order.
    """
    rule, message, *rest = error
    found = _EXTRA_MEMBERS.match(message)
    if found is not None:
        names = sorted(ast.literal_eval(found.group(2)))
        message = f"{found.group(1)}{names}{found.group(3)}"
    return (rule, message, *rest)


def reference_error(schema: Any, instance: Any) -> tuple[str, str] | None:
    """fastjsonschema's own generated code: its first error's (rule, message), or None."""
    try:
        fastjsonschema.compile(schema, use_default=False)(instance)
    except fastjsonschema.JsonSchemaValueException as exc:
        return exc.rule or "schema", exc.message  # toolguard's name for a `false` schema
    return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=schemas(), instance=instances())
@example(  # fastjsonschema refuses the inner object (`{}` taken for closed); toolguard does not
    schema={
        "properties": {"a": {"additionalProperties": {}, "required": ["a"]}},
        "additionalProperties": False,
    },
    instance=None,
)
def test_member_keywords_give_fastjsonschemas_verdicts_and_first_errors(
    schema: Any, instance: Any
) -> None:
    """On member keywords the generated code fails where fastjsonschema's does, saying the same."""
    try:
        reference = reference_error(schema, instance)
    except fastjsonschema.JsonSchemaDefinitionException:
        # fastjsonschema refuses a closed object that requires a name no member may have (and
        # takes `additionalProperties: {}` for closed): a valid schema, which every object
        # fails. python-jsonschema is the reference there.
        if _requires_a_banned_name(schema):
            expected = jsonschema.Draft202012Validator(schema).is_valid(instance)
            assert compile_schema(schema, formats=False).is_valid(instance) is expected
        return
    ours = first_error(schema, instance)
    assert (ours is None) == (reference is None), (schema, instance, ours, reference)
    if ours is not None and reference is not None:
        assert unordered(ours[:2]) == unordered(reference), (schema, instance)


def exactly_named_schemas(depth: int = 1) -> st.SearchStrategy[Any]:
    """Closed object schemas whose `required` names every member of `properties`, any order."""
    leaf = st.sampled_from(LEAVES)
    child = leaf if depth <= 0 else st.one_of(leaf, exactly_named_schemas(depth - 1))
    return st.dictionaries(st.sampled_from(NAMES), child, min_size=1, max_size=3).flatmap(
        lambda properties: st.permutations(list(properties)).map(
            lambda required: {
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            }
        )
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=exactly_named_schemas(), instance=instances())
@example(schema={"properties": {"a": {}, "b": {}}, "required": ["b", "a"]}, instance={"a": 1})
@example(  # two extra names: the two sets printed may differ in order (`unordered`)
    schema={"properties": {"b": True, "c": True}, "required": ["b", "c"]},
    instance={"a": None, "b": None, "c": None, "a.b": None},
)
def test_an_exactly_named_object_gives_fastjsonschemas_verdicts_and_first_errors(
    schema: Any, instance: Any
) -> None:
    """Its one key comparison fails where fastjsonschema's two tests do, saying the same."""
    schema = {**schema, "additionalProperties": False}
    reference = reference_error(schema, instance)
    ours = first_error(schema, instance)
    assert (ours is None) == (reference is None), (schema, instance, ours, reference)
    if ours is not None and reference is not None:
        assert unordered(ours[:2]) == unordered(reference), (schema, instance)
    every = compile_schema(schema, formats=False, collect=True).errors(instance)
    assert bool(every) == (ours is not None)


@pytest.mark.parametrize(
    ("schema", "instance", "error"),
    [
        pytest.param(
            {"required": ["b", "a", "c"]},
            {"c": 1},
            ("required", "data must contain ['a', 'b'] properties", ""),
            id="required-names-the-missing-sorted",
        ),
        pytest.param(
            {"properties": {"a": {}}, "additionalProperties": False},
            {"a": 1, "z": 2},
            ("additionalProperties", "data must not contain {'z'} properties", ""),
            id="closed-object-names-the-extra",
        ),
        pytest.param(
            {"properties": {"a": {"type": "string"}}, "additionalProperties": False},
            {"z": 2, "a": 1},
            ("type", "data.a must be string", "/a"),
            id="a-member-before-the-closed-check",
        ),
        pytest.param(
            {"patternProperties": {"^x": {}}, "additionalProperties": False},
            {"xa": 1, "y": 2},
            ("additionalProperties", "data must not contain {'y'} properties", ""),
            id="closed-beside-patterns",
        ),
        pytest.param(
            {"additionalProperties": {"type": "integer"}, "properties": {"a": {}}},
            {"a": "s", "b": "t"},
            ("type", "data.b must be integer", "/b"),
            id="a-schema-for-the-rest",
        ),
    ],
)
def test_member_errors_say_what_fastjsonschema_says(
    schema: Any, instance: Any, error: tuple[str, str, str]
) -> None:
    """The messages name the same members, in the same words, as before the change."""
    assert first_error(schema, instance) == error


@pytest.mark.parametrize(
    "schema",
    [
        {"additionalProperties": False, "required": ["x"]},
        {"additionalProperties": False, "properties": {"y": True}, "required": ["x"]},
        {"additionalProperties": False, "patternProperties": {"^a": True}, "required": ["x"]},
    ],
)
def test_a_closed_object_requiring_a_name_it_bans_is_valid_and_fails_every_object(
    schema: Any,
) -> None:
    """Nothing declares `x` yet it is required: a valid schema (a lint may warn) that every
    object fails and every other value passes, not an invalid schema."""
    validator = compile_schema(schema)
    assert [validator.is_valid(value) for value in ({}, {"x": 1}, {"a": 1})] == [False] * 3
    assert [validator.is_valid(value) for value in (5, "x", [], None)] == [True] * 4


@pytest.mark.parametrize(
    ("schema", "instance", "valid"),
    [
        ({"additionalProperties": True, "unevaluatedProperties": False}, {"a": 1}, True),
        ({"additionalProperties": {}, "unevaluatedProperties": False}, {"a": 1}, True),
        ({"properties": {}, "unevaluatedProperties": False}, {"a": 1}, False),
        ({"properties": {}, "unevaluatedProperties": False}, {}, True),
        ({"patternProperties": {}, "unevaluatedProperties": False}, {"a": 1}, False),
        ({"items": {"patternProperties": {}}}, [{"a": 1}], True),
    ],
)
def test_member_keywords_that_generate_nothing_still_compile(
    schema: Any, instance: Any, valid: bool
) -> None:
    """`properties: {}`, `patternProperties: {}` and `additionalProperties: true` compile and work.

    (They generate no code: the annotations `unevaluatedProperties` reads must not need it.)
    """
    assert compile_schema(schema, formats=False).is_valid(instance) is valid
