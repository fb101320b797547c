"""Differential test: a large `enum` looked up by `unique_key` decides as member-by-member did.

Past `_SCAN_AT_MOST` values that are not strings (none holding a float) an `enum` is one set
lookup of the instance's `unique_key`. Three references judge the same generated enums and
instances: the per-member tests it replaced (the lookup switched off), JSON equality as the
spec defines it computed here on exact values, and python-jsonschema for values whose floats
are exactly their shortest repr. Instances include numbers read by toolguard's own parser.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

# NOTE: python-jsonschema ships no type information and types-jsonschema is not a dependency.
import jsonschema  # type: ignore[import-untyped]
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.schema.code_names import code_names
from toolguard.number import ExactFloat
from toolguard.parse import parse
from toolguard.schema import assertions, compile_schema

# Integers where floats, the integer budget and 64 bits end, and one past each.
_EDGES = [
    sign * (base + delta)
    for base in (2**53, 2**63, 2**64, 10**20)
    for delta in (-1, 0, 1)
    for sign in (1, -1)
]
_INTEGERS = st.one_of(st.integers(-3, 3), st.sampled_from(_EDGES))
_SCALARS = st.one_of(st.none(), st.booleans(), _INTEGERS)
_KEYS = st.sampled_from("ab")
_MEMBERS = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=2),
    max_leaves=4,
)
_STRINGS = st.sampled_from(["", "a", "1", "true", "null"])
# Floats meeting the integers above: 1.0 and 1, -0.0 and 0, 2**53 + 1 read as 2**53, 1e16.
_FLOATS = st.sampled_from([1.0, -0.0, 0.0, 0.5, 1e16, float(2**53 + 1), 2.0**63, -1.0, 1e20])
# Texts toolguard's parser reads as a float, an `ExactFloat` or an integer (within the
# integer budget: 2**63 is refused before any schema sees it).
_TEXTS = st.sampled_from(
    [
        "1.0",
        "1e0",
        "1E+2",
        "-0",
        "-0.0",
        "10000000000000001",
        "9007199254740993",
        "9007199254740993.0",
        "9007199254740992.9",
        "1e16",
        "1.0e19",
        "1e300",
        "2e0",
        "9223372036854775807",
        "-9223372036854775807",
        "1e20",
        "100000000000000000000.0",
        "[1.0, -0]",
        '{"a": 1E+0, "b": [2e0]}',
        '{"b": [], "a": 0.0}',
    ]
)
_PARSED = _TEXTS.map(lambda text: parse(text.encode()))


def _exact(number: int | float) -> Fraction:
    """The number a JSON text wrote: an `ExactFloat`'s decimal, a float's shortest repr."""
    if type(number) is ExactFloat:
        return Fraction(Decimal(str(number.exact)))
    return Fraction(repr(number)) if isinstance(number, float) else Fraction(number)


def _json_equal(left: Any, right: Any) -> bool:
    """JSON Schema's equality (Core 2020-12 section 4.2.2): by kind, numbers by value."""
    if left is None or right is None or isinstance(left, bool) or isinstance(right, bool):
        return left is right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return _exact(left) == _exact(right)
    if isinstance(left, str) and isinstance(right, str):
        return left == right
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_json_equal, left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_json_equal(left[k], right[k]) for k in left)
    return False


def _as_floats(value: Any) -> Any:
    """`value` with each integer a float wherever that float is the same number."""
    if isinstance(value, list):
        return [_as_floats(item) for item in value]
    if isinstance(value, dict):
        return {key: _as_floats(value[key]) for key in reversed(value)}  # and keys reordered
    if type(value) is int and float(value) == value and _exact(float(value)) == value:
        return float(value)
    return value


def _plain(value: Any) -> bool:
    """Whether every float in `value` is exactly its shortest repr (python-jsonschema's view)."""
    if isinstance(value, list):
        return all(map(_plain, value))
    if isinstance(value, dict):
        return all(map(_plain, value.values()))
    return not isinstance(value, float) or (
        type(value) is float and Fraction(value) == _exact(value)
    )


_ENUMS = st.tuples(
    st.lists(_MEMBERS, min_size=17, max_size=40), st.lists(_STRINGS, max_size=4)
).flatmap(lambda parts: st.permutations(parts[0] + parts[1]))


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(enum=_ENUMS, data=st.data())
def test_a_large_enum_decides_as_each_member_did(
    monkeypatch: pytest.MonkeyPatch, enum: list[Any], data: st.DataObject
) -> None:
    """Members, members as floats with keys reordered, floats, parsed numbers, fresh values."""
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", "")  # both compiles must generate
    schema = {"enum": enum}
    looked_up = compile_schema(schema)
    with monkeypatch.context() as patch:
        patch.setattr(assertions, "_SCAN_AT_MOST", len(enum))
        scanned = compile_schema(schema)
    assert "unique_key" in code_names(looked_up.entry.code)
    assert "unique_key" not in code_names(scanned.entry.code)
    instances = data.draw(
        st.lists(
            st.one_of(
                st.sampled_from(enum),
                st.sampled_from(enum).map(_as_floats),
                _MEMBERS,
                _FLOATS,
                _PARSED,
                st.lists(st.one_of(_SCALARS, _FLOATS, _PARSED), max_size=2),
            ),
            min_size=4,
            max_size=8,
        )
    )
    reference = jsonschema.Draft202012Validator(schema)
    for instance in instances:
        expected = any(_json_equal(instance, member) for member in enum)
        assert looked_up.is_valid(instance) is expected, instance
        assert scanned.is_valid(instance) is expected, instance
        if _plain(instance):
            assert reference.is_valid(instance) is expected, instance


def test_a_value_deeper_than_the_stack_fails_a_large_enum_as_one_member_test_did() -> None:
    """It is in no enum (`enum`), as before the lookup; its key once raised (`recursion`)."""
    deep: list[Any] = []
    for _ in range(5000):
        deep = [deep]
    validator = compile_schema({"enum": [*range(17), [[1]]]})
    assert [error.reason for error in validator.errors(deep)] == ["enum"]
    assert validator.errors([[1]]) == []


@pytest.mark.parametrize(
    ("text", "other"), [("0.10000000000000001", 0.1), ("1e300", 1e299), ("0.5", 0.25)]
)
def test_a_large_enum_holding_a_float_tests_each_member(
    monkeypatch: pytest.MonkeyPatch, text: str, other: float
) -> None:
    """A float member keeps its own test: an `ExactFloat`'s repr is not the number written."""
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", "")
    validator = compile_schema({"enum": [*range(17), parse(text.encode())]})
    assert "unique_key" not in code_names(validator.entry.code)
    assert validator.is_valid(parse(text.encode()))
    assert not validator.is_valid(other)  # 0.1 is not 0.10000000000000001
