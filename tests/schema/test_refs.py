"""References resolved offline (`schema/refs.py`): what a `$ref`, `$id` or anchor may say, and
what it resolves to, whatever order the schema and its registry documents are written in."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from toolguard.errors import SchemaError
from toolguard.schema import compile_schema

BASE = "https://schemas.example.invalid/"
TREE = {
    "$id": f"{BASE}tree.json",
    "$dynamicAnchor": "node",
    "type": "object",
    "properties": {"data": True, "children": {"type": "array", "items": {"$dynamicRef": "#node"}}},
}
STRICT_TREE = {"$dynamicAnchor": "node", "$ref": f"{BASE}tree.json", "unevaluatedProperties": False}


@pytest.mark.parametrize("defs_first", [True, False], ids=["defs-first", "properties-first"])
def test_a_dynamic_anchor_in_a_registry_document_is_in_scope_whatever_the_order(
    tmp_path: Path, defs_first: bool
) -> None:
    """A `$dynamicRef` lands on a registry document's `$dynamicAnchor` however the root is
    ordered: the documents are all loaded before any dynamic reference is resolved."""
    (tmp_path / "strict-tree.json").write_text(json.dumps(STRICT_TREE))
    parts: list[tuple[str, Any]] = [
        ("$defs", {"tree": TREE}),
        ("properties", {"x": {"$ref": f"{BASE}strict-tree.json"}}),
    ]
    schema = {"$id": f"{BASE}root.json", **dict(parts if defs_first else parts[::-1])}
    validator = compile_schema(schema, refs={BASE: str(tmp_path)})
    assert validator.is_valid({"x": {"children": [{"data": 1}]}})
    assert not validator.is_valid({"x": {"children": [{"daat": 1}]}})
    assert not validator.is_valid({"x": {"daat": 1}})


@pytest.mark.parametrize("prefix", [BASE, BASE.removesuffix("/")], ids=["slash", "no-slash"])
def test_a_registry_prefix_names_its_folder_with_or_without_a_final_slash(
    tmp_path: Path, prefix: str
) -> None:
    """`https://e.com/s` registered serves `https://e.com/s/x.json` from `x.json` in its folder,
    as `https://e.com/s/` does (not from the absolute path `/x.json`)."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "int.json").write_text('{"type": "integer"}')
    validator = compile_schema({"$ref": f"{BASE}lib/int.json"}, refs={prefix: tmp_path})
    assert validator.is_valid(1)
    assert not validator.is_valid("1")


def test_a_registry_prefix_ending_inside_a_segment_serves_no_longer_segment(
    tmp_path: Path,
) -> None:
    """`https://e.com/s` is not a prefix of the namespace `https://e.com/sx/`: `sx/a.json` is
    not the file `x/a.json` in its folder."""
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "int.json").write_text('{"type": "integer"}')
    with pytest.raises(SchemaError):
        compile_schema({"$ref": f"{BASE}sx/int.json"}, refs={f"{BASE}s": tmp_path})
    (tmp_path / "int.json").write_text('{"type": "integer"}')
    with pytest.raises(SchemaError, match="unknown reference"):  # not `int.json`, its `x` cut
        compile_schema({"$ref": f"{BASE}sxint.json"}, refs={f"{BASE}s": tmp_path})
    urn = compile_schema({"$ref": "urn:example:int.json"}, refs={"urn:example:": tmp_path / "x"})
    assert urn.is_valid(1)


@pytest.mark.parametrize(
    ("prefix", "ref"),
    [(BASE, f"{BASE}/int.json"), ("urn:example:", "urn:example:/int.json")],
    ids=["slash", "colon"],
)
def test_a_registry_prefix_ending_with_a_delimiter_serves_no_extra_slash(
    tmp_path: Path, prefix: str, ref: str
) -> None:
    """Only a prefix ending inside a segment stands for its folder with a `/` after it:
    `https://e.com/s//int.json` is no file of `https://e.com/s/`'s folder, not `int.json`."""
    (tmp_path / "int.json").write_text('{"type": "integer"}')
    with pytest.raises(SchemaError, match="unknown reference"):
        compile_schema({"$ref": ref}, refs={prefix: tmp_path})


def test_a_registry_document_whose_id_carries_a_fragment_is_refused(tmp_path: Path) -> None:
    """A document read from the registry is held to `$id`'s rule as the schema itself is."""
    document = {"$id": f"{BASE}other.json#frag", "type": "integer"}
    (tmp_path / "int.json").write_text(json.dumps(document))
    with pytest.raises(SchemaError, match="'\\$id' must not carry a fragment"):
        compile_schema({"$ref": f"{BASE}int.json"}, refs={BASE: tmp_path})


@pytest.mark.parametrize("char", ["\n", "\t", "\r", "\x00", "\x7f"], ids=repr)
@pytest.mark.parametrize(
    ("schema", "field"),
    [
        (
            {"$defs": {"ab": True}, "properties": {"p": {"$ref": "#/$defs/a{}b"}}},
            "/properties/p/$ref",
        ),
        ({"$defs": {"ab": True}, "items": {"$dynamicRef": "#/$defs/a{}b"}}, "/items/$dynamicRef"),
        ({"$defs": {"d": {"$id": "https://e.invalid/a{}b"}}}, "/$defs/d/$id"),
    ],
    ids=["$ref", "$dynamicRef", "$id"],
)
def test_a_reference_holding_a_control_character_is_refused(
    schema: Any, field: str, char: str
) -> None:
    """Python's URL parser would drop a tab, CR or LF and resolve `a<LF>b` as `ab`: no URI
    reference holds a control character, so the schema is refused, naming where."""
    written = json.loads(json.dumps(schema).replace("{}", json.dumps(char)[1:-1]))
    with pytest.raises(SchemaError, match="not a valid URI reference") as caught:
        compile_schema(written)
    assert caught.value.field == field


def test_a_reference_starting_with_a_space_is_refused() -> None:
    """The parser strips a leading space too: ` #/$defs/a` is refused, not read as `#/$defs/a`."""
    with pytest.raises(SchemaError, match="not a valid URI reference") as caught:
        compile_schema({"$defs": {"a": True}, "$ref": " #/$defs/a"})
    assert caught.value.field == "/$ref"


def test_a_percent_encoded_control_character_means_what_it_says() -> None:
    """`#/$defs/a%0Ab` is the member named `a<LF>b`, not `ab`."""
    schema = {
        "$defs": {"ab": {"type": "string"}, "a\nb": {"type": "integer"}},
        "$ref": "#/$defs/a%0Ab",
    }
    validator = compile_schema(schema)
    assert validator.is_valid(7)
    assert not validator.is_valid("text")


@pytest.mark.parametrize(
    ("schema", "field", "first"),
    [
        (
            {"$defs": {"a": {"$id": "https://e.invalid/x"}, "b": {"$id": "https://e.invalid/x"}}},
            "/$defs/b/$id",
            "/$defs/a",
        ),
        (
            {"$id": "https://e.invalid/r", "$defs": {"a": {"$id": "r"}}},
            "/$defs/a/$id",
            "/",
        ),
        ({"$defs": {"a": {"$anchor": "x"}, "b": {"$anchor": "x"}}}, "/$defs/b/$anchor", "/$defs/a"),
        (
            {"$defs": {"a": {"$anchor": "x"}, "b": {"$dynamicAnchor": "x"}}},
            "/$defs/b/$dynamicAnchor",
            "/$defs/a",
        ),
        (
            {"$defs": {"a": {"$dynamicAnchor": "x"}, "b": {"$dynamicAnchor": "x"}}},
            "/$defs/b/$dynamicAnchor",
            "/$defs/a",
        ),
    ],
    ids=["$id", "$id-of-the-root", "$anchor", "$anchor-and-$dynamicAnchor", "$dynamicAnchor"],
)
def test_a_uri_or_anchor_naming_two_subschemas_is_refused(
    schema: Any, field: str, first: str
) -> None:
    """Core 2020-12 8.2: an identifier names one schema; two are an error naming both, never
    the first silently."""
    with pytest.raises(SchemaError, match="names two subschemas") as caught:
        compile_schema(schema)
    assert caught.value.field == field
    assert f": {first} and " in caught.value.message


def test_the_same_anchor_in_two_resources_is_two_anchors() -> None:
    """An anchor is unique within its resource: two resources may each have `#x`."""
    schema = {
        "$id": "https://e.invalid/root",
        "$defs": {
            "a": {"$id": "a", "$anchor": "x", "type": "string"},
            "b": {"$id": "b", "$anchor": "x", "type": "integer"},
        },
        "$ref": "b#x",
    }
    validator = compile_schema(schema)
    assert validator.is_valid(1)
    assert not validator.is_valid("s")


@pytest.mark.parametrize("registry", [False, True])
def test_a_definition_named_like_a_bundled_document_is_refused(
    tmp_path: Path, registry: bool
) -> None:
    """`toolguard:remote:N` is where a loaded document goes: a member of that name would be
    shadowed by it (a string field checked as the metaschema, or as a registry file)."""
    (tmp_path / "int.json").write_text('{"type": "integer"}')
    schema = {
        "$defs": {"toolguard:remote:0": {"type": "string", "maxLength": 3}},
        "properties": {
            "own": {"$ref": "#/$defs/toolguard:remote:0"},
            "other": {"$ref": "https://ex.test/s/int.json"}
            if registry
            else {"$ref": "https://json-schema.org/draft/2020-12/meta/format-annotation"},
        },
    }
    refs = {"https://ex.test/s/": str(tmp_path)} if registry else None
    with pytest.raises(SchemaError, match="toolguard's own") as raised:
        compile_schema(schema, refs=refs)
    assert raised.value.field == "/$defs/toolguard:remote:0"


def test_the_bundle_writes_a_static_dynamic_ref_as_a_pointer_and_keeps_a_scoped_one() -> None:
    """With the `$id`s gone, a `$dynamicRef` that can land only on its static target becomes a
    pointer from the bundle's root; one the dynamic scope decides stays as written."""
    schema = {
        "properties": {
            "static": {"$ref": "https://example.com/x"},
            "scoped": {"$ref": "https://example.com/strict"},
        },
        "$defs": {
            "x": {
                "$id": "https://example.com/x",
                "$dynamicRef": "#/$defs/n",
                "$defs": {"n": {"type": "integer"}},
            },
            "strict": {
                "$id": "https://example.com/strict",
                "$dynamicAnchor": "node",
                "$ref": "tree",
                "unevaluatedProperties": False,
            },
            "tree": {
                "$id": "https://example.com/tree",
                "$dynamicAnchor": "node",
                "properties": {"kids": {"items": {"$dynamicRef": "#node"}}},
            },
        },
    }
    bundled = compile_schema(schema).schema
    assert bundled["$defs"]["x"]["$dynamicRef"] == "#/%24defs/x/%24defs/n"
    assert bundled["$defs"]["tree"]["properties"]["kids"]["items"]["$dynamicRef"] == "#node"


NULL = {"type": "null"}


@pytest.mark.parametrize(
    ("schema", "ref"),
    [
        ({"patternProperties": {"^a$": NULL}}, "#/patternProperties/%5Ea$"),
        ({"patternProperties": {"a/b": NULL}}, "#/patternProperties/a~1b"),
        ({"patternProperties": {"\\d": {}, "[0-9]": NULL}}, "#/patternProperties/[0-9]"),
        (
            {"patternProperties": {"^a$": {"patternProperties": {"b$": NULL}}}},
            "#/patternProperties/%5Ea$/patternProperties/b$",
        ),
        (
            {"$defs": {"d": {"patternProperties": {"^a$": NULL}}}},
            "#/$defs/d/patternProperties/%5Ea$",
        ),
    ],
    ids=["anchors", "slash", "translated-alike", "nested", "in-$defs"],
)
@pytest.mark.parametrize("keyword", ["$ref", "$dynamicRef"])
def test_a_reference_into_pattern_properties_lands_on_its_subschema(
    schema: dict[str, Any], ref: str, keyword: str
) -> None:
    """A member of `patternProperties` is a subschema a reference may name by its pattern.

    The compiled copy keys it by the pattern's RE2 translation; a reference written with the
    pattern as the schema has it failed with fastjsonschema's "Unresolvable ref", or, where
    another member's translation is that text (`\\d` becomes `[0-9]`), landed on that member
    and let `{"x": 1}` through.
    """
    validator = compile_schema({**schema, "properties": {"x": {keyword: ref}}})
    assert validator.is_valid({"x": None})
    assert not validator.is_valid({"x": 1})


STRING_CONTENT = {"contentMediaType": "application/json", "contentSchema": {"type": "string"}}


@pytest.mark.parametrize(
    ("schema", "ref"),
    [
        (STRING_CONTENT, "#/contentSchema"),
        (
            {"contentSchema": {"properties": {"a": {"type": "string"}}}},
            "#/contentSchema/properties/a",
        ),
        ({"contentSchema": {"$anchor": "text", "type": "string"}}, "#text"),
        ({"contentSchema": {"contentSchema": {"type": "string"}}}, "#/contentSchema/contentSchema"),
        ({"$defs": {"d": STRING_CONTENT}}, "#/$defs/d/contentSchema"),
        (
            {"contentSchema": {"$ref": "#/$defs/s"}, "$defs": {"s": {"type": "string"}}},
            "#/contentSchema",
        ),
        (
            {
                "contentSchema": {
                    "$ref": "#/contentSchema/$defs/s",
                    "$defs": {"s": {"type": "string"}},
                }
            },
            "#/contentSchema",
        ),
    ],
    ids=["itself", "into", "anchor", "nested", "in-$defs", "ref-out", "ref-within"],
)
@pytest.mark.parametrize("keyword", ["$ref", "$dynamicRef"])
def test_a_reference_into_content_schema_applies_the_subschema_it_names(
    schema: dict[str, Any], ref: str, keyword: str
) -> None:
    """`contentSchema` holds a schema a reference may name, though it applies nowhere itself.

    It was left out of the compiled copy, so such a reference was refused with "does not point
    at a schema".
    """
    validator = compile_schema({**schema, "properties": {"x": {keyword: ref}}})
    assert validator.is_valid({"x": "text", "y": 1})
    assert not validator.is_valid({"x": 1})


def test_content_schema_still_applies_only_through_a_reference() -> None:
    """Referenced or not, `contentSchema` stays an annotation where it stands."""
    validator = compile_schema({**STRING_CONTENT, "properties": {"x": {"$ref": "#/contentSchema"}}})
    assert validator.is_valid({"x": "text"})
    assert compile_schema(STRING_CONTENT).is_valid(1)
    assert compile_schema({"items": STRING_CONTENT}).is_valid([1])


def test_a_content_schema_is_checked_only_once_a_reference_applies_it() -> None:
    """An annotation cannot let anything through; a subschema a reference applies can."""
    schema = {"contentSchema": {"pattern": "(a)\\1"}}
    assert compile_schema(schema).is_valid("x")
    with pytest.raises(SchemaError, match="backreference") as caught:
        compile_schema({**schema, "$ref": "#/contentSchema"})
    assert caught.value.field == "/contentSchema/pattern"


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"$ref": "#/type", "type": "string"}, "it is the value of 'type' in the subschema at /"),
        ({"$ref": "#/properties", "properties": {}}, "it is the value of 'properties' in the"),
        ({"$ref": "#/$comment", "$comment": "x"}, "it is the value of '$comment' in the"),
        (
            {"$ref": "#/default/a", "default": {"a": {}}},
            "it lies inside the value of 'default' in the subschema at /",
        ),
        (
            {"$defs": {"a/b": {"examples": [{}]}}, "$ref": "#/$defs/a~1b/examples/0"},
            "it lies inside the value of 'examples' in the subschema at /$defs/a~1b",
        ),
        (
            {"$ref": "#/contentSchema/enum", "contentSchema": {"enum": [{}]}},
            "it is the value of 'enum' in the subschema at /contentSchema",
        ),
    ],
    ids=["assertion", "map", "comment", "data", "escaped", "in-contentSchema"],
)
def test_a_reference_to_no_schema_is_refused_saying_what_it_points_at(
    schema: dict[str, Any], message: str
) -> None:
    """A reference landing on a keyword's value or on data names that keyword and its owner."""
    with pytest.raises(SchemaError, match="does not point at a schema: " + re.escape(message)):
        compile_schema(schema)
