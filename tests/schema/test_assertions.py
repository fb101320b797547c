"""Numeric keywords decided on the number the JSON text wrote, never on a binary float.

Instances are read by toolguard's parser, as in a check; the reference is Python's `decimal`
and `fractions` on the same texts.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from strategies import number_texts

from toolguard.errors import Rejection
from toolguard.limits import Limits
from toolguard.number import integer_bound
from toolguard.parse import parse
from toolguard.schema import compile_schema
from toolguard.schema.refs import read_schema

PROPERTY = settings(max_examples=150, deadline=None)
DEFAULTS = Limits()


def verdicts(schema: Any, texts: list[str], limits: Limits = DEFAULTS) -> list[bool]:
    """Whether each JSON text, parsed within `limits`, is valid against `schema`."""
    validator = compile_schema(schema)
    return [validator.is_valid(parse(text.encode(), limits)) for text in texts]


@pytest.mark.parametrize(
    ("schema", "valid", "invalid"),
    [
        pytest.param(
            {"type": "integer"},
            ["5", "5.0", "-0.0", "1e18", "9007199254740993.0", "-9.223372036854775e18"],
            ["1e300", "1.0e19", "6.02e23", "1.0000000000000001", "5.5", "9.223372036854776e18"],
            id="integer-and-its-budget",
        ),
        pytest.param(
            {"maximum": 9007199254740992},
            ["9007199254740992", "9007199254740992.0", "9007199254740991.9"],
            ["9007199254740992.9", "9007199254740993", "9007199254740993.0"],
            id="maximum-2**53",
        ),
        pytest.param(
            {"minimum": 0.1},
            ["0.1", "0.10000000000000001", "1e300"],
            ["0.099999999999999999", "0.09999999999999999", "-0.0"],
            id="minimum-0.1",
        ),
        pytest.param(
            {"exclusiveMaximum": 0.1},
            ["0.099999999999999999", "-1e300"],
            ["0.1", "0.10000000000000001", "1e-1"],
            id="exclusive-maximum-0.1",
        ),
        pytest.param(
            {"exclusiveMinimum": 0},
            ["5e-324", "4.9e-324", "0.1"],
            ["0", "-0.0", "0e5", "-4.9e-324"],
            id="exclusive-minimum-0",
        ),
        pytest.param(
            {"multipleOf": 1},
            ["9007199254740992", "9007199254740993.0", "1e300"],
            ["9007199254740992.9", "1.0000000000000001", "0.5"],
            id="multiple-of-1",
        ),
        pytest.param(
            {"const": 1},
            ["1", "1.0", "1e0", "10e-1"],
            ["1.0000000000000001", "0.99999999999999999", "true"],
            id="const-1",
        ),
        pytest.param(
            {"enum": [0.1, {"a": [2]}, 1e300]},
            ["0.1", '{"a":[2.0]}', "1e300", "1.0e300"],
            ["0.10000000000000001", '{"a":[2.0000000000000001]}', "1.0000000000000001e300"],
            id="enum-numbers-nested",
        ),
        pytest.param(
            {"uniqueItems": True},
            [
                "[1.0, 1.0000000000000001]",
                "[0.1, 0.10000000000000001]",
                "[true, 1]",
                "[[0], [false]]",
            ],
            ["[1, 1.0]", "[[1], [1e0]]", '[{"a": 0.5}, {"a": 5e-1}]', "[1e300, 1.0e300]"],
            id="unique-items",
        ),
    ],
)
def test_numeric_keyword_decides_on_the_number_written(
    schema: Any, valid: list[str], invalid: list[str]
) -> None:
    """Each keyword accepts and rejects what the decimal text says, not what its float says."""
    assert verdicts(schema, valid) == [True] * len(valid)
    assert verdicts(schema, invalid) == [False] * len(invalid)


def test_integer_budget_is_the_parsers_however_the_integer_is_spelled() -> None:
    """At max_integer_digits=3, `type: integer` refuses 1e3 and 1000.0 as it refuses 1000."""
    limits = Limits(max_integer_digits=3)
    assert verdicts({"type": "integer"}, ["999", "999.0", "9.99e2"], limits) == [True] * 3
    assert verdicts({"type": "integer"}, ["1e3", "1000.0", "-1.0e3"], limits) == [False] * 3
    assert verdicts({"type": "number"}, ["1e3", "1000.0"], limits) == [True] * 2


def test_values_from_elsewhere_stand_for_their_shortest_repr() -> None:
    """Library callers' plain floats and ints keep their meaning: 1e308 is an integer, a bignum
    is compared exactly (the JSON-Schema-Test-Suite's optional bignum and overflow cases)."""
    assert compile_schema({"type": "integer", "multipleOf": 0.5}).is_valid(1e308)
    assert compile_schema({"type": "integer"}).is_valid(10**40)
    assert compile_schema({"maximum": 18446744073709551615}).is_valid(18446744073709551600)
    assert not compile_schema({"maximum": 2**60}).is_valid(1152921504606846977)
    # 2**60 as a float is 1.152921504606847e18, which is 1152921504606847000 as written.
    assert compile_schema({"maximum": 1152921504606847000}).is_valid(float(2**60))
    assert not compile_schema({"maximum": 1152921504606846999}).is_valid(float(2**60))


def test_a_schema_file_number_is_also_taken_as_written(tmp_path: Path) -> None:
    """A bound a schema file writes with 17 digits is compared as written, not as its float."""
    path = tmp_path / "bound.schema.json"
    path.write_text('{"maximum": 9007199254740992.9}')
    validator = compile_schema(read_schema(path))
    assert validator.is_valid(parse(b"9007199254740992.9"))
    assert validator.is_valid(9007199254740992)
    assert not validator.is_valid(9007199254740993)
    assert not validator.is_valid(parse(b"9007199254740993.0"))


def test_a_message_quotes_the_bound_as_written(tmp_path: Path) -> None:
    """The diagnostic names the schema's bound as its file wrote it, not as a float."""
    path = tmp_path / "bound.schema.json"
    path.write_text('{"maximum": 9007199254740992.9}')
    with pytest.raises(Rejection) as caught:
        compile_schema(read_schema(path)).validate(9007199254740993)
    assert "9007199254740992.9" in caught.value.message


def test_a_count_keyword_must_be_an_integer_as_written(tmp_path: Path) -> None:
    """`maxItems: 2.0000000000000001` is a float 2.0 but not an integer: the metaschema, whose
    `nonNegativeInteger` is `type: integer`, refuses the schema."""
    path = tmp_path / "count.schema.json"
    path.write_text('{"maxItems": 2.0000000000000001}')
    with pytest.raises(Exception, match="maxItems"):
        compile_schema(read_schema(path))
    assert compile_schema({"maxItems": 2.0}).is_valid([1, 2])


# --- properties: the exact decision agrees with `fractions` ------------------------------------

COMPARISONS: dict[str, Callable[[Fraction, Fraction], bool]] = {
    "minimum": operator.ge,
    "maximum": operator.le,
    "exclusiveMinimum": operator.gt,
    "exclusiveMaximum": operator.lt,
}


def parsed(text: str) -> Any:
    """The value toolguard's parser gives `text`; the example is skipped if it is refused."""
    try:
        return parse(text.encode())
    except Rejection:
        assume(False)


def written(text: str) -> Fraction:
    return Fraction(Decimal(text))


@PROPERTY
@given(
    keyword=st.sampled_from(sorted(COMPARISONS)),
    instance=number_texts(),
    bound=number_texts(),
    last_digit=st.none() | st.sampled_from("0123456789"),
)
@example(
    keyword="maximum", instance="9007199254740992.9", bound="9007199254740992", last_digit=None
)
@example(keyword="minimum", instance="0.09999999999999999", bound="0.1", last_digit=None)
@example(keyword="exclusiveMaximum", instance="1e300", bound="1.0e300", last_digit=None)
def test_bounds_agree_with_fractions(
    keyword: str, instance: str, bound: str, last_digit: str | None
) -> None:
    """Any parsed number against any parsed bound: valid exactly when the fractions say so.

    With `last_digit`, the instance is the bound with its last digit replaced: the cases where
    a float comparison goes wrong are the ones near the bound.
    """
    if last_digit is not None and bound[-1].isdigit():
        instance = bound[:-1] + last_digit
    value, limit = parsed(instance), parsed(bound)
    validator = compile_schema({keyword: limit})
    assert validator.is_valid(value) is COMPARISONS[keyword](written(instance), written(bound))


@PROPERTY
@given(
    keyword=st.sampled_from(sorted(COMPARISONS)),
    instance=number_texts(),
    bound=st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False),
)
@example(keyword="maximum", instance="9007199254740992.9", bound=9007199254740992)
@example(keyword="minimum", instance="1152921504606846990", bound=float(2**60))
def test_bounds_given_as_python_numbers_agree_with_fractions(
    keyword: str, instance: str, bound: float
) -> None:
    """A schema built in Python: an int bound is itself, a float bound its shortest repr."""
    value = parsed(instance)
    limit = Fraction(Decimal(repr(bound))) if isinstance(bound, float) else Fraction(bound)
    validator = compile_schema({keyword: bound})
    assert validator.is_valid(value) is COMPARISONS[keyword](written(instance), limit)


@PROPERTY
@given(instance=number_texts(), other=number_texts())
@example(instance="1.0000000000000001", other="1")
@example(instance="0.10000000000000001", other="0.1")
@example(instance="1e300", other="1.0e300")
def test_const_and_unique_items_agree_with_fractions(instance: str, other: str) -> None:
    """Two parsed numbers are equal (const, enum, uniqueItems) exactly when equal as written."""
    value, constant = parsed(instance), parsed(other)
    equal = written(instance) == written(other)
    assert compile_schema({"const": constant}).is_valid(value) is equal
    assert compile_schema({"enum": ["x", constant]}).is_valid(value) is equal
    assert compile_schema({"uniqueItems": True}).is_valid([value, constant]) is not equal


@PROPERTY
@given(instance=number_texts(), divisor=number_texts())
@example(instance="9007199254740992.9", divisor="1")
@example(instance="0.30000000000000001", divisor="0.1")
def test_multiple_of_agrees_with_fractions(instance: str, divisor: str) -> None:
    """Any parsed number and positive divisor: a multiple exactly when the quotient is whole."""
    value, step = parsed(instance), parsed(divisor)
    assume(written(divisor) > 0)
    validator = compile_schema({"multipleOf": step})
    assert validator.is_valid(value) is ((written(instance) / written(divisor)).denominator == 1)


@PROPERTY
@given(instance=number_texts(), digits=st.sampled_from([3, 12, 19]))
def test_type_integer_agrees_with_fractions_and_the_budget(instance: str, digits: int) -> None:
    """An integer exactly when the number written is whole and within the integer budget."""
    limits = Limits(max_integer_digits=digits)
    try:
        value = parse(instance.encode(), limits)
    except Rejection:
        assume(False)
    exact = written(instance)
    whole = exact.denominator == 1 and abs(exact) <= integer_bound(digits)
    assert compile_schema({"type": "integer"}).is_valid(value) is whole


class _Text(str):
    """A `str` subclass, as a library caller may pass: not the exact type the fast path takes."""

    __slots__ = ()


def test_an_enum_of_strings_accepts_a_str_subclass_by_its_value() -> None:
    """The `enum` lookup for exact strings leaves a subclass to the full comparison."""
    validator = compile_schema({"enum": ["a", 1, None]}, formats=False)
    assert validator.is_valid(_Text("a"))
    assert not validator.is_valid(_Text("b"))
    assert validator.is_valid(1.0)
    assert not validator.is_valid(True)


@pytest.mark.parametrize(
    ("schema", "instance", "valid"),
    [
        ({"type": "integer"}, True, False),
        ({"type": "number"}, False, False),
        ({"type": ["integer", "boolean"]}, True, True),
        ({"minimum": 5}, True, True),  # a boolean is no number: bounds do not apply
        ({"maximum": 0}, True, True),
        ({"type": "integer", "maximum": 0}, 1, False),
        ({"type": "number", "minimum": 1}, 0.5, False),
    ],
)
def test_exact_types_take_the_short_test_and_booleans_the_full_one(
    schema: Any, instance: Any, valid: bool
) -> None:
    """`type(x) is int` or `float` passes at once; a boolean is still told apart from 1 and 0."""
    assert compile_schema(schema, formats=False).is_valid(instance) is valid


class _CountedObject(dict[str, Any]):
    """A parsed object that counts how often a validator looks at it."""

    looks = 0

    def __len__(self) -> int:
        _CountedObject.looks += 1
        return super().__len__()

    def __contains__(self, key: object) -> bool:
        _CountedObject.looks += 1
        return super().__contains__(key)

    def items(self) -> Any:
        _CountedObject.looks += 1
        return super().items()


_BIG_ENUM = [{"a": [index]} for index in range(1000)] + [1, True, None, "s", [2]]


def test_a_value_is_looked_up_in_a_large_enum_not_compared_with_each_member() -> None:
    """1,000 object members once cost 1,000 tests per value (10,000 items: 2.5 s); now one."""
    validator = compile_schema({"enum": _BIG_ENUM})
    _CountedObject.looks = 0
    assert not validator.is_valid(_CountedObject(a=[1000]))
    assert _CountedObject.looks < 10


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ({"a": [999]}, True),
        ({"a": [999.0]}, True),
        ({"a": [1000]}, False),
        ({"a": [999], "b": 1}, False),
        (1, True),
        (1.0, True),
        (True, True),
        (False, False),
        (0, False),
        (None, True),
        ("s", True),
        ("t", False),
        ([2], True),
        ([True], False),
    ],
)
def test_a_large_enum_keeps_json_equality(value: Any, valid: bool) -> None:
    """The set lookup agrees with the tests: 1 is 1.0, never `true`; objects compare whole."""
    validator = compile_schema({"enum": _BIG_ENUM})
    assert validator.is_valid(value) is valid
    assert validator.is_valid(parse(json.dumps(value).encode(), Limits())) is valid
