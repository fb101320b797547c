"""Float tokens as written: what `float_reader` delivers or refuses, against `decimal` itself."""

from __future__ import annotations

import copy
import json
import marshal
import math
import pickle
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from strategies import number_texts

from toolguard.errors import ParseError
from toolguard.number import (
    MAX_SIGNIFICANT_DIGITS,
    ExactFloat,
    delivered_as_written,
    exact_number,
    float_reader,
    from_plain_data,
    integer_bound,
    significant_digits,
    to_plain_data,
)

PROPERTY = settings(max_examples=500, deadline=None)


@pytest.mark.parametrize(
    ("text", "digits"),
    [
        ("0.0", 0),
        ("-0.000e5", 0),
        ("1.50", 2),
        ("0.000123", 3),
        ("100", 1),
        ("1E+2", 1),
        ("-12.34e-5", 4),
        ("9007199254740992.9", 17),
        ("0.123456789012345678", 18),
    ],
)
def test_significant_digits_ignore_sign_point_exponent_and_outer_zeros(
    text: str, digits: int
) -> None:
    """Significant digits are the mantissa's, leading and trailing zeros not counted."""
    assert significant_digits(text) == digits


def expected_reading(text: str, max_integer_digits: int) -> tuple[str, Decimal | None, bool]:
    """What a float token must become, decided with `decimal` alone: the reference.

    ("rejected", None, False), or ("float" | "exact", the decimal for "exact", its verdict).
    """
    written = Decimal(text)
    nearest = float(text)
    digits = len("".join(map(str, written.as_tuple().digits)).strip("0"))
    if math.isinf(nearest):
        return ("rejected", None, False)
    if digits > MAX_SIGNIFICANT_DIGITS:
        return ("rejected", None, False)
    if written and nearest == 0.0:
        return ("rejected", None, False)
    integral = written == written.to_integral_value()
    within = abs(written) <= integer_bound(max_integer_digits)
    if Decimal(repr(nearest)) == written and (within or not integral):
        return ("float", None, False)
    return ("exact", written, integral and within)


@PROPERTY
@given(text=number_texts(floats_only=True), digits=st.sampled_from([1, 3, 15, 18, 19]))
@example(text="9007199254740992.9", digits=19)
@example(text="1e300", digits=19)
@example(text="1.0e19", digits=19)
@example(text="-1e-400", digits=19)
@example(text="0.10000000000000001", digits=19)
@example(text="4.9e-324", digits=19)
@example(text="9223372036854775807.0", digits=19)
@example(text="9.223372036854775e18", digits=19)
@example(text="9.223372036854776e18", digits=19)
def test_reader_agrees_with_decimal_on_every_float_token(text: str, digits: int) -> None:
    """Rejected, a plain float, or an ExactFloat carrying the decimal written, as decimal says;
    the value delivered is always the nearest float, sign included."""
    kind, exact, integer = expected_reading(text, digits)
    read = float_reader(digits)
    if kind == "rejected":
        with pytest.raises(ParseError) as caught:
            read(text)
        assert caught.value.reason in (
            "number_too_precise",
            "number_underflow",
            "non_finite_number",
        )
        return
    value = read(text)
    assert value == float(text)
    assert math.copysign(1.0, value) == math.copysign(1.0, float(text))
    assert exact_number(value) == Fraction(Decimal(text))
    if kind == "float":
        assert type(value) is float
    else:
        assert type(value) is ExactFloat
        assert (value.exact, value.integer) == (exact, integer)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("0.123456789012345678", "number_too_precise"),
        ("1e-400", "number_underflow"),
        ("1e400", "non_finite_number"),
    ],
)
def test_reader_names_the_reason_it_refuses(text: str, reason: str) -> None:
    """Each refusal has its own reason: too precise, underflow, overflow."""
    with pytest.raises(ParseError) as caught:
        float_reader(19)(text)
    assert caught.value.reason == reason


def test_0_1_and_6_02e23_stay_valid_numbers() -> None:
    """The usual inexact decimals are numbers: 0.1 a plain float, 6.02e23 an integer over budget."""
    read = float_reader(19)
    assert type(read("0.1")) is float
    avogadro = read("6.02e23")
    assert avogadro == 6.02e23
    assert (avogadro.exact, avogadro.integer) == (Decimal("6.02e23"), False)  # type: ignore[attr-defined]


def test_an_exact_float_behaves_as_its_float_everywhere_but_the_schema() -> None:
    """Delivered, copied, pickled or printed, an ExactFloat is its float; `exact` stays."""
    value = float_reader(19)("9007199254740992.9")
    assert isinstance(value, ExactFloat)
    assert json.dumps([value]) == "[9007199254740992.0]"
    assert repr(value) == "9007199254740992.0"
    assert value == 9007199254740992.0
    assert hash(value) == hash(9007199254740992.0)
    assert copy.deepcopy(value) is value
    restored = pickle.loads(pickle.dumps(value))
    assert (type(restored), restored.exact) == (ExactFloat, value.exact)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (3, Fraction(3)),
        (0.1, Fraction(1, 10)),
        (1e300, Fraction(10**300)),
        (
            ExactFloat(0.1, Decimal("0.10000000000000001"), False),
            Fraction(10000000000000001, 10**17),
        ),
    ],
)
def test_exact_number_is_the_number_written(value: float, expected: Fraction) -> None:
    """An int is itself, a float its shortest repr, an ExactFloat its decimal."""
    assert exact_number(value) == expected


def test_exact_number_leaves_non_finite_floats_alone() -> None:
    """NaN and infinity (never parsed, but a library caller may pass them) are themselves."""
    assert exact_number(math.inf) == math.inf
    assert math.isnan(exact_number(math.nan))


def test_plain_data_round_trips_exact_floats_and_leaves_the_rest_alone() -> None:
    """What the compile cache stores: ExactFloats as tuples and back; other data untouched."""
    exact = float_reader(19)("0.10000000000000001")
    document = {"a": [1, 0.5, exact, {"b": float_reader(19)("1e300")}], "c": "x"}
    plain = to_plain_data(document)
    assert marshal.loads(marshal.dumps(plain)) == plain
    restored = from_plain_data(marshal.loads(marshal.dumps(plain)))
    assert restored == document
    assert (type(restored["a"][2]), restored["a"][2].exact) == (ExactFloat, exact.exact)  # type: ignore[attr-defined]
    assert restored["a"][3]["b"].integer is False
    untouched = {"a": [1, 0.5, {"b": None}]}
    assert to_plain_data(untouched) is untouched


@PROPERTY
@given(text=number_texts(floats_only=True), digits=st.integers(min_value=1, max_value=19))
def test_delivered_as_written_compares_the_delivered_float_with_the_number_written(
    text: str, digits: int
) -> None:
    """A number is delivered as written exactly when its float's repr is the number written."""
    try:
        value = float_reader(digits)(text)
    except ParseError:
        return
    assert delivered_as_written(value) == (exact_number(float(value)) == exact_number(value))
