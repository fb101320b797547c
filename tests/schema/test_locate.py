"""`declared_location`: which subschema declares an instance location (for projections)."""

from __future__ import annotations

from typing import Any

import pytest

from toolguard.schema.locate import declared_location

PAIR = {
    "type": "object",
    "properties": {
        "pair": {
            "type": "array",
            "prefixItems": [{"type": "string"}, {"$ref": "#/$defs/count"}],
            "items": {"type": "boolean"},
        },
        "rest": {"type": "array", "prefixItems": [{"type": "string"}, True]},
    },
    "$defs": {"count": {"type": "integer"}},
}


@pytest.mark.parametrize(
    ("pointer", "location"),
    [
        ("/pair/0", "/properties/pair/prefixItems/0"),
        ("/pair/1", "/$defs/count"),
        ("/pair/2", "/properties/pair/items"),
        ("/pair/7", "/properties/pair/items"),
        ("/rest/0", "/properties/rest/prefixItems/0"),
        ("/rest/1", None),  # `true` declares nothing
        ("/rest/2", None),  # past `prefixItems`, and no `items`
        ("/pair/x", None),
    ],
)
def test_an_item_is_declared_by_prefix_items_then_items(pointer: str, location: Any) -> None:
    """Item N is `prefixItems/N` while there is one, `items` after: as validation applies them."""
    assert declared_location(PAIR, pointer) == location
