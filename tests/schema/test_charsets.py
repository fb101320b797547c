"""Code point sets for ECMA-262 patterns: ranges that are sorted, disjoint and complete."""

from __future__ import annotations

import itertools
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolguard.schema import charsets

SPANS = st.lists(
    st.tuples(st.integers(0, 300), st.integers(0, 50)).map(lambda s: (s[0], s[0] + s[1])),
    max_size=8,
)


def members(ranges: charsets.Ranges, limit: int = 400) -> set[int]:
    return {cp for low, high in ranges for cp in range(low, min(high, limit) + 1)}


@given(SPANS)
def test_union_is_sorted_disjoint_and_covers_the_same_points(spans: list[tuple[int, int]]) -> None:
    """`union` merges touching and overlapping spans without gaining or losing a code point."""
    merged = charsets.union(spans)
    assert members(merged) == {cp for low, high in spans for cp in range(low, high + 1)}
    assert all(a[1] + 1 < b[0] for a, b in itertools.pairwise(merged))


@given(SPANS)
def test_complement_partitions_the_code_space(spans: list[tuple[int, int]]) -> None:
    """A set and its complement share nothing and together hold every code point."""
    ranges = charsets.union(spans)
    other = charsets.complement(ranges)
    assert not members(ranges) & members(other)
    assert members(ranges) | members(other) == set(range(401))
    assert charsets.complement(other) == ranges


@pytest.mark.parametrize("name", ["L", "Letter", "gc=L", "General_Category=Letter"])
def test_category_spellings_name_the_same_set(name: str) -> None:
    """Short and long General_Category names, with or without `gc=`, are one set."""
    assert charsets.property_ranges(name) == charsets.property_ranges("L")


def test_category_ranges_agree_with_unicodedata() -> None:
    """Every code point of `Lu` has category Lu, and its neighbours outside the ranges do not."""
    ranges = charsets.property_ranges("Lu")
    for low, high in ranges:
        assert unicodedata.category(chr(low)) == unicodedata.category(chr(high)) == "Lu"
        if high < charsets.MAX_CODE_POINT:
            assert unicodedata.category(chr(high + 1)) != "Lu"


@pytest.mark.parametrize(
    ("name", "valid"),
    [("Alphabetic", True), ("Script=Greek", False), ("gc=Nope", False), ("Nope", False)],
)
def test_unenforceable_property_says_whether_ecma_knows_it(name: str, valid: bool) -> None:
    """A property without data is `valid` if ECMA-262 defines it, so only the format accepts it."""
    with pytest.raises(charsets.UnknownProperty) as caught:
        charsets.property_ranges(name)
    assert caught.value.valid is valid
