"""Code point sets for ECMA-262 patterns: ranges that are sorted, disjoint and complete."""

from __future__ import annotations

import itertools
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolguard.schema import category_table, charsets

SPANS = st.lists(
    st.tuples(st.integers(0, 300), st.integers(0, 50)).map(lambda s: (s[0], s[0] + s[1])),
    max_size=8,
)


CATEGORIES = ("Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd")
CATEGORIES += ("Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp")
CATEGORIES += ("Cc", "Cf", "Cs", "Co", "Cn")


def members(ranges: charsets.Ranges, limit: int = 400) -> set[int]:
    return {cp for low, high in ranges for cp in range(low, min(high, limit) + 1)}


@given(SPANS)
def test_union_is_sorted_disjoint_and_covers_the_same_points(spans: list[tuple[int, int]]) -> None:
    """`union` merges touching and overlapping spans without gaining or losing a code point."""
    merged = charsets.union(spans)
    assert members(merged) == {cp for low, high in spans for cp in range(low, high + 1)}
    assert all(a[1] + 1 < b[0] for a, b in itertools.pairwise(merged))


@given(SPANS, st.integers(0, 400))
def test_contains_agrees_with_the_members(spans: list[tuple[int, int]], code_point: int) -> None:
    """`contains` finds a code point exactly when one of the ranges holds it."""
    ranges = charsets.union(spans)
    assert charsets.contains(ranges, code_point) is (code_point in members(ranges))


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


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def test_category_ranges_agree_with_unicodedata_where_it_knows_the_code_point() -> None:
    """The generated table gives every code point `unicodedata` has assigned its category.

    Either may be of the newer Unicode version: what the older calls Cn, the newer may have
    assigned (Python 3.11's `unicodedata` is 14.0, 3.13's 15.1, the table 15.0).
    """
    category = {
        cp: name
        for name in CATEGORIES
        for low, high in charsets.property_ranges(name)
        for cp in range(low, high + 1)
    }
    assert len(category) == charsets.MAX_CODE_POINT + 1
    newer = _version(unicodedata.unidata_version) > _version(category_table.UNICODE_VERSION)
    wrong = [
        f"U+{cp:04X}"
        for cp in range(charsets.MAX_CODE_POINT + 1)
        if (known := unicodedata.category(chr(cp))) != "Cn"
        and category[cp] != known
        and not (newer and category[cp] == "Cn")
    ]
    assert not wrong, wrong[:20]


@pytest.mark.parametrize(
    ("expression", "matches"),
    [("L", True), ("Lo", True), ("Cn", False), ("Assigned", True), ("So", False)],
)
def test_properties_follow_the_generated_tables_not_the_interpreter(
    expression: str, matches: bool
) -> None:
    """KAWI LETTER A (U+11F04, Unicode 15.0) is a letter on every Python, even one whose
    `unicodedata` (Python 3.11: Unicode 14.0) has it unassigned."""
    kawi = 0x11F04
    assert any(low <= kawi <= high for low, high in charsets.property_ranges(expression)) is matches


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        ("Alphabetic", True),
        ("Script=Greek", True),
        ("sc=Grek", True),
        ("scx=Qaai", True),
        ("Script_Extensions=Katakana_Or_Hiragana", True),
        ("Script=greek", False),
        ("Script=Lu", False),
        ("gc=Greek", False),
        ("Greek", False),
        ("gc=Nope", False),
        ("Nope", False),
    ],
)
def test_unenforceable_property_says_whether_ecma_knows_it(name: str, valid: bool) -> None:
    """A property without data is `valid` if ECMA-262 defines it, so only the format accepts it."""
    with pytest.raises(charsets.UnknownProperty) as caught:
        charsets.property_ranges(name)
    assert caught.value.valid is valid
