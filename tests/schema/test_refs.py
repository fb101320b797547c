"""References resolved offline (`schema/refs.py`): what a `$ref`, `$id` or anchor may say, and
what it resolves to, whatever order the schema and its registry documents are written in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

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
