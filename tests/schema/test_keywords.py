"""The keyword allow-list: what `compile_schema` enforces, and everything it refuses (fail closed).

Refusals must name the JSON Pointer of the offending keyword in `SchemaError.field`, so the
schema author can find it; nothing is ever fetched from the network or the file system.
"""

from __future__ import annotations

import copy
import json
import urllib.request
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from toolguard.errors import SchemaError, ValidationError
from toolguard.schema import compile_schema, refs
from toolguard.schema.refs import read_schema

DRAFT = "https://json-schema.org/draft/2020-12/schema"
STRING = {"type": "string"}


def accepts(schema: Any, instance: Any) -> bool:
    """Whether toolguard lets `instance` through: a refused schema lets nothing through."""
    try:
        validator = compile_schema(schema)
    except SchemaError:
        return False
    return validator.is_valid(instance)


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any attempt to open a URL (http, file, ...) fails the test."""

    def urlopen(url: object, *args: object, **kwargs: object) -> None:
        pytest.fail(f"compile_schema tried to open {url!r}")

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)


def refused(name: str, schema: Any, field: str) -> object:
    return pytest.param(schema, field, id=name)


NOT_ENFORCED = [
    refused("$vocabulary", {"$vocabulary": {DRAFT: True}}, "/$vocabulary"),
    refused("$recursiveRef", {"$recursiveRef": "#"}, "/$recursiveRef"),
    refused("$recursiveAnchor", {"$recursiveAnchor": True}, "/$recursiveAnchor"),
    refused("definitions (pre-2019)", {"definitions": {"s": STRING}}, "/definitions"),
    refused("dependencies (pre-2019)", {"dependencies": {"a": ["b"]}}, "/dependencies"),
    refused("additionalItems (pre-2020)", {"additionalItems": False}, "/additionalItems"),
]

STRUCTURE = [
    refused("array-form items", {"items": [STRING, STRING]}, "/items"),
    refused(
        "array-form items nested",
        {"properties": {"pair": {"items": [STRING]}}},
        "/properties/pair/items",
    ),
    refused(
        "typo maxLenght",
        {"properties": {"name": {"type": "string", "maxLenght": 3}}},
        "/properties/name/maxLenght",
    ),
    refused("typo at root", {"type": "object", "requried": ["a"]}, "/requried"),
    refused(
        "typo under an escaped property name",
        {"properties": {"a/b~c": {"maxLenght": 3}}},
        "/properties/a~1b~0c/maxLenght",
    ),
    refused("id without $ (draft-04)", {"id": "https://example.invalid/s.json"}, "/id"),
    refused("$schema below the root", {"items": {"$schema": DRAFT}}, "/items/$schema"),
    refused(
        "$schema of another dialect in an embedded resource",
        {
            "items": {
                "$id": "https://example.invalid/i",
                "$schema": DRAFT.replace("2020-12", "2019-09"),
            }
        },
        "/items/$schema",
    ),
    refused("type name misspelled", {"type": "strnig"}, "/type"),
    refused("type list empty", {"type": []}, "/type"),
    refused("pattern not a string", {"pattern": 5}, "/pattern"),
    refused(
        "pattern Python-only",
        {"properties": {"a": {"pattern": "(?i)^cr-"}}},
        "/properties/a/pattern",
    ),
    refused("allOf empty", {"allOf": []}, "/allOf"),
    refused("anyOf not an array", {"anyOf": STRING}, "/anyOf"),
    refused("properties not an object", {"properties": ["a"]}, "/properties"),
    refused("required not an array", {"required": "a"}, "/required"),
    refused("required naming a member twice", {"required": ["a", "a"]}, "/required"),
    refused("required twice deeper down", {"not": {"required": ["a", "a"]}}, "/not/required"),
    refused("subschema not a schema", {"items": 5}, "/items"),
    refused("subschema in oneOf not a schema", {"oneOf": [STRING, "x"]}, "/oneOf/1"),
]

DIALECT = [
    refused("$schema draft-07", {"$schema": "http://json-schema.org/draft-07/schema#"}, "/$schema"),
    refused(
        "$schema 2019-09", {"$schema": "https://json-schema.org/draft/2019-09/schema"}, "/$schema"
    ),
    refused("$schema http not https", {"$schema": DRAFT.replace("https", "http")}, "/$schema"),
    refused("$schema custom metaschema", {"$schema": "https://example.invalid/m"}, "/$schema"),
    refused("$schema not a string", {"$schema": 2020}, "/$schema"),
    refused("root is an array", [STRING], "/"),
    refused("root is a string", "string", "/"),
    refused("root is null", None, "/"),
]

REFS = [
    refused("anchor ref", {"$ref": "#node"}, "/$ref"),
    refused(
        "ref to missing $defs entry",
        {"properties": {"a": {"$ref": "#/$defs/missing"}}},
        "/properties/a/$ref",
    ),
    refused(
        "ref to missing sibling property",
        {"properties": {"a": {"$ref": "#/properties/b"}}},
        "/properties/a/$ref",
    ),
    refused("ref past the end of allOf", {"allOf": [{"$ref": "#/allOf/5"}]}, "/allOf/0/$ref"),
    refused("ref not a string", {"$ref": 5}, "/$ref"),
    refused("ref to remote fragment", {"$ref": "https://example.invalid/s.json#/$defs/a"}, "/$ref"),
    refused("relative file ref", {"$defs": {"a": {"$ref": "other.json"}}}, "/$defs/a/$ref"),
    refused("network-path ref", {"$ref": "//example.invalid/s.json"}, "/$ref"),
]

FORMATS = [
    refused(
        "format of a later draft",
        {"properties": {"email": {"type": "string", "format": "ipv4-cidr"}}},
        "/properties/email/format",
    ),
    refused("format unknown", {"format": "unknown"}, "/format"),
    refused("format misspelled", {"format": "date_time"}, "/format"),
    refused("format not a string", {"format": 5}, "/format"),
]


@pytest.mark.parametrize(("schema", "field"), NOT_ENFORCED)
def test_keyword_fastjsonschema_would_ignore_is_refused(schema: Any, field: str) -> None:
    """A keyword toolguard cannot enforce yet is refused at its JSON Pointer, not skipped."""
    with pytest.raises(SchemaError) as caught:
        compile_schema(schema)
    assert caught.value.field == field


@pytest.mark.parametrize(("schema", "field"), STRUCTURE)
def test_malformed_or_unknown_structure_is_refused(schema: Any, field: str) -> None:
    """Unknown keywords, misplaced keywords and malformed values are refused where they stand."""
    with pytest.raises(SchemaError) as caught:
        compile_schema(schema)
    assert caught.value.field == field


@pytest.mark.parametrize(("schema", "field"), DIALECT)
def test_anything_but_a_draft_2020_12_schema_is_refused(schema: Any, field: str) -> None:
    """Only Draft 2020-12 objects and booleans are schemas; other dialects are refused."""
    with pytest.raises(SchemaError) as caught:
        compile_schema(schema)
    assert caught.value.field == field


@pytest.mark.parametrize(("schema", "field"), REFS)
def test_reference_that_is_not_a_local_pointer_is_refused(schema: Any, field: str) -> None:
    """Anchor, remote, relative and dangling references are refused at their `$ref`."""
    with pytest.raises(SchemaError) as caught:
        compile_schema(schema)
    assert caught.value.field == field


@pytest.mark.parametrize(("schema", "field"), FORMATS)
def test_format_without_a_checker_is_refused(schema: Any, field: str) -> None:
    """With formats asserted, a format toolguard has no parser for is refused."""
    with pytest.raises(SchemaError) as caught:
        compile_schema(schema)
    assert caught.value.field == field


def test_refusal_message_names_the_keyword() -> None:
    """The message quotes the refused keyword, so the author sees the typo itself."""
    with pytest.raises(SchemaError, match="maxLenght"):
        compile_schema({"properties": {"name": {"maxLenght": 3}}})


def test_refused_keyword_in_an_unreferenced_definition_is_still_refused() -> None:
    """Every subschema is checked, even a `$defs` entry nothing refers to."""
    with pytest.raises(SchemaError) as caught:
        compile_schema({"$defs": {"unused": {"dependencies": {"a": ["b"]}}}})
    assert caught.value.field == "/$defs/unused/dependencies"


@pytest.mark.parametrize(
    "ref",
    [
        "http://example.invalid/schema.json",
        "https://example.invalid/schema.json#/$defs/a",
        "file:///etc/passwd",
        "urn:x",
        "other.json",
    ],
)
def test_remote_reference_is_refused_without_network_access(ref: str) -> None:
    """A `$ref` to a URL, a file or a URN is refused offline (urlopen is never called)."""
    with pytest.raises(SchemaError) as caught:
        compile_schema({"type": "object", "properties": {"a": {"$ref": ref}}})
    assert caught.value.field == "/properties/a/$ref"


@pytest.mark.parametrize(
    ("target", "extra"),
    [
        pytest.param("#/default", {"default": {"maxLenght": 1}}, id="into a default value"),
        pytest.param("#/$comment", {"$comment": "x"}, id="at a $comment string"),
        pytest.param("#/$defs/a/enum", {"$defs": {"a": {"enum": [1]}}}, id="at an enum array"),
        pytest.param(
            "#/$defs/m/properties",
            {"$defs": {"m": {"properties": {"q": STRING}}}},
            id="at a properties map",
        ),
    ],
)
def test_reference_to_a_location_that_is_not_a_schema_is_refused(
    target: str, extra: dict[str, Any]
) -> None:
    """A `$ref` must land on a checked subschema; data or a keyword map is not one."""
    schema = {"properties": {"p": {"$ref": target}}, **extra}
    with pytest.raises(SchemaError) as caught:
        compile_schema(schema)
    assert caught.value.field == "/properties/p/$ref"


def test_id_inside_an_annotation_does_not_redirect_references() -> None:
    """A `$id` inside a `default` value is data: it must not replace the root as a ref target."""
    root = "https://example.invalid/review.json"
    schema = {
        "$id": root,
        "$defs": {"text": STRING},
        "properties": {"a": {"$ref": "#/$defs/text"}},
        "default": {"$id": root, "$defs": {"text": {}}},
    }
    assert not accepts(schema, {"a": 1})


# --- What is enforced -------------------------------------------------------------------------


def enforced(name: str, schema: Any, good: Any, bad: Any) -> object:
    return pytest.param(schema, good, bad, id=name)


ENFORCED = [
    enforced("type", {"type": "string"}, "x", 1),
    enforced("type integer rejects a fraction", {"type": "integer"}, 3, 3.5),
    enforced("type integer rejects a boolean", {"type": "integer"}, 0, False),
    enforced("type list", {"type": ["string", "null"]}, None, 1),
    enforced("enum", {"enum": ["approved", "rejected"]}, "approved", "Approved"),
    enforced("const", {"const": {"a": 1}}, {"a": 1}, {"a": 2}),
    enforced("const true is not 1", {"const": True}, True, 1),
    enforced("multipleOf", {"multipleOf": 0.5}, 1.5, 1.25),
    enforced("maximum", {"maximum": 10}, 10, 10.5),
    enforced("exclusiveMaximum", {"exclusiveMaximum": 10}, 9.9, 10),
    enforced("minimum", {"minimum": 1}, 1, 0),
    enforced("exclusiveMinimum", {"exclusiveMinimum": 1}, 1.1, 1),
    enforced("maxLength counts code points", {"maxLength": 2}, "\U0001f600\U0001f600", "abc"),
    enforced("minLength", {"minLength": 2}, "ab", "a"),
    enforced("pattern", {"pattern": "^CR-[0-9]{1,10}$"}, "CR-1042", "CR-1\n"),
    enforced("maxItems", {"maxItems": 1}, [1], [1, 2]),
    enforced("minItems", {"minItems": 1}, [1], []),
    enforced("uniqueItems", {"uniqueItems": True}, [1, "1"], [1, 1]),
    enforced("maxProperties", {"maxProperties": 1}, {"a": 1}, {"a": 1, "b": 2}),
    enforced("minProperties", {"minProperties": 1}, {"a": 1}, {}),
    enforced("required", {"required": ["a"]}, {"a": None}, {"b": 1}),
    enforced("format date", {"format": "date"}, "2026-02-28", "2026-02-30"),
    enforced("not", {"not": STRING}, 1, "x"),
    enforced(
        "if then else",
        {"if": {"type": "integer"}, "then": {"minimum": 0}, "else": STRING},
        5,
        -5,
    ),
    enforced("else branch", {"if": {"type": "integer"}, "else": STRING}, "x", None),
    enforced(
        "additionalProperties false",
        {"properties": {"a": {}}, "additionalProperties": False},
        {"a": 1},
        {"a": 1, "admin_override": True},
    ),
    enforced("additionalProperties schema", {"additionalProperties": STRING}, {"a": "x"}, {"a": 1}),
    enforced("propertyNames", {"propertyNames": {"pattern": "^[a-z]+$"}}, {"ab": 1}, {"A": 1}),
    enforced("items", {"items": {"type": "integer"}}, [1, 2], [1, "2"]),
    enforced("items false", {"items": False}, [], [1]),
    enforced("contains", {"contains": {"const": 3}}, [1, 3], [1, 2]),
    enforced("allOf", {"allOf": [STRING, {"minLength": 2}]}, "ab", "a"),
    enforced("anyOf", {"anyOf": [STRING, {"type": "integer"}]}, 1, 1.5),
    enforced("oneOf", {"oneOf": [{"type": "integer"}, {"minimum": 2}]}, 1, 3),
    enforced("properties", {"properties": {"a": STRING}}, {"a": "x", "b": 1}, {"a": 1}),
    enforced("patternProperties", {"patternProperties": {"^x-": STRING}}, {"x-a": "s"}, {"x-a": 1}),
    enforced(
        "patternProperties with ECMA translation",
        {"patternProperties": {r"^\d+$": STRING}},
        {"\u0663": 1},
        {"3": 1},
    ),
    enforced(
        "$ref into $defs",
        {"$defs": {"id": STRING}, "properties": {"id": {"$ref": "#/$defs/id"}}},
        {"id": "x"},
        {"id": 1},
    ),
    enforced(
        "$ref with escaped pointer",
        {"$defs": {"a/b": STRING}, "$ref": "#/$defs/a~1b"},
        "x",
        1,
    ),
    enforced(
        "$ref beside annotations",
        {"$defs": {"s": STRING}, "$ref": "#/$defs/s", "title": "t", "description": "d"},
        "x",
        1,
    ),
    enforced(
        "recursive $ref to the root",
        {"properties": {"child": {"$ref": "#"}}, "additionalProperties": False},
        {"child": {"child": {}}},
        {"child": {"extra": 1}},
    ),
    enforced(
        "root $id with local refs",
        {"$id": "https://example.invalid/s.json", "$defs": {"s": STRING}, "$ref": "#/$defs/s"},
        "x",
        1,
    ),
    enforced("$schema 2020-12", {"$schema": DRAFT, "type": "string"}, "x", 1),
    enforced("$schema 2020-12 with #", {"$schema": DRAFT + "#", "type": "string"}, "x", 1),
    enforced(  # Core 2020-12 section 8.1.1: a resource's root may say its dialect
        "$schema 2020-12 at an embedded resource's root",
        {
            "$defs": {"r": {"$id": "https://example.invalid/r", "$schema": DRAFT, **STRING}},
            "$ref": "https://example.invalid/r",
        },
        "x",
        1,
    ),
]


@pytest.mark.parametrize(("schema", "good", "bad"), ENFORCED)
def test_supported_keyword_is_enforced(schema: Any, good: Any, bad: Any) -> None:
    """Each supported keyword compiles, accepts a conforming instance and rejects a violation."""
    validator = compile_schema(schema)
    assert validator.is_valid(good)
    assert not validator.is_valid(bad)


@pytest.mark.parametrize(("schema", "expected"), [(True, True), (False, False)])
def test_boolean_root_schema_accepts_everything_or_nothing(schema: bool, expected: bool) -> None:
    """`true` accepts any instance and `false` rejects every instance."""
    validator = compile_schema(schema)
    assert [validator.is_valid(value) for value in (None, 0, "x", [], {})] == [expected] * 5


@pytest.mark.parametrize(
    "keyword",
    [
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$comment",
    ],
)
def test_annotation_keyword_compiles_and_constrains_nothing(keyword: str) -> None:
    """Annotations are accepted and have no effect on validity."""
    values = {"deprecated": True, "readOnly": True, "writeOnly": True, "examples": [1]}
    validator = compile_schema({keyword: values.get(keyword, "note"), "type": "integer"})
    assert validator.is_valid(7)
    assert not validator.is_valid("7")


def test_format_is_only_an_annotation_when_formats_are_off() -> None:
    """With `formats=False`, even an unknown format compiles and asserts nothing."""
    validator = compile_schema({"format": "email"}, formats=False)
    assert validator.is_valid("not an email")


def test_pattern_with_a_dollar_inside_a_class_matches_a_dollar() -> None:
    """`[$]` is a literal dollar sign in a class, and such a pattern compiles and enforces."""
    validator = compile_schema({"pattern": "^[$]+$"})
    assert validator.is_valid("$$")
    assert not validator.is_valid("x")


def test_pattern_properties_that_translate_alike_are_all_enforced() -> None:
    r"""Two patternProperties (`\d` and `[0-9]`) apply together even if their translations match.

    "1" matches both, so its value must be an integer *and* a string: nothing is valid.
    """
    schema = {"patternProperties": {r"\d": {"type": "integer"}, "[0-9]": STRING}}
    assert not accepts(schema, {"1": "x"})
    assert not accepts(schema, {"1": 1})


NON_BOUNDARY = "\\B"  # finds nothing in "a\u00e91": a word boundary between every two characters


@pytest.mark.parametrize(
    ("schema", "instance", "valid"),
    [
        ({"pattern": NON_BOUNDARY}, "a\u00e91", False),
        ({"pattern": NON_BOUNDARY}, "\u00e9\u00e9", True),
        ({"propertyNames": {"pattern": NON_BOUNDARY}}, {"a\u00e91": 1}, False),
        ({"patternProperties": {NON_BOUNDARY: False}}, {"a\u00e91": 1}, True),
        ({"patternProperties": {NON_BOUNDARY: False}}, {"\u00e9\u00e9": 1}, False),
        (
            {"patternProperties": {NON_BOUNDARY: True}, "unevaluatedProperties": False},
            {"a\u00e91": 1},
            False,
        ),
    ],
)
def test_a_non_boundary_is_never_tried_inside_a_character(
    schema: dict[str, Any], instance: Any, valid: bool
) -> None:
    r"""Every keyword that runs a pattern finds `\B` only between characters (ECMA-262).

    RE2's unanchored search also tried it inside a character's UTF-8 bytes, where it held.
    """
    assert accepts(schema, instance) is valid


def test_const_object_with_a_ref_member_is_data() -> None:
    """A `$ref` member inside a `const` value is compared as data, never resolved or rewritten."""
    schema = {"$id": "https://example.invalid/s.json", "const": {"$ref": "other.json"}}
    validator = compile_schema(schema)
    assert validator.is_valid({"$ref": "other.json"})
    assert not validator.is_valid({"$ref": "https://example.invalid/other.json"})


# --- Nothing is written: neither data nor the schema -------------------------------------------

DEFAULTS = {
    "type": "object",
    "properties": {
        "decision": {"enum": ["approved", "pending"], "default": "pending"},
        "meta": {
            "type": "object",
            "default": {},
            "properties": {"retries": {"type": "integer", "default": 3}},
        },
        "tags": {"type": "array", "default": [], "items": {"type": "string", "default": "x"}},
    },
    "default": {"decision": "pending"},
}


@pytest.mark.parametrize("instance", [{}, {"meta": {}}, {"tags": []}], ids=repr)
def test_validate_never_fills_in_defaults(instance: dict[str, Any]) -> None:
    """Validating against a schema full of `default`s leaves the instance exactly as it was."""
    before = copy.deepcopy(instance)
    compile_schema(DEFAULTS).validate(instance)
    assert instance == before


def test_is_valid_never_fills_in_defaults() -> None:
    """`is_valid` does not add missing members either."""
    instance: dict[str, Any] = {"meta": {}}
    assert compile_schema(DEFAULTS).is_valid(instance)
    assert instance == {"meta": {}}


def test_compile_leaves_the_schema_unchanged() -> None:
    """`compile_schema` works on a copy: patterns are translated there, not in the caller's dict."""
    schema = {
        "$defs": {"id": {"type": "string", "pattern": r"^\d+$"}},
        "properties": {"id": {"$ref": "#/$defs/id"}, "x": {"pattern": "a$"}},
        "patternProperties": {r"^\w+$": {}},
        **DEFAULTS,
    }
    before = copy.deepcopy(schema)
    compile_schema(schema)
    assert schema == before


def test_compile_does_not_rewrite_refs_inside_annotation_values() -> None:
    """A `$ref` member in a `default` value is data: compiling never rewrites the caller's dict."""
    schema = {"$id": "https://example.invalid/s.json", "default": {"$ref": "other.json"}}
    before = copy.deepcopy(schema)
    compile_schema(schema)
    assert schema == before


# --- Draft 2020-12 keywords fastjsonschema skips, enforced by toolguard's generator -----------

# The article's composed identity object (one file, shared with benchmarks/schema.py).
ARTICLE_IDENTITY = json.loads(
    (Path(__file__).parents[1] / "data" / "schemas" / "article_identity.schema.json").read_text()
)

NEW_IN_2020_12 = [
    pytest.param(
        ARTICLE_IDENTITY,
        {"subject": "alice", "source": "directory"},
        {"subject": "alice", "source": "directory", "admin_override": True},
        id="the article's allOf + unevaluatedProperties: false",
    ),
    pytest.param(
        {"allOf": [{"properties": {"a": True}}, {"unevaluatedProperties": False}]},
        {},
        {"a": 1},
        id="unevaluatedProperties cannot see a cousin's properties",
    ),
    pytest.param(
        {
            "anyOf": [{"properties": {"a": True}, "required": ["a"]}, {"required": ["b"]}],
            "unevaluatedProperties": False,
        },
        {"a": 1},
        {"b": 1},
        id="only passing anyOf branches evaluate",
    ),
    pytest.param(
        {"not": {"not": {"properties": {"a": True}}}, "unevaluatedProperties": False},
        {},
        {"a": 1},
        id="not contributes no annotations",
    ),
    pytest.param(
        {"prefixItems": [True], "contains": {"type": "string"}, "unevaluatedItems": False},
        [1, "x", "y"],
        [1, "x", 2],
        id="unevaluatedItems after prefixItems and contains",
    ),
    pytest.param(
        {
            "$defs": {"base": {"properties": {"a": True}}},
            "$ref": "#/$defs/base",
            "unevaluatedProperties": False,
        },
        {"a": 1},
        {"a": 1, "b": 2},
        id="annotations flow back through $ref",
    ),
    pytest.param(
        {
            "$id": "https://example.invalid/strict-tree",
            "$dynamicAnchor": "node",
            "$ref": "tree",
            "unevaluatedProperties": False,
            "$defs": {
                "tree": {
                    "$id": "https://example.invalid/tree",
                    "$dynamicAnchor": "node",
                    "type": "object",
                    "properties": {
                        "data": True,
                        "children": {"type": "array", "items": {"$dynamicRef": "#node"}},
                    },
                }
            },
        },
        {"children": [{"data": 1, "children": []}]},
        {"children": [{"daat": 1}]},
        id="$dynamicRef extends a recursive schema (strict tree)",
    ),
    pytest.param(
        {"dependentRequired": {"a": ["b"]}}, {"a": 1, "b": 2}, {"a": 1}, id="dependentRequired"
    ),
    pytest.param(
        {"allOf": [{"type": "object"}, {"dependentSchemas": {"a": {"required": ["b"]}}}]},
        {"a": 1, "b": 2},
        {"a": 1},
        id="dependentSchemas in allOf",
    ),
    pytest.param(
        {"prefixItems": [STRING, {"type": "integer"}], "items": False},
        ["x", 1],
        ["x", 1, 2],
        id="prefixItems then items false",
    ),
    pytest.param(
        {"prefixItems": [STRING], "items": {"type": "integer"}},
        ["x", 1, 2],
        ["x", "y"],
        id="items after prefixItems",
    ),
    pytest.param({"contains": STRING, "minContains": 2}, ["a", "b", 1], ["a", 1], id="minContains"),
    pytest.param(
        {"$defs": {"list": {"contains": STRING, "maxContains": 1}}, "$ref": "#/$defs/list"},
        ["a", 1],
        ["a", "b"],
        id="maxContains through $ref",
    ),
    pytest.param(
        {"$defs": {"s": STRING}, "properties": {"a": {"$ref": "#/$defs/s", "maxLength": 3}}},
        {"a": "abc"},
        {"a": "abcd"},
        id="keyword beside $ref",
    ),
    pytest.param(
        {"$defs": {"s": STRING}, "$ref": "#/$defs/s", "minLength": 1},
        "a",
        "",
        id="keyword beside $ref at root",
    ),
]


@pytest.mark.parametrize(("schema", "valid", "invalid"), NEW_IN_2020_12)
def test_keyword_fastjsonschema_skips_is_enforced(schema: Any, valid: Any, invalid: Any) -> None:
    """A 2020-12 keyword that stock fastjsonschema ignores now accepts and rejects correctly."""
    validator = compile_schema(schema)
    assert validator.is_valid(valid)
    assert not validator.is_valid(invalid)


def test_failure_beside_a_ref_names_the_sibling_keyword() -> None:
    """A sibling of `$ref` that fails is reported at its own location, not the ref target's."""
    schema = {"$defs": {"s": STRING}, "properties": {"a": {"$ref": "#/$defs/s", "maxLength": 3}}}
    with pytest.raises(ValidationError) as caught:
        compile_schema(schema).validate({"a": "abcd"})
    assert caught.value.schema_path == "/properties/a/maxLength"


def test_content_keywords_are_annotations_not_assertions() -> None:
    """contentEncoding/contentMediaType/contentSchema never reject (2020-12 annotations)."""
    schema = {
        "contentEncoding": "base64",
        "contentMediaType": "application/json",
        "contentSchema": {"type": "object"},
    }
    assert compile_schema(schema).is_valid("not base64, not json")


REFERENCES = [
    pytest.param(
        {"$defs": {"a": {"$anchor": "here", "type": "string"}}, "$ref": "#here"},
        "x",
        1,
        id="$anchor",
    ),
    pytest.param(
        {
            "$id": "https://example.invalid/root.json",
            "$defs": {"x": {"$id": "item.json", "type": "integer"}},
            "items": {"$ref": "item.json"},
        },
        [1, 2],
        [1, "2"],
        id="$id below the root, relative $ref",
    ),
    pytest.param(
        {
            "$id": "https://example.invalid/root.json",
            "$defs": {"x": {"$id": "nested/", "$defs": {"n": {"type": "null"}}}},
            "$ref": "nested/#/$defs/n",
        },
        None,
        0,
        id="pointer into an embedded resource",
    ),
]


@pytest.mark.parametrize(("schema", "valid", "invalid"), REFERENCES)
def test_references_resolve_offline_through_ids_and_anchors(
    schema: Any, valid: Any, invalid: Any
) -> None:
    """`$id` scopes, relative refs and `$anchor`s resolve inside the document, offline."""
    validator = compile_schema(schema)
    assert validator.is_valid(valid)
    assert not validator.is_valid(invalid)


def test_registry_supplies_documents_for_a_uri_prefix(tmp_path: Path) -> None:
    """A `$ref` under a registered prefix is read from the local directory, never fetched."""
    (tmp_path / "money.json").write_text('{"type": "integer", "minimum": 0}')
    schema = {"properties": {"cents": {"$ref": "https://schemas.example.invalid/money.json"}}}
    refs = {"https://schemas.example.invalid/": str(tmp_path)}
    validator = compile_schema(schema, refs=refs)
    assert validator.is_valid({"cents": 3})
    assert not validator.is_valid({"cents": -3})


def test_registry_cannot_reach_outside_its_directory(tmp_path: Path) -> None:
    """`..` in a registered reference cannot escape the directory: an unknown reference."""
    (tmp_path / "inside").mkdir()
    (tmp_path / "secret.json").write_text("{}")
    schema = {"$ref": "https://schemas.example.invalid/../secret.json"}
    refs = {"https://schemas.example.invalid/": str(tmp_path / "inside")}
    with pytest.raises(SchemaError, match="unknown reference"):
        compile_schema(schema, refs=refs)


def test_a_registry_link_swapped_before_the_open_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The link inside the registry passes its check, then points out of the folder before
    the file is opened: what was opened is judged again, and refused (never read)."""
    folder = tmp_path / "registry"
    folder.mkdir()
    (folder / "money.json").write_text('{"type": "integer"}')
    (tmp_path / "outside.json").write_text("true")
    (folder / "link.json").symlink_to(folder / "money.json")
    opened = refs.open_regular

    def swapped_first(path: Any, **options: Any) -> Any:
        if Path(path).name == "link.json":
            (folder / "link.json").unlink()
            (folder / "link.json").symlink_to(tmp_path / "outside.json")
        return opened(path, **options)

    monkeypatch.setattr(refs, "open_regular", swapped_first)
    schema = {"$ref": "https://schemas.example.invalid/link.json"}
    with pytest.raises(SchemaError, match="no longer a file in its registry folder"):
        compile_schema(schema, refs={"https://schemas.example.invalid/": str(folder)})


def test_a_registry_link_swapped_out_and_back_around_the_open_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pointed out of the folder for the open, then back: the path resolves inside again, but
    to another file than the one opened, which is refused (never read)."""
    folder = tmp_path / "registry"
    folder.mkdir()
    (folder / "money.json").write_text('{"type": "integer"}')
    (tmp_path / "outside.json").write_text("true")
    link = folder / "link.json"
    link.symlink_to(folder / "money.json")
    opened = refs.open_regular

    def swapped_around(path: Any, **options: Any) -> Any:
        if Path(path).name != "link.json":
            return opened(path, **options)
        link.unlink()
        link.symlink_to(tmp_path / "outside.json")
        stream = opened(path, **options)
        link.unlink()
        link.symlink_to(folder / "money.json")
        return stream

    monkeypatch.setattr(refs, "open_regular", swapped_around)
    schema = {"$ref": "https://schemas.example.invalid/link.json"}
    with pytest.raises(SchemaError, match="no longer a file in its registry folder"):
        compile_schema(schema, refs={"https://schemas.example.invalid/": str(folder)})


@pytest.mark.parametrize(
    "rest",
    ["a" * 5000, "loop/x.json", "loop"],
    ids=["long", "in-loop", "loop"],
)
def test_a_registered_reference_no_file_can_have_is_unknown(tmp_path: Path, rest: str) -> None:
    """A name too long, a symbolic-link loop: an unknown reference, never a crash.

    (A NUL is no URI reference at all: `test_refs.py`.)
    """
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    schema = {"$ref": f"https://schemas.example.invalid/{rest}"}
    refs = {"https://schemas.example.invalid/": str(tmp_path)}
    with pytest.raises(SchemaError, match="unknown reference"):
        compile_schema(schema, refs=refs)


def test_a_schema_path_holding_a_nul_cannot_be_read(tmp_path: Path) -> None:
    """No file has a NUL in its name: `read_schema` says so instead of raising ValueError."""
    with pytest.raises(SchemaError, match="cannot hold a NUL"):
        read_schema(tmp_path / "a\u0000b.json")


def test_schema_the_metaschema_rejects_is_refused() -> None:
    """A schema that is not valid Draft 2020-12 (`title` must be a string) is refused."""
    with pytest.raises(SchemaError) as caught:
        compile_schema({"title": 5})
    assert caught.value.field == "/title"
    assert "Draft 2020-12" in caught.value.message


def test_the_shipped_metaschema_is_a_reference_target_offline() -> None:
    """`$ref` to the 2020-12 metaschema resolves to the shipped copy and validates schemas."""
    schema = {"$ref": "https://json-schema.org/draft/2020-12/schema"}
    validator = compile_schema(schema, formats=False)
    assert validator.is_valid({"type": "string", "maxLength": 3})
    assert not validator.is_valid({"type": 5})
    assert not validator.is_valid({"properties": {"a": {"minLength": -1}}})


def test_required_unknown_vocabulary_is_refused() -> None:
    """A `$vocabulary` that requires a vocabulary toolguard does not implement is refused."""
    with pytest.raises(SchemaError, match="vocabular"):
        compile_schema({"$vocabulary": {"https://example.invalid/vocab/magic": True}})
    assert compile_schema({"$vocabulary": {"https://example.invalid/vocab/magic": False}})


# --- Red-team regressions ----------------------------------------------------------------------


def test_const_data_with_id_and_ref_members_is_compared_as_written() -> None:
    """fastjsonschema's resolver must not rewrite `$ref` strings inside `const` data."""
    validator = compile_schema({"const": {"$id": "http://a/", "r": {"$ref": "c"}}})
    assert validator.is_valid({"$id": "http://a/", "r": {"$ref": "c"}})
    assert not validator.is_valid({"$id": "http://a/", "r": {"$ref": "http://a/c"}})


def test_non_boundary_matches_in_an_empty_string_as_in_ecma() -> None:
    r"""ECMA's `\B` matches in "" (Python's did not), and its `\b` does not."""
    assert compile_schema({"pattern": r"^\B$"}).is_valid("")
    assert not compile_schema({"pattern": r"^\b$"}).is_valid("")


@pytest.mark.parametrize(
    "schema",
    [
        pytest.param({"const": float("inf")}, id="infinite const"),
        pytest.param({"enum": [float("nan")]}, id="NaN in enum"),
        pytest.param({"maximum": float("inf")}, id="infinite maximum"),
        pytest.param({"type": [[1]]}, id="unhashable type"),
        pytest.param({"$ref": "http://[::1"}, id="malformed URI"),
        pytest.param({"$id": "http://[x"}, id="malformed $id"),
    ],
)
def test_values_no_code_can_spell_are_refused_not_crashed_on(schema: Any) -> None:
    """Non-finite numbers, non-string type names and malformed URIs are SchemaErrors."""
    with pytest.raises(SchemaError):
        compile_schema(schema)


@pytest.mark.parametrize(
    ("schema", "where"),
    [
        pytest.param({1: {}}, "/", id="integer member name"),
        pytest.param({"properties": {None: {}}}, "/properties", id="None member name"),
        pytest.param({"const": {"a": (1,)}}, "/const/a", id="tuple in const"),
        pytest.param({"const": {1, 2}}, "/const", id="set const"),
        pytest.param({"enum": ["a", b"a"]}, "/enum/1", id="bytes in enum"),
        pytest.param({"items": {"const": object()}}, "/items/const", id="object const"),
        pytest.param({"default": float("nan")}, "/default", id="NaN default"),
        pytest.param({"minimum": Decimal("1.5")}, "/minimum", id="Decimal bound"),
    ],
)
def test_a_schema_holding_what_json_cannot_write_is_refused_where_it_stands(
    schema: Any, where: str
) -> None:
    """A schema built in Python is JSON data or a SchemaError naming the value's location."""
    with pytest.raises(SchemaError) as refused:
        compile_schema(schema)
    assert refused.value.field == where
    assert "JSON data" in str(refused.value)


HUGE = 10**400  # a valid integer; as a float it would overflow


@pytest.mark.parametrize(
    ("schema", "valid", "invalid"),
    [
        pytest.param({"maxLength": HUGE}, ["abc"], [], id="maxLength"),
        pytest.param({"minLength": HUGE}, [1], ["abc"], id="minLength"),
        pytest.param({"maxItems": HUGE}, [[1]], [], id="maxItems"),
        pytest.param({"minProperties": HUGE}, [[]], [{}], id="minProperties"),
        pytest.param({"minimum": HUGE}, [HUGE], [HUGE - 1, 1e308], id="minimum"),
        pytest.param({"exclusiveMaximum": -HUGE}, [-HUGE - 1], [-HUGE, -1e308], id="exclusiveMax"),
        pytest.param({"multipleOf": HUGE}, [0, 2 * HUGE], [1e308, 1.5], id="multipleOf"),
        pytest.param({"contains": {}, "minContains": HUGE}, [{}], [[1]], id="minContains"),
        pytest.param({"contains": {}, "maxContains": HUGE}, [[1]], [[]], id="maxContains"),
    ],
)
def test_a_huge_integer_bound_is_exact(schema: Any, valid: list[Any], invalid: list[Any]) -> None:
    """10**400 is a valid count and bound: compared exactly (a length never reaches it), never
    an OverflowError from reading it as a float."""
    validator = compile_schema(schema)
    assert all(validator.is_valid(value) for value in valid)
    assert not any(validator.is_valid(value) for value in invalid)


@pytest.mark.parametrize(
    "schema",
    [
        {"maxLength": 10**5000},
        {"minimum": -(10**5000)},
        {"multipleOf": 10**4001},
        {"const": {"a": [10**5000]}},
        {"enum": [1, 10**5000]},
    ],
    ids=["maxLength", "minimum", "multipleOf", "const", "enum"],
)
def test_an_integer_generated_code_cannot_spell_is_refused_plainly(schema: Any) -> None:
    """Over CPython's 4,300 digits an int cannot be written out: a SchemaError saying so, not
    one quoting Python's own ValueError (nor the value itself)."""
    with pytest.raises(SchemaError, match="4,000 digits") as raised:
        compile_schema(schema)
    assert "ValueError" not in str(raised.value)
    assert len(str(raised.value)) < 300


def test_a_schema_nested_beyond_the_stack_is_refused() -> None:
    """Hundreds of nested allOf levels give a SchemaError, not a RecursionError."""
    schema: Any = {}
    for _ in range(600):
        schema = {"allOf": [schema]}
    with pytest.raises(SchemaError, match="nests too deeply"):
        compile_schema(schema)


def test_non_finite_numbers_are_never_multiples() -> None:
    """Through the library API an infinite float is not a multiple of anything (no crash)."""
    validator = compile_schema({"multipleOf": 3})
    assert not validator.is_valid(float("inf"))
    assert not validator.is_valid(1e17)
    assert validator.is_valid(9)


@pytest.mark.parametrize(
    ("schema", "field"),
    [
        pytest.param({"not": {"format": "regex"}}, "/not/format", id="under not"),
        pytest.param(
            {"oneOf": [{"format": "hostname"}, {"type": "integer"}]},
            "/oneOf/0/format",
            id="in a oneOf branch",
        ),
        pytest.param(
            {"$defs": {"d": {"format": "date"}}, "if": {"$ref": "#/$defs/d"}, "then": False},
            "/$defs/d/format",
            id="reached from if by $ref",
        ),
    ],
)
def test_format_whose_failure_could_accept_is_refused(schema: Any, field: str) -> None:
    """A format check may reject a valid value; where failing lets instances pass, refuse it."""
    with pytest.raises(SchemaError) as caught:
        compile_schema(schema)
    assert caught.value.field == field
    assert compile_schema(schema, formats=False)
