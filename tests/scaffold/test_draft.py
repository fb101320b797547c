"""A schema drafted from a sample: closed, typed, bounded, and each decision left marked."""

from __future__ import annotations

from typing import Any

import pytest

from toolguard.scaffold.draft import (
    DECIDE_DATE_TIME,
    DECIDE_EMPTY,
    DECIDE_IDENTIFIER,
    DECIDE_TEXT,
    DECIDE_TYPES,
    depth,
    draft_schema,
    leaves,
    room,
    schema_for,
    subschemas,
)
from toolguard.schema import compile_schema


def test_objects_are_closed_and_require_what_every_element_has() -> None:
    """Members in every element are required; one only some have is declared, not required."""
    schema = schema_for([[{"a": 1, "b": True}, {"a": 2}]])
    items = schema["items"]
    assert items["additionalProperties"] is False
    assert items["required"] == ["a"]
    assert items["properties"] == {
        "a": {"$comment": "decide: a range? add minimum and maximum", "type": "integer"},
        "b": {"type": "boolean"},
    }


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (["TCK-4821"], {"$comment": DECIDE_IDENTIFIER, "type": "string", "maxLength": 32}),
        (["two words"], {"$comment": DECIDE_TEXT, "type": "string", "maxLength": 32}),
        (["x" * 100], {"$comment": DECIDE_IDENTIFIER, "type": "string", "maxLength": 256}),
        (
            ["2026-03-14T09:30:00Z"],
            {
                "$comment": DECIDE_DATE_TIME,
                "type": "string",
                "format": "date-time",
                "maxLength": 35,
            },
        ),
        ([[]], {"$comment": DECIDE_EMPTY, "type": "array", "maxItems": 0}),
        ([1, 2.5], {"$comment": "decide: a range? add minimum and maximum", "type": "number"}),
        ([True], {"type": "boolean"}),
    ],
)
def test_scalars_get_a_type_a_bound_and_a_decision(values: list[Any], expected: Any) -> None:
    """Strings are bounded at twice their length (at least 32); timestamps get their format."""
    assert schema_for(values) == expected


def test_a_decision_quotes_nothing_from_another_tool() -> None:
    """A status or an e-mail address is not told to match some other tool's identifier.

    The hint is the same for every identifier-like string, so it holds no example value that
    a reader would take for one drawn from the sample.
    """
    drafted = draft_schema({"status": "open", "owner": "ada@example.com"}, "t", "d")
    comments = [member["$comment"] for member in drafted["properties"].values()]
    assert comments == [DECIDE_IDENTIFIER, DECIDE_IDENTIFIER]
    assert not any(character in DECIDE_IDENTIFIER for character in "^$[]")


def test_several_types_at_one_place_become_an_any_of_to_decide() -> None:
    """A string and an integer in one array: an anyOf, marked for the author."""
    schema = schema_for([["a", 1]])["items"]
    assert schema["$comment"] == DECIDE_TYPES
    assert [branch["type"] for branch in schema["anyOf"]] == ["string", "integer"]


def test_the_drafted_schema_accepts_its_sample_and_compiles() -> None:
    """The draft is a valid 2020-12 schema toolguard compiles, and the sample passes it."""
    sample = {"id": "TCK-1", "tags": ["a", 1], "at": "2026-03-14T09:30:00Z", "n": None}
    validator = compile_schema(draft_schema(sample, "t payload", "drafted"))
    validator.validate(sample)
    assert not validator.is_valid({**sample, "extra": 1})


def test_leaves_skip_values_under_an_any_of() -> None:
    """A near miss naming a keyword needs the keyword's own failure, never an anyOf's."""
    sample = {"a": "x", "b": ["y", 1], "c": [{"d": "z"}]}
    found = [leaf.pointer for leaf in leaves(sample, schema_for([sample]))]
    assert found == ["/a", "/c/0/d"]


@pytest.mark.parametrize(
    ("value", "expected"), [(1, 0), ({}, 1), ({"a": 1}, 1), ({"a": [1]}, 2), ([[[]]], 3)]
)
def test_depth_counts_containers_as_the_parser_does(value: Any, expected: int) -> None:
    """A scalar adds no level; each object or array adds one."""
    assert depth(value) == expected


def test_room_is_a_power_of_two_at_least_twice_the_size() -> None:
    """Bounds with room to spare, never below the floor given."""
    assert [room(size, 16) for size in (0, 8, 9, 100)] == [16, 16, 32, 256]


def test_subschemas_counts_every_schema_lint_walks() -> None:
    """The root, each member, an array's items, and each anyOf branch with its anyOf."""
    schema = draft_schema({"a": [1, "x"], "b": {"c": None}}, "t", "d")
    assert subschemas(schema) == 7
