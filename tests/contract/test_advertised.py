"""advertised.py: the envelope schema as published loads in python-jsonschema (the MCP Python
SDK's validator) and never refuses an envelope toolguard accepts, nor in a draft-07 reading
(the TypeScript SDK's ajv).
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import number_texts

from toolguard.contract import load_contract
from toolguard.contract.advertised import advertised_schema
from toolguard.contract.find import contract_paths, variant
from toolguard.errors import Rejection, SchemaError, ValidationError
from toolguard.parse import parse
from toolguard.schema import compile_schema

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(contract_paths([REPO / "examples"]))
DIALECT = "https://json-schema.org/draft/2020-12/schema"
# Characters where ECMA-262 and Python's re disagree: Unicode digits and letters, line
# terminators, the BOM (ECMA whitespace, not Python's), word boundaries.
ALPHABET = "a1_ é٣\n\r\u2028\ufeff\t-"
PATTERNS = [
    "^[a-z]+$",
    "^\\d+$",
    "^\\w+$",
    "^a.b$",
    "\\s",
    "^\\S+$",
    "[^\\d]",
    "\\ba",
    "^\\D*$",
    "^[\\w-]*$",
    "\\u00e9",
    "^(?:a|1)+$",
]
WRAPPERS = [
    lambda node: node,
    lambda node: {"not": node},
    lambda node: {"oneOf": [node, {"minLength": 2}]},
    lambda node: {"if": node, "then": {"maxLength": 1}, "else": {"minLength": 0}},
    lambda node: {"type": "object"} | {"propertyNames": node},
]


def _envelope_like(node: dict[str, Any]) -> dict[str, Any]:
    """A schema shaped like an envelope schema: a root, `data`, a payload definition."""
    return {
        "$schema": DIALECT,
        "type": "object",
        "properties": {"data": {"$ref": "#/$defs/data"}},
        "$defs": {
            "data": {"type": "object", "properties": {"v": {"$ref": "#/$defs/payload0"}}},
            "payload0": node,
        },
    }


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_every_example_publishes_a_schema_python_jsonschema_loads(path: Path) -> None:
    """check_schema (with formats, as the SDK runs it) accepts each example's schema."""
    schema = advertised_schema(load_contract(path).envelope_schema)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_every_example_golden_envelope_is_valid_in_python_jsonschema(path: Path) -> None:
    """The SDK would accept the envelopes toolguard writes for the examples."""
    schema = advertised_schema(load_contract(path).envelope_schema)
    validator = jsonschema.Draft202012Validator(schema)
    name = variant(path)
    fixtures = path.parent / ("fixtures" if name is None else f"fixtures.{name}")
    goldens = sorted(fixtures.rglob("*.expected.json"))
    assert goldens
    for golden in goldens:
        assert validator.is_valid(json.loads(golden.read_bytes())), golden


def test_a_schema_read_alike_is_published_as_it_is() -> None:
    """Nothing to loosen: the very same schema."""
    schema = _envelope_like({"type": "string", "pattern": "^[a-z]{1,8}$"})
    assert advertised_schema(schema) is schema


def test_a_pattern_read_otherwise_is_published_as_any_value() -> None:
    """`\\p{L}` is refused by Python's re: its definition is published as `{}` (with a note)."""
    schema = _envelope_like({"type": "string", "pattern": "^\\p{L}+$"})
    published = advertised_schema(schema)
    assert set(published["$defs"]["payload0"]) == {"$comment"}
    assert published["$defs"]["data"] == schema["$defs"]["data"]
    jsonschema.Draft202012Validator.check_schema(published)
    assert schema["$defs"]["payload0"]["pattern"] == "^\\p{L}+$"  # the original is untouched


def test_a_reference_to_a_loosened_definition_where_exactness_matters_loosens_the_referrer() -> (
    None
):
    """`not: {$ref: looser}` would refuse more: the definition holding it goes too."""
    schema = _envelope_like({"not": {"$ref": "#/$defs/payload1"}})
    schema["$defs"]["payload1"] = {"pattern": "^\\d$"}
    published = advertised_schema(schema)
    assert set(published["$defs"]["payload0"]) == {"$comment"}
    assert published["$defs"]["payload1"] == {"pattern": "^\\d$"}  # looser, where it is safe


@pytest.mark.parametrize(
    ("referrer", "target", "value"),
    [
        (
            {"type": "object", "allOf": [{"$ref": "#/$defs/payload1"}]},
            {"properties": {"a": {"type": "string", "not": {"pattern": "^\\d$"}}}},
            {"a": "y"},
        ),
        (
            {"type": "array", "allOf": [{"$ref": "#/$defs/payload1"}]},
            {"prefixItems": [{"not": {"const": 1}}]},
            [2],
        ),
    ],
    ids=["unevaluatedProperties", "unevaluatedItems"],
)
def test_a_reference_under_unevaluated_keeps_what_its_target_evaluates(
    referrer: dict[str, Any], target: dict[str, Any], value: Any
) -> None:
    """A target published as `{}` evaluates nothing, so `unevaluated*: false` beside the
    reference would refuse what toolguard accepts: the referrer is published loosened too."""
    closing = "unevaluatedProperties" if referrer["type"] == "object" else "unevaluatedItems"
    schema = _envelope_like({**referrer, closing: False})
    schema["$defs"]["payload1"] = target
    instance = {"data": {"v": value}}
    compile_schema(copy.deepcopy(schema), formats=False).validate(instance)  # toolguard accepts
    published = advertised_schema(schema)
    jsonschema.Draft202012Validator.check_schema(published)
    assert jsonschema.Draft202012Validator(published).is_valid(instance)


@given(
    pattern=st.sampled_from(PATTERNS),
    wrap=st.sampled_from(WRAPPERS),
    text=st.text(alphabet=ALPHABET, max_size=5),
)
def test_python_jsonschema_accepts_whatever_toolguard_accepts(
    pattern: str, wrap: Any, text: str
) -> None:
    """For any pattern, wherever it stands, an instance toolguard accepts is valid as published."""
    schema = _envelope_like(wrap({"type": "string", "pattern": pattern}))
    instance = {"data": {"v": text}}
    try:
        compile_schema(copy.deepcopy(schema), formats=False).validate(instance)
    except ValidationError:
        return  # toolguard refuses it: the published schema may do as it likes
    published = advertised_schema(schema)
    assert jsonschema.Draft202012Validator(published).is_valid(instance)


# Where a Draft 7 reader (the MCP TypeScript SDK's default: ajv's draft-07 class, which reads
# a 2020-12 schema by draft-07's rules) would refuse what toolguard accepts.
TUPLE = {"type": "array", "prefixItems": [{"type": "string"}]}
DRAFT_7_CASES = [
    ({**TUPLE, "items": False}, ["a"]),
    ({**TUPLE, "items": {"type": "integer"}}, ["a", 1]),
    ({"type": "array", "contains": {"const": 5}, "minContains": 0}, [1]),
    ({"not": {"type": "object", "dependentRequired": {"a": ["b"]}}}, {"a": 1}),
    ({"not": TUPLE}, [1]),
    ({"oneOf": [{"unevaluatedProperties": False}, {"required": ["a"]}]}, {"a": 1}),
    # Draft-07 ignores what stands beside a `$ref`: `not` then refuses every string.
    ({"not": {"$ref": "#/$defs/payload1", "maxLength": 1}}, "abc"),
    ({"oneOf": [{"$ref": "#/$defs/payload1", "maxLength": 1}, {"minLength": 2}]}, "abc"),
]


@pytest.mark.parametrize(("node", "value"), DRAFT_7_CASES, ids=lambda case: json.dumps(case)[:40])
def test_a_draft_7_reader_accepts_whatever_toolguard_accepts(
    node: dict[str, Any], value: Any
) -> None:
    """`items` beside `prefixItems` reads as every item's schema in draft-07, `minContains`
    is unknown there, and keywords it does not know (or that stand beside a `$ref`) read as
    nothing under `not` or `oneOf`."""
    schema = _envelope_like(node)
    schema["$defs"]["payload1"] = {"type": "string"}
    instance = {"data": {"v": value}}
    compile_schema(copy.deepcopy(schema), formats=False).validate(instance)  # toolguard accepts
    published = advertised_schema(schema)
    assert jsonschema.Draft7Validator(published).is_valid(instance)
    assert jsonschema.Draft202012Validator(published).is_valid(instance)


def _formats(node: Any) -> list[Any]:
    if isinstance(node, dict):
        own = [node["format"]] if "format" in node else []
        return own + [found for item in node.values() for found in _formats(item)]
    return [found for item in node for found in _formats(item)] if isinstance(node, list) else []


def test_a_format_is_not_published() -> None:
    """Validators that assert formats read them their own way (ajv-formats, the TypeScript
    SDK's, refuses the email `a@localhost`, which toolguard accepts): none is published."""
    schema = _envelope_like({"type": "string", "format": "email", "maxLength": 64})
    schema["$defs"]["data"]["properties"]["w"] = {"items": {"format": "date"}}
    instance = {"data": {"v": "a@localhost", "w": ["2024-02-29"]}}
    compile_schema(copy.deepcopy(schema)).validate(instance)  # toolguard accepts
    published = advertised_schema(schema)
    assert _formats(published) == []
    assert published["$defs"]["payload0"] == {"type": "string", "maxLength": 64}
    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
    assert jsonschema.Draft202012Validator(published, format_checker=checker).is_valid(instance)
    assert schema["$defs"]["payload0"]["format"] == "email"  # the original is untouched


# Numbers where doubles and the numbers written part: fractional divisors, 17 digits, 2**53.
NUMBER_TEXTS = [
    "0.07", "0.29", "4.35", "0.3", "0.1", "0.10000000000000001", "0.09999999999999999", "3",
    "1e2", "9007199254740993", "9007199254740993.0", "9007199254740995.0", "3e30", "-0.1", "7",
]  # fmt: skip
NUMERIC_NODES = [
    {"multipleOf": 0.01},
    {"multipleOf": 0.1},
    {"multipleOf": 3},
    {"multipleOf": 3, "minimum": 0, "maximum": 100},
    {"minimum": 0.1},
    {"exclusiveMinimum": 0.1},
    {"exclusiveMaximum": 0.1},
    {"maximum": 9007199254740995},
    {"minimum": 9007199254740995, "exclusiveMinimum": 0},
    {"const": 0.1},
    {"enum": [0.1, 9007199254740993]},
    {"type": "integer"},
]


def test_a_fractional_multiple_of_is_not_published() -> None:
    """0.07 is a multiple of 0.01 to toolguard; python-jsonschema's doubles say otherwise."""
    schema = _envelope_like({"type": "number", "multipleOf": 0.01})
    published = advertised_schema(schema)
    assert published["$defs"]["payload0"] == {"type": "number"}
    for text in ("0.07", "0.29", "4.35"):
        assert jsonschema.Draft202012Validator(published).is_valid({"data": {"v": float(text)}})
    assert schema["$defs"]["payload0"]["multipleOf"] == 0.01  # the original is untouched


def test_a_number_where_exactness_matters_publishes_the_definition_as_any_value() -> None:
    """Under `not`, a looser reading of a bound refuses more: the definition goes."""
    schema = _envelope_like({"not": {"minimum": 0.1}})
    assert set(advertised_schema(schema)["$defs"]["payload0"]) == {"$comment"}


@given(
    node=st.sampled_from(NUMERIC_NODES),
    wrap=st.sampled_from(WRAPPERS[:4]),
    text=st.sampled_from(NUMBER_TEXTS),
)
def test_python_jsonschema_accepts_every_number_toolguard_accepts(
    node: dict[str, Any], wrap: Any, text: str
) -> None:
    """The envelope's numbers as the SDK reads them (doubles) pass the published schema."""
    schema = _envelope_like(wrap({"type": "number"} | node))
    line = f'{{"data": {{"v": {text}}}}}'.encode()
    try:
        compile_schema(copy.deepcopy(schema), formats=False).validate(parse(line))
    except (ValidationError, Rejection):
        return  # toolguard refuses it: the published schema may do as it likes
    published = advertised_schema(schema)
    assert jsonschema.Draft202012Validator(published).is_valid(json.loads(line))


def test_unique_items_that_may_be_numbers_are_not_published() -> None:
    """[0.1, 0.10000000000000001] is unique to toolguard, one double twice to python."""
    schema = _envelope_like({"type": "array", "uniqueItems": True})
    published = advertised_schema(schema)
    assert jsonschema.Draft202012Validator(published).is_valid(
        json.loads('{"data": {"v": [0.1, 0.10000000000000001]}}')
    )
    strings = _envelope_like({"type": "array", "items": {"type": "string"}, "uniqueItems": True})
    assert advertised_schema(strings) is strings


def _numeric_leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [leaf for key, item in value.items() for leaf in _numeric_leaves(item, (*path, key))]
    if isinstance(value, list):
        return [leaf for i, item in enumerate(value) for leaf in _numeric_leaves(item, (*path, i))]
    return [path] if isinstance(value, int | float) and not isinstance(value, bool) else []


def _numeric_goldens() -> list[tuple[Path, Any, tuple[Any, ...]]]:
    """(contract, success envelope, path of a number in it) for every example's goldens."""
    found = []
    for path in EXAMPLES:
        name = variant(path)
        fixtures = path.parent / ("fixtures" if name is None else f"fixtures.{name}")
        for golden in sorted(fixtures.rglob("*.expected.json")):
            envelope = json.loads(golden.read_bytes())
            found += [(path, envelope, leaf) for leaf in _numeric_leaves(envelope.get("data"))]
    return found


NUMERIC_GOLDENS = _numeric_goldens()


@functools.cache
def _envelope_schema(path: Path) -> dict[str, Any]:
    return load_contract(path).envelope_schema


@given(
    golden=st.sampled_from(NUMERIC_GOLDENS),
    text=st.sampled_from(NUMBER_TEXTS) | number_texts() | st.integers(-200, 200).map(str),
)
def test_every_example_envelope_toolguard_accepts_is_valid_as_published(
    golden: tuple[Path, Any, tuple[Any, ...]], text: str
) -> None:
    """An example's envelope with any number in place of one of its numbers: if toolguard's
    envelope schema accepts it, python-jsonschema accepts it against the published schema."""
    path, envelope, leaf = golden
    envelope = copy.deepcopy(envelope)
    holder = envelope["data"]
    for key in leaf[:-1]:
        holder = holder[key]
    holder[leaf[-1]] = "\x00number\x00"
    line = json.dumps(envelope).replace('"\\u0000number\\u0000"', text).encode()
    assert b"\\u0000number" not in line
    schema = _envelope_schema(path)
    try:
        compile_schema(copy.deepcopy(schema), formats=False).validate(parse(line))
    except (ValidationError, Rejection):
        return
    published = advertised_schema(schema)
    assert jsonschema.Draft202012Validator(published).is_valid(json.loads(line))


# A differential over generated schemas: every 2020-12 keyword toolguard reads, anywhere.
_KEYS = st.sampled_from(["a", "b"])
_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.sampled_from([0, 1, 2, -1, 1.0, 0.5, 0.1])
    | st.sampled_from(["", "a", "ab", "1", "é", "a@b"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=2),
    max_leaves=6,
)
_COUNTS = st.integers(0, 2)
_TYPES = ["string", "integer", "number", "array", "object", "null", "boolean"]
_ASSERTIONS = st.one_of(
    st.booleans(),
    st.sampled_from(_TYPES).map(lambda kind: {"type": kind}),
    _VALUES.map(lambda value: {"const": value}),
    st.lists(_VALUES, min_size=1, max_size=2).map(lambda values: {"enum": values}),
    st.tuples(st.sampled_from(["minLength", "maxLength", "minItems", "maxItems"]), _COUNTS).map(
        lambda pair: dict([pair])
    ),
    st.sampled_from(["^a", "^\\d+$", "^\\w*$", "b"]).map(lambda pattern: {"pattern": pattern}),
    st.tuples(
        st.sampled_from(["minimum", "exclusiveMaximum", "multipleOf"]), st.sampled_from([1, 0.5])
    ).map(lambda pair: dict([pair])),
    st.sampled_from(
        [
            {"uniqueItems": True},
            {"required": ["a"]},
            {"maxProperties": 1},
            {"dependentRequired": {"a": ["b"]}},
            {"format": "email"},
            {"$ref": "#/$defs/payload1"},
        ]
    ),
)


def _applicators(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    some = st.lists(inner, min_size=1, max_size=2)
    optional = st.none() | _COUNTS
    return st.one_of(
        st.tuples(st.sampled_from(["allOf", "anyOf", "oneOf", "prefixItems"]), some).map(
            lambda pair: dict([pair])
        ),
        st.tuples(
            st.sampled_from(
                [
                    "not",
                    "items",
                    "additionalProperties",
                    "propertyNames",
                    "unevaluatedItems",
                    "unevaluatedProperties",
                ]
            ),
            inner,
        ).map(lambda pair: dict([pair])),
        st.tuples(inner, inner, inner).map(lambda t: {"if": t[0], "then": t[1], "else": t[2]}),
        st.tuples(inner, optional, optional).map(
            lambda t: (
                {"contains": t[0]}
                | ({} if t[1] is None else {"minContains": t[1]})
                | ({} if t[2] is None else {"maxContains": t[2]})
            )
        ),
        st.dictionaries(_KEYS, inner, min_size=1, max_size=2).map(lambda d: {"properties": d}),
        inner.map(lambda node: {"patternProperties": {"^a": node}}),
        inner.map(lambda node: {"dependentSchemas": {"a": node}}),
        # two schemas in one (`$ref` beside other keywords, `items` beside `prefixItems`...)
        st.tuples(inner, inner).map(
            lambda t: t[0] if isinstance(t[0], bool) or isinstance(t[1], bool) else t[1] | t[0]
        ),
    )


_SCHEMAS = st.recursive(_ASSERTIONS, _applicators, max_leaves=5)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node=_SCHEMAS, target=_SCHEMAS, values=st.lists(_VALUES, min_size=1, max_size=8))
def test_no_reader_refuses_what_toolguard_accepts(
    node: Any, target: Any, values: list[Any]
) -> None:
    """For generated schemas and values: the published schema loads in both readers, and what
    toolguard accepts, a 2020-12 reader and a draft-07 reader accept too."""
    schema = _envelope_like(node)
    schema["$defs"]["payload1"] = target
    try:
        exact = compile_schema(copy.deepcopy(schema), formats=False)
    except SchemaError:
        return  # a schema toolguard refuses is never published
    published = advertised_schema(schema)
    readers = [jsonschema.Draft202012Validator, jsonschema.Draft7Validator]
    for reader in readers:
        reader.check_schema(published)
    for value in values:
        instance = {"data": {"v": value}}
        try:
            exact.validate(instance)
        except ValidationError:
            continue
        assert all(reader(published).is_valid(instance) for reader in readers), value
