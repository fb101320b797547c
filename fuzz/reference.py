"""A strict JSON reference that shares no code with toolguard's parser: the oracle of the fuzzers.

Python's `json` (its C scanner, not yajl) reads the text; everything toolguard's policy adds to
RFC 8259 is checked here from scratch: strict UTF-8 (no overlong forms, no encoded
surrogates), no byte-order mark, no duplicate member names, no `NaN` / `Infinity`, no lone or
reversed surrogate escape, no float token the delivered double would misrepresent (overflow,
over 17 significant digits, a non-zero value that underflows to zero), and every budget of
a `Limits`. `reference_parse` returns the value toolguard must return, or raises `Refused`;
`same` compares two values exactly (types, key order, the sign of zero).
"""

from __future__ import annotations

import json
import math
from decimal import Decimal, InvalidOperation
from typing import Any

from toolguard.limits import Limits

BOM = b"\xef\xbb\xbf"
INT64_MAX = 2**63 - 1
# I-JSON (RFC 7493 section 2.2): more significant digits than a double tells apart.
MAX_SIGNIFICANT_DIGITS = 17


class Refused(Exception):
    """The reference rejects the document; `why` names the check, for the report."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def reference_parse(raw: bytes, limits: Limits, *, as_written: bool = False) -> Any:
    """The value of `raw` as one strict JSON document within `limits`, or `Refused`.

    A number with a fraction or an exponent is a `float`, or with `as_written` the `Decimal`
    the text wrote (what a schema's numeric keywords must be decided on).
    """
    if len(raw) > limits.max_bytes:
        raise Refused("too_large")
    if raw.startswith(BOM):
        raise Refused("bom")
    try:
        text = raw.decode("utf-8")  # strict: overlong forms and encoded surrogates fail
    except UnicodeDecodeError:
        raise Refused("invalid_utf8") from None
    decoder = json.JSONDecoder(
        object_pairs_hook=_members,
        parse_constant=_constant,
        parse_int=_integer(limits),
        parse_float=_decimal if as_written else _float,
    )
    try:
        value = decoder.decode(text)
    except RecursionError:
        raise Refused("too_deep") from None  # json recursed ~1000 levels: over any max_depth
    except ValueError:
        raise Refused("syntax") from None
    _within(value, limits)
    return value


def _members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        raise Refused("duplicate_member")
    return value


def _constant(name: str) -> Any:
    raise Refused(f"non_finite_number {name}")


def _integer(limits: Limits) -> Any:
    bound = 10**limits.max_integer_digits

    def read(token: str) -> int:
        # NOTE: the length first: `int()` of thousands of digits is slow, and refused anyway.
        if len(token.lstrip("-")) > limits.max_integer_digits:
            raise Refused("integer_too_long")
        value = int(token)
        if not -bound < value < bound or abs(value) > INT64_MAX:
            raise Refused("integer_too_long")
        return value

    return read


def _float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise Refused("non_finite_number")
    # Numbers are validated as written: the delivered double must not misrepresent the text.
    # NOTE: counted on the text: `Decimal` refuses exponents beyond its context's range.
    mantissa = token.lower().partition("e")[0]
    significant = len(mantissa.lstrip("-").replace(".", "").strip("0"))
    if significant > MAX_SIGNIFICANT_DIGITS:
        raise Refused("number_too_precise")
    if significant and value == 0.0:
        raise Refused("number_underflow")
    return value


def _decimal(token: str) -> Decimal:
    value = _float(token)
    try:
        return Decimal(token)
    except InvalidOperation:  # an exponent beyond Decimal's range: `_float` let only zeros by
        return Decimal(value)


def _within(value: Any, limits: Limits) -> None:
    """Every budget but bytes and integers, and no surrogate code point, checked by walking."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            _string(node, limits)
        elif isinstance(node, dict | list):
            if depth + 1 > limits.max_depth:
                raise Refused("too_deep")
            if len(node) > limits.max_container_items:
                raise Refused("container_too_large")
            if isinstance(node, dict):
                for key in node:
                    _string(key, limits)
                stack.extend((item, depth + 1) for item in node.values())
            else:
                stack.extend((item, depth + 1) for item in node)


def _string(text: str, limits: Limits) -> None:
    if len(text) > limits.max_string_length:
        raise Refused("string_too_long")
    # The input was valid UTF-8, so a surrogate here came from an escape that had no partner.
    if any("\ud800" <= char <= "\udfff" for char in text):
        raise Refused("lone_surrogate")


def same(left: Any, right: Any) -> bool:
    """Whether two JSON values are identical: types (1, 1.0, True), key order, sign of zero."""
    if isinstance(left, float) and isinstance(right, float):
        return left == right and math.copysign(1.0, left) == math.copysign(1.0, right)
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return list(left) == list(right) and all(same(left[key], right[key]) for key in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(map(same, left, right))
    return bool(left == right)
