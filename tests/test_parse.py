"""Strict parse: hostile bytes in, one JSON value or a `ParseError` / `LimitExceeded` out."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import (
    json_values,
    mutated_json_texts,
    nested_text,
    nesting_kinds,
    objects_with_duplicate_member,
    same_json,
)

from toolguard.errors import BrokenInstall, LimitExceeded, ParseError, Rejection
from toolguard.limits import Limits
from toolguard.number import ExactFloat
from toolguard.parse import _strict_parse, parse

DEFAULTS = Limits()
PROPERTY = settings(max_examples=100, deadline=None)


def rejected(raw: bytes, limits: Limits = DEFAULTS) -> Rejection:
    """Parse `raw`, expecting a rejection, and return it."""
    with pytest.raises(Rejection) as caught:
        parse(raw, limits)
    return caught.value


def assert_parse_error(raw: bytes, reason: str, limits: Limits = DEFAULTS) -> None:
    error = rejected(raw, limits)
    assert isinstance(error, ParseError), error
    assert (error.layer, error.reason) == ("parse", reason), error.message


def assert_limit_exceeded(raw: bytes, reason: str, limits: Limits = DEFAULTS) -> None:
    error = rejected(raw, limits)
    assert isinstance(error, LimitExceeded), error
    assert (error.layer, error.reason) == ("limits", reason), error.message


# --- plain documents ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(b"null", None, id="null"),
        pytest.param(b"true", True, id="true"),
        pytest.param(b"false", False, id="false"),
        pytest.param(b"0", 0, id="zero"),
        pytest.param(b'"text"', "text", id="string"),
        pytest.param(b"[]", [], id="empty-array"),
        pytest.param(b"{}", {}, id="empty-object"),
        pytest.param(b' { "a" : [ 1 ,\t2 ] ,\r\n"b":{}}\n', {"a": [1, 2], "b": {}}, id="spaced"),
        pytest.param(b'"\\"\\\\\\/\\b\\f\\n\\r\\t"', '"\\/\b\f\n\r\t', id="short-escapes"),
        pytest.param(b'"\x7f"', "\x7f", id="raw-DEL-is-not-a-control-character"),
    ],
)
def test_valid_document_parses_to_its_python_value(raw: bytes, expected: Any) -> None:
    """A valid document parses to the same Python value, type included."""
    assert same_json(parse(raw), expected)


# --- depth -------------------------------------------------------------------------------------

DEPTH_SHAPES = [
    pytest.param([True] * 5, id="arrays"),
    pytest.param([False] * 5, id="objects"),
    pytest.param([True, False, True, False, True], id="mixed"),
]


@pytest.mark.parametrize("kinds", DEPTH_SHAPES)
def test_nesting_exactly_at_max_depth_is_accepted(kinds: list[bool]) -> None:
    """N nested containers are accepted at max_depth N (the scalar inside does not count)."""
    parse(nested_text(kinds), Limits(max_depth=len(kinds)))


@pytest.mark.parametrize("kinds", DEPTH_SHAPES)
def test_nesting_one_over_max_depth_is_rejected_as_too_deep(kinds: list[bool]) -> None:
    """N + 1 nested containers are rejected at max_depth N, as a depth limit."""
    assert_limit_exceeded(nested_text(kinds), "too_deep", Limits(max_depth=len(kinds) - 1))


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"[" * 1_000_000, id="million-open-arrays"),
        pytest.param(b'{"a":' * 200_000, id="200k-open-objects"),
        pytest.param(b"[" * 1_000_000 + b"]" * 1_000_000, id="million-balanced-arrays"),
    ],
)
def test_absurdly_deep_input_is_rejected_as_too_deep(raw: bytes) -> None:
    """A document hundreds of thousands of levels deep is a too_deep rejection, not a crash."""
    assert_limit_exceeded(raw, "too_deep", Limits(max_bytes=len(raw)))


@pytest.mark.parametrize("over", [0, 1])
def test_nesting_that_starts_after_the_first_chunk_is_measured_by_the_strict_builder(
    over: int,
) -> None:
    """Past the first chunk no shortcut sees the brackets: the builder itself allows N levels at
    max_depth N and rejects N + 1 as too_deep."""
    limits = Limits(max_depth=4)
    deep = nested_text([True] * (limits.max_depth - 1 + over))
    raw = b"[" + b"0," * 600 + deep + b"]"
    if over:
        assert_limit_exceeded(raw, "too_deep", limits)
    else:
        assert parse(raw, limits)[-1] == json.loads(deep)


def test_input_over_max_bytes_is_rejected_before_parsing() -> None:
    """parse() enforces the byte budget too, so in-memory callers get the same limits."""
    assert_limit_exceeded(b"[" * 1_000 + b"]" * 1_000, "too_large", Limits(max_bytes=1_999))


# --- duplicate member names --------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b'{"a":1,"a":2}', id="plain"),
        pytest.param(b'{"a":1,"a":1}', id="same-value"),
        pytest.param(b'{"a":1,"b":2,"a":3}', id="not-adjacent"),
        pytest.param(b'{"d\\u0065cision":1,"decision":2}', id="escaped-letter"),
        pytest.param(b'{"decision":1,"\\u0064\\u0065cision":2}', id="escaped-second"),
        pytest.param(b'{"a/b":1,"a\\/b":2}', id="escaped-solidus"),
        pytest.param('{"\\u00e9":1,"é":2}'.encode(), id="escape-vs-raw-utf8"),
        pytest.param('{"\\ud83d\\ude00":1,"😀":2}'.encode(), id="surrogate-pair-vs-raw-astral"),
        pytest.param(b'{"":1,"":2}', id="empty-name"),
        pytest.param(b'{"x":{"a":1,"a":2}}', id="nested-object"),
        pytest.param(b'[0,[{"k":{"a":1,"a":2}}]]', id="deeply-nested-object"),
        pytest.param(b'{"a":{"b":1},"a":{"b":1}}', id="container-values"),
    ],
)
def test_duplicate_member_name_is_rejected(raw: bytes) -> None:
    """An object naming the same member twice, after unescaping, is rejected."""
    assert_parse_error(raw, "duplicate_member")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(b'[{"a":1},{"a":2}]', [{"a": 1}, {"a": 2}], id="sibling-objects"),
        pytest.param(b'{"a":{"a":1}}', {"a": {"a": 1}}, id="parent-and-child"),
        pytest.param(b'{"a":{"b":1},"b":2}', {"a": {"b": 1}, "b": 2}, id="child-then-parent"),
        pytest.param(b'{"a":1,"A":2}', {"a": 1, "A": 2}, id="case-differs"),
        pytest.param(
            '{"é":1,"e\u0301":2}'.encode(), {"é": 1, "e\u0301": 2}, id="nfc-vs-nfd-differ"
        ),
        pytest.param(b'{"a":"a","b":"a"}', {"a": "a", "b": "a"}, id="same-values"),
    ],
)
def test_same_name_in_distinct_objects_or_distinct_names_is_accepted(
    raw: bytes, expected: Any
) -> None:
    """Names only clash inside one object, and only when their code points are equal."""
    assert parse(raw) == expected


# --- numbers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"NaN", id="NaN"),
        pytest.param(b"Infinity", id="Infinity"),
        pytest.param(b"-Infinity", id="-Infinity"),
        pytest.param(b"1e999", id="1e999"),
        pytest.param(b"-1e999", id="-1e999"),
        pytest.param(b"1.8e308", id="just-over-double-max"),
        pytest.param(b"[1,NaN]", id="NaN-in-array"),
        pytest.param(b'{"a":Infinity}', id="Infinity-as-member"),
        pytest.param(b"[-1E+999]", id="capital-exponent-overflow"),
    ],
)
def test_non_finite_number_is_rejected(raw: bytes) -> None:
    """NaN, the infinities and numbers that overflow a double are rejected."""
    assert_parse_error(raw, "non_finite_number")


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b" " * 1024 + b"NaN", id="after-1024-spaces"),
        pytest.param(b'["' + b"x" * 3000 + b'",NaN]', id="after-3000-char-string"),
        pytest.param(b" " * 3000 + b"[1,2,Infinity]", id="Infinity-after-3000-spaces"),
    ],
)
def test_non_finite_number_after_a_long_stretch_is_still_non_finite_number(raw: bytes) -> None:
    """NaN or Infinity is named as such wherever it stands, even past a long token or gap."""
    assert_parse_error(raw, "non_finite_number")


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"9223372036854775808", id="2**63"),
        pytest.param(b"-9223372036854775809", id="-(2**63)-1"),
        pytest.param(b"9999999999999999999", id="19-nines-beyond-64-bits"),
        pytest.param(b"10000000000000000000", id="20-digits"),
        pytest.param(b'{"n":[18446744073709551616]}', id="2**64-nested"),
        # yajl negates after parsing the magnitude, so the range is symmetric: +-(2**63 - 1).
        pytest.param(b"-9223372036854775808", id="int64-min"),
    ],
)
def test_integer_beyond_64_bits_is_rejected_as_integer_too_long(raw: bytes) -> None:
    """An integer outside +-(2**63 - 1) is an integer_too_long limit."""
    assert_limit_exceeded(raw, "integer_too_long")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(b"9223372036854775807", 2**63 - 1, id="int64-max"),
        pytest.param(b"-9223372036854775807", -(2**63) + 1, id="int64-min-plus-one"),
    ],
)
def test_integer_within_64_bits_is_accepted_exactly(raw: bytes, expected: int) -> None:
    """Every integer within +-(2**63 - 1), the extremes included, is accepted as that int."""
    assert same_json(parse(raw), expected)


@pytest.mark.parametrize("integer", [b"9223372036854775807", b"-9223372036854775807"])
def test_the_largest_64_bit_integers_are_no_rejection_of_what_follows(integer: bytes) -> None:
    """The shortcut that names an integer beyond 64 bits in the first chunk leaves +-(2**63 - 1)
    alone: the document is rejected for what follows it, where it is."""
    raw = b"[" + integer + b",NaN]"
    error = rejected(raw)
    assert (error.reason, error.offset) == ("non_finite_number", len(integer) + 2)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"1000", id="positive"),
        pytest.param(b"-1000", id="negative"),
        pytest.param(b'{"a":[12345]}', id="nested"),
    ],
)
def test_integer_longer_than_max_integer_digits_is_rejected(raw: bytes) -> None:
    """At max_integer_digits=3 a four-digit integer is an integer_too_long limit."""
    assert_limit_exceeded(raw, "integer_too_long", Limits(max_integer_digits=3))


@pytest.mark.parametrize("raw", [b"999", b"-999", b"1000.0", b"1e3"], ids=lambda raw: raw.decode())
def test_integer_within_max_integer_digits_or_float_is_accepted(raw: bytes) -> None:
    """At max_integer_digits=3, three-digit integers and floats of any size are accepted."""
    assert parse(raw, Limits(max_integer_digits=3)) == float(raw)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"7" * 5000, id="positive"),
        pytest.param(b"-" + b"7" * 5000, id="negative"),
        pytest.param(b"[" + b"7" * 5000 + b"]", id="in-array"),
    ],
)
def test_five_thousand_digit_integer_is_rejected_without_crashing(raw: bytes) -> None:
    """A 5000-digit integer is an integer_too_long limit, never a crash or a big int."""
    assert_limit_exceeded(raw, "integer_too_long")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(b"1.5", 1.5, id="fraction"),
        pytest.param(b"1e2", 100.0, id="exponent"),
        pytest.param(b"1E+2", 100.0, id="capital-signed-exponent"),
        pytest.param(b"0.1", 0.1, id="inexact-decimal"),
        pytest.param(b"-0.0", -0.0, id="negative-zero-float"),
        pytest.param(b"0e-999", 0.0, id="zero-with-a-huge-negative-exponent"),
        pytest.param(b"-0.000e5", -0.0, id="negative-zero-with-an-exponent"),
        pytest.param(b"1." + b"0" * 5000, 1.0, id="5000-zeros-after-the-point"),
        pytest.param(b"0.30000000000000004", 0.30000000000000004, id="17-digits-as-repr"),
        pytest.param(b"5e-324", 5e-324, id="smallest-subnormal"),
        pytest.param(b"2.2250738585072014e-308", 2.2250738585072014e-308, id="smallest-normal"),
    ],
)
def test_float_text_parses_to_a_python_float(raw: bytes, expected: float) -> None:
    """Numbers with a fraction or exponent come back as float (never Decimal), sign included."""
    value = parse(raw)
    assert type(value) is float
    assert same_json(value, expected)


def test_negative_zero_integer_is_accepted_as_int_zero() -> None:
    """`-0` is valid JSON and parses to the integer 0."""
    assert same_json(parse(b"-0"), 0)


# --- numbers as written ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        pytest.param(b"0.123456789012345678", "number_too_precise", id="18-significant-digits"),
        pytest.param(b"12345678901234567890123.5", "number_too_precise", id="long-mantissa"),
        pytest.param(b"0." + b"1" * 5000, "number_too_precise", id="5000-digit-fraction"),
        pytest.param(b"9223372036854775807.0", "number_too_precise", id="int64-max-with-point"),
        pytest.param(b"1.00000000000000000001e5", "number_too_precise", id="21-with-exponent"),
        pytest.param(b"[1,-100000000000000000.1]", "number_too_precise", id="18-in-an-array"),
        pytest.param(b"1e-400", "number_underflow", id="1e-400"),
        pytest.param(b"-1e-999", "number_underflow", id="negative-1e-999"),
        pytest.param(b"0." + b"0" * 400 + b"1", "number_underflow", id="400-zeros-then-1"),
        pytest.param(b'{"a":123.456e-789}', "number_underflow", id="jsontestsuite-i-case"),
        pytest.param(b"2e-324", "number_underflow", id="below-half-the-smallest-subnormal"),
    ],
)
def test_float_token_its_float_would_misrepresent_is_rejected(raw: bytes, reason: str) -> None:
    """Over 17 significant digits, or a non-zero value that underflows to zero, is refused."""
    assert_parse_error(raw, reason)


@pytest.mark.parametrize(
    ("raw", "reason", "offset"),
    [
        pytest.param(b"[1,1e-400]", "number_underflow", 9, id="underflow-in-an-array"),
        pytest.param(b'{"a": 0.123456789012345678 }', "number_too_precise", 26, id="too-precise"),
        pytest.param(b"1e-400", "number_underflow", 6, id="alone-ends-at-the-end"),
    ],
)
def test_refused_float_token_is_located_at_the_byte_that_ended_it(
    raw: bytes, reason: str, offset: int
) -> None:
    """As for any token, the offset is the byte at which the token was seen to end."""
    error = rejected(raw)
    assert (error.reason, error.offset) == (reason, offset)


@pytest.mark.parametrize(
    ("raw", "limits", "kinds"),
    [
        pytest.param(b"[1.5, 4.2e-05, -0.25]", DEFAULTS, [float] * 3, id="all-short"),
        pytest.param(b"[1.5, 0.10000000000000001]", DEFAULTS, [float, ExactFloat], id="a-long-one"),
        pytest.param(b"[1.5, 1e300]", DEFAULTS, [float, ExactFloat], id="a-positive-exponent"),
        pytest.param(b"[1.5, 4.9e-324]", DEFAULTS, [float, ExactFloat], id="a-long-exponent"),
        pytest.param(b'["1e300", 1000.0]', Limits(max_integer_digits=3), [str, ExactFloat], id="3"),
    ],
)
def test_strict_path_reads_every_float_token_that_needs_it(
    raw: bytes, limits: Limits, kinds: list[type]
) -> None:
    """The strict path reads float tokens' texts unless all are short decimals whose float is
    surely the number written; a single token that may need reading makes it read them all."""
    assert [type(item) for item in _strict_parse(raw, limits)] == kinds


def test_float_tokens_are_read_past_strings_integers_and_escapes() -> None:
    """Digits, signs and escaped quotes inside strings and member names are never taken for
    a float token: each float gets its own text."""
    raw = rb'["9.9e-999 \" 1.0\\", 7, -2, {"k-1.5": 0.10000000000000001}, 2.5e-1, 1E+300]'
    value = _strict_parse(raw)
    assert value[:3] == ['9.9e-999 " 1.0\\', 7, -2]
    member = value[3]["k-1.5"]
    assert (type(member), member.exact) == (ExactFloat, Decimal("0.10000000000000001"))
    assert same_json(value[4:], [0.25, 1e300])
    assert same_json(value, parse(raw))


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(b"1234567890123456789", 1234567890123456789, id="19-digits"),
        pytest.param(b"-9223372036854775807", -(2**63) + 1, id="int64-min-plus-one"),
        pytest.param(b"[12345678901234567]", [12345678901234567], id="17-digits-past-2**53"),
    ],
)
def test_plain_integer_literal_within_the_budget_may_have_any_precision(
    raw: bytes, expected: Any
) -> None:
    """The 17-digit rule is for float tokens: a plain integer within the budget is exact."""
    assert same_json(parse(raw), expected)


@pytest.mark.parametrize(
    ("raw", "written"),
    [
        pytest.param(b"9007199254740992.9", "9007199254740992.9", id="past-2**53"),
        pytest.param(b"0.10000000000000001", "0.10000000000000001", id="17-digit-printf"),
        pytest.param(b"4.9e-324", "4.9E-324", id="subnormal-not-its-repr"),
        pytest.param(b"1.0000000000000001", "1.0000000000000001", id="just-above-one"),
    ],
)
def test_float_not_its_shortest_repr_carries_the_number_written(raw: bytes, written: str) -> None:
    """The value is the nearest float; `exact` is the decimal the text wrote, for the schema."""
    value = parse(raw)
    assert type(value) is ExactFloat
    assert (float(value), value.exact) == (float(raw), Decimal(written))
    assert value.integer is False
    assert json.dumps(value) == repr(float(raw))  # delivered as the float


@pytest.mark.parametrize(
    ("raw", "limits", "integer"),
    [
        pytest.param(b"1e300", DEFAULTS, False, id="1e300"),
        pytest.param(b"1.0e19", DEFAULTS, False, id="1.0e19-over-64-bits"),
        pytest.param(b"6.02e23", DEFAULTS, False, id="avogadro"),
        pytest.param(b"-1.7976931348623157e308", DEFAULTS, False, id="minus-double-max"),
        pytest.param(b"9007199254740993.0", DEFAULTS, True, id="integer-not-a-double"),
        pytest.param(b"1e3", Limits(max_integer_digits=3), False, id="1e3-at-3-digits"),
        pytest.param(b"1000.0", Limits(max_integer_digits=3), False, id="1000.0-at-3-digits"),
    ],
)
def test_integral_float_token_says_whether_it_is_an_integer_within_budget(
    raw: bytes, limits: Limits, integer: bool
) -> None:
    """An integer spelled as a float is held to the integer budget: `integer` gives the verdict."""
    value = parse(raw, limits)
    assert type(value) is ExactFloat
    assert value == float(raw)
    assert value.integer is integer
    assert value.exact == int(Decimal(raw.decode()))


@pytest.mark.parametrize(
    ("raw", "limits"),
    [
        pytest.param(b"1e18", DEFAULTS, id="1e18"),
        pytest.param(b"-9.223372036854775e18", DEFAULTS, id="just-under-2**63"),
        pytest.param(b"999.0", Limits(max_integer_digits=3), id="999.0-at-3-digits"),
        pytest.param(b"12345.5", Limits(max_integer_digits=3), id="a-fraction-at-3-digits"),
    ],
)
def test_float_token_within_budget_or_not_integral_is_a_plain_float(
    raw: bytes, limits: Limits
) -> None:
    """A float token whose float is its number, integral within budget or not integral at all."""
    assert same_json(parse(raw, limits), float(raw))
    assert type(parse(raw, limits)) is float


@pytest.mark.parametrize(
    "raw", [b"+1", b".5", b"1.", b"01", b"-01", b"-", b"1e", b"1.e5", b"0x10", b"1_000"], ids=repr
)
def test_number_outside_the_json_grammar_is_rejected(raw: bytes) -> None:
    """Leading plus or zeros, bare dots, hex and digit separators are parse errors."""
    assert isinstance(rejected(raw), ParseError)


# --- trailing data -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"{} x", id="word"),
        pytest.param(b"{}{}", id="second-object"),
        pytest.param(b"[1] 2", id="second-number"),
        pytest.param(b"1 2", id="two-numbers"),
        pytest.param(b'"a" "b"', id="two-strings"),
        pytest.param(b'"a""b"', id="two-strings-glued"),
        pytest.param(b"[]]", id="extra-bracket"),
        pytest.param(b"null,", id="comma"),
        pytest.param(b"{}\x00", id="nul-byte"),
        pytest.param(b"{} // comment", id="line-comment"),
    ],
)
def test_data_after_the_value_is_rejected_as_trailing_data(raw: bytes) -> None:
    """Anything but JSON whitespace after the one value is trailing_data."""
    assert_parse_error(raw, "trailing_data")


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b'{}"', id="lone-quote"),
        pytest.param(b'{}"x', id="quote-and-word"),
        pytest.param(b'{"ok":true} "; rm -rf / ', id="quote-and-sentence"),
        pytest.param(b'[1]"\\u0041', id="quote-and-escape"),
        pytest.param(b'0"', id="after-a-number"),
        pytest.param(b'"a""', id="after-a-string"),
    ],
)
def test_unterminated_string_after_the_value_is_rejected_as_trailing_data(raw: bytes) -> None:
    """A second, unterminated string after the value is trailing data too, not ignored."""
    assert_parse_error(raw, "trailing_data")


def test_json_whitespace_after_the_value_is_accepted() -> None:
    """Space, tab, CR and LF may follow the value."""
    assert parse(b"{} \t\r\n ") == {}


# --- encoding ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"\xef\xbb\xbf{}", id="before-object"),
        pytest.param(b"\xef\xbb\xbf", id="alone"),
        pytest.param(b'\xef\xbb\xbf"x"', id="before-string"),
    ],
)
def test_utf8_byte_order_mark_is_rejected(raw: bytes) -> None:
    """A UTF-8 byte-order mark at the start is rejected as `bom`."""
    assert_parse_error(raw, "bom")


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b'"\xc0\xaf"', id="overlong-2-byte-solidus"),
        pytest.param(b'"\xe0\x80\xaf"', id="overlong-3-byte"),
        pytest.param(b'"\xf0\x80\x80\xaf"', id="overlong-4-byte"),
        pytest.param(b'"\x80"', id="lone-continuation"),
        pytest.param(b'"\xbf\xbf"', id="two-continuations"),
        pytest.param(b'"\xed\xa0\x80"', id="encoded-high-surrogate-ED-A0-80"),
        pytest.param(b'"\xed\xbf\xbf"', id="encoded-low-surrogate"),
        pytest.param(b'"\xe2\x82"', id="truncated-3-byte"),
        pytest.param(b'"\xf0\x9f\x98"', id="truncated-4-byte"),
        pytest.param(b'"\xc3"', id="truncated-2-byte"),
        pytest.param(b'"\xf4\x90\x80\x80"', id="beyond-U+10FFFF"),
        pytest.param(b'"\xfe\xff"', id="bytes-FE-FF"),
        pytest.param(b'{"\xff":1}', id="in-member-name"),
        pytest.param(b"[1,\xff]", id="outside-a-string"),
        pytest.param(b'"\xe9"', id="latin-1"),
    ],
)
def test_invalid_utf8_is_rejected(raw: bytes) -> None:
    """Overlong, stray, surrogate-encoding, truncated or out-of-range UTF-8 is invalid_utf8."""
    assert_parse_error(raw, "invalid_utf8")


@pytest.mark.parametrize(
    "text",
    ["é", "€", "😀", "\U0010ffff", "\ufeff", "\ufffe"],
    ids=lambda text: f"U+{ord(text):04X}",
)
def test_valid_multibyte_utf8_in_a_string_is_accepted(text: str) -> None:
    """Raw UTF-8 of any plane, noncharacters and a mid-text U+FEFF included, is accepted."""
    assert parse(f'"{text}"'.encode()) == text


@pytest.mark.parametrize("byte", range(0x20), ids=lambda byte: f"0x{byte:02X}")
def test_raw_control_character_in_a_string_is_rejected(byte: int) -> None:
    """Every raw byte below 0x20 inside a string is a parse error (it must be escaped)."""
    assert isinstance(rejected(b'"a' + bytes([byte]) + b'b"'), ParseError)


@pytest.mark.parametrize("byte", [b"\x00", b"\t", b"\n", b"\x1f"], ids=repr)
def test_raw_control_character_in_a_member_name_is_rejected_as_control_character(
    byte: bytes,
) -> None:
    """A raw control character inside a member name is a control_character parse error."""
    assert_parse_error(b'{"a' + byte + b'":1}', "control_character")


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"[1,\x0c2]", id="form-feed-after-comma"),
        pytest.param(b"\x0c{}", id="form-feed-before-value"),
        pytest.param(b"{}\x0c", id="form-feed-after-value"),
        pytest.param(b'{"a":\x0b1}', id="vertical-tab-after-colon"),
        pytest.param(b"[\x0b]", id="vertical-tab-in-array"),
    ],
)
def test_form_feed_or_vertical_tab_between_tokens_is_rejected(raw: bytes) -> None:
    """Form feed and vertical tab are not JSON whitespace."""
    assert isinstance(rejected(raw), ParseError)


# --- surrogate escapes -------------------------------------------------------------------------


UNPAIRED_SURROGATES = [
    pytest.param(b'"\\ud800"', id="lone-high"),
    pytest.param(b'"\\udc00"', id="lone-low"),
    pytest.param(b'"\\udc00\\ud800"', id="reversed-pair"),
    pytest.param(b'"\\ud800\\u0041"', id="high-then-non-surrogate-escape"),
    pytest.param(b'"\\ud800\\ud800"', id="high-then-high"),
    pytest.param(b'"\\ud800\\n"', id="high-then-short-escape"),
    pytest.param(b'"\\ud800x\\udc00"', id="high-then-text-then-low"),
    pytest.param(b'"\\ud800"', id="high-at-end"),
    pytest.param(b'"\\uDBFF"', id="lone-high-uppercase"),
    pytest.param(b'"\\ud800\\\\udc00"', id="high-then-escaped-backslash"),
    pytest.param(b'"\\\\\\ud800"', id="escaped-backslash-then-lone-high"),
    pytest.param(b'["\\ud800","\\udc00"]', id="pair-split-across-strings"),
    pytest.param(b'{"\\ud800":1}', id="in-member-name"),
    pytest.param(b'"\\ud800\\ud800\\udc00"', id="extra-high-before-pair"),
]
# In a large document, the hint is searched for another way (`parse._surrogate_hint`).
LARGE_PADDING = b"0," * 40_000
WIDE = Limits(max_bytes=1 << 20, max_container_items=100_000)


@pytest.mark.parametrize("raw", UNPAIRED_SURROGATES)
def test_unpaired_surrogate_escape_is_rejected(raw: bytes) -> None:
    """A surrogate escape not forming a high-then-low pair is a lone_surrogate parse error."""
    assert_parse_error(raw, "lone_surrogate")


@pytest.mark.parametrize("raw", UNPAIRED_SURROGATES)
@pytest.mark.parametrize("at_end", [False, True])
def test_unpaired_surrogate_escape_in_a_large_document_is_rejected(
    raw: bytes, at_end: bool
) -> None:
    large = b"[" + (LARGE_PADDING + raw if at_end else raw + b"," + LARGE_PADDING[:-1]) + b"]"
    with pytest.raises(ParseError) as caught:
        parse(large, WIDE)
    assert caught.value.reason == "lone_surrogate"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(b'"\\ud83d\\ude00"', "😀", id="U+1F600"),
        pytest.param(b'"\\uD83D\\uDE00"', "😀", id="U+1F600-uppercase"),
        pytest.param(b'"\\ud800\\udc00"', "\U00010000", id="U+10000"),
        pytest.param(b'"\\udbff\\udfff"', "\U0010ffff", id="U+10FFFF"),
        pytest.param(b'{"\\ud834\\udd1e":1}', {"\U0001d11e": 1}, id="in-member-name"),
    ],
)
def test_valid_surrogate_pair_escape_decodes_to_the_astral_character(
    raw: bytes, expected: Any
) -> None:
    """A high-then-low surrogate escape pair decodes to its single astral character."""
    assert parse(raw) == expected
    assert parse(b"[" + LARGE_PADDING + raw + b"]", WIDE)[-1] == expected


# Long, but under its string budget and with too few brackets and commas to be screened.
_LONG_UNSCREENED = (
    "import sys\n"
    "from toolguard.limits import Limits\n"
    "from toolguard.parse import parse\n"
    "raw = b'{\"text\":\"' + b'x' * 100_000 + b'\",\"n\":[1,2,3]}'\n"
    "assert parse(raw, Limits(max_string_length=1 << 20))['n'] == [1, 2, 3]\n"
    "sys.stdout.write(str('re' in sys.modules))\n"
)


def test_a_long_document_the_fast_path_does_not_screen_never_imports_re() -> None:
    """Only a screened document's surrogate hint is a pattern: the screen imports `re`
    anyway, and importing it would cost a one-shot check more than the pattern saves."""
    done = subprocess.run(
        [sys.executable, "-c", _LONG_UNSCREENED], capture_output=True, text=True, check=True
    )
    assert done.stdout == "False"


def test_escaped_backslash_before_u_is_six_characters_of_text() -> None:
    r"""`"\\ud800"` is an escaped backslash followed by `ud800`, not a surrogate escape."""
    assert parse(b'"\\\\ud800"') == "\\ud800"


# --- empty and truncated input -----------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"", id="no-bytes"),
        pytest.param(b" ", id="space"),
        pytest.param(b" \t\r\n", id="all-whitespace-kinds"),
        pytest.param(b"\n" * 5000, id="many-newlines"),
    ],
)
def test_empty_or_whitespace_only_input_is_rejected_as_empty(raw: bytes) -> None:
    """No value at all is rejected as `empty`."""
    assert_parse_error(raw, "empty")


@pytest.mark.parametrize(
    "raw",
    [b"[", b"{", b"[1,2", b'{"a":', b'{"a"', b'{"a":1,', b'"abc', b'"\\', b"tru", b"nul", b"[1e"],
    ids=repr,
)
def test_truncated_document_is_rejected(raw: bytes) -> None:
    """A document cut off before its value is complete is a parse error."""
    assert isinstance(rejected(raw), ParseError)


@pytest.mark.parametrize("raw", [b"[", b"[1,2", b'{"a":1,', b'"abc', b'["ab', b'{"a":"b'], ids=repr)
def test_a_document_cut_off_inside_a_container_or_string_is_truncated(raw: bytes) -> None:
    """Cut off at the end, inside the value: `truncated`, neither trailing data (the value
    was never complete) nor a control character (the end is not a byte of the string)."""
    assert_parse_error(raw, "truncated")


# --- string and container budgets --------------------------------------------------------------

SHORT_STRINGS = Limits(max_string_length=3)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b'"abc"', id="value"),
        pytest.param(b'{"abc":"abc"}', id="member-name"),
        pytest.param('"ééé"'.encode(), id="multibyte-counts-characters"),
    ],
)
def test_string_at_max_string_length_is_accepted(raw: bytes) -> None:
    """A three-character string or member name is accepted at max_string_length=3."""
    parse(raw, SHORT_STRINGS)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b'"abcd"', id="value"),
        pytest.param(b'["ok","abcd"]', id="value-in-array"),
        pytest.param(b'{"abcd":1}', id="member-name"),
        pytest.param(b'{"a":{"abcd":1}}', id="nested-member-name"),
        pytest.param(b'"\\u0061\\u0062\\u0063\\u0064"', id="escaped"),
        pytest.param('"éééé"'.encode(), id="multibyte"),
        pytest.param(b'"' + b"x" * 100_000 + b'"', id="100k-characters"),
    ],
)
def test_string_over_max_string_length_is_rejected(raw: bytes) -> None:
    """A four-character string or member name is a string_too_long limit at length 3."""
    assert_limit_exceeded(raw, "string_too_long", SHORT_STRINGS)


THREE_ITEMS = Limits(max_container_items=3)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"[1,2,3]", id="array"),
        pytest.param(b'{"a":1,"b":2,"c":3}', id="object"),
        pytest.param(b"[[1,2,3],[1,2,3],[1,2,3]]", id="each-of-several"),
    ],
)
def test_container_at_max_container_items_is_accepted(raw: bytes) -> None:
    """A container of three entries is accepted at max_container_items=3."""
    parse(raw, THREE_ITEMS)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"[1,2,3,4]", id="array"),
        pytest.param(b'{"a":1,"b":2,"c":3,"d":4}', id="object"),
        pytest.param(b"[[],[1,2,3,4]]", id="inner-array"),
        pytest.param(b'{"x":{"a":1,"b":2,"c":3,"d":4}}', id="inner-object"),
        pytest.param(b"[" + b"0," * 100_000 + b"0]", id="100k-items"),
    ],
)
def test_container_over_max_container_items_is_rejected(raw: bytes) -> None:
    """A container of four entries is a container_too_large limit at three."""
    assert_limit_exceeded(raw, "container_too_large", THREE_ITEMS)


# --- offsets -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "limits", "first", "last"),
    [
        # first..last: from the offending byte to just after its token.
        pytest.param(b'{"a":1,"a":2}', DEFAULTS, 7, 10, id="second-duplicate-name"),
        pytest.param(b'{"d\\u0065cision":1,"decision":2}', DEFAULTS, 19, 29, id="escaped-dup"),
        pytest.param(b'{"x":{"a":1,"a":2}}', DEFAULTS, 12, 15, id="nested-duplicate-name"),
        pytest.param(b"{} x", DEFAULTS, 3, 4, id="trailing-word"),
        pytest.param(b"{}{}", DEFAULTS, 2, 3, id="trailing-object"),
        pytest.param(b"\xef\xbb\xbf{}", DEFAULTS, 0, 0, id="bom"),
        pytest.param(b'["ok","a\xffb"]', DEFAULTS, 8, 8, id="bad-utf8-start"),
        pytest.param(b'["\xe2\x82"]', DEFAULTS, 2, 2, id="truncated-utf8-start"),
        pytest.param(b'["x","\\udc00"]', DEFAULTS, 6, 12, id="lone-surrogate"),
        pytest.param(b"[[[[0]]]]", Limits(max_depth=3), 3, 4, id="first-too-deep-bracket"),
        pytest.param(b'["ab","abcd"]', SHORT_STRINGS, 6, 12, id="long-string"),
        pytest.param(b"[1,2,3,4]", THREE_ITEMS, 7, 8, id="fourth-item"),
        pytest.param(b"[1, NaN]", DEFAULTS, 4, 7, id="NaN"),
    ],
)
def test_rejection_offset_points_at_the_offending_byte(
    raw: bytes, limits: Limits, first: int, last: int
) -> None:
    """The offset lies on the offending token, from its first byte to just after its last."""
    offset = rejected(raw, limits).offset
    assert offset is not None
    assert first <= offset <= last, offset


# --- properties --------------------------------------------------------------------------------

ROUND_TRIP_LIMITS = Limits(max_depth=6, max_string_length=12, max_container_items=5)


@PROPERTY
@given(json_values(ROUND_TRIP_LIMITS), st.booleans())
def test_any_value_within_limits_round_trips(value: Any, ascii_only: bool) -> None:
    """`parse(json.dumps(v))` gives back `v`, types and the sign of zero included."""
    raw = json.dumps(value, ensure_ascii=ascii_only).encode()
    assert same_json(parse(raw, ROUND_TRIP_LIMITS), value)


@PROPERTY
@given(objects_with_duplicate_member())
def test_any_object_with_a_repeated_member_name_is_rejected(raw: bytes) -> None:
    """However it is spelled, nested or placed, a repeated member name is duplicate_member."""
    assert_parse_error(raw, "duplicate_member")


@PROPERTY
@given(st.integers(min_value=1, max_value=64).flatmap(nesting_kinds))
def test_depth_n_is_accepted_and_n_plus_one_rejected_at_max_depth_n(kinds: list[bool]) -> None:
    """At any max_depth N, N levels of mixed containers parse and N + 1 are too_deep."""
    limits = Limits(max_depth=len(kinds))
    parse(nested_text(kinds), limits)
    assert_limit_exceeded(nested_text([*kinds, True]), "too_deep", limits)


@PROPERTY
@given(st.one_of(st.binary(max_size=64), mutated_json_texts()))
def test_arbitrary_bytes_only_ever_raise_a_parse_or_limit_rejection(raw: bytes) -> None:
    """No input makes the parser raise anything but `ParseError` or `LimitExceeded`."""
    with contextlib.suppress(ParseError, LimitExceeded):
        parse(raw, ROUND_TRIP_LIMITS)


@PROPERTY
@given(st.one_of(st.binary(max_size=64), mutated_json_texts()))
def test_rejection_offset_lies_within_the_input(raw: bytes) -> None:
    """A rejection's offset, when given, is a position in the input (0 to its length)."""
    try:
        parse(raw, ROUND_TRIP_LIMITS)
    except Rejection as rejection:
        offset = rejection.offset
    else:
        return
    assert offset is None or 0 <= offset <= len(raw)


@PROPERTY
@given(json_values(ROUND_TRIP_LIMITS), st.sampled_from([b"x", b"0", b"[]", b"{}", b'"s"', b"n"]))
def test_any_value_followed_by_another_token_is_rejected(value: Any, tail: bytes) -> None:
    """Whatever the value, a second token after it is a parse error."""
    raw = json.dumps(value).encode() + b" " + tail
    assert isinstance(rejected(raw, ROUND_TRIP_LIMITS), ParseError)


def test_floats_never_come_back_as_decimal() -> None:
    """Every number in a mixed document is an int or a float, never a Decimal."""
    value = parse(b"[1, 1.0, 1e1, -0.5, 1E-2, 1234567890123456.7, 1e300]")
    assert [type(item) for item in value] == [int] + [float] * 4 + [ExactFloat] * 2
    assert all(isinstance(item, float) for item in value[1:])


def test_the_offset_of_a_rejection_does_not_depend_on_the_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A machine slow enough to take a second per byte still names NaN at its exact offset."""
    ticks = iter(range(10**9))
    monkeypatch.setattr(time, "perf_counter", lambda: float(next(ticks)))
    raw = b'["' + b"x" * 3000 + b'",NaN]'
    with pytest.raises(Rejection) as caught:
        parse(raw, Limits())
    assert (caught.value.reason, caught.value.offset) == ("non_finite_number", raw.index(b"NaN"))


def test_a_replay_past_its_budget_still_rejects_at_the_chunk() -> None:
    """A very long token before the error: the offset is the chunk's, the answer the same."""
    raw = b'["' + b"x" * 20_000 + b'",NaN]'
    with pytest.raises(Rejection) as caught:
        parse(raw, Limits())
    assert caught.value.offset is not None


def test_ijson_without_its_c_backend_is_a_broken_install_that_says_what_to_reinstall(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ijson built without yajl2_c (no wheel, no compiler) is named, never a silent fallback."""
    monkeypatch.setitem(sys.modules, "ijson.backends.yajl2_c", None)  # import raises ImportError
    with pytest.raises(BrokenInstall, match=r"no yajl2_c backend.*pip install .*ijson"):
        parse(b'{"a": 1, "a": 2}')  # a duplicate member: the strict path, hence yajl
