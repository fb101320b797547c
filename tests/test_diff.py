"""Contract diff: every change found, classified for the upstream and the agent, and judged."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path
from typing import Any

import pytest

from toolguard import frozen, load_contract
from toolguard.diff import Change, ContractDiff, Side, Verdict, diff_contracts
from toolguard.diff.change import change
from toolguard.diff.graph import always_present, field_reach, json_key
from toolguard.diff.payload import schema_changes
from toolguard.diff.render import as_json, write
from toolguard.diff.version import verdict
from toolguard.parse import parse

CASES_DIR = Path(__file__).resolve().parent / "data" / "diff"
CASES = sorted(path for path in CASES_DIR.iterdir() if path.is_dir())
FIELDS = ("where", "what", "upstream", "agent", "breaking")


def test_fixture_folders_are_complete() -> None:
    """Every case holds an old and a new contract and its expectation: none passes empty."""
    assert len(CASES) >= 10
    for case in CASES:
        for side in ("old", "new"):
            assert (case / side / "contract.toml").is_file(), case
        assert (case / "expected.json").is_file(), case


@pytest.mark.parametrize("case", CASES, ids=lambda path: path.name)
def test_contract_pair_gives_the_expected_changes_and_verdict(case: Path) -> None:
    """Each pair yields exactly the expected changes, in order, and the expected verdict."""
    expected = json.loads((case / "expected.json").read_text(encoding="utf-8"))
    result = diff_contracts(
        load_contract(case / "old" / "contract.toml"), load_contract(case / "new" / "contract.toml")
    )
    found = [{name: getattr(item, name) for name in FIELDS} for item in result.changes]
    assert found == expected["changes"]
    assert result.verdict.ok is expected["ok"], result.verdict.message
    assert result.verdict.required_bump == expected["required_bump"]


def _obj(properties: dict[str, Any], **keywords: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, **keywords}


S = {"type": "string"}
OPEN = _obj({"a": S})
CLOSED = _obj({"a": S}, additionalProperties=False)
DEFS = {"x": {"type": "string", "maxLength": 5}, "y": {"type": "string", "maxLength": 9}}
SCHEMA_CASES: list[tuple[str, Any, Any, list[tuple[str, str, str]]]] = [
    (
        "type widened by null",
        S,
        {"type": ["string", "null"]},
        [("/type", "type widened", "accepts-more")],
    ),
    (
        "integer to number",
        {"type": "integer"},
        {"type": "number"},
        [("/type", "type widened", "accepts-more")],
    ),
    (
        "number to integer",
        {"type": "number"},
        {"type": "integer"},
        [("/type", "type narrowed", "accepts-less")],
    ),
    ("type rewritten, same values", {"type": ["number", "integer"]}, {"type": "number"}, []),
    (
        "minimum added",
        {"type": "number"},
        {"type": "number", "minimum": 0},
        [("/minimum", "minimum added", "accepts-less")],
    ),
    (
        "minimum raised",
        {"minimum": 0},
        {"minimum": 1},
        [("/minimum", "minimum raised", "accepts-less")],
    ),
    ("maximum removed", {"maximum": 9}, {}, [("/maximum", "maximum removed", "accepts-more")]),
    (
        "exclusiveMaximum lowered",
        {"exclusiveMaximum": 9},
        {"exclusiveMaximum": 3},
        [("/exclusiveMaximum", "exclusiveMaximum lowered", "accepts-less")],
    ),
    (
        "exclusiveMinimum 0 to minimum 0",
        {"type": "integer", "exclusiveMinimum": 0},
        {"type": "integer", "minimum": 0},
        [("/minimum", "lower bound lowered", "accepts-more")],
    ),
    (
        "minimum 0 to exclusiveMinimum 0",
        {"minimum": 0},
        {"exclusiveMinimum": 0},
        [("/exclusiveMinimum", "lower bound raised", "accepts-less")],
    ),
    (
        "exclusiveMaximum 9 to maximum 9",
        {"type": "number", "exclusiveMaximum": 9},
        {"type": "number", "maximum": 9},
        [("/maximum", "upper bound raised", "accepts-more")],
    ),
    (
        "exclusiveMinimum 0 is minimum 1 on an integer",
        {"type": "integer", "exclusiveMinimum": 0},
        {"type": "integer", "minimum": 1},
        [("/minimum", "lower bound kept", "none")],
    ),
    (
        "exclusiveMinimum 0 is not minimum 1 on a number",
        {"type": "number", "exclusiveMinimum": 0},
        {"type": "number", "minimum": 1},
        [("/minimum", "lower bound raised", "accepts-less")],
    ),
    (
        "a looser keyword added beside a tighter one",
        {"minimum": 5},
        {"minimum": 5, "exclusiveMinimum": 0},
        [("/exclusiveMinimum", "exclusiveMinimum added", "none")],
    ),
    (
        "the tighter of two keywords removed",
        {"minimum": 5, "exclusiveMinimum": 0},
        {"exclusiveMinimum": 0},
        [("/minimum", "minimum removed", "accepts-more")],
    ),
    (
        "the looser of two keywords removed",
        {"maximum": 9, "exclusiveMaximum": 5},
        {"exclusiveMaximum": 5},
        [("/maximum", "maximum removed", "none")],
    ),
    (
        "both bounds swapped on an integer",
        {"type": "integer", "minimum": 1, "exclusiveMaximum": 10},
        {"type": "integer", "exclusiveMinimum": 0, "maximum": 9},
        [
            ("/exclusiveMinimum", "lower bound kept", "none"),
            ("/maximum", "upper bound kept", "none"),
        ],
    ),
    (
        "multipleOf multiplied",
        {"multipleOf": 2},
        {"multipleOf": 4},
        [("/multipleOf", "multipleOf changed", "accepts-less")],
    ),
    (
        "multipleOf divided",
        {"multipleOf": 0.5},
        {"multipleOf": 0.25},
        [("/multipleOf", "multipleOf changed", "accepts-more")],
    ),
    (
        "multipleOf unrelated",
        {"multipleOf": 2},
        {"multipleOf": 3},
        [("/multipleOf", "multipleOf changed", "both")],
    ),
    (
        "const to a wider enum",
        {"const": "a"},
        {"enum": ["a", "b"]},
        [("/enum", "enum value added", "accepts-more")],
    ),
    ("const 1 is const 1.0", {"const": 1}, {"const": 1.0}, []),
    ("enum with 1 and 1.0 and true", {"enum": [1, True]}, {"enum": [1.0, True]}, []),
    (
        "enum true is not 1",
        {"enum": [True]},
        {"enum": [1]},
        [
            ("/enum", "enum value removed", "accepts-less"),
            ("/enum", "enum value added", "accepts-more"),
        ],
    ),
    (
        "object opened",
        CLOSED,
        OPEN,
        [("/additionalProperties", "object opened to other members", "accepts-more")],
    ),
    (
        "object closed",
        OPEN,
        CLOSED,
        [("/additionalProperties", "object closed to other members", "accepts-less")],
    ),
    (
        "property added to an open object",
        OPEN,
        _obj({"a": S, "b": S}),
        [("/properties/b", "property added", "accepts-less")],
    ),
    (
        "property removed from an open object",
        _obj({"a": S, "b": S}),
        OPEN,
        [("/properties/b", "property removed", "accepts-more")],
    ),
    ("unconstrained property declared", OPEN, _obj({"a": S, "b": {"description": "free"}}), []),
    (
        "property removed from a closed object",
        CLOSED,
        _obj({}, additionalProperties=False),
        [("/properties/a", "property removed from a closed object", "accepts-less")],
    ),
    (
        "property added beside unevaluatedProperties and allOf",
        _obj({}, allOf=[OPEN], unevaluatedProperties=False),
        _obj({"b": S}, allOf=[OPEN], unevaluatedProperties=False),
        [("/properties/b", "property added", "both")],
    ),
    (
        "property added in an allOf branch, beside unevaluatedProperties",
        _obj({}, allOf=[OPEN], unevaluatedProperties=False),
        _obj({}, allOf=[_obj({"a": S, "b": {}})], unevaluatedProperties=False),
        [("/unevaluatedProperties", "evaluated members changed", "both")],
    ),
    (
        "additionalProperties true beside unevaluatedProperties: not the same as absent",
        _obj({}, unevaluatedProperties=False),
        _obj({}, additionalProperties=True, unevaluatedProperties=False),
        [("/unevaluatedProperties", "evaluated members changed", "both")],
    ),
    (
        "contains added beside unevaluatedItems: it evaluates the items it matches",
        {"prefixItems": [S], "unevaluatedItems": False},
        {"prefixItems": [S], "contains": S, "unevaluatedItems": False},
        [
            ("/contains", "contains added", "accepts-less"),
            ("/unevaluatedItems", "evaluated items changed", "both"),
        ],
    ),
    (
        "unevaluatedProperties unchanged, its $ref's target evaluates another member",
        {
            "$defs": {"x": OPEN},
            **_obj({"p": {"$ref": "#/$defs/x", "unevaluatedProperties": False}}),
        },
        {
            "$defs": {"x": _obj({"a": S, "b": S})},
            **_obj({"p": {"$ref": "#/$defs/x", "unevaluatedProperties": False}}),
        },
        [
            ("/$defs/x/properties/b", "property added", "accepts-less"),
            ("/properties/p/unevaluatedProperties", "evaluated members changed", "both"),
        ],
    ),
    (
        "a property schema changed in an allOf branch: what is evaluated is the same",
        _obj({}, allOf=[OPEN], unevaluatedProperties=False),
        _obj({}, allOf=[_obj({"a": {"type": "integer"}})], unevaluatedProperties=False),
        [("/allOf/0/properties/a/type", "type changed", "both")],
    ),
    (
        "property added beside additionalProperties schema",
        _obj({}, additionalProperties=S),
        _obj({"b": {"type": "integer"}}, additionalProperties=S),
        [("/properties/b", "property added", "both")],
    ),
    (
        "required removed",
        _obj({"a": S}, required=["a"]),
        OPEN,
        [("/required", "required removed", "accepts-more")],
    ),
    (
        "dependentRequired added",
        OPEN,
        _obj({"a": S}, dependentRequired={"a": ["b"]}),
        [("/dependentRequired/a", "dependentRequired added", "accepts-less")],
    ),
    ("pattern removed", {"pattern": "^a"}, {}, [("/pattern", "pattern removed", "accepts-more")]),
    (
        "format changed",
        {"format": "email"},
        {"format": "uri"},
        [("/format", "format changed", "both")],
    ),
    (
        "uniqueItems added",
        {"type": "array"},
        {"type": "array", "uniqueItems": True},
        [("/uniqueItems", "uniqueItems added", "accepts-less")],
    ),
    (
        "items widened",
        {"items": {"maxLength": 3}},
        {"items": {"maxLength": 4}},
        [("/items/maxLength", "maxLength raised", "accepts-more")],
    ),
    (
        "prefixItems grown",
        {"prefixItems": [S]},
        {"prefixItems": [S, S]},
        [("/prefixItems", "prefixItems changed", "both")],
    ),
    (
        "contains widened",
        {"contains": {"const": 1}},
        {"contains": {"enum": [1, 2]}},
        [("/contains/enum", "enum value added", "accepts-more")],
    ),
    (
        "contains widened under maxContains",
        {"contains": {"const": 1}, "maxContains": 2},
        {"contains": {"enum": [1, 2]}, "maxContains": 2},
        [("/contains/enum", "enum value added", "both")],
    ),
    (
        "a not widened",
        {"not": {"const": 1}},
        {"not": {"enum": [1, 2]}},
        [("/not/enum", "enum value added", "accepts-less")],
    ),
    ("a not added", {}, {"not": {"const": 1}}, [("/not", "not added", "accepts-less")]),
    (
        "a oneOf branch widened",
        {"oneOf": [{"maxLength": 3}, {"type": "integer"}]},
        {"oneOf": [{"maxLength": 4}, {"type": "integer"}]},
        [("/oneOf/0/maxLength", "maxLength raised", "both")],
    ),
    (
        "an anyOf branch widened",
        {"anyOf": [{"maxLength": 3}, {"type": "integer"}]},
        {"anyOf": [{"maxLength": 4}, {"type": "integer"}]},
        [("/anyOf/0/maxLength", "maxLength raised", "accepts-more")],
    ),
    (
        "an allOf branch added",
        {"allOf": [S]},
        {"allOf": [S, {"maxLength": 3}]},
        [("/allOf", "allOf branch added", "accepts-less")],
    ),
    (
        "an anyOf branch added",
        {"anyOf": [S]},
        {"anyOf": [S, {"type": "null"}]},
        [("/anyOf", "anyOf branch added", "accepts-more")],
    ),
    (
        "anyOf branches replaced",
        {"anyOf": [S]},
        {"anyOf": [{"type": "null"}, {"type": "integer"}]},
        [("/anyOf", "anyOf branches changed", "both")],
    ),
    (
        "the if condition changed",
        {"if": {"const": 1}, "then": S},
        {"if": {"const": 2}, "then": S},
        [("/if/const", "const changed", "both")],
    ),
    (
        "then tightened",
        {"if": {"const": 1}, "then": {"maxLength": 4}},
        {"if": {"const": 1}, "then": {"maxLength": 3}},
        [("/then/maxLength", "maxLength lowered", "accepts-less")],
    ),
    (
        "then without if",
        {"then": {"maxLength": 4}},
        {"then": {"maxLength": 3}},
        [("/then", "then changed", "none")],
    ),
    (
        "$ref to another definition",
        {"$defs": DEFS, "$ref": "#/$defs/x"},
        {"$defs": DEFS, "$ref": "#/$defs/y"},
        [("/$ref", "$ref target changed", "both")],
    ),
    (
        "$ref to an equal definition",
        {"$defs": {"x": S}, "$ref": "#/$defs/x"},
        {"$defs": {"x": S, "z": S}, "$ref": "#/$defs/z"},
        [("/$defs/z", "definition added", "none")],
    ),
    (
        "referenced definition widened",
        {"$defs": {"x": {"maxLength": 3}}, "$ref": "#/$defs/x"},
        {"$defs": {"x": {"maxLength": 4}}, "$ref": "#/$defs/x"},
        [("/$defs/x/maxLength", "maxLength raised", "accepts-more")],
    ),
    (
        "definition reached through not",
        {"$defs": {"x": {"maxLength": 3}}, "not": {"$ref": "#/$defs/x"}},
        {"$defs": {"x": {"maxLength": 4}}, "not": {"$ref": "#/$defs/x"}},
        [("/$defs/x/maxLength", "maxLength raised", "accepts-less")],
    ),
    (
        "unreachable definition",
        {"$defs": {"x": {"maxLength": 3}}},
        {"$defs": {"x": {"maxLength": 2}}},
        [("/$defs/x/maxLength", "maxLength lowered", "none")],
    ),
    (
        "any change beside a $dynamicRef",
        {"$dynamicRef": "#a", "maxLength": 3},
        {"$dynamicRef": "#a", "maxLength": 4},
        [("/maxLength", "maxLength raised", "both")],
    ),
    (
        "schema became false",
        _obj({"a": True}),
        _obj({"a": False}),
        [("/properties/a", "schema became false", "accepts-less")],
    ),
    (
        "annotation only",
        {"title": "a", **S},
        {"title": "b", **S},
        [("/title", "title changed", "none")],
    ),
    (
        "an unknown keyword",
        {"x-vendor": 1},
        {"x-vendor": 2},
        [("/x-vendor", "x-vendor changed", "both")],
    ),
    (
        "a 17-digit bound lowered, the same float",
        {"maximum": parse(b"9007199254740992.9")},
        {"maximum": parse(b"9007199254740992.8")},
        [("/maximum", "maximum lowered", "accepts-less")],
    ),
    (
        "a divisor as written",
        {"multipleOf": 0.1},
        {"multipleOf": parse(b"0.10000000000000001")},
        [("/multipleOf", "multipleOf changed", "both")],
    ),
    (
        "a const as written",
        {"const": 1},
        {"const": parse(b"1.0000000000000001")},
        [("/const", "const changed", "both")],
    ),
    (
        "the same number spelled another way",
        {"maximum": 100, "const": 0.5},
        {"maximum": parse(b"1e2"), "const": parse(b"5e-1")},
        [],
    ),
    # Each keyword and applicator below held by a case of its own (a third mutation pass).
    (
        "minLength raised",
        {"minLength": 1},
        {"minLength": 2},
        [("/minLength", "minLength raised", "accepts-less")],
    ),
    (
        "minItems lowered",
        {"minItems": 2},
        {"minItems": 1},
        [("/minItems", "minItems lowered", "accepts-more")],
    ),
    ("enum added", S, {**S, "enum": ["a"]}, [("/enum", "enum added", "accepts-less")]),
    (
        "a const inside an enum dropped",
        {"enum": [1, 2, 3], "const": 2},
        {"enum": [1, 2, 3]},
        [("/enum", "enum value added", "accepts-more")],
    ),
    ("minContains 1 is the default", {"contains": S}, {"contains": S, "minContains": 1}, []),
    (
        "minContains 0 added",
        {"contains": S},
        {"contains": S, "minContains": 0},
        [("/minContains", "minContains lowered", "accepts-more")],
    ),
    (
        "patternProperties renamed",
        {"patternProperties": {"^a": S}},
        {"patternProperties": {"^b": S}},
        [("/patternProperties", "patterns changed", "both")],
    ),
    (
        "a patternProperties schema tightened",
        {"patternProperties": {"^a": S}},
        {"patternProperties": {"^a": {**S, "maxLength": 2}}},
        [("/patternProperties/^a/maxLength", "maxLength added", "accepts-less")],
    ),
    (
        "a prefixItems position tightened",
        {"prefixItems": [S]},
        {"prefixItems": [{**S, "maxLength": 2}]},
        [("/prefixItems/0/maxLength", "maxLength added", "accepts-less")],
    ),
    (
        "propertyNames tightened",
        {"propertyNames": {"maxLength": 3}},
        {"propertyNames": {"maxLength": 2}},
        [("/propertyNames/maxLength", "maxLength lowered", "accepts-less")],
    ),
    (
        "unevaluatedItems closed",
        {"prefixItems": [S]},
        {"prefixItems": [S], "unevaluatedItems": False},
        [("/unevaluatedItems", "schema became false", "accepts-less")],
    ),
    (
        "an if added before a then",
        {"then": S},
        {"if": {"minLength": 1}, "then": S},
        [("/if", "if/then/else changed", "both")],
    ),
    (
        "a oneOf branch added",
        {"oneOf": [S]},
        {"oneOf": [S, {"maxLength": 2}]},
        [("/oneOf", "oneOf branches changed", "both")],
    ),
    (
        "an allOf branch removed",
        {"allOf": [S, {"maxLength": 2}]},
        {"allOf": [S]},
        [("/allOf", "allOf branch removed", "accepts-more")],
    ),
    (
        "dependentSchemas added",
        {},
        {"dependentSchemas": {"a": {"required": ["b"]}}},
        [("/dependentSchemas/a", "dependentSchemas added", "accepts-less")],
    ),
    (
        "a property added that a pattern also governs",
        {"patternProperties": {"^a": S}, "additionalProperties": False},
        {"patternProperties": {"^a": S}, "additionalProperties": False, "properties": {"ab": S}},
        [("/properties/ab", "property added", "both")],
    ),
    (
        "$dynamicRef retargeted",
        {"$dynamicRef": "#a"},
        {"$dynamicRef": "#b"},
        [("/$dynamicRef", "$dynamicRef changed", "both")],
    ),
    (
        "$dynamicAnchor added",
        {},
        {"$dynamicAnchor": "a"},
        [("/$dynamicAnchor", "$dynamicAnchor changed", "both")],
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [case[1:] for case in SCHEMA_CASES],
    ids=[case[0] for case in SCHEMA_CASES],
)
def test_schema_keyword_change_is_classified(old: Any, new: Any, expected: list[Any]) -> None:
    """Each keyword change has its impact on the payload, through not/oneOf/if and $refs."""
    changes, _ = schema_changes(old, new)
    assert [(item.where, item.what, item.upstream) for item in changes] == expected


def test_identical_schemas_have_no_changes() -> None:
    """The same schema twice (even as different objects) yields nothing."""
    assert schema_changes(json.loads(json.dumps(CLOSED)), CLOSED) == ([], set())


def test_change_inside_a_projected_field_is_agent_facing() -> None:
    """A change in the subschema a projected field's $ref leads to reaches the agent."""
    old = {"$defs": DEFS, **_obj({"a": {"$ref": "#/$defs/x"}, "b": S})}
    new = {"$defs": {**DEFS, "x": {"type": "string", "maxLength": 6}}, **_obj(old["properties"])}
    reach = {"field_a": field_reach(old, "/a")}
    changes, explained = schema_changes(old, new, reach)
    assert [(item.where, item.agent) for item in changes] == [
        ("/$defs/x/maxLength", "data-shape-changed")
    ]
    assert explained == {"field_a"}
    assert field_reach(old, "/a") == {"/properties/a", "/$defs/x"}
    assert field_reach(old, "/missing") == set()


STATE = {"type": "string", "maxLength": 16}
WIDER = ["open", "closed", "rm -rf /"]


def _state(**keywords: Any) -> dict[str, Any]:
    """An object projecting `/state`, whose constraint lives in `keywords` (a root `allOf`...)."""
    return _obj({"state": STATE, "other": S}, required=["state"], **keywords)


def _enum(*values: str) -> dict[str, Any]:
    return _obj({"state": {"enum": list(values)}})


WIDER_ELSEWHERE = [
    (
        "root allOf",
        "/state",
        _state(allOf=[_enum("open", "closed")]),
        _state(allOf=[_enum(*WIDER)]),
    ),
    (
        "root allOf through $ref",
        "/state",
        _state(allOf=[{"$ref": "#/$defs/st"}], **{"$defs": {"st": _enum("open", "closed")}}),
        _state(allOf=[{"$ref": "#/$defs/st"}], **{"$defs": {"st": _enum(*WIDER)}}),
    ),
    (
        "root $ref chain",
        "/state",
        {"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": _enum("open")}},
        {"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": _enum(*WIDER)}},
    ),
    (
        "then",
        "/state",
        _state(**{"if": _obj({"other": S}), "then": _enum("open")}),
        _state(**{"if": _obj({"other": S}), "then": _enum(*WIDER)}),
    ),
    (
        "dependentSchemas",
        "/state",
        _state(dependentSchemas={"other": _enum("open")}),
        _state(dependentSchemas={"other": _enum(*WIDER)}),
    ),
    ("an allOf branch removed", "/state", _state(allOf=[_enum("open"), {}]), _state(allOf=[{}])),
    (
        "the root's own enum",
        "/state",
        _state(enum=[{"state": "open"}]),
        _state(enum=[{"state": "x"}]),
    ),
    (
        "an array's items in an allOf",
        "/list/0",
        _obj({"list": {"type": "array", "items": S}}, allOf=[_obj({"list": {"items": STATE}})]),
        _obj({"list": {"type": "array", "items": S}}, allOf=[_obj({"list": {"items": S}})]),
    ),
]


@pytest.mark.parametrize(
    ("pointer", "old", "new"),
    [case[1:] for case in WIDER_ELSEWHERE],
    ids=[case[0] for case in WIDER_ELSEWHERE],
)
def test_a_change_to_a_projected_value_is_agent_facing_wherever_it_lives(
    pointer: str, old: Any, new: Any
) -> None:
    """A constraint on a projected value in an allOf, a $ref chain, then or dependentSchemas."""
    reach = {"field": field_reach(old, pointer) | field_reach(new, pointer)}
    changes, explained = schema_changes(old, new, reach)
    assert changes
    assert {item.agent for item in changes} == {"data-shape-changed"}
    assert explained == {"field"}


def test_a_change_beside_a_projected_value_is_not_agent_facing() -> None:
    """The same root allOf constraining another member leaves the projected one alone."""
    old = _state(allOf=[_obj({"other": {"maxLength": 3}})])
    new = _state(allOf=[_obj({"other": {"maxLength": 4}})])
    changes, explained = schema_changes(old, new, {"field": field_reach(old, "/state")})
    assert [(item.where, item.agent) for item in changes] == [
        ("/allOf/0/properties/other/maxLength", "none")
    ]
    assert explained == set()


def test_a_field_removed_with_its_hidden_character_opt_out_is_one_change() -> None:
    """The opt-out leaves with its field: only the projection change is reported."""
    case = CASES_DIR / "hidden_characters_refused_again"
    old = load_contract(case / "old" / "contract.toml")
    fields = {
        name: pointer for name, pointer in old.projection.fields.items() if name != "reviewed_by"
    }
    new = frozen.replace(
        old, projection=frozen.replace(old.projection, fields=fields, allow_hidden={})
    )
    found = [(item.where, item.what) for item in diff_contracts(old, new).changes]
    assert found == [("projection.reviewed_by", "projection field removed")]


@pytest.mark.parametrize(
    ("schema", "pointer", "present"),
    [
        (_obj({"a": S}, required=["a"]), "/a", True),
        (_obj({"a": S}), "/a", False),
        ({"properties": {"a": S}, "required": ["a"]}, "/a", False),  # may not be an object
        (_obj({"a": _obj({"b": S}, required=["b"])}, required=["a"]), "/a/b", True),
        ({"type": "array", "items": S}, "/0", False),
    ],
)
def test_always_present_only_in_the_plain_case(schema: Any, pointer: str, present: bool) -> None:
    """A projected pointer counts as always present only through required object members."""
    assert always_present(schema, pointer) is present


def test_json_key_has_json_equality() -> None:
    """1 and 1.0 are the same JSON value; true and 1 are not; objects ignore member order."""
    assert json_key(1) == json_key(1.0)
    assert json_key(parse(b"1.0000000000000001")) != json_key(1)
    assert json_key(True) != json_key(1)
    assert json_key({"a": 1, "b": [2]}) == json_key({"b": [2.0], "a": 1})


@pytest.mark.parametrize(
    ("old", "new", "kinds", "ok", "bump"),
    [
        ("1.0.0", "1.0.0", [], True, "none"),
        ("1.0.0", "1.0.0", ["compatible"], True, "none"),
        ("1.0.0", "1.0.0", ["facing"], False, "minor"),
        ("1.0.0", "1.0.1", ["facing"], False, "minor"),
        ("1.0.0", "1.1.0", ["facing"], True, "minor"),
        ("1.4.2", "2.0.0", ["facing"], True, "minor"),
        ("1.0.0", "1.1.0", ["breaking", "facing"], False, "major"),
        ("1.0.0", "2.0.0", ["breaking"], True, "major"),
        ("2.0.0", "1.0.0", ["breaking"], False, "major"),
        ("10.0.0", "9.9.9", ["facing"], False, "minor"),
        ("2024-01", "2024-02", ["breaking"], True, "major"),
        ("2024-01", "2024-01", ["breaking"], False, "major"),
        ("1.0.0", "0.9.0-x", ["breaking"], False, "major"),
        ("1.0.0", "1.0.0-rc.1", ["breaking"], False, "major"),
        ("1.0.0", "1.0.0+build.2", ["breaking"], False, "major"),
        ("1.0.0", "1.0.0+build.2", ["facing"], False, "minor"),
        ("1.0.0", "2.0.0-rc.1", ["breaking"], True, "major"),
        ("2.0.0-rc.1", "2.0.0", ["breaking"], True, "major"),  # SemVer §9: rc to release
        ("2.0.0-rc.1", "2.0.0-rc.2", ["breaking"], True, "major"),
        ("2.0.0-rc.2", "2.0.0-rc.1", ["breaking"], False, "major"),
        ("2.0.0-rc.1", "2.0.1", ["breaking"], False, "major"),  # another release: bump from 2
        ("2.0.0-rc.1", "3.0.0", ["breaking"], True, "major"),
        ("2.0.0-rc.1", "2.0.0+build.1", ["facing"], True, "minor"),
        ("2.0.0-rc.1+b.1", "2.0.0-rc.1+b.2", ["breaking"], False, "major"),  # same precedence
        ("2.0.0-rc.1", "2.0.0-rc.1+b.2", ["facing"], False, "minor"),
        ("1.0.0", "1.1.0-alpha", ["facing"], True, "minor"),
        ("1.0.0", "0.9.0", ["compatible"], False, "none"),
        ("1.0.0-rc.2", "1.0.0-rc.1", [], False, "none"),
        ("1.0.0", "1.0.0+build.2", ["compatible"], True, "none"),
        ("1.0.0", "1.0.1-rc.1", ["compatible"], True, "none"),
    ],
)
def test_version_rule(old: str, new: str, kinds: list[str], ok: bool, bump: str) -> None:
    """Breaking needs a major bump, agent-facing a minor one, by the core; never a step back.

    Versions that are not both semantic versions need only differ.
    """
    made = {
        "compatible": change("/maxLength", "maxLength raised", "", "accepts-more"),
        "facing": change(
            "projection.x", "projection field added", "", "none", "data-shape-changed"
        ),
        "breaking": change("/required", "required added", "", "accepts-less"),
    }
    result = verdict(old, new, [made[kind] for kind in kinds])
    assert (result.ok, result.required_bump) == (ok, bump), result.message


def test_change_is_frozen_and_breaking_follows_accepts_less() -> None:
    """A Change is a frozen value; accepts-less and both are breaking unless said otherwise."""
    item = change("/x", "pattern changed", "", "both")
    assert item.breaking
    assert not change("/x", "maxLength raised", "", "accepts-more").breaking
    with pytest.raises(dataclasses.FrozenInstanceError):
        item.what = "other"  # type: ignore[misc]


def _hostile_diff() -> ContractDiff:
    hostile = "\x1b[31m[bold]evil[/bold]\u202e"
    side = Side(Path("c.toml"), "tool", "1.0.0")
    item = Change(f"/properties/{hostile}", "property added", hostile, "accepts-less")
    return ContractDiff(side, side, (item,), Verdict(False, "major", hostile))


def test_json_output_escapes_hostile_strings() -> None:
    """Control and bidi characters from schema files are escaped in the JSON output."""
    stream = io.StringIO()
    write(_hostile_diff(), "json", stream)
    text = stream.getvalue()
    assert "\x1b" not in json.loads(text)["changes"][0]["where"]
    assert "\\x1b" in json.loads(text)["changes"][0]["where"]
    assert as_json(_hostile_diff())["verdict"]["ok"] is False


def test_rich_output_escapes_hostile_strings_and_markup() -> None:
    """The table shows markup literally and no raw control character reaches the terminal."""
    stream = io.StringIO()
    write(_hostile_diff(), "text", stream)
    text = stream.getvalue()
    assert "\x1b" not in text
    assert "\u202e" not in text
    assert "[bold]evil[/bold]" in text
    assert "version bump missing" in text
